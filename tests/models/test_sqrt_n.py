"""sqrt(N) small-buffers rule and Appenzeller's utilization lower bound."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.rule_of_thumb import bdp_buffer_packets
from models.sqrt_n import sqrt_n_buffer_packets, sqrt_n_utilization_lower_bound

OC3_BPS = 155.52e6

capacities = st.floats(min_value=1e3, max_value=1e13)
rtts = st.floats(min_value=1e-5, max_value=10.0)
flow_counts = st.floats(min_value=1.0, max_value=1e7)


def test_thesis_example_around_3950_packets() -> None:
    # 000 §1.3: 1000 flows, 10Gb/s, 100ms, 1KB packets: "The 2T x C / sqrt(N) rule suggests a
    # buffer size of around 3950 packets." 125,000/sqrt(1000) = 3952.8; "around 3950" is
    # rounded to three significant figures, hence abs 5.
    assert abs(float(sqrt_n_buffer_packets(10e9, 0.1, 1000, 1000.0)) - 3950) <= 5


# 001 slides, "Long Flows - Utilization, Model vs. ns2 vs. Physical Router, GSR 12000, OC3 Line
# Card" (text extraction lists the columns in reverse: Exp, Sim, Model, RAM, Pkts):
#   100 flows: 0.5x 64 pkts, 1x 129, 2x 258, 3x 387; Model 96.9%, 99.9%, 100%, 100%
#   400 flows: 0.5x 32 pkts, 1x 64, 2x 128, 3x 192; Model 99.7%, 100%, 100%, 100%
# The slides' heading gives "~100ms RTT" and the rule "2T C / sqrt(n)" with 2T the RTT. The
# packet column is the 1x value truncated (1296/10 = 129.6 -> 129; 1296/20 = 64.8 -> 64) and
# the other rows are multiples of that truncated value, truncated again (0.5 x 129 -> 64,
# 3 x 129 = 387, whereas 3 x 129.6 = 388.8). The 400-flow row at 1x reads 64, not 65.
OC3_TABLE = [
    (100, (0.5, 1.0, 2.0, 3.0), (64, 129, 258, 387), (0.969, 0.999, 1.0, 1.0)),
    (400, (0.5, 1.0, 2.0, 3.0), (32, 64, 128, 192), (0.997, 1.0, 1.0, 1.0)),
]


@pytest.mark.parametrize(("flows", "multiples", "packets", "model"), OC3_TABLE)
def test_oc3_table_packet_column(
    flows: int, multiples: tuple[float, ...], packets: tuple[int, ...], model: tuple[float, ...]
) -> None:
    one_x = math.floor(sqrt_n_buffer_packets(OC3_BPS, 0.1, flows, 1500.0))
    assert [math.floor(m * one_x) for m in multiples] == list(packets)


@pytest.mark.parametrize(("flows", "multiples", "packets", "model"), OC3_TABLE)
def test_erf_bound_never_exceeds_the_slides_model_column(
    flows: int, multiples: tuple[float, ...], packets: tuple[int, ...], model: tuple[float, ...]
) -> None:
    # A lower bound must not exceed the model's utilization; the table rounds to 0.1%, so
    # allow 0.0005.
    for buffer_packets, utilization in zip(packets, model, strict=True):
        bound = sqrt_n_utilization_lower_bound(buffer_packets, OC3_BPS, 0.1, flows, 1500.0)
        assert bound <= utilization + 0.0005


def test_utilization_bound_at_one_times_the_rule_is_about_99_percent() -> None:
    # Check value U(1x) ≈ 0.99 (docs/references.md; erf(3·sqrt(3)/(2·sqrt(2))) = erf(1.837));
    # quoted to two decimals, hence abs 0.005.
    rule = sqrt_n_buffer_packets(10e9, 0.1, 1000, 1000.0)
    bound = float(sqrt_n_utilization_lower_bound(rule, 10e9, 0.1, 1000, 1000.0))
    assert abs(bound - 0.99) < 0.005


def test_half_the_rule_gives_a_much_weaker_bound() -> None:
    # At 0.5x the bound is erf(0.918) ≈ 0.81 (hand computation): well below the 96.9% the
    # slides' model column reports, which is consistent with it being only a lower bound.
    rule = sqrt_n_buffer_packets(OC3_BPS, 0.1, 100, 1500.0)
    bound = sqrt_n_utilization_lower_bound(0.5 * rule, OC3_BPS, 0.1, 100, 1500.0)
    assert 0.80 < bound < 0.82


@pytest.mark.parametrize(
    ("capacity_bps", "flows", "expected_bits", "tolerance_bits"),
    [
        # 001 slides, "Impact on Router Design": "10Gb/s linecard with 200,000 x 56kb/s flows
        # ... Rule-of-thumb: Buffer = 2.5Gbits ... Becomes: Buffer = 6Mbits" (5.59 Mbit,
        # written with one significant figure, hence 0.5 Mbit).
        (10e9, 200_000, 6e6, 0.5e6),
        # "40Gb/s linecard with 40,000 x 1Mb/s flows ... Rule-of-thumb: Buffer = 10Gbits ...
        # Becomes: Buffer = 50Mbits" (exact).
        (40e9, 40_000, 50e6, 1.0),
    ],
)
def test_slides_router_design_examples(
    capacity_bps: float, flows: int, expected_bits: float, tolerance_bits: float
) -> None:
    # The slides give the rule-of-thumb buffers (2.5 and 10 Gbit), i.e. 250 ms of line rate,
    # the RTT 002 §I also assumes; the packet size cancels out of the bit count.
    rule_bits = bdp_buffer_packets(capacity_bps, 0.25, 1500.0) * 8 * 1500.0
    assert rule_bits == pytest.approx(capacity_bps / 4, rel=1e-12)
    bits = float(sqrt_n_buffer_packets(capacity_bps, 0.25, flows, 1500.0)) * 8 * 1500.0
    assert abs(bits - expected_bits) <= tolerance_bits


def test_single_flow_is_the_rule_of_thumb() -> None:
    assert sqrt_n_buffer_packets(10e9, 0.1, 1, 1000.0) == pytest.approx(125_000, rel=1e-12)


def test_vectorised_over_flows() -> None:
    packets = sqrt_n_buffer_packets(10e9, 0.1, np.array([1, 100, 10_000]), 1000.0)
    assert isinstance(packets, np.ndarray)
    np.testing.assert_allclose(packets, [125_000, 12_500, 1_250], rtol=1e-12)


@given(capacities, rtts, flow_counts)
def test_sqrt_n_never_exceeds_bdp(c: float, t: float, n: float) -> None:
    assert sqrt_n_buffer_packets(c, t, n, 1500.0) <= bdp_buffer_packets(c, t, 1500.0)


@given(capacities, rtts, flow_counts)
def test_four_times_the_flows_halves_the_buffer(c: float, t: float, n: float) -> None:
    once = sqrt_n_buffer_packets(c, t, n, 1500.0)
    assert sqrt_n_buffer_packets(c, t, 4 * n, 1500.0) == pytest.approx(once / 2, rel=1e-12)


@given(
    st.floats(min_value=0.0, max_value=1e6), st.floats(min_value=0.0, max_value=1e6), flow_counts
)
def test_utilization_bound_in_unit_interval_and_monotone(b1: float, b2: float, n: float) -> None:
    low, high = sorted((b1, b2))
    u_low = sqrt_n_utilization_lower_bound(low, 10e9, 0.1, n, 1000.0)
    u_high = sqrt_n_utilization_lower_bound(high, 10e9, 0.1, n, 1000.0)
    assert 0.0 <= u_low <= u_high <= 1.0


def test_no_buffer_guarantees_nothing() -> None:
    assert sqrt_n_utilization_lower_bound(0.0, 10e9, 0.1, 1000, 1000.0) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"flows": 0}, r"flows must be >= 1"),
        ({"flows": 0.5}, r"flows must be >= 1"),
        ({"flows": math.nan}, r"flows must be finite"),
        ({"capacity_bps": 0.0}, r"capacity_bps must be > 0"),
        ({"capacity_bps": -10e9}, r"capacity_bps must be > 0"),
        ({"capacity_bps": math.inf}, r"capacity_bps must be finite"),
        ({"rtt_s": -0.1}, r"rtt_s must be > 0"),
    ],
)
def test_invalid_input_rejected(kwargs: dict[str, float], message: str) -> None:
    args = {"capacity_bps": 10e9, "rtt_s": 0.1, "flows": 1000, "packet_bytes": 1000.0} | kwargs
    with pytest.raises(ValueError, match=message):
        sqrt_n_buffer_packets(**args)
    with pytest.raises(ValueError, match=message):
        sqrt_n_utilization_lower_bound(100.0, **args)


def test_negative_buffer_rejected() -> None:
    with pytest.raises(ValueError, match=r"buffer_packets must be >= 0"):
        sqrt_n_utilization_lower_bound(-1.0, 10e9, 0.1, 1000, 1000.0)


# --- robustness at extreme inputs -------------------------------------------------------------


def test_huge_buffer_against_a_tiny_rule_is_full_utilization() -> None:
    # Found by fuzzing the API: B / (C·RTT/√N) overflowed (a link of 1e-297 bit/s seen by the
    # recommendation engine through a tiny bottlenecked share). erf of anything above 6 is 1.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sqrt_n_utilization_lower_bound(1e12, 1e-297, 1.0, 1e9, 1500.0) == 1.0
        assert sqrt_n_utilization_lower_bound(0.0, 1e-297, 1.0, 1e9, 1500.0) == 0.0


sizes = st.floats(min_value=-300.0, max_value=300.0).map(lambda x: 10.0**x)


@given(
    buffer=st.one_of(st.just(0.0), sizes),
    c=st.floats(min_value=-100.0, max_value=100.0).map(lambda x: 10.0**x),
    t=st.floats(min_value=-100.0, max_value=100.0).map(lambda x: 10.0**x),
    n=st.floats(min_value=0.0, max_value=300.0).map(lambda x: 10.0**x),
    size=st.floats(min_value=-100.0, max_value=100.0).map(lambda x: 10.0**x),
)
def test_no_floating_point_warning_over_wide_inputs(
    buffer: float, c: float, t: float, n: float, size: float
) -> None:
    # Capacities, RTTs and packet sizes over 200 decades each (C·RTT/packet stays within the
    # float range, which the BDP itself needs), N up to 1e300, buffers from 0 to 1e300: the
    # rule and the bound come out finite, the bound in [0, 1], without any warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rule = sqrt_n_buffer_packets(c, t, n, size)
        bound = sqrt_n_utilization_lower_bound(buffer, c, t, n, size)
    assert math.isfinite(rule) and rule >= 0.0
    assert 0.0 <= bound <= 1.0
