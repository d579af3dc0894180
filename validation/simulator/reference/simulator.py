"""Pure-Python reference implementation of the simulator's model (slow, for checking).

One heap of ``(time, kind, sequence number, flow, epoch, seq)`` events in the style of SimPy:
ties break by event kind and then by the order events were scheduled. Every packet's
departure from the bottleneck is an explicit event. The compiled core (``core/``) implements
the same model with arrays; small scenarios must give the same sample path in both.

The model, in one place:

- flow ``i`` sends through its access link (rate ``access_bps``, FIFO) and then
  ``rtt_i / 2`` of propagation to the bottleneck; a packet that leaves the bottleneck reaches
  the receiver, whose acknowledgement is back at the sender ``rtt_i / 2`` later (the receiver
  is evaluated at that time, which is equivalent since the ACK path has no queue);
- the bottleneck holds at most ``B`` packets (or ``B`` full packets' bytes in byte mode), the
  one in transmission included; FIFO drop-tail, or DRR fair queueing that drops from the
  longest queue; the FIFO may run an AQM below that hard limit: CoDel (RFC 8289) and DualPI2
  (RFC 9332, as Linux's sch_dualpi2.c runs it by default) deciding at dequeue, PIE
  (RFC 8033) at enqueue (see ``core/codel.py``, ``core/dualq.py`` and ``core/pie.py`` for
  the algorithms and their sources);
- TCP Reno: slow start (at most one packet per ACK, RFC 5681 §3.1, even when an ACK covers
  a repaired hole), congestion avoidance counting the packets acknowledged (``ca_increase``
  "bytes_acked", RFC 3465) or one packet per ACK ("per_ack", RFC 5681 §3.1 Eq. 3, ns-2's
  ``TcpAgent::opencwnd``): cwnd grows by counted/cwnd per ACK, fast retransmit
  on the third duplicate ACK (the first missing packet is resent at once, RFC 6675 step 4.3),
  RTO per RFC 6298 with backoff (restarted when the first unacknowledged packet is
  retransmitted, as ns-2 and Linux do); SACK recovery (RFC 6675, pipe algorithm; since packets of a
  flow are never reordered, a hole below the highest SACKed packet is lost, and a
  retransmission not delivered when a packet sent after it is, RACK's rule, RFC 8985 §6.2 with
  no reordering window, is lost again and resent, as Linux does) or NewReno (RFC 6582)
  without SACK, go-back-N after a timeout;
- pacing (``pacing``, and BBR always): a sender sends no earlier than ``next_send`` (srtt/cwnd,
  or BBR's 1/pacing rate, after its last packet); a packet the window allows earlier waits for
  a PACE event at ``next_send``, or, when none of the flow's own events can run before that
  event (``quiet_until``), is sent at once with send time ``next_send``, which is what the
  event would do; while a delivery of the flow is due no later than that event, the event is
  kept off the heap and what it would do is decided after that delivery (``delivery_first``,
  ``deferred_pace``): the same sample path with fewer events;
- the receiver ACKs every ``delayed_ack`` in-order segments (at most ``delayed_ack_timeout_s``
  late) and immediately for out-of-order segments, duplicates and filled holes;
- ECN (``core/ecn.py`` says it in full): with a marking threshold, the drop-tail port marks an
  accepted ECN-capable arrival CE when it finds at least K packets (or bytes) there; DCTCP
  receivers echo CE with their two-state machine (a state change first ACKs the packets
  waiting for a delayed ACK with the old ECE, then the new packet at once with the new ECE),
  RFC 3168 receivers latch ECE until CWR; on ECE,
  at most once per window, a classic sender reduces as on a loss without retransmitting and a
  DCTCP sender by cwnd·(1 − α/2), α updated per window with g = 1/16 (``core/dctcp.py``).
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from validation.simulator import parameters as P
from validation.simulator.core.codel import REUSE_INTERVALS
from validation.simulator.core.cubic import ALPHA_CUBIC, BETA_CUBIC, C_CUBIC
from validation.simulator.core.dctcp import DCTCP_ALPHA_INIT, DCTCP_G
from validation.simulator.core.dualq import ALPHA_PER_S as PI2_ALPHA_PER_S
from validation.simulator.core.dualq import BETA_PER_S as PI2_BETA_PER_S
from validation.simulator.core.dualq import (
    COUPLING,
    STEP_THRESH_S,
    TARGET_S,
    TUPDATE_S,
)
from validation.simulator.core.pie import (
    ALPHA_PER_S,
    BETA_PER_S,
    MAX_BURST_S,
    PIE_MARK_ECN_MAX_PROB,
    QDELAY_REF_S,
    T_UPDATE_S,
)
from validation.simulator.core.sender import WHOLE_SEGMENT_SLACK
from validation.simulator.layout import (
    CE_FLAG,
    COPIES,
    COPY_SHIFT,
    CWR_FLAG,
    EPOCHS,
    BbrCaState,
    EcnMode,
    Event,
    FlowCount,
    RecoveryState,
    ecn_mode,
)
from validation.simulator.measures import RawCounters, to_result
from validation.simulator.reference import bbr
from validation.simulator.results import PacketTrace, RunResult, SampledTrace, transfer_numbers
from validation.simulator.scenario import FlowGroup, Scenario

INF = math.inf
#: A packet at the bottleneck: flow, epoch, seq, size (bytes), arrival time, flags (CE, CWR).
Packet = tuple[int, int, int, float, float, int]
#: RFC 8033 §4.2 auto-tuning: below each drop probability, the increment's divisor
#: (core/pie.py's ``autotune``, written out there as branches).
PIE_AUTOTUNE = (
    (0.000001, 2048.0),
    (0.00001, 512.0),
    (0.0001, 128.0),
    (0.001, 32.0),
    (0.01, 8.0),
    (0.1, 2.0),
)


class UniformStream:
    """Uniform random numbers in [0, 1) drawn in blocks from a Generator, one at a time."""

    def __init__(self, generator: np.random.Generator, block: int = 4096) -> None:
        self._gen = generator
        self._block = block
        self._buf = generator.random(block)
        self._pos = 0

    def next(self) -> float:
        """The next uniform of the stream."""
        if self._pos == self._block:
            self._buf = self._gen.random(self._block)
            self._pos = 0
        value = float(self._buf[self._pos])
        self._pos += 1
        return value


@dataclass
class Flow:
    """State of one TCP sender and its receiver."""

    rtt_s: float
    group: int  # index in the scenario's flow groups
    grp: FlowGroup  # the group's parameters
    access_tx_s: float  # transmission time of a full packet on the access link
    active: bool = False
    epoch: int = 0
    size: int = -1  # packets; -1 = unlimited
    snd_una: int = 0
    snd_nxt: int = 0
    high_tx: int = 0
    cwnd: float = 0.0  # until the flow starts
    ssthresh: float = P.INITIAL_SSTHRESH
    dupacks: int = 0
    recovery: int = RecoveryState.NONE
    recover: int = -1
    rto_recover: int = -1
    lost_limit: int = 0
    high_sacked: int = 0
    rexmit_ptr: int = 0
    sacked: set[int] = field(default_factory=set)
    rexmitted: set[int] = field(default_factory=set)
    srtt: float = 0.0
    rttvar: float = 0.0
    rto: float = 1.0
    rtt_seq: int = -1
    rtt_time: float = 0.0
    rto_expiry: float = INF
    rto_event: float = INF
    next_send: float = 0.0
    pace_pending: bool = False
    pace_deferred: bool = False  # a PACE event at pace_due, kept off the heap (deferred_pace)
    pace_due: float = 0.0
    access_free: float = 0.0
    rcv_nxt: int = 0
    ooo: set[int] = field(default_factory=set)
    delack_count: int = 0
    delack_gen: int = 0
    w_max: float = 0.0  # CUBIC (RFC 9438 §4): window before the last reduction
    epoch_start: float = -1.0  # start of the congestion-avoidance epoch (-1: none)
    k: float = 0.0
    w_est: float = 0.0
    ecn: int = EcnMode.OFF  # the group's EcnMode
    ecn_recover: int = -1  # one past the highest packet sent at the last ECE reduction
    ce_state: int = 0  # receiver: DCTCP.CE, or the RFC 3168 ECE latch
    cwr_pending: bool = False  # the next new data packet carries CWR
    alpha: float = DCTCP_ALPHA_INIT  # DCTCP (RFC 8257 §3.3)
    dctcp_acked: int = 0
    dctcp_marked: int = 0
    window_end: int = 0
    bbr: bbr.Bbr | None = None  # BBR v1 state (bbr.py beside this file)
    # the slot's scheduled deliveries (their times, in the order they run) and the time of
    # its delayed-ACK timer (while delack_count > 0): quiet_until reads them
    deliver_due: deque[float] = field(default_factory=deque)
    delack_due: float = INF
    # RACK (RFC 8985 §6.2; SACK only): each packet's last send time, the retransmissions
    # outstanding in the order sent, the reference (send time and number of the latest-sent
    # packet delivered) and the smallest RTT sample
    sent_at: dict[int, float] = field(default_factory=dict)
    rexmit_queue: deque[int] = field(default_factory=deque)
    rack_xmit: float = -1.0
    rack_seq: int = -1
    min_rtt: float = INF
    # each packet's copy number (layout.COPY_SHIFT): of its last transmission, and of the
    # copy the receiver delivered
    sent_copy: dict[int, int] = field(default_factory=dict)
    got_copy: dict[int, int] = field(default_factory=dict)


class ReferenceSimulator:
    """The reference event loop; see the module docstring for the model."""

    #: A DCTCP receiver acknowledges at once the packet that changes its CE state (RFC 8257
    #: §3.2, Linux's ``dctcp_ece_ack_update``); False: only the packets waiting before it,
    #: as ns-3 3.44's ``TcpDctcp`` does (``studies/dctcp_ce_ack.py`` measures the difference).
    immediate_ce_ack = True

    def __init__(self, scenario: Scenario, buffer_packets: int, seed: int, trace: bool) -> None:
        self.p = P.make_parameters(scenario, buffer_packets, seed)
        self.sc = scenario
        self.rand = UniformStream(self.p.generator)
        self.raw = RawCounters.empty(self.p)
        self.trace = trace
        # RACK's queue holds at most one entry per window slot (the core's ring in ``rq``)
        self.rack_queue_cap = (
            1 << max((g.max_window_packets for g in self.p.groups), default=1).bit_length()
        )
        self.heap: list[tuple[float, int, int, int, int, int, int]] = []
        self.seq = 0
        p = self.p
        self.flows = [
            Flow(float(p.rtt_s[f]), k, p.groups[k], float(p.access_tx_s[k]))
            for f, k in enumerate(p.group_of.tolist())
        ]
        for fl in self.flows:
            fl.ecn = ecn_mode(fl.grp.congestion_control, fl.grp.ecn)
        self.marking = scenario.ecn_threshold_packets is not None or (
            scenario.ecn_threshold_bytes is not None
        )
        self.k_packets = scenario.ecn_threshold_packets
        self.k_bytes = scenario.ecn_threshold_bytes
        self.warm = scenario.warmup_s
        self.end = scenario.duration_s
        # bottleneck
        self.fifo: deque[Packet] = deque()
        self.fq: list[deque[Packet]] = [deque() for _ in range(self.p.flows + 1)]
        self.fq_bytes = [0.0] * (self.p.flows + 1)
        self.fq_active: deque[int] = deque()
        self.fq_deficit = [0.0] * (self.p.flows + 1)
        self.fq_visited = [False] * (self.p.flows + 1)
        self.q_packets = 0
        self.q_bytes = 0.0
        self.busy = False
        self.in_service: Packet | None = None
        self.last_change = 0.0
        self.drop_run = 0
        # AQM: CoDel (RFC 8289 §5) and PIE (RFC 8033 §4) state
        self.first_above = 0.0
        self.drop_next = 0.0
        self.dropping = False
        self.count = 0
        self.lastcount = 0
        self.last_dep = 0.0  # departure time of the last accepted packet (PIE's backlog)
        self.pie_prob = 0.0
        self.pie_qdelay_old = 0.0
        self.pie_burst = MAX_BURST_S
        self.pie_next_update = T_UPDATE_S
        self.dualq_prob = 0.0  # RFC 9332 DualPI2 (core/dualq.py): p'
        self.dualq_qdelay_old = 0.0
        self.dualq_next_update = TUPDATE_S
        self.trace_rows: list[tuple[float, int, int, bool, int]] = []
        self.sample_rows: list[tuple[float, int, list[float]]] = []

    # ----------------------------------------------------------------- events
    def push(
        self, t: float, kind: int, flow: int, epoch: int = 0, seq: int = 0, flags: int = 0
    ) -> None:
        heapq.heappush(self.heap, (t, kind, self.seq, flow, epoch, seq, flags))
        self.seq += 1
        if kind == Event.DELIVER:
            self.flows[flow].deliver_due.append(t)

    def run(self) -> RawCounters:
        p = self.p
        for i, fl in enumerate(self.flows):
            if fl.grp.traffic != "poisson_flows":
                self.push(float(p.start_s[i]), Event.FLOW, i)
        for k, group in enumerate(p.groups):  # a Poisson group's arrivals: flow -1 - k
            if group.traffic == "poisson_flows":
                self.push(self.exp(1.0 / group.flow_arrival_rate_per_s), Event.FLOW, -1 - k)
        if p.open_rate_per_s > 0:
            first = 0.0 if p.open_periodic else self.exp(1.0 / p.open_rate_per_s)
            self.push(first, Event.OPEN, p.flows)
        if self.trace:
            self.push(0.0, Event.SAMPLE, 0)
        while self.heap and self.heap[0][0] <= self.end:
            t, kind, _, f, epoch, seq, flags = heapq.heappop(self.heap)
            if kind == Event.DEPART:
                self.depart(t)
            elif kind == Event.DELIVER:
                self.flows[f].deliver_due.popleft()
                self.deliver(t, f, epoch, seq, flags)
                if self.flows[f].pace_deferred:
                    self.deferred_pace(t, f)
            elif kind == Event.ARRIVAL:
                self.arrive(t, f, epoch, seq, p.wire_bits / 8.0, flags)
            elif kind == Event.RTO:
                self.rto_fire(t, f)
            elif kind == Event.DELACK:
                fl = self.flows[f]
                if seq == fl.delack_gen and fl.delack_count > 0:
                    self.send_ack(t, f, -1)
            elif kind == Event.PACE:
                self.flows[f].pace_pending = False
                self.try_send(t, f)
            elif kind == Event.OPEN:
                self.open_arrival(t)
            elif kind == Event.FLOW:
                self.flow_event(t, f)
            elif kind == Event.SAMPLE:
                self.sample(t)
        self.finish()
        return self.raw

    def exp(self, mean: float) -> float:
        return -math.log(1.0 - self.rand.next()) * mean

    # -------------------------------------------------------------- bottleneck
    def account_occupancy(self, t: float) -> None:
        lo = max(self.last_change, self.warm)
        hi = min(t, self.end)
        if hi > lo:
            k = min(self.q_packets, self.p.occupancy_bins - 1)
            self.raw.occupancy_s[k] += hi - lo
        self.last_change = t

    def arrive(self, t: float, f: int, epoch: int, seq: int, size: float, flags: int = 0) -> None:
        raw, p = self.raw, self.p
        self.account_occupancy(t)
        raw.arrivals_total += 1
        measured = t >= self.warm
        if measured:
            raw.arrivals += 1
            raw.per_flow[f, FlowCount.ARRIVALS] += 1
        if self.sc.traffic == "open_loop" and p.open_exponential:
            size = self.exp(p.wire_bits / 8.0)
        if self.sc.discipline == "fq":
            self.fq_arrive(t, f, epoch, seq, size, flags)
            return
        arrived_to = (self.q_packets, self.q_bytes)
        if self.sc.aqm == "dualq":  # updates due by t see the queue before this arrival
            self.dualq_update(t)
        if self.sc.byte_mode:
            accept = self.q_bytes + size <= p.limit_bytes
        else:
            accept = self.q_packets < p.buffer_packets
        if not accept:
            self.drop(t, f, size)
            return
        if self.sc.aqm == "pie" and self.pie_ok_to_signal(t):
            # RFC 8033 §5.1: an ECN-capable packet is marked while drop_prob <= 10 %
            signal = self.aqm_signal(t, f, size, self.pie_prob <= PIE_MARK_ECN_MAX_PROB)
            if signal < 0:
                return
            flags |= signal
        self.accepted(t)
        flags |= self.mark_on_arrival(t, f, *arrived_to)
        self.q_packets += 1
        self.q_bytes += size
        pkt = (f, epoch, seq, size, t, flags)
        self.last_dep = max(t, self.last_dep) + size * 8.0 / self.sc.capacity_bps
        if self.busy:
            self.fifo.append(pkt)
        elif self.sc.aqm in ("codel", "dualq"):
            self.fifo.append(pkt)
            nxt = self.aqm_dequeue(t)
            if nxt is not None:
                self.start_service(t, nxt)
        else:
            self.start_service(t, pkt)

    def aqm_signal(self, t: float, f: int, size: float, may_mark: bool) -> int:
        """The AQM's congestion signal (core/aqm.py): CE_FLAG when the packet is marked (it
        stays), -1 when it is dropped (counted as an AQM drop too)."""
        signal = self.mark_or_drop(t, f, size) if may_mark else -1
        if signal < 0:
            if not may_mark:
                self.drop(t, f, size)
            if t >= self.warm:
                self.raw.aqm_drops += 1
                self.raw.per_flow[f, FlowCount.AQM_DROPS] += 1
        return signal

    # ---------------------------------------------------------------- CoDel
    def codel_ok(self, t: float, sojourn: float, backlog: float) -> bool:
        if sojourn < self.sc.codel_target_s or backlog <= self.p.wire_bits / 8.0:
            self.first_above = 0.0
            return False
        if self.first_above == 0.0:
            self.first_above = t + self.sc.codel_interval_s
            return False
        return t >= self.first_above

    def codel_dodequeue(self, t: float) -> tuple[Packet | None, bool]:
        if not self.fifo:
            self.first_above = 0.0
            return None, False
        pkt = self.fifo.popleft()
        return pkt, self.codel_ok(t, t - pkt[4], self.q_bytes - pkt[3])

    def aqm_dequeue(self, t: float) -> Packet | None:
        """The packet an AQM that decides at dequeue (CoDel, DualQ) sends at t."""
        return self.dualq_dequeue(t) if self.sc.aqm == "dualq" else self.codel_dequeue(t)

    def signal_taken(self, t: float, pkt: Packet, may_mark: bool = True) -> Packet | None:
        """Signal the dequeued packet: None when dropped (it leaves), else it marked CE."""
        signal = self.aqm_signal(t, pkt[0], pkt[3], may_mark)
        if signal < 0:
            self.account_occupancy(t)
            self.q_packets -= 1
            self.q_bytes -= pkt[3]
            return None
        return (pkt[0], pkt[1], pkt[2], pkt[3], pkt[4], pkt[5] | signal)

    def codel_dequeue(self, t: float) -> Packet | None:
        """RFC 8289 ``dequeue``: the packet to send at t, after the control law's drops."""
        interval = self.sc.codel_interval_s
        pkt, ok = self.codel_dodequeue(t)
        if self.dropping:
            if not ok:
                self.dropping = False
            while self.dropping and t >= self.drop_next:
                assert pkt is not None
                self.count += 1
                marked = self.signal_taken(t, pkt)
                if marked is not None:  # sent; the next signal per the law
                    self.drop_next += interval / math.sqrt(self.count)
                    return marked
                pkt, ok = self.codel_dodequeue(t)
                if not ok:
                    self.dropping = False
                else:
                    self.drop_next += interval / math.sqrt(self.count)
        elif ok:
            assert pkt is not None
            marked = self.signal_taken(t, pkt)
            if marked is None:
                pkt, ok = self.codel_dodequeue(t)
            else:
                pkt = marked
            self.dropping = True
            delta = self.count - self.lastcount
            count = 1
            if delta > 1 and t - self.drop_next < REUSE_INTERVALS * interval:
                count = delta
            self.count = count
            self.drop_next = t + interval / math.sqrt(count)
            self.lastcount = count
        return pkt

    # ---------------------------------------------------------------- PIE
    def pie_update(self, t: float) -> None:
        """RFC 8033 §4.2-4.4: every update due at or before t (lazily, as the core does)."""
        while self.pie_next_update <= t:
            u = self.pie_next_update
            qdelay = max(self.last_dep - u, 0.0)
            old = self.pie_qdelay_old
            prob = self.pie_prob
            p = ALPHA_PER_S * (qdelay - QDELAY_REF_S) + BETA_PER_S * (qdelay - old)
            for bound, divisor in PIE_AUTOTUNE:
                if prob < bound:
                    p /= divisor
                    break
            prob += p
            if qdelay == 0.0 and old == 0.0:
                prob *= 0.98
            prob = min(max(prob, 0.0), 1.0)
            burst = max(self.pie_burst - T_UPDATE_S, 0.0)
            if prob == 0.0 and qdelay < 0.5 * QDELAY_REF_S and old < 0.5 * QDELAY_REF_S:
                burst = MAX_BURST_S
            self.pie_prob = prob
            self.pie_burst = burst
            self.pie_qdelay_old = qdelay
            self.pie_next_update = u + T_UPDATE_S

    def pie_ok_to_signal(self, t: float) -> bool:
        """RFC 8033 §4.1 ``drop_early`` for a packet the buffer has room for."""
        self.pie_update(t)
        if self.pie_burst > 0.0:
            return False
        if self.pie_qdelay_old < 0.5 * QDELAY_REF_S and self.pie_prob < 0.2:
            return False
        if self.q_bytes <= 2.0 * self.p.wire_bits / 8.0:
            return False
        return self.rand.next() < self.pie_prob

    # ---------------------------------------------------------------- DualQ
    def dualq_update(self, t: float) -> None:
        """Linux ``calculate_probability``: every p' update due at or before t, from the
        sojourn time of the packet at the head of the queue (0 when none waits)."""
        while self.dualq_next_update <= t:
            u = self.dualq_next_update
            qdelay = u - self.fifo[0][4] if self.fifo else 0.0
            old = self.dualq_qdelay_old
            step = PI2_ALPHA_PER_S * (qdelay - TARGET_S) + PI2_BETA_PER_S * (qdelay - old)
            prob = self.dualq_prob + step
            self.dualq_prob = min(max(prob, 0.0), 1.0)
            self.dualq_qdelay_old = qdelay
            self.dualq_next_update = u + TUPDATE_S

    def dualq_dequeue(self, t: float) -> Packet | None:
        """Linux ``dualpi2_qdisc_dequeue`` with its defaults: ``must_drop`` (nothing below two
        packets left at the port; Classic (p')², a drop on overload; L4S k·p', on overload a
        drop with (p')² and else a mark), then L4S packets marked above 1 ms of sojourn."""
        self.dualq_update(t)
        p = self.dualq_prob
        overload = COUPLING * p > 1.0
        scalable = self.sc.dualq_scalable
        while self.fifo:
            pkt = self.fifo.popleft()
            hit, miss = ("drop" if overload else "signal"), None
            prob = p * p
            if scalable:
                hit, miss = ("drop", "signal") if overload else ("signal", None)
                prob = p * p if overload else COUPLING * p
            if self.q_bytes - pkt[3] < 2.0 * self.p.wire_bits / 8.0:
                prob, miss = 0.0, None
            action = miss
            if prob > 0.0 and self.rand.next() < prob:
                action = hit
            taken: Packet | None = pkt
            if action == "drop":
                taken = self.signal_taken(t, pkt, False)
            elif action == "signal":
                taken = self.signal_taken(t, pkt)
            elif scalable and t - pkt[4] > STEP_THRESH_S:
                taken = self.signal_taken(t, pkt)
            if taken is not None:
                return taken
        return None

    def accepted(self, t: float) -> None:
        if self.drop_run > 0:
            if t >= self.warm:
                self.raw.burst_hist[min(self.drop_run, P.BURST_BINS) - 1] += 1
            self.drop_run = 0

    def drop(self, t: float, f: int, size: float) -> None:
        if t >= self.warm:
            self.raw.drops += 1
            self.raw.per_flow[f, FlowCount.DROPS] += 1
        if f < self.p.flows:
            self.raw.dropped_tcp += 1
        self.drop_run += 1
        if self.trace:
            self.trace_rows.append((t, f, round(size), True, self._trace_epoch(f)))

    def _trace_epoch(self, f: int) -> int:
        """The slot's current transfer number modulo EPOCHS (0 for background packets)."""
        return self.flows[f].epoch if f < self.p.flows else 0

    def ecn_capable(self, f: int) -> bool:
        """Whether packets of flow ``f`` are ECN-capable (background packets are not)."""
        return f < self.p.flows and self.flows[f].ecn != EcnMode.OFF

    def count_mark(self, t: float, f: int) -> None:
        if t >= self.warm:
            self.raw.marks += 1
            self.raw.per_flow[f, FlowCount.MARKS] += 1

    def mark_on_arrival(self, t: float, f: int, q_packets: int, q_bytes: float) -> int:
        """CE_FLAG if an accepted arrival that found q_packets (q_bytes) at the port is marked."""
        if not self.marking or not self.ecn_capable(f):
            return 0
        if (self.k_packets is not None and q_packets >= self.k_packets) or (
            self.k_bytes is not None and q_bytes >= self.k_bytes
        ):
            self.count_mark(t, f)
            return CE_FLAG
        return 0

    def mark_or_drop(self, t: float, f: int, size: float) -> int:
        """An AQM's signal: CE_FLAG for an ECN-capable packet (kept), else drop it (-1)."""
        if self.ecn_capable(f):
            self.count_mark(t, f)
            return CE_FLAG
        self.drop(t, f, size)
        return -1

    def start_service(self, t: float, pkt: Packet) -> None:
        self.busy = True
        self.in_service = pkt
        self.push(t + pkt[3] * 8.0 / self.sc.capacity_bps, Event.DEPART, pkt[0])

    def depart(self, t: float) -> None:
        p = self.p
        pkt = self.in_service
        assert pkt is not None
        f, epoch, seq, size, t_arr, flags = pkt
        self.account_occupancy(t)
        self.q_packets -= 1
        self.q_bytes -= size
        tx = size * 8.0 / self.sc.capacity_bps
        self.account_departure(t, tx, size, t_arr, f)
        if self.trace:
            self.trace_rows.append((t, f, round(size), False, self._trace_epoch(f)))
        if f < p.flows:
            self.push(t + 0.5 * self.flows[f].rtt_s, Event.DELIVER, f, epoch, seq, flags)
        self.busy = False
        self.in_service = None
        if self.sc.discipline == "fq":
            nxt = self.fq_next()
        elif self.sc.aqm in ("codel", "dualq"):
            nxt = self.aqm_dequeue(t)
        else:
            nxt = self.fifo_next()
        if nxt is not None:
            self.start_service(t, nxt)

    def account_departure(self, t: float, tx: float, size: float, t_arr: float, f: int) -> None:
        raw, p = self.raw, self.p
        lo = max(t - tx, self.warm)
        hi = min(t, self.end)
        if hi > lo:
            raw.busy_s += hi - lo
        if self.warm <= t < self.end:
            k = min(int((t - self.warm) / self.sc.interval_s), p.intervals - 1)
            raw.interval_bits[k] += size * 8.0
            raw.per_flow[f, FlowCount.DEPARTED_BYTES] += size
        if t_arr >= self.warm:
            wait = t - tx - t_arr
            raw.delay_count += 1
            raw.delay_sum_s += wait
            raw.delay_sumsq_s2 += wait * wait
            raw.delay_hist[min(int(wait / p.delay_bin_s + 1e-6), p.delay_bins - 1)] += 1.0

    def fifo_next(self) -> Packet | None:
        return self.fifo.popleft() if self.fifo else None

    def fq_arrive(self, t: float, f: int, epoch: int, seq: int, size: float, flags: int) -> None:
        p = self.p
        queue = self.fq[f]
        if not queue:
            self.fq_active.append(f)
        queue.append((f, epoch, seq, size, t, flags))
        self.fq_bytes[f] += size
        self.q_packets += 1
        self.q_bytes += size
        over = (
            self.q_bytes > p.limit_bytes if self.sc.byte_mode else self.q_packets > p.buffer_packets
        )
        if over:
            # drop the last packet of the longest queue (bytes); ties go to the arriving flow
            victim = f
            for g in range(p.flows + 1):
                if self.fq_bytes[g] > self.fq_bytes[victim]:
                    victim = g
            dropped = self.fq[victim].pop()
            self.fq_bytes[victim] -= dropped[3]
            self.q_packets -= 1
            self.q_bytes -= dropped[3]
            if not self.fq[victim]:
                self.fq_active.remove(victim)
                self.fq_deficit[victim] = 0.0
                self.fq_visited[victim] = False
            self.drop(t, victim, dropped[3])
            if victim == f:
                return
        self.accepted(t)
        if not self.busy:
            nxt = self.fq_next()
            if nxt is not None:
                self.start_service(t, nxt)

    def fq_next(self) -> Packet | None:
        quantum = self.p.wire_bits / 8.0
        while self.fq_active:
            g = self.fq_active[0]
            queue = self.fq[g]
            if not self.fq_visited[g]:
                self.fq_deficit[g] += quantum
                self.fq_visited[g] = True
            if queue[0][3] <= self.fq_deficit[g]:
                pkt = queue.popleft()
                self.fq_bytes[g] -= pkt[3]
                self.fq_deficit[g] -= pkt[3]
                if not queue:
                    self.fq_deficit[g] = 0.0
                    self.fq_visited[g] = False
                    self.fq_active.popleft()
                elif queue[0][3] > self.fq_deficit[g]:
                    self.fq_visited[g] = False
                    self.fq_active.rotate(-1)
                return pkt
            self.fq_visited[g] = False
            self.fq_active.rotate(-1)
        return None

    def open_arrival(self, t: float) -> None:
        p = self.p
        if p.open_periodic:
            gap = 1.0 / p.open_rate_per_s
        else:
            gap = self.exp(1.0 / p.open_rate_per_s)
        self.arrive(t, p.flows, 0, 0, p.wire_bits / 8.0)
        self.push(t + gap, Event.OPEN, p.flows)

    # -------------------------------------------------------------- flows
    def flow_event(self, t: float, f: int) -> None:
        if f >= 0:
            self.start_flow(t, f)
            return
        # a Poisson flow arrival of group -1 - f takes the group's first free slot
        k = -1 - f
        group = self.p.groups[k]
        self.push(t + self.exp(1.0 / group.flow_arrival_rate_per_s), Event.FLOW, f)
        for g in range(int(self.p.first_flow[k]), int(self.p.first_flow[k + 1])):
            if not self.flows[g].active:
                self.start_flow(t, g)
                return
        self.raw.flows_blocked += 1

    def draw_size(self, sc: FlowGroup) -> int:
        if sc.traffic == "persistent":
            return -1
        mean = sc.flow_size_packets
        if sc.flow_size_distribution == "fixed":
            return max(round(mean), 1)
        u = self.rand.next()
        if sc.flow_size_distribution == "uniform":
            return 1 + int(u * (2.0 * mean - 1.0))
        scale = mean * (sc.pareto_shape - 1.0) / sc.pareto_shape
        return max(math.ceil(scale * float((1.0 - u) ** (-1.0 / sc.pareto_shape))), 1)

    def start_flow(self, t: float, f: int) -> None:
        old = self.flows[f]
        fl = Flow(old.rtt_s, old.group, old.grp, old.access_tx_s)
        fl.epoch = (old.epoch + 1) % EPOCHS
        fl.delack_gen = old.delack_gen + 1
        fl.rto_event = old.rto_event
        fl.pace_pending = old.pace_pending
        fl.pace_deferred = old.pace_deferred
        fl.pace_due = old.pace_due
        fl.access_free = old.access_free
        fl.deliver_due = old.deliver_due
        fl.ecn = old.ecn
        fl.active = True
        fl.size = self.draw_size(fl.grp)
        fl.cwnd = float(fl.grp.initial_window_packets)
        fl.rto = fl.grp.initial_rto_s
        fl.next_send = t
        if fl.grp.congestion_control == "bbr":
            fl.bbr = bbr.start(t, fl.rtt_s + self.queue_wait_s(t), fl.cwnd)
        self.flows[f] = fl
        self.try_send(t, f)

    def queue_wait_s(self, t: float) -> float:
        """The wait a packet arriving at time t would have at the port before its transmission
        starts (the core's ``port.queue_wait_s``): BBR's first RTprop adds it, the SYN's."""
        if self.sc.discipline == "fq":
            return 0.0
        if self.sc.aqm in ("codel", "dualq"):
            return self.q_bytes * 8.0 / self.sc.capacity_bps
        return max(self.last_dep - t, 0.0)

    def window(self, fl: Flow) -> float:
        return min(fl.cwnd, float(fl.grp.max_window_packets))

    def admits(self, in_flight: float, window: float) -> bool:
        """Whether one more whole segment fits: ``in_flight + 1 <= window`` (RFC 5681 §2; in
        SACK recovery with the pipe and cwnd, RFC 6675 §5 (C)); the core's ``try_send``."""
        return in_flight + 1.0 <= window + WHOLE_SEGMENT_SLACK

    def pipe(self, fl: Flow) -> int:
        count = 0
        for s in range(fl.snd_una, fl.high_tx):
            if s in fl.sacked:
                continue
            if s >= fl.lost_limit:
                count += 1
            if s in fl.rexmitted:
                count += 1
        return count

    def next_hole(self, fl: Flow) -> int:
        s = max(fl.rexmit_ptr, fl.snd_una)
        while s < fl.lost_limit and (s in fl.sacked or s in fl.rexmitted):
            s += 1
        fl.rexmit_ptr = s
        return s if s < fl.lost_limit else -1

    def try_send(self, t: float, f: int, now: float | None = None) -> None:
        fl = self.flows[f]
        if now is None:
            now = t  # t moves on to the paced send times of packets sent ahead (below)
        while fl.active:
            seg = -1
            if fl.grp.recovery == "sack" and fl.recovery != RecoveryState.NONE:
                if not self.admits(self.pipe(fl), fl.cwnd):
                    return
                seg = self.next_hole(fl)
                if seg < 0 and fl.snd_nxt - fl.snd_una < fl.grp.max_window_packets:
                    seg = fl.snd_nxt
            elif self.admits(fl.snd_nxt - fl.snd_una, self.window(fl)):
                seg = fl.snd_nxt
            if seg < 0 or (fl.size >= 0 and seg >= fl.size):
                return
            if (fl.grp.pacing or fl.bbr is not None) and t < fl.next_send:
                if fl.pace_pending or fl.pace_deferred:
                    return
                if self.delivery_first(fl, fl.next_send):
                    fl.pace_deferred = True  # the PACE event, kept off the heap
                    fl.pace_due = fl.next_send
                    return
                if not self.quiet_until(now, fl, fl.next_send):
                    fl.pace_pending = True
                    self.push(fl.next_send, Event.PACE, f)
                    return
                t = fl.next_send  # sent now with its paced time (see quiet_until)
            self.transmit(t, f, seg)

    def delivery_first(self, fl: Flow, due: float) -> bool:
        """Whether a delivery of ``fl`` is scheduled no later than a PACE event at ``due``
        would run (DELIVER runs before PACE at equal times; not for DCTCP, nor past the end).

        Then the PACE event is kept off the heap (``pace_deferred``, at ``pace_due``): until
        it is resolved the flow behaves as with ``pace_pending`` (``try_send`` returns when
        the pacing holds it), and after each of its deliveries ``deferred_pace`` decides what
        the event would have done. A flow whose ACKs come faster than its pacing gap needs
        no PACE event for most of its packets then.
        """
        if fl.ecn == EcnMode.DCTCP or due > self.end:
            return False
        return bool(fl.deliver_due) and fl.deliver_due[0] <= due

    def deferred_pace(self, t: float, f: int) -> None:
        """After a delivery of flow f at t, the PACE event kept off the heap: while another
        delivery comes no later than it, it stays off; else, if nothing of the flow can run
        before it (``quiet_until``), what it would do (``try_send`` at its time, the state
        being that of now) is done now; else it goes on the heap at its time. The same
        sample path as with the event scheduled at once."""
        fl = self.flows[f]
        due = fl.pace_due
        if self.delivery_first(fl, due):
            return
        fl.pace_deferred = False
        if self.quiet_until(t, fl, due):
            self.try_send(due, f, now=t)
            return
        fl.pace_pending = True
        self.push(due, Event.PACE, f)

    def quiet_until(self, now: float, fl: Flow, due: float) -> bool:
        """Whether, at ``now``, nothing can change the sender of ``fl`` before a PACE event at
        ``due``; then the packet that event would send is sent at once with send time ``due``.

        A PACE event runs ``try_send``, which reads only the flow's own state; that state
        changes only in the flow's own events: its deliveries (the ACKs), its RTO, its
        delayed-ACK timer (the end of a transfer and a closed-loop restart happen inside an
        ACK). If none of them can run before the PACE event (at a time <= ``due``: their
        kinds run before PACE at equal times), the event would find the state of now and do
        exactly what this call does with t = ``due``: the same packets, send times, arrival
        times, timers and BBR samples. The sample path is the same; only the order of the
        scheduling of events changes, which matters only for two events at exactly the same
        time and kind (ties break by the order scheduled). The deliveries not scheduled yet
        are of packets not yet past the port: none before now + RTT/2. Not for DCTCP, whose
        receiver may acknowledge twice in one delivery (the flush of a CE change), nor past
        the end of the run (the PACE event would not run).
        """
        if fl.ecn == EcnMode.DCTCP or due > self.end or now + 0.5 * fl.rtt_s <= due:
            return False
        if fl.rto_event <= due:
            return False
        if fl.deliver_due and fl.deliver_due[0] <= due:
            return False
        return fl.delack_count == 0 or fl.delack_due > due

    def transmit(self, t: float, f: int, seg: int) -> None:
        fl = self.flows[f]
        flags = 0
        if fl.bbr is not None:
            bbr.on_send(fl.bbr, t, seg, fl.high_tx - fl.snd_una)
        restart = False
        sack = fl.grp.recovery == "sack"
        if seg < fl.high_tx:
            if sack and seg not in fl.rexmitted and seg not in fl.sacked:
                if len(fl.rexmit_queue) < self.rack_queue_cap:  # full: left to the RTO
                    fl.rexmit_queue.append(seg)
            fl.rexmitted.add(seg)
            fl.rtt_seq = -1
            restart = seg == fl.snd_una
        else:
            if fl.cwr_pending:  # RFC 3168 §6.1.2: CWR on the first new data packet
                fl.cwr_pending = False
                flags = CWR_FLAG
            fl.high_tx = seg + 1
            if fl.rtt_seq < 0:
                fl.rtt_seq = seg
                fl.rtt_time = t
        if sack:
            fl.sent_at[seg] = t
            fl.sent_copy[seg] = (fl.sent_copy.get(seg, 0) + 1) % COPIES
            flags |= fl.sent_copy[seg] << COPY_SHIFT
        if seg == fl.snd_nxt:
            fl.snd_nxt += 1
        self.raw.sent += 1
        fl.access_free = max(t, fl.access_free) + fl.access_tx_s
        self.push(fl.access_free + 0.5 * fl.rtt_s, Event.ARRIVAL, f, fl.epoch, seg, flags)
        # RFC 6298 (5.1) starts the timer if it is not running; a retransmission of the first
        # unacknowledged packet (the fast retransmit) restarts it, as ns-2's SACK sender
        # (tcp-sack1.cc, dupack_action: reset_rtx_timer) and Linux (tcp_xmit_retransmit_queue
        # re-arms at the head) do. Otherwise the timer armed by the last new ACK before the
        # loss runs out during the retransmission's round trip through the full queue, and
        # with a 200 ms minimum RTO most SACK recoveries ended in a spurious timeout.
        if restart or fl.rto_expiry == INF:
            self.arm_rto(t, f)
        if fl.bbr is not None:
            fl.next_send = t + 1.0 / fl.bbr.pacing_rate
        elif fl.grp.pacing:
            srtt = fl.srtt if fl.srtt > 0 else fl.rtt_s
            fl.next_send = t + srtt / self.window(fl)

    def arm_rto(self, t: float, f: int) -> None:
        fl = self.flows[f]
        fl.rto_expiry = t + fl.rto
        if fl.rto_expiry < fl.rto_event:
            fl.rto_event = fl.rto_expiry
            self.push(fl.rto_expiry, Event.RTO, f)

    def rto_fire(self, t: float, f: int) -> None:
        fl = self.flows[f]
        if t != fl.rto_event:
            return
        fl.rto_event = INF
        if fl.rto_expiry == INF:
            return
        if t < fl.rto_expiry:
            fl.rto_event = fl.rto_expiry
            self.push(fl.rto_expiry, Event.RTO, f)
            return
        fl.rto_expiry = INF
        if not fl.active or fl.snd_una >= fl.high_tx:
            return
        if t >= self.warm:
            self.raw.timeouts += 1
            self.raw.per_flow[f, FlowCount.TIMEOUTS] += 1
        if fl.bbr is not None:  # ssthresh unused; cwnd saved
            bbr.on_timeout(fl.bbr, fl.cwnd)
        else:
            fl.ssthresh = self.reduce(fl, fl.high_tx - fl.snd_una)
            # RFC 9438 §4.8: the next CUBIC epoch starts with K = 0 and W_max = its first cwnd
            fl.w_max = 0.0
        fl.cwnd = 1.0
        fl.rto = min(2.0 * fl.rto, P.MAX_RTO_S)
        fl.dupacks = 0
        fl.rtt_seq = -1
        fl.recover = fl.high_tx - 1
        fl.rto_recover = fl.high_tx - 1
        fl.rexmitted.clear()
        fl.rexmit_queue.clear()
        fl.rexmit_ptr = fl.snd_una
        if fl.grp.recovery == "sack":
            fl.recovery = RecoveryState.AFTER_TIMEOUT
            fl.lost_limit = fl.high_tx
        else:
            fl.recovery = RecoveryState.NONE
            fl.snd_nxt = fl.snd_una
        fl.next_send = t
        self.try_send(t, f)
        if fl.rto_expiry == INF:
            self.arm_rto(t, f)

    # -------------------------------------------------------------- receiver
    def deliver(self, t: float, f: int, epoch: int, seq: int, flags: int = 0) -> None:
        self.raw.delivered += 1
        fl = self.flows[f]
        if epoch != fl.epoch or not fl.active:
            return
        ce = 1 if flags & CE_FLAG else 0
        if seq >= fl.rcv_nxt and fl.grp.recovery == "sack":
            fl.got_copy[seq] = (flags >> COPY_SHIFT) % COPIES
        ack_now = False
        if fl.ecn == EcnMode.DCTCP and ce != fl.ce_state:
            # RFC 8257 §3.2: the packets waiting for a delayed ACK are acknowledged at once
            # with the old state, then DCTCP.CE takes this packet's CE and this packet is
            # acknowledged at once ("send an immediate ACK")
            if fl.delack_count > 0:
                self.send_ack(t, f, -1)
            fl.ce_state = ce
            ack_now = self.immediate_ce_ack
        elif fl.ecn == EcnMode.CLASSIC:  # RFC 3168 §6.1.3: ECE from CE until CWR
            if flags & CWR_FLAG:
                fl.ce_state = 0
            if ce:
                fl.ce_state = 1
        if seq == fl.rcv_nxt:
            fl.rcv_nxt += 1
            while fl.rcv_nxt in fl.ooo:
                fl.ooo.remove(fl.rcv_nxt)
                fl.rcv_nxt += 1
            advanced = fl.rcv_nxt - seq
            if t >= self.warm:
                self.raw.delivered_payload_packets[f] += advanced
            if advanced > 1 or fl.ooo or ack_now:
                self.send_ack(t, f, -1)
                return
            fl.delack_count += 1
            if fl.delack_count >= fl.grp.delayed_ack:
                self.send_ack(t, f, -1)
            elif fl.delack_count == 1:
                timeout = t + fl.grp.delayed_ack_timeout_s
                fl.delack_due = timeout
                self.push(timeout, Event.DELACK, f, 0, fl.delack_gen)
        elif seq > fl.rcv_nxt:
            fl.ooo.add(seq)
            self.send_ack(t, f, seq)
        else:
            self.send_ack(t, f, -2)

    def send_ack(self, t: float, f: int, sack_seq: int) -> None:
        fl = self.flows[f]
        fl.delack_count = 0
        fl.delack_gen += 1
        self.on_ack(t, f, fl.rcv_nxt, sack_seq, fl.ce_state != 0)

    # -------------------------------------------------------------- sender
    def on_ack(self, t: float, f: int, cum: int, sack_seq: int, ece: bool = False) -> None:
        fl = self.flows[f]
        una = fl.snd_una
        sack = fl.grp.recovery == "sack"
        bb = fl.bbr
        # the packets this ACK delivers: the one newly SACKed, those newly ACKed in order
        fresh = [sack_seq] if sack_seq >= cum and sack_seq not in fl.sacked else []
        fresh += [s for s in range(fl.snd_una, cum) if s not in fl.sacked]
        # RACK's reference need move only while a retransmission is queued (core/sender.py)
        rack = sack and bool(fl.rexmit_queue)
        if rack:
            for s in fresh:
                self.rack_advance(t, fl, s)
        if bb is not None:
            bbr.ack_sample(bb, t, fresh, fl.rexmitted.__contains__, self.in_flight(fl))
        if sack_seq >= cum:
            fl.sacked.add(sack_seq)
            fl.high_sacked = max(fl.high_sacked, sack_seq + 1)
        if cum > fl.snd_una:
            newly = cum - fl.snd_una
            for s in range(fl.snd_una, cum):
                fl.sacked.discard(s)
                fl.rexmitted.discard(s)
                fl.sent_at.pop(s, None)
                fl.sent_copy.pop(s, None)
                fl.got_copy.pop(s, None)
            fl.snd_una = cum
            fl.snd_nxt = max(fl.snd_nxt, cum)
            fl.dupacks = 0
            if fl.rtt_seq >= 0 and cum > fl.rtt_seq:
                self.rtt_sample(fl, t - fl.rtt_time)
                fl.rtt_seq = -1
            exited = False
            if fl.recovery != RecoveryState.NONE and cum > fl.recover:
                if fl.recovery == RecoveryState.FAST and bb is None:
                    fl.cwnd = fl.ssthresh
                fl.recovery = RecoveryState.NONE
                exited = True
            if fl.recovery == RecoveryState.FAST:
                if not sack:
                    if bb is not None:
                        bbr.lost(bb, 1)
                    else:
                        fl.cwnd = max(fl.cwnd - newly + 1.0, 1.0)
                    self.transmit(t, f, fl.snd_una)
            elif not exited and bb is None and not self.in_cwr(fl, cum, ece):
                # no growth in ECN's CWR state (in_cwr: Linux's tcp_in_cwnd_reduction)
                if fl.cwnd < fl.ssthresh:  # at most one packet per ACK (RFC 5681 eq. 2)
                    fl.cwnd += min(newly, 1)
                else:
                    # the segments newly ACKed (RFC 3465) or one per ACK (RFC 5681 eq. 3)
                    acked = newly if fl.grp.ca_increase == "bytes_acked" else 1
                    if fl.grp.congestion_control == "cubic":
                        self.cubic_increase(t, fl, acked)
                    else:
                        fl.cwnd += acked / fl.cwnd
            if fl.size >= 0 and fl.snd_una >= fl.size:
                self.complete(t, f)
                return
            if fl.snd_una < fl.high_tx:
                self.arm_rto(t, f)
            else:
                fl.rto_expiry = INF
        elif cum == fl.snd_una and fl.snd_una < fl.high_tx and (sack_seq >= 0 or not sack):
            fl.dupacks += 1
            if fl.recovery == RecoveryState.NONE and fl.dupacks == 3 and cum > fl.rto_recover:
                if bb is not None:  # BBR keeps its cwnd (set after the ACK) and saves it
                    bbr.save_cwnd(bb, fl.cwnd)
                else:
                    # the flight, but no more than cwnd (the core's on_ack says why)
                    fl.ssthresh = self.reduce(fl, min(fl.high_tx - fl.snd_una, fl.cwnd))
                fl.recover = fl.high_tx - 1
                fl.recovery = RecoveryState.FAST
                fl.rtt_seq = -1
                if bb is not None:
                    if sack:
                        bbr.lost(bb, self.unsacked(fl, fl.snd_una, fl.high_sacked))
                    else:
                        bbr.lost(bb, 1)
                if sack:
                    if bb is None:
                        fl.cwnd = fl.ssthresh
                    fl.lost_limit = fl.high_sacked
                    fl.rexmit_ptr = fl.snd_una
                elif bb is None:
                    fl.cwnd = fl.ssthresh + 3.0
                # the first missing packet goes out at once, whatever the pipe (RFC 6675
                # step 4.3; RFC 6582 step 2); later ones wait for pipe < cwnd with SACK
                self.transmit(t, f, fl.snd_una)
            elif fl.recovery == RecoveryState.FAST and not sack and bb is None:
                fl.cwnd += 1.0
        if sack and fl.recovery == RecoveryState.FAST:
            if bb is not None and fl.high_sacked > fl.lost_limit:
                bbr.lost(bb, self.unsacked(fl, fl.lost_limit, fl.high_sacked))
            fl.lost_limit = max(fl.lost_limit, fl.high_sacked)
        if rack:
            lost = self.rack_detect(fl)
            if bb is not None:
                bbr.lost(bb, lost)
        if fl.ecn != EcnMode.OFF:
            self.ecn_on_ack(fl, cum, cum - una if cum > una else 0, ece)
        if bb is not None:
            if fl.snd_una <= fl.rto_recover:
                state = BbrCaState.LOSS
            elif fl.recovery == RecoveryState.FAST:
                state = BbrCaState.RECOVERY
            else:
                state = BbrCaState.OPEN
            wire_bytes = self.p.wire_bits / 8.0
            in_flight = self.in_flight(fl)
            fl.cwnd = bbr.on_ack(bb, t, fl.cwnd, in_flight, state, wire_bytes, self.rand.next)
        self.try_send(t, f)

    def rack_advance(self, t: float, fl: Flow, seq: int) -> None:
        """RFC 8985 §6.2 step 2: packet ``seq``, newly delivered at t, becomes RACK's reference
        if sent after it (send time, then number); a delivery of a copy other than the last
        one sent, and a retransmission delivered sooner than the smallest RTT after it was
        sent, are ignored (the core's ``_rack_advance`` says why)."""
        xmit = fl.sent_at[seq]
        if fl.got_copy[seq] != fl.sent_copy[seq]:
            return  # an earlier copy was delivered
        if seq in fl.rexmitted and t - xmit < fl.min_rtt:
            return
        if xmit > fl.rack_xmit or (xmit == fl.rack_xmit and seq > fl.rack_seq):
            fl.rack_xmit = xmit
            fl.rack_seq = seq

    def rack_detect(self, fl: Flow) -> int:
        """RFC 8985 §6.2 step 5 for retransmissions, with no reordering window: a
        retransmission sent before RACK's reference and not delivered is lost again, leaves
        the queue and may be retransmitted once more (the core's ``_rack_detect`` says why);
        returns how many."""
        lost = 0
        while fl.rexmit_queue:
            seq = fl.rexmit_queue[0]
            if seq >= fl.snd_una and seq in fl.rexmitted and seq not in fl.sacked:
                xmit = fl.sent_at[seq]
                if not (fl.rack_xmit > xmit or (fl.rack_xmit == xmit and fl.rack_seq > seq)):
                    break
                fl.rexmitted.discard(seq)
                fl.rexmit_ptr = min(fl.rexmit_ptr, seq)
                lost += 1
            fl.rexmit_queue.popleft()
        if all(s in fl.sacked for s in fl.rexmitted):
            fl.rexmit_queue.clear()
        return lost

    def in_cwr(self, fl: Flow, cum: int, ece: bool) -> bool:
        """Whether an ACK of everything below ``cum`` with ECN-Echo ``ece`` finds ``fl`` in
        ECN's CWR state, where its window does not grow (``core.ecn.in_cwr``): the ACK carries
        ECE or does not pass the packets out at the last ECE reduction, unless it is within
        the window of a timeout. Linux's ``tcp_cong_control`` (``net/ipv4/tcp_input.c``) calls
        ``tcp_cong_avoid`` only when not ``tcp_in_cwnd_reduction`` (``include/net/tcp.h``: the
        CA_CWR or CA_Recovery state); after a timeout the Loss state replaces CWR."""
        return cum > fl.rto_recover and (ece or cum <= fl.ecn_recover)

    def ecn_on_ack(self, fl: Flow, cum: int, newly: int, ece: bool) -> None:
        """The sender's ECN: DCTCP's α (RFC 8257 §3.3 steps 1-8), then at most once per window
        and outside loss recovery a reduction on ECE (RFC 3168 §6.1.2; RFC 8257 §3.3 step 9)."""
        dctcp = fl.grp.congestion_control == "dctcp"
        if dctcp:
            fl.dctcp_acked += newly
            if ece:
                fl.dctcp_marked += newly
            if cum > fl.window_end:
                fraction = fl.dctcp_marked / fl.dctcp_acked if fl.dctcp_acked > 0 else 0.0
                fl.alpha = fl.alpha * (1.0 - DCTCP_G) + DCTCP_G * fraction
                fl.window_end = fl.snd_nxt
                fl.dctcp_acked = fl.dctcp_marked = 0
        if (
            not ece
            or fl.recovery != RecoveryState.NONE
            or cum <= fl.ecn_recover
            or cum <= fl.recover
        ):
            return
        if dctcp:
            ssthresh = max(fl.cwnd * (1.0 - fl.alpha / 2.0), 2.0)
        else:  # classic ECN: as on a loss (Reno or CUBIC), without retransmitting
            ssthresh = self.reduce(fl, fl.high_tx - fl.snd_una)
        fl.ssthresh = ssthresh
        fl.cwnd = ssthresh
        fl.ecn_recover = fl.high_tx
        fl.cwr_pending = True

    def in_flight(self, fl: Flow) -> int:
        """Packets in flight as BBR counts them (``core.sender.in_flight``)."""
        if fl.recovery != RecoveryState.NONE or fl.dupacks > 0:
            return self.pipe(fl)
        return fl.high_tx - fl.snd_una

    def unsacked(self, fl: Flow, lo: int, hi: int) -> int:
        """Packets in [lo, hi) not SACKed (newly deemed lost)."""
        return sum(1 for s in range(lo, hi) if s not in fl.sacked)

    def reduce(self, fl: Flow, flight: float) -> float:
        """The new ssthresh at a congestion event (Reno: half the flight; CUBIC: §4.6-4.7)."""
        if fl.grp.congestion_control != "cubic":
            return max(flight / 2.0, 2.0)
        # RFC 9438 §4.6 with cwnd for flight_size (see core/cubic.py)
        if fl.cwnd < fl.w_max:  # RFC 9438 §4.7 fast convergence
            fl.w_max = fl.cwnd * (1.0 + BETA_CUBIC) / 2.0
        else:
            fl.w_max = fl.cwnd
        fl.epoch_start = -1.0
        return max(fl.cwnd * BETA_CUBIC, 2.0)

    def cubic_increase(self, t: float, fl: Flow, acked: int) -> None:
        """RFC 9438 §4.2-4.5: CUBIC's congestion avoidance on an ACK of ``acked`` segments."""
        cwnd = fl.cwnd
        if fl.epoch_start < 0.0:
            fl.epoch_start = t
            if cwnd < fl.w_max:
                fl.k = ((fl.w_max - cwnd) / C_CUBIC) ** (1.0 / 3.0)
            else:
                fl.k = 0.0
                fl.w_max = cwnd
            fl.w_est = cwnd
        # RFC 9438 §4.3: α_cubic until W_est reaches cwnd_prior = ssthresh / β_cubic
        alpha = ALPHA_CUBIC if fl.w_est < fl.ssthresh / BETA_CUBIC else 1.0
        fl.w_est += alpha * acked / cwnd
        elapsed = t - fl.epoch_start
        d = elapsed - fl.k
        if C_CUBIC * (d * d * d) + fl.w_max < fl.w_est:  # Reno-friendly region (§4.3)
            fl.cwnd = fl.w_est
            return
        rtt = fl.srtt if fl.srtt > 0.0 else fl.rtt_s
        d = elapsed + rtt - fl.k
        target = min(max(C_CUBIC * (d * d * d) + fl.w_max, cwnd), 1.5 * cwnd)
        fl.cwnd = cwnd + (target - cwnd) / cwnd

    def rtt_sample(self, fl: Flow, r: float) -> None:
        fl.min_rtt = min(fl.min_rtt, r)
        if fl.srtt == 0.0:
            fl.srtt = r
            fl.rttvar = r / 2.0
        else:
            fl.rttvar = 0.75 * fl.rttvar + 0.25 * abs(fl.srtt - r)
            fl.srtt = 0.875 * fl.srtt + 0.125 * r
        fl.rto = min(max(fl.grp.min_rto_s, fl.srtt + 4.0 * fl.rttvar), P.MAX_RTO_S)

    def complete(self, t: float, f: int) -> None:
        fl = self.flows[f]
        if t >= self.warm:
            self.raw.flows_completed += 1
            self.raw.per_flow[f, FlowCount.COMPLETED] += 1
        fl.active = False
        fl.rto_expiry = INF
        if fl.grp.traffic == "closed_loop":
            self.start_flow(t, f)

    # -------------------------------------------------------------- traces, end
    def sample(self, t: float) -> None:
        cw = [fl.cwnd for fl in self.flows[: self.sc.traced_flows]]
        self.sample_rows.append((t, self.q_packets, cw))
        self.push(t + self.sc.sample_interval_s, Event.SAMPLE, 0)

    def finish(self) -> None:
        raw = self.raw
        self.account_occupancy(self.end)
        if self.in_service is not None:
            pkt = self.in_service
            tx = pkt[3] * 8.0 / self.sc.capacity_bps
            for event in self.heap:
                if event[1] == Event.DEPART:
                    lo = max(event[0] - tx, self.warm)
                    if self.end > lo:
                        raw.busy_s += self.end - lo
        in_flight = sum(
            1 for e in self.heap if e[1] in (Event.ARRIVAL, Event.DELIVER) and e[3] < self.p.flows
        )
        queued = [self.in_service] if self.in_service is not None else []
        queued += list(self.fifo)
        for queue in self.fq:
            queued += list(queue)
        in_flight += sum(1 for pkt in queued if pkt is not None and pkt[0] < self.p.flows)
        raw.in_flight = in_flight
        if self.trace:
            rows = self.trace_rows
            raw.packet_trace = PacketTrace(
                time_s=np.array([r[0] for r in rows], dtype=np.float64),
                flow=np.array([r[1] for r in rows], dtype=np.int64),
                size_bytes=np.array([r[2] for r in rows], dtype=np.int64),
                dropped=np.array([r[3] for r in rows], dtype=np.bool_),
                transfer=transfer_numbers(
                    np.array([r[1] for r in rows], dtype=np.int64),
                    np.array([r[4] for r in rows], dtype=np.int64),
                    self.p.flows,
                ),
            )
            k = min(self.sc.traced_flows, self.p.flows)
            raw.samples = SampledTrace(
                time_s=np.array([r[0] for r in self.sample_rows], dtype=np.float64),
                queue_packets=np.array([r[1] for r in self.sample_rows], dtype=np.int64),
                cwnd_packets=np.array([r[2] for r in self.sample_rows], dtype=np.float64).reshape(
                    len(self.sample_rows), k
                ),
            )


def simulate_reference(
    scenario: Scenario, buffer_packets: int, seed: int, *, trace: bool = False
) -> RunResult:
    """Run the reference implementation; same arguments and result as ``simulate``."""
    start = time.perf_counter()
    sim = ReferenceSimulator(scenario, buffer_packets, seed, trace)
    raw = sim.run()
    return to_result(sim.p, raw, time.perf_counter() - start, "reference")
