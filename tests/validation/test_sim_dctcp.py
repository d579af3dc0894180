"""DCTCP and ECN (issue 14 item 2): the marking port, the receivers' echo, the senders' reaction,
and DCTCP's queue against Alizadeh et al.'s analysis.

Sources: M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010 (doi 10.1145/1851182.1851192;
read in a text conversion of the ACM open-access PDF): §3.1 the algorithm, eq. (1)-(2), and
the receiver's two-state machine (Fig. 10); §3.3 "Analysis", eq. (3)-(10); §3.4 "Guidelines
for choosing parameters", eq. (11)-(15). RFC 3168 §6.1.2-6.1.3 (read): classic ECN, CWR.
RFC 8257 (read): §3.1 the switch's threshold, §3.2 the receiver's echo and its state machine
(Figure 1), §3.3 the sender's α and cwnd·(1 − α/2), §5 DCTCP beside conventional TCP.

The analysis (§3.3), as the paper states it: N flows with identical round-trip times,
synchronized; W* = (C·RTT + K)/N is "the critical window size at which the queue size
reaches K"; α²(1 − α/4) = (2W* + 1)/(W* + 1)² ≈ 2/W* (eq. (6)), so α ≈ √(2/W*) "assuming α is
small"; each window falls by D = (W* + 1)·α/2 (eq. (7)) and the queue by
A = N·D ≈ ½·√(2N(C·RTT + K)) (eq. (8)), from Q_max = K + N (eq. (10)) to
Q_min = Q_max − A (eq. (11)-(12)); "To find a lower bound on K, we minimize (12) over N, and
choose K so that this minimum is larger than zero": K > (C·RTT)/7 (eq. (13)). The paper's
NS-2 check (Fig. 12, N = 2, 10, 40 at 10 Gb/s, 100 µs, K = 40, g = 1/16) finds the analysis
"fairly accurate ... especially when N is small (less than 10)", and for N = 40
"de-synchronization of the flows leads to smaller queue variations than predicted".

The port marks an arrival that finds at least K packets (issue 14's "at or above a threshold
K"); the paper's §3.1 marks "if the queue occupancy is greater than K upon it's arrival", and
RFC 8257 §3.1 "when a packet arrives at a switch and its queue length is greater than the
congestion threshold": the same rule with K one packet lower. The analysis counts marking
from the moment the queue "reaches K".
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from models.errors import ParameterError
from validation.simulator import FlowGroup, Scenario, simulate
from validation.simulator.layout import CE_FLAG, CWR_FLAG
from validation.simulator.reference.simulator import ReferenceSimulator

# The datacenter link: 10 Gb/s, 100 µs, 1500-byte packets on the wire.
CAPACITY_BPS = 10e9
RTT_S = 100e-6
BDP_PACKETS = CAPACITY_BPS * RTT_S / (8 * 1500)  # C·RTT = 83.3 packets
K_GUIDELINE = round(BDP_PACKETS / 7)  # §3.4 eq. (13): K > C·RTT/7 = 11.9 -> 12 packets
BUFFER = 300  # deep enough never to drop here: the queue stays below K + N (eq. (10)'s Q_max)


def datacenter(flows: int, k: int, **changes: object) -> Scenario:
    """N persistent DCTCP flows on the datacenter link, 70 ms measured after 30 ms.

    Hosts send at the link rate (10 Gb/s access links); RTTs spread ±20% (the simulator's
    default, so the flows are not phase-locked); 10 ms minimum RTO (none fires here). 70 ms is
    700 RTTs: α's filter (g = 1/16) settles within about 50.
    """
    values: dict[str, object] = {
        "capacity_bps": CAPACITY_BPS,
        "flows": flows,
        "rtt_s": RTT_S,
        "access_bps": CAPACITY_BPS,
        "max_window_packets": 1000,
        "congestion_control": "dctcp",
        "ecn_threshold_packets": k,
        "min_rto_s": 0.01,
        "start_spread_s": 0.001,
        "duration_s": 0.1,
        "warmup_s": 0.03,
    }
    values.update(changes)
    return Scenario(**values)  # type: ignore[arg-type]


def queue_percentile(queue_distribution: np.ndarray, p: float) -> int:
    """Smallest k with at least a fraction p of the time at <= k packets."""
    return int(np.searchsorted(np.cumsum(queue_distribution), p))


def amplitude_closed_form(flows: int, k: int) -> float:
    """Alizadeh et al. 2010 §3.3 eq. (8): A = N·D ≈ ½·√(2N(C·RTT + K)) packets (the sawtooth
    of N synchronized flows, D = (W* + 1)·α/2 by eq. (7), α ≈ √(2/W*) by eq. (6),
    W* = (C·RTT + K)/N)."""
    return 0.5 * math.sqrt(2.0 * flows * (BDP_PACKETS + k))


@pytest.mark.parametrize("flows", [10, 20, 50])
def test_k_at_the_guideline_keeps_the_link_busy_and_the_queue_swings_as_analysed(
    flows: int,
) -> None:
    r = simulate(datacenter(flows, K_GUIDELINE), BUFFER, 1)
    # Issue 14: "with K = C·RTT/7 the link stays above 95% utilized". Measured (seed 1):
    # 0.9787, 0.9673, 0.9770 for N = 10, 20, 50; marks, no drop (0.9713, 0.9533, 0.9651 while
    # CWR ended one ACK early, 0.9853, 0.9746, 0.9787 before the senders held their window in
    # ECN's CWR round trip, as Linux does: core/ecn.py).
    assert r.utilization > 0.95
    assert r.loss_rate == 0.0 and r.timeouts == 0
    assert r.marks > 0
    # The queue oscillates around K: K lies inside its 1st-99th percentile band, and the
    # band's width (peak to peak) is the analysis's amplitude A. Measured band: [0, 20],
    # [0, 27], [0, 53] packets against A = 21.8, 30.9, 48.8 (ratios 0.92, 0.87, 1.09; before
    # the CWR change [0, 22], [0, 28], [0, 54], and seeds 2 and 3 gave 0.91 to 1.15).
    # Tolerance 25%: the closed form drops O(1/W*) terms of the
    # analysis's own eq. for α (α²(1 − α/4) = (2W* + 1)/(W* + 1)² solved exactly gives an
    # amplitude 9%, 14% and 27% larger at W* = 9.5, 4.8, 1.9), and the analysis assumes
    # synchronized flows with one RTT where these RTTs spread ±20% (the paper's own NS-2 runs,
    # Fig. 12, find N = 40 swinging less than eq. (8) from de-synchronization).
    low = queue_percentile(r.queue_distribution, 0.01)
    high = queue_percentile(r.queue_distribution, 0.99)
    assert low <= K_GUIDELINE <= high
    amplitude = amplitude_closed_form(flows, K_GUIDELINE)
    assert abs((high - low) / amplitude - 1.0) <= 0.25
    # §3.3 eq. (10): Q_max = K + N; the top of the band stays below it (measured 20, 27, 53 against
    # 22, 32, 62). At N = 50 the bottom does not stay at
    # Q_min = K + N − A = 13.2: each window is W* = 1.9 packets, the analysis's approximations
    # need W* >> 1 and DCTCP's window floor of 2 packets is near; the band's bottom is 0 packets
    # and the measured queue empties 2.3% of the time.
    assert high <= K_GUIDELINE + flows


@pytest.mark.parametrize("flows", [10, 20])
def test_k_well_below_the_guideline_empties_the_queue_and_costs_throughput(flows: int) -> None:
    # §3.4 eq. (12)-(13): K > C·RTT/7 keeps Q_min = K + N − A above zero for every N (its
    # minimum over N, at N = (C·RTT + K)/8, is K − (C·RTT + K)/8). With K = 2 packets
    # (C·RTT/42) Q_min < 0 at N = 10 and 20 (−8.7 and −7.2): the queue empties every cycle and
    # the link idles.
    k = 2
    good = simulate(datacenter(flows, K_GUIDELINE), BUFFER, 1)
    low_k = simulate(datacenter(flows, k), BUFFER, 1)
    assert flows + k - amplitude_closed_form(flows, k) < 0.0
    # Measured (seed 1): empty 52.7% / 40.5% of the time against 2.1% / 3.3% at K = 12 (25
    # and 12 times as often); utilization 0.473 / 0.595 against 0.979 / 0.967 (before the
    # senders held their window in ECN's CWR round trip, core/ecn.py: 45.1% / 34.6% against
    # 1.5% / 2.5%, utilization 0.549 / 0.654 against 0.985 / 0.975). The drop is larger than
    # the synchronized fluid model's because flows arriving at line rate put 2 packets in the
    # queue by coincidence of bursts (marks on 34% of arrivals at N = 10) although the link is
    # not full. Asserted: empty at least 5 times as often.
    assert low_k.queue_distribution[0] > 5 * good.queue_distribution[0]
    assert low_k.utilization < 0.95
    assert low_k.utilization < good.utilization - 0.1


# ------------------------------------------------------------------ the port


def test_packets_not_ecn_capable_see_drop_tail() -> None:
    # A marking threshold changes nothing for Reno without ECN: no mark, the same sample path.
    reno = Scenario(capacity_bps=20e6, flows=8, rtt_s=0.02, duration_s=4.0, warmup_s=1.0)
    plain = simulate(reno, 20, 3)
    marking = simulate(reno.replace(ecn_threshold_packets=5), 20, 3)
    assert marking.marks == 0 and plain.marks == 0
    assert marking.loss_rate == plain.loss_rate > 0.0
    assert marking.packets_sent == plain.packets_sent


def test_the_buffer_stays_the_hard_limit_for_ecn_capable_packets() -> None:
    # K above the buffer: an arrival never finds K packets (at most B − 1 when accepted), so
    # nothing is marked and DCTCP loses packets at the full buffer as Reno does.
    dctcp = Scenario(
        capacity_bps=20e6,
        flows=8,
        rtt_s=0.02,
        congestion_control="dctcp",
        duration_s=4.0,
        warmup_s=1.0,
    )
    r = simulate(dctcp.replace(ecn_threshold_packets=50), 20, 3)
    assert r.marks == 0 and r.loss_rate > 0.0
    # 40 DCTCP flows with 2-packet windows need 80 packets, more than C·RTT (17) plus the
    # buffer (12): marking cannot shrink them further and the full buffer drops.
    crowded = dctcp.replace(flows=40, ecn_threshold_packets=3)
    r = simulate(crowded, 12, 3)
    assert r.marks > 0 and r.loss_rate > 0.0


def test_a_threshold_in_bytes_is_the_same_as_in_packets_of_full_size() -> None:
    sc = datacenter(10, K_GUIDELINE)
    in_bytes = sc.replace(ecn_threshold_packets=None, ecn_threshold_bytes=K_GUIDELINE * 1500)
    a, b = simulate(sc, BUFFER, 5), simulate(in_bytes, BUFFER, 5)
    assert a.marks == b.marks > 0
    assert a.utilization == b.utilization


def test_marks_are_counted_per_group() -> None:
    mix = Scenario(
        capacity_bps=CAPACITY_BPS,
        duration_s=0.05,
        warmup_s=0.02,
        ecn_threshold_packets=K_GUIDELINE,
        groups=(
            FlowGroup(
                name="dctcp",
                flows=5,
                congestion_control="dctcp",
                rtt_s=RTT_S,
                access_bps=CAPACITY_BPS,
                start_spread_s=0.001,
            ),
            FlowGroup(
                name="cubic",
                flows=5,
                congestion_control="cubic",
                rtt_s=RTT_S,
                access_bps=CAPACITY_BPS,
                start_spread_s=0.001,
            ),
        ),
    )
    r = simulate(mix, BUFFER, 1)
    dctcp, cubic = r.groups
    assert cubic.marks == 0 and dctcp.marks > 0
    assert dctcp.marks + cubic.marks == r.marks
    assert dctcp.mark_rate == pytest.approx(dctcp.marks / dctcp.bottleneck_arrivals)


def _dctcp_share_beside_cubic(buffer_packets: int, seed: int) -> tuple[float, float, float]:
    """5 DCTCP and 5 CUBIC flows (CUBIC not ECN-capable) at the datacenter link, K = 12.

    Returns DCTCP's share of the throughput, DCTCP's mark rate and the link's utilization.
    The flows are those of :func:`datacenter` (10 ms minimum RTO, 1000-packet windows).
    """
    flows = {
        "flows": 5,
        "rtt_s": RTT_S,
        "access_bps": CAPACITY_BPS,
        "start_spread_s": 0.001,
        "min_rto_s": 0.01,
        "max_window_packets": 1000,
    }
    mix = Scenario(
        capacity_bps=CAPACITY_BPS,
        duration_s=0.1,
        warmup_s=0.03,
        ecn_threshold_packets=K_GUIDELINE,
        groups=(
            FlowGroup(name="dctcp", congestion_control="dctcp", **flows),  # type: ignore[arg-type]
            FlowGroup(name="cubic", congestion_control="cubic", **flows),  # type: ignore[arg-type]
        ),
    )
    r = simulate(mix, buffer_packets, seed)
    dctcp, cubic = r.groups
    share = dctcp.throughput_bps / (dctcp.throughput_bps + cubic.throughput_bps)
    return share, dctcp.mark_rate, r.utilization


def test_dctcp_is_starved_by_cubic_in_a_shared_queue_with_drop_tail_for_cubic() -> None:
    """DCTCP and CUBIC in one queue: which one loses depends on where CUBIC's packets drop.

    Sources. Alizadeh et al. 2010 §4.1 ("Fairness and convergence"): "We make no claims that
    DCTCP is fair to TCP. If need be, DCTCP flows can be isolated from TCP flows", as §1
    proposes with Ethernet priorities. RFC 8257 §5 "Deployment Issues" (read): "DCTCP and
    conventional TCP congestion control do not coexist well in the same network"; with the
    marking threshold "set to a very low value", "conventional TCP will suffer packet loss and
    quickly and drastically reduce cwnd. DCTCP, on the other hand, will use the fraction of
    marked packets to reduce cwnd more gradually. Thus, the rate reduction in DCTCP will be
    much slower than that of conventional TCP, and DCTCP traffic will gain a larger share of
    the capacity"; "it is RECOMMENDED that DCTCP traffic be segregated from conventional TCP
    traffic". That direction holds where conventional TCP "will suffer packet loss" as soon as
    the marking threshold is exceeded, i.e. at a switch that drops its packets where it marks
    DCTCP's (§5 names RED switches; the deployment it cites segregates the two, with AQM for
    DCTCP and drop-tail for TCP). RFC 3168 §5 (read) is such a switch: "the CE codepoint of an
    ECN-Capable packet SHOULD only be set if the router would otherwise have dropped the
    packet".

    This port is the other one: packets that are not ECN-capable see drop-tail at the buffer
    (module ``ecn.py``; ``test_packets_not_ecn_capable_see_drop_tail``). With B = 300 packets
    CUBIC keeps the queue far above K = 12, so every DCTCP packet arrives to a queue at or
    above K and is marked (mark rate measured 0.992-0.998), α goes to 1 and DCTCP halves
    once per window, while CUBIC backs off only when the buffer overflows: DCTCP is starved.
    Measured DCTCP shares, seeds 1-4: 0.025, 0.022, 0.017, 0.022 (fair share 0.5; with the
    200 ms default minimum RTO and 20 ms of warm-up the same mix gave 0.006, seed 1, because
    starved DCTCP flows then sit in timeouts longer than the run). The bound 0.1 is four
    times the largest of them and a fifth of the fair share.

    With B = K + 1 = 13 the buffer drops CUBIC's packets about where the port starts marking,
    as at an RFC 3168 §5 switch, and DCTCP's share swings from seed to seed: measured, seeds
    1-8, 0.26, 0.87, 0.30, 0.61, 0.00, 0.70, 0.40, 0.00 (0.00 where DCTCP flows are locked in
    retransmission timeouts, every packet of theirs in the measured 70 ms lost; before its
    senders grew cwnd on ECE ACKs after a timeout, as Linux's Loss state does, 29 Nov 2026:
    0.00, 0.00, 0.12, 1.00, 0.00, 0.87, 0.06, 0.00). That contrast is too unstable to assert
    and is not: the test asserts the drop-tail case only.
    """
    for seed in range(1, 5):
        share, mark_rate, utilization = _dctcp_share_beside_cubic(300, seed)
        assert share < 0.1
        assert mark_rate > 0.95
        assert utilization > 0.99  # CUBIC takes what DCTCP leaves: the link stays full


# ------------------------------------------------------------ the receivers


def _receiver(cc: str, ecn: bool, delayed_ack: int) -> tuple[ReferenceSimulator, list[tuple]]:
    """One flow's receiver in the reference, its ACKs recorded as (cumulative ack, ECE)."""
    sc = Scenario(
        flows=1,
        congestion_control=cc,
        ecn=ecn,
        delayed_ack=delayed_ack,
        duration_s=1.0,
        warmup_s=0.0,
    )
    sim = ReferenceSimulator(sc, 10, 1, trace=False)
    sim.flows[0].active = True
    acks: list[tuple] = []
    sim.on_ack = lambda t, f, cum, sack_seq, ece=False: acks.append((cum, ece))  # type: ignore[method-assign]
    return sim, acks


def test_dctcp_receiver_echoes_each_packets_ce_with_delayed_acks() -> None:
    # RFC 8257 §3.2 (Figure 1) and Alizadeh et al. 2010 §3.1 (Fig. 10): one ACK per 2 packets
    # with ECE = DCTCP.CE; when CE changes, "set DCTCP.CE to true [false] and send an immediate
    # ACK", the packets not yet acknowledged first ACKed with the old ECE (the RFC's "MAY
    # choose to send two ACKs", as Linux's tcp_dctcp.h does). CE of packets 0..7:
    # 0 1 1 1 0 0 0 1.
    sim, acks = _receiver("dctcp", False, 2)
    for seq, ce in enumerate([0, 1, 1, 1, 0, 0, 0, 1]):
        sim.deliver(0.001 * seq, 0, 0, seq, CE_FLAG if ce else 0)
    # 0 waits; 1 (marked): 0 flushed unmarked, then 1 ACKed at once marked; 2-3 marked;
    # 4 (unmarked, nothing waiting): ACKed at once unmarked; 5-6 unmarked; 7 (marked) at once.
    assert acks == [(1, False), (2, True), (4, True), (5, False), (7, False), (8, True)]


def test_ns3_like_receiver_sends_no_immediate_ack_of_a_ce_change() -> None:
    # The reference's switch for studies/dctcp_ce_ack.py: ns-3 3.44's TcpDctcp acknowledges
    # the packets waiting before a CE change with the old ECE, but the changing packet waits
    # for the next delayed ACK. Same CE pattern as above: 0 1 1 1 0 0 0 1.
    sim, acks = _receiver("dctcp", False, 2)
    sim.immediate_ce_ack = False
    for seq, ce in enumerate([0, 1, 1, 1, 0, 0, 0, 1]):
        sim.deliver(0.001 * seq, 0, 0, seq, CE_FLAG if ce else 0)
    # 0 waits; 1: 0 flushed unmarked, 1 waits; 2: 1-2 ACKed marked; 3 waits; 4: 3 flushed
    # marked, 4 waits; 5: 4-5 ACKed unmarked; 6 waits; 7: 6 flushed unmarked, 7 waits.
    assert acks == [(1, False), (3, True), (4, True), (6, False), (7, False)]


def test_classic_receiver_latches_ece_until_cwr() -> None:
    # RFC 3168 §6.1.3: after a CE packet every ACK carries ECE until a packet with CWR.
    sim, acks = _receiver("reno", True, 1)
    flags = [0, CE_FLAG, 0, 0, CWR_FLAG, 0]
    for seq, flag in enumerate(flags):
        sim.deliver(0.001 * seq, 0, 0, seq, flag)
    assert [ece for _, ece in acks] == [False, True, True, True, False, False]


# -------------------------------------------------------------- the senders


def _sender(cc: str, ecn: bool) -> tuple[ReferenceSimulator, object]:
    sc = Scenario(flows=1, congestion_control=cc, ecn=ecn, duration_s=1.0, warmup_s=0.0)
    sim = ReferenceSimulator(sc, 10, 1, trace=False)
    fl = sim.flows[0]
    fl.active, fl.cwnd, fl.ssthresh, fl.snd_nxt, fl.high_tx = True, 20.0, 1e9, 20, 20
    return sim, fl


def test_dctcp_sender_alpha_and_one_cut_per_window() -> None:
    # RFC 8257 §3.3 steps 1-9 ("DCTCP.Alpha, which is initialized to 1"; step 4 "If the
    # acknowledgment number is less than or equal to DCTCP.WindowEnd, stop processing") with
    # g = 1/16 (§4.2), worked by hand.
    sim, fl = _sender("dctcp", False)
    sim.ecn_on_ack(fl, 10, 10, False)  # passes WindowEnd 0: M = 0/10
    assert fl.alpha == pytest.approx(15 / 16) and fl.window_end == 20
    assert fl.cwnd == 20.0  # no ECE: no cut
    fl.snd_una = 15
    sim.ecn_on_ack(fl, 15, 5, True)  # inside the window: α kept; ECE: cwnd·(1 − α/2)
    assert fl.alpha == pytest.approx(15 / 16)
    assert fl.cwnd == pytest.approx(20.0 * (1 - 15 / 32)) and fl.ssthresh == fl.cwnd
    assert fl.cwr_pending and fl.ecn_recover == 20  # high_seq: one past the packets out
    fl.snd_una, fl.snd_nxt, fl.high_tx = 21, 30, 30
    sim.ecn_on_ack(fl, 21, 6, True)  # passes WindowEnd 20: M = 11/11 (5 + 6 marked)
    assert fl.alpha == pytest.approx(15 / 16 * 15 / 16 + 1 / 16)
    # ... and 21 > 20: the next window's ECE cuts again, with the new α
    assert fl.cwnd == pytest.approx(20.0 * (1 - 15 / 32) * (1 - fl.alpha / 2))
    before = fl.cwnd
    fl.snd_una = 25
    sim.ecn_on_ack(fl, 25, 4, True)  # within the window of that cut (ecn_recover 30): none
    assert fl.cwnd == before


def test_the_window_does_not_grow_until_the_reduced_window_is_acknowledged() -> None:
    # Linux: an ACK with ECE puts the sender in CWR (tcp_try_to_open -> tcp_enter_cwr, which
    # records high_seq = snd_nxt), and tcp_cong_control (net/ipv4/tcp_input.c) grows cwnd
    # (tcp_cong_avoid) only when not tcp_in_cwnd_reduction, until snd_una passes high_seq;
    # ns-3 3.44's CA_CWR does not grow it either. Congestion avoidance, cwnd 20, 20 packets out.
    sim, fl = _sender("dctcp", False)
    fl.ssthresh = 10.0
    sim.on_ack(0.001, 0, 2, -1, True)  # α = 15/16 + 1/16 · 2/2 = 1: cwnd · (1 − 1/2)
    assert fl.cwnd == 10.0  # from 20, not from 20 + 1/20 grown by this ACK first
    assert fl.ecn_recover == 20
    for i, cum in enumerate(range(4, 20, 2)):  # the packets out at the reduction, no ECE
        sim.on_ack(0.002 + 0.001 * i, 0, cum, -1, False)
    assert fl.cwnd == 10.0  # (the window grew on each of these ACKs before 29 Nov 2026)
    sim.on_ack(0.02, 0, 21, -1, False)  # past them: congestion avoidance again
    assert fl.cwnd > 10.0


def test_cwr_is_held_through_the_ack_of_exactly_the_packets_out_at_the_reduction() -> None:
    # Linux's tcp_fastretrans_alert (net/ipv4/tcp_input.c) leaves TCP_CA_CWR only when
    # snd_una passes high_seq (snd_nxt at the reduction): "CWR is to be held something *above*
    # high_seq is ACKed for CWR bit to reach receiver", if (tp->snd_una != tp->high_seq). So
    # the ACK of exactly the 20 packets out at the cut neither grows cwnd nor, with ECE, cuts
    # again; the ACK past them may. (Before 29 Nov 2026 the state was left one ACK early:
    # cwnd 11.8 after the ACK without ECE, 18 packets counted by RFC 3465.)
    for ece in (False, True):
        sim, fl = _sender("dctcp", False)
        fl.ssthresh = 10.0
        sim.on_ack(0.001, 0, 2, -1, True)  # α = 1: cwnd 20 -> 10, high_seq 20
        assert fl.cwnd == 10.0
        sim.on_ack(0.002, 0, 20, -1, ece)  # snd_una == high_seq: still in CWR
        assert fl.cwnd == 10.0
    sim.on_ack(0.003, 0, 22, -1, True)  # past high_seq, ECE: the next cut (α still 1)
    assert fl.cwnd == 5.0


def test_after_a_timeout_the_window_grows_on_ece_acks() -> None:
    # Linux: a timeout puts the sender in TCP_CA_Loss, which replaces CWR; tcp_cong_control
    # holds cwnd only when tcp_in_cwnd_reduction (CWR or Recovery), so in Loss an ACK of new
    # data grows cwnd by slow start (tcp_may_raise_cwnd, FLAG_DATA_ACKED) whether or not it
    # carries ECE (tcp_fastretrans_alert's Loss case does not enter CWR). Before 29 Nov 2026
    # bufsize held cwnd at 1 on such ACKs.
    sc = Scenario(
        flows=1, congestion_control="dctcp", recovery="newreno", duration_s=1.0, warmup_s=0.0
    )
    sim = ReferenceSimulator(sc, 10, 1, trace=False)
    fl = sim.flows[0]
    fl.active, fl.cwnd, fl.ssthresh, fl.snd_nxt, fl.high_tx = True, 20.0, 1e9, 20, 20
    fl.rto_event = fl.rto_expiry = 0.01
    sim.rto_fire(0.01, 0)  # 20 packets out: Loss until the ACK passes packet 19
    assert fl.cwnd == 1.0 and fl.rto_recover == 19
    sim.on_ack(0.02, 0, 1, -1, True)  # the retransmission ACKed, with ECE
    assert fl.cwnd == 2.0
    sim.on_ack(0.03, 0, 3, -1, True)
    assert fl.cwnd == 3.0


def test_classic_ecn_sender_halves_like_a_loss_without_retransmitting() -> None:
    sim, fl = _sender("reno", True)
    fl.snd_una = 4  # flight 16
    sim.ecn_on_ack(fl, 4, 4, True)
    assert fl.cwnd == fl.ssthresh == 8.0  # RFC 3168 §6.1.2: as a loss (RFC 5681: flight/2)
    assert not fl.rexmitted and sim.raw.sent == 0 and fl.cwr_pending


# ---------------------------------------------------------- scenario checks


@pytest.mark.parametrize(
    ("changes", "field", "bound"),
    [
        ({"ecn_threshold_packets": 0}, "ecn_threshold_packets", ">= 1"),
        ({"ecn_threshold_bytes": 0}, "ecn_threshold_bytes", ">= 1"),
        (
            {"ecn_threshold_packets": 5, "ecn_threshold_bytes": 5000},
            "ecn_threshold_bytes",
            "None when ecn_threshold_packets is set",
        ),
        (
            {"ecn_threshold_packets": 5, "discipline": "fq"},
            "discipline",
            "droptail when an ECN marking threshold is set",
        ),
        ({"ecn": "yes"}, "ecn", "true or false"),
        ({"congestion_control": "vegas"}, "congestion_control", "one of reno, cubic, dctcp"),
    ],
)
def test_bad_ecn_settings_name_the_field_and_bound(
    changes: dict[str, object], field: str, bound: str
) -> None:
    with pytest.raises(ParameterError) as info:
        Scenario.from_dict(changes)
    assert info.value.name == field
    assert bound in info.value.bound


def test_dctcp_at_a_port_that_never_marks_is_warned_about() -> None:
    assert any("never marks" in w for w in Scenario(congestion_control="dctcp").warnings())
    assert not any(
        "never marks" in w
        for w in Scenario(congestion_control="dctcp", ecn_threshold_packets=9).warnings()
    )


def test_mark_or_drop_marks_ecn_capable_packets_and_drops_the_others() -> None:
    # The signal an AQM's mark mode sends (RFC 8289 §1: "it may be reasonable to ECN-mark
    # packets instead"; RFC 8033 §5.1):
    # core/ecn.py's mark_or_drop and the reference's are the one place it is decided.
    mix = Scenario(
        duration_s=2.0,
        warmup_s=0.0,
        background_load=0.1,
        groups=(
            FlowGroup(flows=1, congestion_control="dctcp"),
            FlowGroup(flows=1, ecn=True),
            FlowGroup(flows=1),
        ),
    )
    sim = ReferenceSimulator(mix, 10, 1, trace=False)
    assert sim.mark_or_drop(0.5, 0, 1500.0) == CE_FLAG  # DCTCP
    assert sim.mark_or_drop(0.5, 1, 1500.0) == CE_FLAG  # classic ECN
    assert sim.mark_or_drop(0.5, 2, 1500.0) == -1  # not ECN-capable: dropped
    assert sim.mark_or_drop(0.5, 3, 1500.0) == -1  # a background packet
    assert sim.raw.marks == 2 and sim.raw.drops == 2
