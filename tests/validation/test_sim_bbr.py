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
  Control", IMC 2019 (doi 10.1145/3355369.3355604). The paper itself was not read; its first
  author's own summaries were: the APNIC blog post of 2020-01-24
  (blog.apnic.net/2020/01/24/modelling-bbrs-interactions-with-loss-based-congestion-control/)
  up to "During ProbeBW, BBR putting additional data" and its RIPE Labs copy up to "When 1 BBR
  flow is" (the copies read stop there), and her CMU CSD blog post "Modeling BBRv1's
  Interactions with Loss-Based Congestion Control" (2024-08-26, read whole in the Markdown
  source of github.com/quangvdao/csd-blog, website/content/2024/modeling-bbr.md). Their two
  findings: "While BBR is supposed to be a rate-based algorithm, when competing with other
  flows, BBR is window-limited" and "BBR's throughput when competing with loss-based algorithms
  does not depend on the number of competing loss-based flows" ("a single BBR flow will grab a
  fixed fraction of the link regardless of the number of competing flows"). The simple model
  (CSD post): in a deep buffer of q packets where the loss-based flows hold a fraction p, BBR's
  BtlBw is (1 - p)c and its RTprop, measured in ProbeRTT with only their packets queued, pq/c,
  so its in-flight cap is 2(1 - p)c · pq/c = 2q(p - p^2); setting it equal to the (1 - p)q BBR
  holds gives p = 1/2, "1 BBR flow can get up to half of the link when competing with any
  number of Cubic flows". The paper's full model was read only as transcribed, with the paper's
  equation numbers, in a public Python implementation of it (a function ``ware_BBR_Model``; its
  repository was not identified, and Sarpkaya et al.'s artifact, below, lists a "BBRv1
  steady-state model implementation in Python"): with the buffer X BDPs (q = Xcl), N BBR flows,
  p = 1/2 - 1/(2X) - 4N/q (eq. 9), BBR's fraction (1 - p)(d - T)/d (eq. 10), T =
  (q/c + 0.2 s + l)(d/10 s) the time in ProbeRTT (eq. 11); for one BBR flow at 10 Mb/s, 40 ms,
  8 BDP that is 0.545. The CSD post gives the model's accuracy: "a median error of 5%" against
  Cubic. The paper's figures and its experiments' own numbers were not read.
- Sarpkaya, Srivastava, Fund, Panwar, "BBR's Sharing Behavior with CUBIC and Reno", IFIP
  Networking 2025 (arXiv 2505.07741): its abstract (read, ar5iv HTML; the copy read stops at
  the introduction's first sentence): "the steady-state model accurately captures BBRv1
  behavior, especially against single loss-based flows". Its artifact's measurements were read
  (github.com/fatihsarpkaya/bbr-shared-bottleneck,
  data/ware_topology_exps_data/figure2a-{1,2,3}.csv, three FABRIC runs of Linux BBRv1 against
  one CUBIC flow at 10 Mb/s, 40 ms, buffers of 1-64 BDP (throughputs in Mb/s; the rows are
  named bbr_<buffer in BDP>_cubic_<BBR flows>_10_40, read so from the fluid model's matching
  configuration files, which put 1 CUBIC and N BBR flows in each run). One BBR flow's share in
  them: 0.866, 0.862, 0.867 at 1 BDP; 0.594, 0.602, 0.607 at 2 BDP; 0.500, 0.498, 0.512 at
  4 BDP; 0.467, 0.444, 0.484 at 8 BDP; 0.403, 0.422, 0.416 at 16 BDP; 0.334, 0.347, 0.358 at
  32 BDP; 0.200, 0.177, 0.216 at 64 BDP. The runs' length and the hosts' largest windows are
  not known here.

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
then "BBR restores the cwnd to the 'last known good' value"). Ware et al.'s second finding is
checked as stated: one BBR v1 flow's share in a deep buffer does not depend on the number of
CUBIC flows, and is compared with Sarpkaya et al.'s measured one-against-one share; the model's
level (0.545 at 8 BDP) is quoted, not asserted (see that test).
"""

from __future__ import annotations

import numpy as np
import pytest

from validation.simulator import FlowGroup, Scenario, simulate
from validation.simulator.core.bbr import MIN_CWND_PACKETS
from validation.simulator.layout import BbrCaState, BbrMode
from validation.simulator.reference import bbr as bbr_reference
from validation.simulator.reference.simulator import ReferenceSimulator
from validation.simulator.scenario import CongestionControl


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
    over seeds 1-8: 0.5 BDP 0.92-0.96 (mean 0.95), 2 BDP 0.53-0.66 (mean 0.60), 8 BDP
    0.33-0.42 (mean 0.37); before the ACK-aggregation allowance and the handshake's RTprop
    (core/bbr.py, 29 Nov 2026) 0.91-0.97, 0.45-0.63 and 0.22-0.37 (mean 0.31). The bounds (BBR
    above 0.8 at 0.5 BDP, below 0.5 at 8 BDP) sit outside every seed's value by 0.07 or more,
    and the ordering across the three buffers is the shape the literature describes.
    """
    shallow = [_bbr_share(0.5, seed) for seed in range(1, 5)]
    middle = [_bbr_share(2.0, seed) for seed in range(1, 5)]
    deep = [_bbr_share(8.0, seed) for seed in range(1, 5)]
    assert min(shallow) > 0.8
    assert max(deep) < 0.5
    assert np.mean(shallow) > np.mean(middle) > np.mean(deep)


def _one_bbr_against_cubic(cubic_flows: int, buffer_bdp: float, seed: int) -> float:
    """BBR's share of the bottleneck: one BBR v1 flow and ``cubic_flows`` CUBIC flows, 10 Mb/s,
    40 ms for all (no jitter: one sender host, as in Ware et al.'s and Sarpkaya et al.'s
    dumbbells), 240 s of which the first 60 s are warm-up."""
    senders: tuple[tuple[CongestionControl, int], ...] = (("bbr", 1), ("cubic", cubic_flows))
    sc = Scenario(
        capacity_bps=10e6,
        duration_s=240.0,
        warmup_s=60.0,
        groups=tuple(
            FlowGroup(
                name=cc,
                flows=flows,
                congestion_control=cc,
                rtt_s=0.04,
                rtt_jitter_s=0.0,
                start_spread_s=1.0,
            )
            for cc, flows in senders
        ),
    )
    r = simulate(sc, round(buffer_bdp * _bdp_packets(sc, 0.04)), seed=seed)
    bbr, cubic = r.groups
    return bbr.throughput_bps / (bbr.throughput_bps + cubic.throughput_bps)


#: One BBR v1 flow's share against one CUBIC flow at 10 Mb/s, 40 ms, 8 BDP in Sarpkaya et al.'s
#: three FABRIC runs (module docstring: figure2a-{1,2,3}.csv, BBR 4.4615, 4.2423, 4.6318 Mb/s
#: against CUBIC 5.0999, 5.3188, 4.9317 Mb/s: shares 0.467, 0.444, 0.484).
TESTBED_SHARE_8_BDP = (0.467, 0.444, 0.484)


def test_bbr_share_in_a_deep_buffer_does_not_depend_on_the_cubic_flows() -> None:
    """One BBR v1 flow against 1, 4 and 16 CUBIC flows, 10 Mb/s, 40 ms (Ware et al.'s
    "40ms × 10Mbps network", as Sarpkaya et al.'s reproduction describes their Fig. 2), a deep
    buffer of 8 BDP (267 packets) and a shallow one of 1 BDP; seeds 1-3, 180 s measured.

    Ware et al.: BBR's throughput "does not depend on the number of competing loss-based
    flows" (module docstring). Measured BBR shares at 8 BDP (seeds 1-3): 1 CUBIC flow 0.480,
    0.481, 0.489 (mean 0.483); 4 flows 0.461, 0.448, 0.472 (0.460); 16 flows 0.475, 0.471,
    0.466 (0.471), against per-flow fair shares 1/2, 1/5, 1/17 (before the ACK-aggregation
    allowance and the handshake's RTprop, 29 Nov 2026: means 0.463, 0.452, 0.455; then, over
    seeds 1-6 and N = 1, 2, 4, 8, 16, the means were 0.447-0.465 and the seed-to-seed
    standard deviation at most 0.013, not re-measured since).
    Asserted: the three means lie within 0.05 of each other (a mean of three seeds has a
    standard deviation of at most 0.008, a difference of two at most 0.011: 0.05 is over four
    of those, and a tenth of the 0.44 by which an equal split per flow would move it); with 16
    CUBIC flows BBR keeps more than five times its per-flow fair share 1/17 (measured 8.0
    times); and the one-against-one share is within 0.04 of Sarpkaya et al.'s testbed mean
    0.465 (0.04 is the spread of their three runs, 0.444-0.484).

    One against one across depths (seeds 1-6, these 240 s runs; 8 BDP seeds 1-3): 1 BDP
    0.918, 2 BDP 0.619, 4 BDP 0.489, 8 BDP 0.483, 16 BDP 0.419, against the testbed's means
    0.865, 0.601, 0.503, 0.465, 0.414: the same fall with depth, within 0.06 everywhere (before
    the ACK-aggregation allowance and the handshake's RTprop: 0.919, 0.521, 0.453, 0.465,
    0.405, within 0.08).

    Not asserted: the model's level, and the deepest buffers. Ware's model (eq. 9-11 as
    transcribed; module docstring) gives 0.545 here, 0.06 above this simulator (0.08 before
    29 Nov 2026) and 0.08 above the testbed's 0.465, so neither meets the 5% median error the
    author's post gives for it at this point. Deeper buffers (seeds 1-6 or 1-3; measured before
    the ACK-aggregation allowance and the handshake's RTprop, not re-run since): 16 BDP
    0.35-0.41 over N = 1-16 in these 240 s runs (model 0.49, testbed 0.41 for N = 1), falling
    mildly as N grows; 32 BDP
    0.11-0.23 in 240 s runs, because BBR's share is still converging (one 600 s run, N = 1:
    0.03-0.08 in the first minute, 0.33-0.39 from 300 s on, ProbeBW's 5/4 probes raising BtlBw
    by at most 25% per 8 RTTs of about 1.1 s), and 0.342 (N = 1), 0.347 (N = 4), 0.281
    (N = 16) measured over 300-900 s (model 0.44, testbed 0.35 for N = 1). At 64 BDP over
    300-900 s: 0.161 (N = 4) and 0.155 (N = 16), but 0.004 for N = 1 (model 0.37, testbed
    0.20). That one case is the default largest window: 3 MiB is 2,172 packets, about the
    2,166 of pipe and buffer, so a single CUBIC flow holds the buffer full at its window limit
    and loses 0.1% of its packets, where BBR's paced packets lose 1.2-1.7%; with a largest
    window of 8,000 packets BBR's share over 300-900 s is 0.213, 0.167, 0.203 (seeds 1-3),
    against the testbed's 0.200, 0.177, 0.216. (Replacing the rate sample's lower bound,
    RTprop, by the 40 ms path RTT, as Linux's tcp_min_rtt would be, left a 600 s run at 64 BDP,
    N = 1, identical.)

    Ware et al.'s first finding, that competing BBR is window-limited, has no direct measure
    here (the trace samples cwnd, not the flight); by Little's law (flight = throughput ·
    (RTT + mean queueing delay)) BBR's mean flight is 0.77-0.87 of its mean sampled cwnd at
    8 BDP, 0.61-0.64 at 0.5 BDP with 1-4 CUBIC flows. That is reported, not asserted.

    Shallow buffer, same direction as the test above: at 1 BDP BBR's share is 0.917-0.921 with
    one CUBIC flow and 0.848-0.861 with four (it falls with N there, where eq. 9 gives p = 0:
    the in-flight cap sets no share); with 16 it spreads over 0.46-0.75 across seeds 1-6 and
    is not used. Asserted: for 1 and 4 CUBIC flows, BBR's mean share at 1 BDP is above its mean
    share at 8 BDP (margins 0.45 and 0.40).
    """
    deep = {
        n: np.mean([_one_bbr_against_cubic(n, 8.0, seed) for seed in (1, 2, 3)]) for n in (1, 4, 16)
    }
    means = list(deep.values())
    assert max(means) - min(means) <= 0.05
    assert deep[16] > 5.0 / 17.0
    assert abs(deep[1] - np.mean(TESTBED_SHARE_8_BDP)) <= 0.04
    for n in (1, 4):
        shallow = np.mean([_one_bbr_against_cubic(n, 1.0, seed) for seed in (1, 2, 3)])
        assert shallow > deep[n]


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

    def run(cc: CongestionControl) -> float:
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


def _probe_bw_state(cwnd_gain_bw_pkts_per_s: float) -> bbr_reference.Bbr:
    """A reference BBR flow in ProbeBW's cruising phase (gain 1), pipe full, BtlBw as given,
    RTprop 100 ms, no round starting on the next ACK."""
    bb = bbr_reference.start(0.0, 0.1, 10.0)
    bb.full_bw_reached = True
    bb.mode = BbrMode.PROBE_BW
    bb.cycle_index = 2
    bb.pacing_gain = 1.0
    bb.cycle_stamp = 0.002
    bb.max_bw = cwnd_gain_bw_pkts_per_s
    bb.bw_round = [cwnd_gain_bw_pkts_per_s] * len(bb.bw_round)
    bb.next_round_delivered = 10**9
    bb.delivered_time = 0.002  # the ACK below comes 2 ms after the epoch began (t = 0)
    bb.rs_bw = 500.0  # a valid rate sample, below BtlBw
    bb.rs_prior_delivered = 0
    return bb


@pytest.mark.parametrize(("acked", "target"), [(20, 226), (500, 306)])
def test_cwnd_target_adds_the_ack_aggregation_allowance(acked: int, target: int) -> None:
    """Linux's ``tcp_bbr.c`` (read for this work, its v6.x text): ``bbr_set_cwnd`` adds
    ``bbr_ack_aggregation_cwnd`` to ``bbr_bdp`` before the quantization budget, once the pipe
    is full: the largest "extra acked" of the last 5-10 rounds, capped at BtlBw · 100 ms
    (``bbr_extra_acked_max_us``). ``bbr_update_ack_aggregation``: an epoch whose ACKs fell
    behind BtlBw restarts at this ACK, so all ``acked`` packets are extra (at most cwnd).

    By hand, BtlBw 1,000 packets/s, RTprop 100 ms, cwnd 1,000: bbr_bdp = ceil(2 · 100) = 200;
    allowance min(acked, 1,000 · 0.1 = 100); quantization 3 · 2 (the pacing rate, 990
    packets/s, sends under one packet per 2^-10 s, so bbr_tso_segs_goal is its minimum, 2);
    even; no +2 outside the 5/4 phase. 20 packets ACKed: 200 + 20 + 6 = 226; 500: capped,
    200 + 100 + 6 = 306. Without the allowance both would be 206."""
    bb = _probe_bw_state(1000.0)
    bb.rs_acked = acked
    cwnd = bbr_reference.on_ack(bb, 0.002, 1000.0, 100, BbrCaState.OPEN, 1500.0, lambda: 0.5)
    assert max(bb.extra_acked) == acked
    assert cwnd == target


def test_rtprop_starts_from_the_handshake_behind_the_queue() -> None:
    """``bbr_init`` takes RTprop from ``tcp_min_rtt``, which the SYN's RTT set: a transfer that
    starts behind a standing queue takes the propagation delay plus the queue's wait (measured
    on Linux 6.18: the last of ten flows to start kept 175 ms for its 87.5 ms path,
    studies/results/kernel_bbr_cwnd.md). With the FIFO's last accepted packet leaving 30 ms
    from now, a 50 ms flow starts with RTprop 80 ms; with fair queueing (a new flow's queue is
    served at once) with 50 ms."""
    for discipline, expected in (("droptail", 0.08), ("fq", 0.05)):
        sc = Scenario(
            capacity_bps=10e6,
            rtt_s=0.05,
            rtt_jitter_s=0.0,
            flows=1,
            congestion_control="bbr",
            discipline=discipline,
        )
        sim = ReferenceSimulator(sc, 100, 1, False)
        sim.last_dep = 1.03
        sim.start_flow(1.0, 0)
        bb = sim.flows[0].bbr
        assert bb is not None
        assert bb.min_rtt == pytest.approx(expected, abs=1e-12)


def test_ten_bbr_flows_at_two_bdp_lose_as_linux_does() -> None:
    """Ten BBR flows, 100 Mb/s, RTTs 80-120 ms, 2 BDP of buffer (1,667 packets), 15 s measured
    after 5 s, seeds 1 and 2: the kernel comparison's point (studies/results/kernel_compare.md).
    Linux 6.18 on the namespace testbed lost 0.14 % and 3.07 % of the port's arrivals (mean
    1.60 %); the simulator lost 0.04 % (mean) while its BBR had neither Linux's ACK-aggregation
    allowance nor an RTprop taken from the handshake, 0.59 % and 2.93 % with them. Seed 2's last
    flow starts at 0.97 s behind a 90-140 ms queue and, with an RTprop that large, holds twice
    that much in flight until its ProbeRTT: the overflow. Asserted: mean loss above 0.5 %
    (a third of Linux's; the old simulator's 0.04 % is far below) and below three times
    Linux's 1.60 %."""
    sc = Scenario(
        capacity_bps=100e6,
        groups=(
            FlowGroup(name="bbr", flows=10, congestion_control="bbr", rtt_s=0.1, rtt_jitter_s=0.02),
        ),
        duration_s=20.0,
        warmup_s=5.0,
    )
    loss = np.mean([simulate(sc, 1667, seed).loss_rate for seed in (1, 2)])
    assert 0.005 < loss < 3 * 0.016
