"""BBR v1 in the simulator against what defines it and what the BBR literature reports (issue 14).

Sources checked for these tests:

- Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016 (read in
  a text copy of its CACM 60(2) reprint, doi 10.1145/3009824), and
  draft-cardwell-iccrg-bbr-congestion-control-00 (2017; read in a Markdown transcription of
  the datatracker text): cwnd = cwnd_gain · BtlBw · RTprop (draft §4.2.3.2) with cwnd_gain 2
  in ProbeBW ("the cwnd_gain stays constant at two", §4.3.4.1), so at most one BDP beyond the
  pipe can be queued; ProbeBW's gains 5/4, 3/4, 1 × 6 (§4.3.4.1); Startup's gain 2/ln 2
  (§4.3.2.1; the article: Startup "creates up to 2BDP excess queue in the process"); ProbeRTT
  when RTprop is 10 s old, at 4 packets for 200 ms and a round (§4.3.5). Constants as in
  Linux's ``net/ipv4/tcp_bbr.c`` (v6.6), read for this work.
- Jaeger, Scholz, Raumer, Geyer, Carle, "Reproducible Measurements of TCP BBR Congestion
  Control", Computer Communications 144, 2019, abstract (read): "BBR flows on their own have
  difficulty to reach a fairness equilibrium and suppress other congestion control
  algorithms"; they reproduce the experiments of Hock et al. (below).
- Y. Cao, A. Jain, K. Sharma, A. Balasubramanian, A. Gandhi, "When to use and when not to use
  BBR: An empirical analysis and evaluation study", IMC 2019 (doi 10.1145/3355369.3355579),
  its abstract (read, in a text copy of the paper's first page): "We find that BBR is well
  suited for networks with shallow buffers, despite its high retransmissions, whereas existing
  loss-based algorithms are better suited for deep buffers", and "the regimes where BBR
  performs well are often the same regimes where BBR is unfair to" competing flows (the copy
  read breaks off there). The body (its figures, sections and share numbers) was not read, so
  none of its numbers is cited or asserted.
- Hock, Bless, Zitterbart, "Experimental Evaluation of BBR Congestion Control", ICNP 2017
  (doi 10.1109/ICNP.2017.8117540), its abstract (read, on the authors' institute's publication
  page): Linux 4.9's BBR at 1 and 10 Gbit/s, "The experiments vary the flows' round-trip
  times, the number of flows, and buffer sizes at the bottleneck", and "some severe inherent
  issues such as increased queuing delays, unfairness, and massive packet loss were also
  detected". Its body was not read: no number, section or figure of it is cited.
- Ware, Mukerjee, Seshan, Sherry, "Modeling BBR's Interactions with Loss-Based Congestion
  Control", IMC 2019: not read, not even its abstract (searched again for this revision: only
  citations and third-party summaries were found), so nothing of it is cited.

What the tests check is the direction of the texts read: Cao et al.'s abstract for the buffer
depth (BBR ahead in shallow buffers, loss-based TCP in deep ones; the abstract compares the
algorithms' goodput, and the reading checked here is the share of one BBR against one CUBIC
flow), Jaeger et al.'s abstract for BBR suppressing other algorithms (Hock et al.'s names
"unfairness" without saying between whom), and the BBR draft's own abstract
(draft-cardwell-iccrg-bbr-congestion-control-00: "BBR offers substantially higher throughput
for bottlenecks with shallow buffers or random losses, and substantially lower queueing delays
for bottlenecks with deep buffers"): against CUBIC, BBR v1 takes most of a shallow buffer's
link, while in a deep buffer CUBIC, which fills the buffer, takes more than BBR, whose
in-flight data is capped at 2 BDP; and several BBR v1 flows in a very shallow buffer lose a
large fraction of their packets (Cao et al.: "despite its high retransmissions"; Hock et al.:
"massive packet loss"), because their in-flight cap (2 BDP each) is far above the pipe and
they do not back off on loss (draft-00 §4.2.3.4: loss only modulates cwnd during recovery,
then "BBR restores the cwnd to the 'last known good' value").
"""

from __future__ import annotations

import numpy as np
import pytest

from validation.simulator import FlowGroup, Scenario, simulate
from validation.simulator.core.bbr import MIN_CWND_PACKETS


def _bdp_packets(sc: Scenario, rtt_s: float) -> float:
    return sc.capacity_bps * rtt_s / (8.0 * sc.wire_bytes)


def test_one_bbr_flow_queues_at_most_about_one_bdp() -> None:
    """One flow, 20 Mb/s, 50 ms, a 4-BDP buffer (so the buffer never bounds the queue).

    After Startup and Drain (the first 5 s), cwnd_gain 2 caps the flight at 2 BDP plus Linux's
    quantization allowance (3 send quanta of 2 packets, rounded to even, +2 in the 5/4 phase:
    8 packets here), so the queue can never exceed 1 BDP + 8 packets; and since one flow's
    estimate of BtlBw is the link's, the queue comes only from the 5/4 phase, one RTprop in
    eight: about 0.25 BDP at its peak and a few packets on average. Measured (seed 1, BDP 83.3
    packets): peak 29 packets (0.35 BDP), mean 7.9 (0.09 BDP). The bounds asserted are the
    model's: peak at most 1 BDP (cwnd_gain 2), mean at most 0.25 BDP (the 5/4 phase's whole
    excess, held throughout). Startup, with gain 2/ln 2, is seen to queue more than one BDP
    (171 packets, 2.05 BDP), so the bound is not trivially met.
    """
    sc = Scenario(
        capacity_bps=20e6,
        rtt_s=0.05,
        rtt_jitter_s=0.0,
        flows=1,
        start_spread_s=0.0,
        duration_s=25.0,
        warmup_s=5.0,
        congestion_control="bbr",
        traced_flows=1,
        sample_interval_s=0.005,
    )
    bdp = _bdp_packets(sc, 0.05)
    r = simulate(sc, round(4 * bdp), seed=1, trace=True)
    assert r.samples is not None
    t = r.samples.time_s
    q = r.samples.queue_packets
    cwnd = r.samples.cwnd_packets[:, 0]
    startup = t < 1.0
    steady = t >= 5.0
    assert q[startup].max() > bdp  # Startup's 2/ln 2 overshoot (measured 2.05 BDP)
    assert q[steady].max() <= bdp
    assert q[steady].mean() <= 0.25 * bdp
    assert r.loss_rate == 0.0
    # ProbeRTT: cwnd 4 packets about every 10 s (RTprop's window) for 200 ms plus a round.
    low = cwnd <= MIN_CWND_PACKETS
    starts = t[1:][low[1:] & ~low[:-1]]
    assert 2 <= starts.size <= 3  # 25 s: at ~10 s and ~20 s (measured 10.005 s and 20.26 s)
    assert np.all(np.diff(starts) >= 10.0)
    # 200 ms at 4 packets plus up to a round to drain and refill: 0.2-0.35 s per ProbeRTT
    # (measured 0.255 s).
    assert 0.2 <= low.sum() * 0.005 / starts.size <= 0.35
    # ProbeRTT's time (about 0.26 s in 10 s) and the 1% pacing margin cost about 3.5 points
    # (measured utilization 0.975).
    assert r.utilization >= 0.95


def _bbr_share(buffer_bdp: float, seed: int) -> float:
    sc = Scenario(
        capacity_bps=20e6,
        duration_s=70.0,
        warmup_s=10.0,
        groups=(
            FlowGroup(
                name="bbr", flows=1, congestion_control="bbr", rtt_s=0.04, start_spread_s=1.0
            ),
            FlowGroup(
                name="cubic", flows=1, congestion_control="cubic", rtt_s=0.04, start_spread_s=1.0
            ),
        ),
    )
    bdp = _bdp_packets(sc, 0.04)
    r = simulate(sc, max(2, round(buffer_bdp * bdp)), seed=seed)
    bbr, cubic = r.groups
    return bbr.throughput_bps / (bbr.throughput_bps + cubic.throughput_bps)


def test_bbr_against_cubic_shallow_and_deep_buffers() -> None:
    """One BBR and one CUBIC flow, 20 Mb/s, 40 ms, 60 s measured, seeds 1-4.

    Literature direction (module docstring; Cao et al. 2019's abstract: BBR "well suited for
    networks with shallow buffers", "loss-based algorithms ... better suited for deep
    buffers", and where BBR does well it is "unfair to" competing flows): BBR v1 takes most of
    the link in a shallow buffer, CUBIC the larger share in a deep one. Measured BBR shares
    over seeds 1-8: 0.5 BDP 0.91-0.97 (mean 0.95), 2 BDP 0.45-0.63, 8 BDP 0.22-0.37 (mean
    0.31). The bounds (BBR above 0.8 at 0.5 BDP, below 0.5 at 8 BDP) sit outside every seed's
    value by 0.1 or more, and the ordering across the three buffers is the shape the
    literature describes.
    """
    shallow = [_bbr_share(0.5, seed) for seed in range(1, 5)]
    middle = [_bbr_share(2.0, seed) for seed in range(1, 5)]
    deep = [_bbr_share(8.0, seed) for seed in range(1, 5)]
    assert min(shallow) > 0.8
    assert max(deep) < 0.5
    assert np.mean(shallow) > np.mean(middle) > np.mean(deep)


@pytest.mark.parametrize("flows", [10, 20])
def test_many_bbr_flows_in_a_shallow_buffer_lose_much(flows: int) -> None:
    """10 and 20 flows, 100 Mb/s, 20 ms, a buffer of 0.05 BDP (8 packets), 30 s measured.

    BBR v1's high loss in shallow buffers (module docstring: Hock et al. 2017's abstract,
    "massive packet loss"; Cao et al. 2019's, "high retransmissions"): each flow keeps up to 2
    BDP of its own estimate in flight and ignores loss outside recovery. Measured (seed 1): BBR
    loses 4.6% (10 flows) and 6.1% (20 flows) of the bottleneck's arrivals; CUBIC in the same
    dumbbell 0.69% and 1.94%. Asserted: BBR loses at least 3% and at least twice what CUBIC
    loses (the measured ratios are 6.6 and 3.1). BBR's utilization here (0.82 and 0.81) is below
    CUBIC's because starved BBR flows time out (124 and 216 timeouts); that is not asserted. A
    traced case (10 flows, 20 Mb/s, 40 ms, 33 packets, reference implementation; traced while
    the delayed-ACK timer defaulted to 200 ms) shows one way: after a timeout a lost
    retransmission stays in RFC 6675's pipe (the sender has no RACK), so the flight never falls
    to ProbeRTT's 4 packets and one flow stayed in ProbeRTT 4.5 s instead of about 0.25 s. The
    sender's loss detection, not BBR, is the cause; Linux's RACK would find the lost
    retransmission.
    """

    def run(cc: str) -> float:
        sc = Scenario(
            capacity_bps=100e6,
            rtt_s=0.02,
            rtt_jitter_s=0.0,
            flows=flows,
            duration_s=40.0,
            warmup_s=10.0,
            congestion_control=cc,
            start_spread_s=1.0,
        )
        return simulate(sc, max(2, round(0.05 * _bdp_packets(sc, 0.02))), seed=1).loss_rate

    bbr, cubic = run("bbr"), run("cubic")
    assert bbr >= 0.03
    assert bbr >= 2.0 * cubic
