"""CUBIC (RFC 9438) against the β rule's fluid model, one flow (issue 14, first check).

The fluid model of one AIMD flow through a buffer B: after a loss the window W = BDP + B falls
to β·W, and the link stays busy if β·(BDP + B) >= BDP, i.e. B >= BDP·(1 - β)/β: one BDP for
Reno (β = 1/2), 0.43 BDP for CUBIC (β_cubic = 0.7, RFC 9438 §4.6; Spang, Arslan and McKeown,
"Updating the theory of buffer sizing", 2021). Here: 20 Mb/s, 50 ms, 1000-byte packets, so
BDP = 125 packets; 100 s measured after 20 s, seed 1.

Not asserted: at B >= 0.6 BDP this implementation's CUBIC collapses (seed 1: utilization 0.53
to 0.58, 20% loss, about 130 timeouts) -- after a timeout the SACK sender's flight size
``high_tx - snd_una`` still counts the slow-start overshoot, so ssthresh = 0.7 x that flight
(280 packets) exceeds BDP + B (200) and the next slow start times out again. The fix (the
reduction on cwnd, RFC 9438 §4.6's note, or the flight of the packets actually outstanding) is
open work.
"""

from __future__ import annotations

from validation.simulator import Scenario, simulate

ONE_FLOW = Scenario(
    capacity_bps=20e6,
    flows=1,
    rtt_s=0.05,
    rtt_jitter_s=0.0,
    packet_bytes=1000,
    header_bytes=0,
    delayed_ack=1,
    initial_window_packets=2,
    max_window_packets=4096,
    duration_s=120.0,
    warmup_s=20.0,
)
BDP_PACKETS = 125


def test_cubic_fills_the_link_from_043_bdp_where_reno_does_not() -> None:
    buffer = round(0.43 * BDP_PACKETS)  # BDP·(1 - 0.7)/0.7 = 0.43 BDP
    reno = simulate(ONE_FLOW, buffer, 1)
    cubic = simulate(ONE_FLOW.replace(cc="cubic"), buffer, 1)
    # Fluid model: CUBIC full (measured 1.0000); Reno not (its rule needs 1 BDP; measured
    # 0.9466: the link idles while Reno's window climbs from 0.5·(BDP + B) back to BDP).
    assert cubic.utilization > 0.99
    assert reno.utilization < 0.96
    assert cubic.timeouts == 0 and reno.timeouts == 0


def test_below_the_threshold_cubic_loses_less_utilization_than_reno() -> None:
    buffer = round(0.2 * BDP_PACKETS)
    reno = simulate(ONE_FLOW, buffer, 1)
    cubic = simulate(ONE_FLOW.replace(cc="cubic"), buffer, 1)
    # β = 0.7 leaves a smaller gap below BDP than β = 0.5 (measured 0.9703 vs 0.8679).
    assert cubic.utilization > reno.utilization + 0.05


def test_reno_fills_the_link_at_one_bdp() -> None:
    assert simulate(ONE_FLOW, BDP_PACKETS, 1).utilization > 0.99  # measured 1.0000
