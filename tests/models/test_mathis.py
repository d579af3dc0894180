"""Tests of models.mathis: square-root law, loss vs N_b and FPQ (seed 004 §II, §IV)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.bscl import kp_packets, loss_buffer_bytes
from models.mathis import (
    fpq_buffer_packets,
    loss_limited_queueing_delay_s,
    loss_rate_for_flows,
    mathis_throughput_bps,
    max_flows_for_loss_rate,
)


def test_mathis_throughput_by_hand() -> None:
    # 004 eq. 2: R = 0.87·M/(T·√p). M = 1500 B, T = 100 ms, p = 1 %:
    # 0.87 · 1500 / (0.1 · 0.1) = 130,500 B/s = 1,044,000 bit/s. Exact arithmetic.
    assert mathis_throughput_bps(1500.0, 0.1, 0.01) == pytest.approx(1_044_000.0, rel=1e-12)


def test_mathis_window_independent_of_rtt() -> None:
    # 004 §II.a: "the average window of an LBP flow, W = RT, is independent of the flow's RTT".
    w = [mathis_throughput_bps(1500.0, t, 0.02) * t for t in (0.01, 0.1, 1.0)]
    assert w[0] == pytest.approx(w[1], rel=1e-12)
    assert w[1] == pytest.approx(w[2], rel=1e-12)


def test_loss_rate_for_flows_by_hand() -> None:
    # 004 eq. 18: p = N_b²(0.87/(CT))², C·T in packets. C = 50 Mb/s, T = 0.1 s, M = 1500 B:
    # C·T = 50e6·0.1/(8·1500) = 416.67 packets; N_b = 20: p = (20·0.87/416.67)² = 0.0017439...
    expected = (20 * 0.87 / (50e6 * 0.1 / (8 * 1500))) ** 2
    assert loss_rate_for_flows(20, 50e6, 0.1, 1500.0) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(0.0017439, rel=1e-4)


def test_loss_grows_with_square_of_flows() -> None:
    # 004 §II (after Morris): "the loss rate increases almost with the square of the number of
    # competing flows"; eq. 18 makes it exact: twice the flows, four times the loss.
    p1 = loss_rate_for_flows(10, 100e6, 0.05, 1500.0)
    p2 = loss_rate_for_flows(20, 100e6, 0.05, 1500.0)
    assert p2 == pytest.approx(4 * p1, rel=1e-12)


def test_loss_rate_clipped_to_one() -> None:
    # Far more flows than packets in flight: the formula exceeds 1, outside the model (004 §IV:
    # eq. 18 "is valid as long as the model of (2) is applicable"); the value is clipped.
    assert loss_rate_for_flows(1e6, 1e6, 0.01, 1500.0) == 1.0


@settings(max_examples=200, deadline=None)
@given(
    st.floats(1.0, 1e4),
    st.floats(1e6, 1e11),
    st.floats(1e-3, 1.0),
    st.floats(64.0, 9000.0),
)
def test_flows_at_eq18_loss_fill_the_link(n: float, c: float, t: float, m: float) -> None:
    # 004 §IV: eq. 18 is the loss rate at which "N_b homogeneous flows with RTT T saturate a link
    # with capacity C", i.e. N_b·R(p) = C with R from eq. 2.
    p = loss_rate_for_flows(n, c, t, m)
    if p >= 1.0:  # clipped: outside the model
        return
    assert n * mathis_throughput_bps(m, t, p) == pytest.approx(c, rel=1e-9)


def test_max_flows_inverts_eq18() -> None:
    # 004 §IV: "the number of persistent TCP flows should be less than √p̂·CT/0.87".
    # By hand: √0.01 · 416.67 / 0.87 = 47.89 flows.
    n = max_flows_for_loss_rate(0.01, 50e6, 0.1, 1500.0)
    assert n == pytest.approx(0.1 * (50e6 * 0.1 / 12000) / 0.87, rel=1e-12)
    assert n == pytest.approx(47.89, abs=0.01)
    assert loss_rate_for_flows(n, 50e6, 0.1, 1500.0) == pytest.approx(0.01, rel=1e-12)


def test_queueing_delay_eq20_by_hand_and_eq21() -> None:
    # 004 eq. 20: T̂_q = 0.87·N_b/(C·√p̂) − T_p with C in packets/s. C = 50 Mb/s = 4166.67
    # pkt/s, N_b = 100, p̂ = 1 %, T_p = 50 ms: 0.87·100/(4166.67·0.1) − 0.05 = 0.1588 s.
    d = loss_limited_queueing_delay_s(100, 50e6, 0.05, 1500.0, 0.01)
    assert d == pytest.approx(0.87 * 100 / (50e6 / 12000 * 0.1) - 0.05, rel=1e-12)
    assert d == pytest.approx(0.1588, abs=1e-4)
    # eq. 21: B ≈ C·T̂_q = K_p·N_b − C·T_p, the loss term of BSCL with C_e = C and T_e = T_p.
    b = loss_buffer_bytes(kp_packets(0.01), 50e6, 0.05, 100, 1500.0)
    assert 50e6 / 8 * d == pytest.approx(b, rel=1e-12)


def test_queueing_delay_never_negative() -> None:
    # Few flows on a long path: the path alone holds the windows; no queueing needed.
    assert loss_limited_queueing_delay_s(1, 1e9, 0.2, 1500.0, 0.01) == 0.0


def test_fpq_six_packets_per_flow() -> None:
    # 004 §IV.A: "FPQ sets K_p to 6 packets, and it does not take into account the term CT_p"
    # (Morris, INFOCOM 2000). 100 flows -> 600 packets.
    assert fpq_buffer_packets(100) == 600.0
    assert fpq_buffer_packets(100, packets_per_flow=9) == 900.0
    # 004 §IV.A: "K_p ≈ 6 packets for p̂=2%": FPQ's 6 is K_p at about 2 % loss.
    assert round(kp_packets(0.02)) == 6


def test_vectorised() -> None:
    flows = np.array([1.0, 10.0, 100.0])
    out = fpq_buffer_packets(flows)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, [6.0, 60.0, 600.0])
    rates = mathis_throughput_bps(1500.0, np.array([0.01, 0.1]), 0.01)
    np.testing.assert_allclose(rates, [10_440_000.0, 1_044_000.0], rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.floats(1e-6, 0.5), st.floats(0.0, 0.4))
def test_more_loss_less_throughput(p: float, dp: float) -> None:
    p2 = min(p + dp, 0.9)
    assert mathis_throughput_bps(1500.0, 0.1, p2) <= mathis_throughput_bps(1500.0, 0.1, p)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mathis_throughput_bps(0.0, 0.1, 0.01), "packet_bytes must be > 0"),
        (lambda: mathis_throughput_bps(1500.0, -0.1, 0.01), "rtt_s must be > 0"),
        (lambda: mathis_throughput_bps(1500.0, 0.1, 0.0), r"loss_rate must be in \(0, 1\)"),
        (lambda: mathis_throughput_bps(1500.0, 0.1, 1.0), r"loss_rate must be in \(0, 1\)"),
        (lambda: mathis_throughput_bps(1500.0, math.nan, 0.01), "rtt_s must be finite"),
        (lambda: loss_rate_for_flows(0, 1e9, 0.1, 1500.0), "bottlenecked_flows must be >= 1"),
        (lambda: loss_rate_for_flows(10, 0.0, 0.1, 1500.0), "capacity_bps must be > 0"),
        (lambda: loss_rate_for_flows(10, math.inf, 0.1, 1500.0), "capacity_bps must be finite"),
        (
            lambda: max_flows_for_loss_rate(1.5, 1e9, 0.1, 1500.0),
            r"max_loss must be in \(0, 1\)",
        ),
        (
            lambda: loss_limited_queueing_delay_s(10, 1e9, 0.0, 1500.0, 0.01),
            "base_rtt_s must be > 0",
        ),
        (lambda: fpq_buffer_packets(0), "bottlenecked_flows must be >= 1"),
        (lambda: fpq_buffer_packets(10, packets_per_flow=0), "packets_per_flow must be > 0"),
    ],
)
def test_invalid_input_names_parameter_and_bound(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
