"""Rule of thumb, its multiplicative-decrease generalization and the unit conversions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.rule_of_thumb import (
    bdp_buffer_packets,
    harmonic_mean_rtt_s,
    md_beta_buffer_packets,
    packets_to_bytes,
    packets_to_seconds,
    seconds_to_packets,
)

capacities = st.floats(min_value=1e3, max_value=1e13)
rtts = st.floats(min_value=1e-5, max_value=10.0)
packet_sizes = st.floats(min_value=40.0, max_value=9000.0)


def test_thesis_example_125000_packets() -> None:
    # 000 §1.3: "1000 flows share a link of capacity 10Gb/s ... round-trip propagation delay of
    # 100ms ... packet size of 1KB ... The bandwidth-delay product rule-of-thumb suggests a
    # buffer size of 125MB, or around 125,000 packets."
    # 10e9 * 0.1 / 8 / 1000 is exact arithmetic, so only float rounding is allowed.
    packets = bdp_buffer_packets(10e9, 0.1, 1000.0)
    assert packets == pytest.approx(125_000, rel=1e-12)
    assert packets_to_bytes(packets, 1000.0) == pytest.approx(125e6, rel=1e-12)


def test_auge_roberts_40g_250ms_is_1_25_gbytes() -> None:
    # 002 §I: "With an assumed maximum RTT of 250ms, the buffer requirement for an OC768
    # (40Gbps) link would be some 1.2GBytes." 40e9 * 0.25 / 8 = 1.25e9 bytes exactly (check
    # values, docs/references.md); the paper truncates it to "some 1.2", hence 0.05 GB allowed.
    buffer_bytes = float(packets_to_bytes(bdp_buffer_packets(40e9, 0.25, 1500.0), 1500.0))
    assert buffer_bytes == pytest.approx(1.25e9, rel=1e-12)
    assert abs(buffer_bytes - 1.2e9) <= 0.05e9


def test_reno_beta_reproduces_rule_of_thumb() -> None:
    # Beyond the papers (docs/references.md): Reno reproduces the rule of thumb (β = 0.5 -> 1x).
    assert md_beta_buffer_packets(10e9, 0.1, 1000.0, md_beta=0.5) == pytest.approx(
        125_000, rel=1e-12
    )


def test_cubic_beta_gives_0_43_of_bdp() -> None:
    # Check values (docs/references.md): CUBIC's 0.43x, with β_cubic = 0.7 from RFC 9438 §4.6;
    # (1-0.7)/0.7 = 3/7 = 0.4286, quoted to two decimals, hence abs 0.005.
    ratio = float(md_beta_buffer_packets(10e9, 0.1, 1000.0, md_beta=0.7)) / 125_000
    assert abs(ratio - 0.43) < 0.005


def test_harmonic_mean_rtt_dhamdhere_example() -> None:
    # 004 §III.B: "suppose that we have N_b RTTs uniformly distributed from T/N_b to T ...
    # T_e = T / sum 1/i, which can be approximated by T_e ≈ T/(ln N_b + 1). For N_b=1000, we
    # get T_e ≈ T/8, while the RTT arithmetic mean is approximately four times larger."
    # The paper rounds T/T_e (7.49 exactly, 7.91 by its approximation) to 8, so we accept
    # [7.4, 8.0]; "approximately four times" is read as [3.5, 4.5].
    rtt_s = 0.2
    rtts = rtt_s * np.arange(1, 1001) / 1000
    effective = harmonic_mean_rtt_s(rtts)
    assert 7.4 <= rtt_s / effective <= 8.0
    assert 3.5 <= float(np.mean(rtts)) / effective <= 4.5


def test_harmonic_mean_of_equal_rtts_is_that_rtt() -> None:
    assert harmonic_mean_rtt_s([0.1, 0.1, 0.1]) == pytest.approx(0.1, rel=1e-12)


def test_vectorised_over_capacity() -> None:
    packets = bdp_buffer_packets(np.array([1e9, 10e9]), 0.1, 1000.0)
    assert isinstance(packets, np.ndarray)
    np.testing.assert_allclose(packets, [12_500, 125_000], rtol=1e-12)


def test_conversions_round_trip_at_line_rate() -> None:
    # 125,000 packets of 1000 B drain in 100 ms at 10 Gb/s (the same 000 §1.3 example).
    assert packets_to_seconds(125_000, 10e9, 1000.0) == pytest.approx(0.1, rel=1e-12)
    assert seconds_to_packets(0.1, 10e9, 1000.0) == pytest.approx(125_000, rel=1e-12)


@given(capacities, rtts, packet_sizes, st.floats(min_value=0.05, max_value=0.95))
def test_md_beta_falls_as_beta_rises(c: float, t: float, p: float, beta: float) -> None:
    # A gentler decrease (larger β) leaves more of the window, so less buffer is needed.
    smaller = md_beta_buffer_packets(c, t, p, md_beta=min(beta + 0.04, 0.99))
    assert smaller <= md_beta_buffer_packets(c, t, p, md_beta=beta)


@given(capacities, rtts, packet_sizes)
def test_bdp_is_linear_in_capacity_and_rtt(c: float, t: float, p: float) -> None:
    base = bdp_buffer_packets(c, t, p)
    assert bdp_buffer_packets(2 * c, t, p) == pytest.approx(2 * base, rel=1e-12)
    assert bdp_buffer_packets(c, 3 * t, p) == pytest.approx(3 * base, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "name", "bound"),
    [
        ({"capacity_bps": 0.0}, "capacity_bps", "> 0"),
        ({"capacity_bps": -1e9}, "capacity_bps", "> 0"),
        ({"capacity_bps": math.nan}, "capacity_bps", "finite"),
        ({"rtt_s": math.inf}, "rtt_s", "finite"),
        ({"rtt_s": 0.0}, "rtt_s", "> 0"),
        ({"packet_bytes": 0.0}, "packet_bytes", "> 0"),
    ],
)
def test_invalid_link_rejected(kwargs: dict[str, float], name: str, bound: str) -> None:
    args = {"capacity_bps": 10e9, "rtt_s": 0.1, "packet_bytes": 1000.0} | kwargs
    with pytest.raises(ValueError, match=name) as info:
        bdp_buffer_packets(**args)
    assert bound in str(info.value)


@pytest.mark.parametrize("beta", [0.0, 1.0, -0.5, 1.5, math.nan])
def test_invalid_beta_rejected(beta: float) -> None:
    with pytest.raises(ValueError, match="md_beta"):
        md_beta_buffer_packets(10e9, 0.1, 1000.0, md_beta=beta)


def test_negative_buffer_rejected_in_conversions() -> None:
    with pytest.raises(ValueError, match=r"buffer_packets must be >= 0"):
        packets_to_bytes(-1.0, 1500.0)
    with pytest.raises(ValueError, match=r"buffer_s must be >= 0"):
        seconds_to_packets(-0.1, 1e9)


def test_harmonic_mean_rejects_zero_rtt() -> None:
    with pytest.raises(ValueError, match=r"rtts_s must be > 0"):
        harmonic_mean_rtt_s([0.1, 0.0])
