"""The BSCL size's range over the trace estimates' intervals (validation/traces/sizing.py).

BSCL (004 Fig. 4): B = max{B_ρ, B_p} with B_p = K_p·N_b·M − C_e·T_e (eqs. 21, 23),
K_p = 0.87/√p̂ = 8.7 packets at p̂ = 1 % (eq. 22), and B_ρ replaced by C·T_e when N_b < 5
(004 §VII). The expected values below are worked by hand from those equations, on a
50 Mbit/s link of 1500-byte packets: C = 50e6 / 12000 = 4166.67 packets per second.
"""

from __future__ import annotations

import math

import pytest

from validation.traces.estimate import Interval, TraceEstimates
from validation.traces.sizing import size_from_estimates

C_PPS = 50e6 / 12000


def _estimates(n_b: Interval, te: Interval, share: Interval) -> TraceEstimates:
    nan = Interval(math.nan, math.nan, math.nan, "none")
    return TraceEstimates(
        kind="csv",
        has_drops=True,
        packets=1,
        flows=int(n_b.value),
        start_s=0.0,
        end_s=200.0,
        warmup_s=20.0,
        capacity_bps=50e6,
        capacity_source="given",
        class_counts={},
        bottlenecked_flows=n_b,
        effective_rtt_s=te,
        bottlenecked_capacity_bps=nan,
        bottlenecked_share=share,
        link_rate_bps=nan,
        loss_rate=nan,
        loss_bursts=0,
        loss_burst_mean_packets=nan,
        loss_burst_median_packets=nan,
        sync_factor=nan,
        packet_bytes=1500.0,
        rtt_sources={},
    )


def test_loss_governed_range_is_at_the_corners() -> None:
    """300 LBP flows: B_p governs and falls with T_e and C_e, grows with N_b, so the range
    is at the box's corners. Point: 8.7·300 − 0.9·4166.67·0.125 = 2610 − 468.75 = 2141.25.
    Largest: N_b 310, T_e 0.10 s, C_e/C 0.88: 2697 − 366.67 = 2330.33. Smallest: N_b 290,
    T_e 0.15 s, C_e/C 0.92: 2523 − 575.0 = 1948.0."""
    est = _estimates(
        Interval(300, 290, 310, "test"),
        Interval(0.125, 0.10, 0.15, "test"),
        Interval(0.9, 0.88, 0.92, "test"),
    )
    sizing = size_from_estimates(est)
    assert sizing.governing_constraint == "loss"
    # rel 1e-9: exact arithmetic, float rounding only.
    assert sizing.buffer_packets == pytest.approx(2141.25, rel=1e-9)
    assert sizing.buffer_packets_low == pytest.approx(1948.0, rel=1e-9)
    assert sizing.buffer_packets_high == pytest.approx(2330.333333, rel=1e-9)
    assert sizing.to_dict()["buffer_packets_range"] == [
        sizing.buffer_packets_low,
        sizing.buffer_packets_high,
    ]


def test_smallest_buffer_inside_the_rtt_interval() -> None:
    """2 LBP flows: B = max{C·T_e, 17.4 − 0.9·C·T_e}; the first grows with T_e and the
    second falls, so over T_e in [1, 10] ms the smallest B is where they cross, inside the
    interval: 17.4 = 1.9·C·T_e, T_e = 2.198 ms, B = 17.4/1.9 = 9.158 packets. The ends
    give 13.65 (1 ms: 17.4 − 3.75) and 41.67 (10 ms: C·T_e), the largest."""
    est = _estimates(
        Interval(2, 2, 2, "test"),
        Interval(0.005, 0.001, 0.010, "test"),
        Interval(0.9, 0.9, 0.9, "test"),
    )
    sizing = size_from_estimates(est)
    # The T_e grid has 65 points over 9 ms (0.141 ms apart); B's slope either side of the
    # crossing is at most C = 4166.67 packets/s, so the nearest point lies at most
    # 0.0703 ms · 4166.67 = 0.293 packets above the true minimum, and never below it.
    assert 17.4 / 1.9 <= sizing.buffer_packets_low <= 17.4 / 1.9 + 0.293
    assert sizing.buffer_packets_high == pytest.approx(C_PPS * 0.010, rel=1e-9)
    # The point value: C·T_e = 20.83 at 5 ms (above 17.4 − 18.75 < 0).
    assert sizing.buffer_packets == pytest.approx(C_PPS * 0.005, rel=1e-9)


def test_rtt_interval_from_zero_gives_the_loss_term_alone() -> None:
    """A T_e interval that starts at 0 (LBP flows without an RTT sample, estimate.py's
    _harmonic_interval): at T_e → 0 the buffer is B_p = K_p·N_b·M = 8.7·300 = 2610 packets
    (C_e·T_e vanishes), the largest the trace allows with N_b = 300 exactly."""
    est = _estimates(
        Interval(300, 300, 300, "test"),
        Interval(0.125, 0.0, 0.15, "test"),
        Interval(0.9, 0.9, 0.9, "test"),
    )
    sizing = size_from_estimates(est)
    # T_e's floor of 1 µs takes 0.9·4166.67·1e-6 = 0.00375 packets off 2610.
    assert sizing.buffer_packets_high == pytest.approx(2610.0, abs=0.004)
    assert sizing.buffer_packets_low == pytest.approx(2610 - 0.9 * C_PPS * 0.15, rel=1e-9)
