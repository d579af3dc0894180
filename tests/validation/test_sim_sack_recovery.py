"""SACK loss recovery and slow start: a larger buffer must not bring more loss (regression).

A report had loss not falling with the buffer, and retransmission timeouts despite SACK, for
10 Mb/s, RTT 80 ms, 60 s with 10 s warm-up, no delayed ACKs, initial window 2, W_max 10000
packets, 2 and 4 flows, B = 20 and 100. Two faults of the sender were behind it:

1. On the third duplicate ACK it entered SACK recovery but held the retransmission of the first
   missing packet until the pipe fell below the halved window, about half a window of ACKs
   later. With a large buffer that retransmission came back after the 200 ms minimum RTO (RTT
   80 ms plus up to B · 0.8 ms of queueing), the timer fired and the flow went back to slow
   start, resending packets that were still in flight. RFC 6675 §5 step (4.3) sends it at once,
   whatever the pipe.
2. In slow start cwnd grew by every packet an ACK newly acknowledged. After a timeout the ACK of
   a repaired hole acknowledges up to a window at once, so cwnd jumped by a window and the
   flow sent a line-rate burst (with fault 1 fixed alone: runs of 130-460 drops and 1.7-2.0 %
   loss for 2 flows at B = 100 with RTTs spread and a 1 s minimum RTO). RFC 5681 §3.1 (eq. 2)
   grows cwnd by at most one packet per ACK.

With equal RTTs every loss is a single drop per flow near the top of the sawtooth, found by
three duplicate ACKs, so these runs must see no timeout, and the loss rate must fall as the
buffer grows (the sawtooth cycle lengthens with B). Before the fixes, 2 flows at B = 100 lost
more than at B = 20 (0.070 % against 0.066 %, 5 timeouts) and 4 flows at B = 200 more than at
B = 100 (11 timeouts).
"""

from __future__ import annotations

import itertools

import pytest

from tests.validation.hosts import classic_scenario
from validation.simulator import simulate

# The reported scenario; 10 Mb/s of 1000-byte packets and 80 ms: C·RTT = 100 packets.
REPORTED = classic_scenario(
    capacity_bps=10e6,
    rtt_s=0.08,
    duration_s=60.0,
    warmup_s=10.0,
    recovery="sack",
    delayed_ack=1,
    initial_window_packets=2,
    max_window_packets=10_000,
)
BUFFERS = (20, 100, 200)


@pytest.mark.parametrize("flows", [2, 4])
def test_bigger_buffer_less_loss_and_no_timeouts_with_sack(flows: int) -> None:
    runs = [simulate(REPORTED.replace(flows=flows), b, seed=1) for b in BUFFERS]
    assert [r.timeouts for r in runs] == [0] * len(BUFFERS)
    # Buffers 2-5x apart: the sawtooth predicts loss falling roughly as 1/(C·RTT + B)^2;
    # measured (2 flows) 0.063 %, 0.026 %, 0.013 %; (4 flows) 0.24 %, 0.096 %, 0.040 %.
    # Asserted only as strictly decreasing: the gaps are large, no tolerance is needed.
    losses = [r.loss_rate for r in runs]
    assert all(a > b for a, b in itertools.pairwise(losses)), losses
    assert all(r.utilization <= 1.0 for r in runs)


@pytest.mark.parametrize(("flows", "seed"), [(2, 1), (2, 2), (4, 1), (4, 2)])
def test_spread_rtts_bigger_buffer_less_loss(flows: int, seed: int) -> None:
    # With RTTs spread (80 ms ± 20 ms) flows lock each other out at times (drop-tail phase
    # effects of a deterministic model) and some timeouts are genuine: windows under 4
    # packets give no 3 duplicate ACKs, retransmissions get dropped too. The loss rate must
    # still fall from B = 20 to B = 100. With RFC 6298's 1 s minimum RTO (the 200 ms default
    # is close to the 80 + 20 + 80 ms RTT of a full buffer, so some of its timeouts are
    # spurious) the fall is clear: measured 0.14 -> 0.074 %, 0.092 -> 0.026 % (2 flows),
    # 0.49 -> 0.24 %, 0.53 -> 0.23 % (4 flows). We ask for at least a 25 % fall, well inside
    # those margins (before the fixes, 2 flows with seed 1 went from 0.23 % to 28 %).
    sc = REPORTED.replace(flows=flows, rtt_jitter_s=0.02, min_rto_s=1.0)
    small, large = (simulate(sc, b, seed=seed) for b in (20, 100))
    assert large.loss_rate <= 0.75 * small.loss_rate, (small.loss_rate, large.loss_rate)
    assert large.utilization >= small.utilization
