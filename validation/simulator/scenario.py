"""The dumbbell scenario the packet simulator runs: every parameter, SI units in the names.

A :class:`Scenario` describes the network and the traffic but not the bottleneck buffer,
which is given to :func:`validation.simulator.simulate` separately so that one scenario can be
swept over buffer sizes.

What each field accepts (its unit, bounds, choices and help) is declared in
:mod:`validation.simulator.fields`; the choice types and limits imported "as" themselves below
are re-exported, for the modules that take them from here with the scenario they describe.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from models import checks
from models.choices import (
    CONGESTION_CONTROLS,
    CongestionControl,
    Recovery,
    SimulatedAqm,
)
from models.errors import ParameterError
from validation.simulator.fields import CA_INCREASE_KINDS as CA_INCREASE_KINDS
from validation.simulator.fields import FIELDS, GROUP_TRAFFIC_KINDS, FieldSpec, int_in
from validation.simulator.fields import MAX_ECN_THRESHOLD_BYTES as MAX_ECN_THRESHOLD_BYTES
from validation.simulator.fields import MAX_FLOWS as MAX_FLOWS
from validation.simulator.fields import MAX_WINDOW_LIMIT_PACKETS as MAX_WINDOW_LIMIT_PACKETS
from validation.simulator.fields import CaIncrease as CaIncrease
from validation.simulator.fields import Discipline as Discipline
from validation.simulator.fields import GroupTraffic as GroupTraffic
from validation.simulator.fields import OpenLoopArrivals as OpenLoopArrivals
from validation.simulator.fields import OpenLoopSizes as OpenLoopSizes
from validation.simulator.fields import SizeDistribution as SizeDistribution
from validation.simulator.fields import Traffic as Traffic

CC_KINDS = CONGESTION_CONTROLS
AqmKind = SimulatedAqm

#: Default budget of bottleneck packets one run may simulate.
DEFAULT_PACKET_BUDGET = 2_000_000_000
#: Default half-width of the spread of the flows' RTTs, as a fraction of the mean RTT.
DEFAULT_RTT_JITTER_FRACTION = 0.2
#: Default MSS: 1500-byte Ethernet packets less 52 bytes of TCP/IP headers (timestamps on).
DEFAULT_PACKET_BYTES = 1448
#: Default largest window: 3 MiB (Linux's default largest receive window) in whole segments.
DEFAULT_MAX_WINDOW_PACKETS = 3 * 2**20 // DEFAULT_PACKET_BYTES

#: Why a zero RTT jitter is worth a warning (the figures are this simulator's, seed 1).
ZERO_JITTER_WARNING = (
    "rtt_jitter_s is 0: every flow has the same round-trip time, so unpaced flows phase-lock and "
    "utilization at small buffers is far above what real traffic gets (the default 40 flows "
    "on 100 Mbit/s with a 10-packet buffer: 89.6% with no jitter, 42.7% with the default 20%)"
)

#: Why DCTCP without a marking threshold is worth a warning.
NO_MARKING_WARNING = (
    "congestion_control is dctcp but the port has no ECN marking threshold "
    "(ecn_threshold_packets, or the same "
    "in bytes) and no aqm: it never marks, so DCTCP reacts only to losses, as Reno does "
    "(RFC 8257 §3.5)"
)


@dataclass(frozen=True)
class FlowGroup:
    """A group of TCP flow slots that share their traffic kind, path and TCP options.

    The fields mean what the :class:`Scenario` fields of the same names mean, for the flows of
    this group only. A scenario's ``groups`` lists its groups; flows are numbered group after
    group (group 0's flows first), and results are reported per group as well as in total.

    Attributes
    ----------
    name : label of the group in results (default ``"group <index>"``).
    flows : persistent flows, closed-loop users, or the most concurrent Poisson flows.
    traffic : "persistent", "closed_loop" or "poisson_flows".
    rtt_s, rtt_jitter_s : the flows' two-way propagation delays are uniform in
        rtt_s ± rtt_jitter_s, s; rtt_jitter_s None (the default) is
        DEFAULT_RTT_JITTER_FRACTION (20 %) of rtt_s.
    access_bps : rate of each flow's access link, bit/s (below the bottleneck rate: flows
        bottlenecked at their access link, 004 §VII's RBP flows).
    max_window_packets : maximum (advertised) window, packets (window-limited flows).
    congestion_control : "reno" (RFC 5681), "cubic" (RFC 9438), "dctcp" (RFC 8257)
        or "bbr" (BBR v1, paced).
    ecn : classic ECN (RFC 3168) for "reno" and "cubic" senders: their packets are
        ECN-capable, marks are echoed until CWR and treated as a loss without retransmission;
        "dctcp" always uses ECN (its own echo and reaction), whatever this says.
    ca_increase : what an ACK counts for in congestion avoidance, "bytes_acked" or "per_ack"
        (see :class:`Scenario`).
    pacing, recovery, delayed_ack, delayed_ack_timeout_s, initial_window_packets, min_rto_s,
        initial_rto_s : TCP options (see :class:`Scenario`; the same defaults).

    Notes
    -----
    ``delayed_ack_timeout_s`` defaults to 40 ms, Linux's: the receiver's delayed-ACK timeout
    starts at ``TCP_ATO_MIN`` and is never below ``TCP_DELACK_MIN``, both ``HZ/25`` = 40 ms
    (Linux, include/net/tcp.h; the most is ``TCP_DELACK_MAX`` = ``HZ/5`` = 200 ms). RFC 1122
    §4.2.3.2 and RFC 5681 §4.2 allow at most 500 ms and require an ACK for at least every
    second full-sized segment (``delayed_ack`` = 2). Linux adapts its timeout to the packets'
    spacing and acknowledges at once in its quick-ACK mode at a connection's start; the
    simulator holds a fixed timeout. A 200 ms timeout, the old default (Linux's maximum,
    ns-3's ``TcpSocket::DelAckTimeout``), races the 200 ms minimum retransmission timeout:
    a window or file of an odd number of packets ends on a held ACK, and the sender times out
    spuriously without a loss (000 Table 4.2's 10 KB users did so about 95,000 times a run).
    Rows that reproduce an ns-2 simulation set ns-2's ``Agent/TCPSink/DelAck`` interval,
    100 ms, instead (``validation.harness.ns2.NS2_DELACK_INTERVAL_S``), and the side-by-side
    runs with ns-3 set ns-3's 200 ms.
    start_spread_s : persistent and closed-loop flows start uniform in [0, start_spread_s), s.
    flow_size_distribution, flow_size_packets, pareto_shape : sizes of finite flows (packets).
    flow_arrival_rate_per_s : Poisson flow arrivals of this group, 1/s.

    Examples
    --------
    004 §VII's mix on one link: long-lived flows bottlenecked at the link, flows limited by a
    2 Mb/s access link, and short Poisson flows of 14 packets on average:

    >>> mix = Scenario(capacity_bps=100e6, groups=(
    ...     FlowGroup(name="LBP", flows=300, rtt_s=0.1, rtt_jitter_s=0.05, max_window_packets=1000),
    ...     FlowGroup(name="RBP", flows=50, access_bps=2e6),
    ...     FlowGroup(name="short", flows=500, traffic="poisson_flows",
    ...               flow_arrival_rate_per_s=200.0, flow_size_distribution="pareto",
    ...               flow_size_packets=14.0),
    ... ))
    >>> mix.tcp_flows
    850
    """

    name: str = ""
    flows: int = 40
    traffic: GroupTraffic = "persistent"
    rtt_s: float = 0.1
    rtt_jitter_s: float | None = None
    access_bps: float = 1e9
    max_window_packets: int = DEFAULT_MAX_WINDOW_PACKETS
    pacing: bool = False
    recovery: Recovery = "sack"
    congestion_control: CongestionControl = "reno"
    ecn: bool = False
    ca_increase: CaIncrease = "bytes_acked"
    delayed_ack: int = 2
    delayed_ack_timeout_s: float = 0.04  # Linux's TCP_DELACK_MIN (see Notes)
    initial_window_packets: int = 10
    min_rto_s: float = 0.2
    initial_rto_s: float = 1.0
    start_spread_s: float = 1.0
    flow_size_distribution: SizeDistribution = "fixed"
    flow_size_packets: float = 1000.0
    pareto_shape: float = 1.5
    flow_arrival_rate_per_s: float = 0.0

    def __post_init__(self) -> None:
        if self.rtt_jitter_s is None and isinstance(self.rtt_s, int | float):
            jitter_s = DEFAULT_RTT_JITTER_FRACTION * float(self.rtt_s)
            object.__setattr__(self, "rtt_jitter_s", jitter_s)

    def replace(self, **changes: Any) -> FlowGroup:
        """Return a copy with some fields changed."""
        values = asdict(self)
        unknown = set(changes) - set(values)
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, "absent", f"unknown flow group fields: {sorted(unknown)}")
        values.update(changes)
        return FlowGroup(**values)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> FlowGroup:
        """A group from a dict of its fields (unknown keys are an error)."""
        names = {f.name for f in fields(cls)}
        unknown = set(values) - names
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, "absent", f"unknown flow group fields: {sorted(unknown)}")
        return cls(**values)

    def validate(self, prefix: str = "") -> None:
        """Raise ``ValueError`` naming the field (``prefix`` + name) and the bound it breaks."""
        p = prefix
        for name in GROUP_FIELDS:
            spec = _GROUP_TRAFFIC if name == "traffic" else FIELDS[name]
            spec.check(p + name, getattr(self, name))
        if float(self.rtt_jitter_s or 0.0) >= self.rtt_s:
            raise ParameterError(
                p + "rtt_jitter_s",
                f"< rtt_s ({self.rtt_s:g})",
                f"{p}rtt_jitter_s must be < rtt_s ({self.rtt_s:g}), got {self.rtt_jitter_s!r}",
            )
        if self.traffic == "poisson_flows":
            checks.positive(p + "flow_arrival_rate_per_s", self.flow_arrival_rate_per_s)


#: A flow group's traffic: the scenario's but open-loop.
_GROUP_TRAFFIC = FieldSpec("choice", FIELDS["traffic"].help, choices=GROUP_TRAFFIC_KINDS)
#: Fields :meth:`Scenario.validate` checks only in some modes (or, groups, one by one).
_CHECKED_APART = {"flows", "open_loop_load", "groups"}

#: The fields a flow group sets; a scenario without ``groups`` is one group of its own fields
#: (:class:`Scenario` takes their defaults from :class:`FlowGroup`).
GROUP_FIELDS = tuple(f.name for f in fields(FlowGroup) if f.name != "name")


@dataclass(frozen=True)
class Scenario:
    """A dumbbell: N sources behind their own access links, one shared bottleneck.

    Each source ``i`` sends through a private access link of rate ``access_bps`` and then a
    propagation delay of ``rtt_i / 2`` to the bottleneck; the bottleneck serves a FIFO (or
    per-flow fair queueing) buffer at ``capacity_bps``; acknowledgements return over an
    uncongested path in another ``rtt_i / 2``. The two-way propagation delays ``rtt_i`` are
    uniform in ``rtt_s ± rtt_jitter_s``.

    The defaults are the one set of defaults of every interface (the command line and the API
    take theirs from here), chosen for today's hosts (Linux): RTTs spread by ±20 %, SACK loss
    recovery, delayed ACKs every 2 segments held at most 40 ms (Linux's ``TCP_DELACK_MIN``; see
    :class:`FlowGroup`), initial window 10 (RFC 6928), minimum RTO 200 ms,
    1448-byte segments with 52 bytes of TCP/IP headers (1500-byte packets), a 3 MiB largest
    window. A zero ``rtt_jitter_s`` is allowed but reported by :meth:`warnings`.

    Attributes
    ----------
    capacity_bps : bottleneck rate, bit/s.
    flows : persistent flows, closed-loop users, or the most concurrent Poisson flows.
    rtt_s : mean two-way propagation delay, s.
    rtt_jitter_s : half-width of the uniform spread of the flows' RTTs, s (< rtt_s); None
        (the default) is DEFAULT_RTT_JITTER_FRACTION (20 %) of rtt_s.
    access_bps : rate of each source's access link, bit/s.
    max_window_packets : maximum (advertised) window, packets.
    packet_bytes : payload per data packet (MSS), bytes.
    header_bytes : extra bytes on the wire per data packet, bytes.
    pacing : space a flow's packets srtt/cwnd apart (000 §3.4).
    recovery : "sack" (RFC 6675 loss recovery) or "newreno" (RFC 6582, no SACK).
    congestion_control : "reno" (RFC 5681), "cubic" (RFC 9438, C = 0.4, β = 0.7, fast
        convergence, the Reno-friendly region; validation/simulator/core/cubic.py) or "dctcp"
        (RFC 8257 §3.3-3.5: Reno's growth and loss reaction, α with g = 1/16 and
        cwnd·(1 − α/2) once per window on ECN-Echo; validation/simulator/core/dctcp.py) or
        "bbr" (BBR v1: Cardwell et al., ACM Queue 2016,
        draft-cardwell-iccrg-bbr-congestion-control-00; always paced;
        validation/simulator/core/bbr.py says what is simplified).
    ecn : classic ECN (RFC 3168) senders and receivers for "reno" and "cubic" (see
        :class:`FlowGroup`); "dctcp" is always ECN-capable.
    ecn_threshold_packets : the port marks an ECN-capable arrival CE, instead of dropping it,
        when it finds at least this many packets at the port (the one in transmission
        included, as buffer_packets counts them): DCTCP's K (Alizadeh et al., SIGCOMM 2010
        §3.1). None (the default): no marking. The buffer stays the hard limit.
    ecn_threshold_bytes : the same threshold in bytes on the wire (at most one of the two).
    ca_increase : how an ACK in congestion avoidance grows the window (Reno's cwnd, and
        CUBIC's Reno-friendly estimate W_est, RFC 9438 §4.3). "bytes_acked" (the default):
        by the segments it newly acknowledges, cwnd += acked/cwnd (RFC 3465 byte counting,
        as Linux): one segment per RTT whatever the delayed ACKs. "per_ack": by one segment
        whatever it acknowledges, cwnd += 1/cwnd (RFC 5681 §3.1 Eq. 3; ns-2's
        ``TcpAgent::opencwnd``, ns-3's ``TcpNewReno``): with delayed ACKs every second
        segment, half a segment per RTT. Slow start is one segment per ACK either way.
    delayed_ack : in-order segments per acknowledgement (1 = no delayed ACKs).
    delayed_ack_timeout_s : longest an acknowledgement is held, s (40 ms, Linux's minimum;
        :class:`FlowGroup` says why).
    initial_window_packets : initial congestion window, packets.
    min_rto_s : lower bound of the retransmission timeout, s.
    initial_rto_s : retransmission timeout before the first RTT sample, s.
    start_spread_s : flows start at times uniform in [0, start_spread_s), s.
    background_load : load of Poisson background packets at the bottleneck (dimensionless,
        a fraction of capacity_bps).
    traffic : "persistent" flows, "closed_loop" users who start a new transfer as soon as one
        ends (000 §4.2.2), "poisson_flows" (003), or "open_loop" packets (no TCP).
    flow_size_distribution : "fixed", "uniform" (on [1, 2·mean - 1]) or "pareto" sizes.
    flow_size_packets : mean size of a finite flow, packets.
    pareto_shape : shape of Pareto flow sizes (dimensionless, > 1).
    flow_arrival_rate_per_s : rate of Poisson flow arrivals, 1/s.
    groups : flow groups (:class:`FlowGroup`), each with its own traffic, path and TCP
        options. Empty (the default): one group made of this scenario's own fields of
        :data:`GROUP_FIELDS` (``flows``, ``traffic``, ``rtt_s``, ...). When groups are given,
        those scenario fields must stay at their defaults (they are set per group).
    open_loop_load : offered load of the open-loop packets (dimensionless, fraction of
        capacity_bps).
    open_loop_arrivals : "poisson" or "periodic".
    open_loop_sizes : "fixed" or "exponential" packet sizes (mean packet_bytes + header_bytes).
    discipline : "droptail" FIFO, or "fq" (per-flow fair queueing, drop from the longest
        queue, 002 §V.B).
    byte_mode : the buffer holds buffer_packets·(packet_bytes + header_bytes) bytes instead of
        buffer_packets packets.
    aqm : active queue management of the drop-tail FIFO, the buffer staying the hard limit:
        "none", "codel" (RFC 8289, at dequeue; validation/simulator/core/codel.py), "pie"
        (RFC 8033, at enqueue, QDELAY_REF 15 ms; validation/simulator/core/pie.py) or "dualq"
        (RFC 9332's DualPI2 as Linux runs it by default: at dequeue, PI2 target 15 ms, L4S step
        at 1 ms; validation/simulator/core/dualq.py)
        for one class of traffic: DCTCP senders alone (L4S, its L queue), or no DCTCP sender
        (Classic, its C queue); a mix is refused.
    codel_target_s : CoDel's TARGET, the sojourn time it allows to persist, s (RFC 8289 §4.3: 5 ms).
    codel_interval_s : CoDel's INTERVAL, s (RFC 8289 §4.2: 100 ms).
    duration_s : simulated time, s.
    warmup_s : measures start after warmup_s, s.
    interval_s : length of the per-interval throughput bins, s.
    sample_interval_s : period of the cwnd and queue traces, s.
    traced_flows : how many flows (the first ones) the cwnd trace follows.
    packet_budget : the most bottleneck packets a run may simulate (see estimate_packets).
    """

    capacity_bps: float = 100e6
    flows: int = FlowGroup.flows
    rtt_s: float = FlowGroup.rtt_s
    rtt_jitter_s: float | None = FlowGroup.rtt_jitter_s
    access_bps: float = FlowGroup.access_bps
    max_window_packets: int = FlowGroup.max_window_packets
    packet_bytes: int = DEFAULT_PACKET_BYTES
    header_bytes: int = 52
    pacing: bool = FlowGroup.pacing
    recovery: Recovery = FlowGroup.recovery
    congestion_control: CongestionControl = FlowGroup.congestion_control
    ecn: bool = FlowGroup.ecn
    ca_increase: CaIncrease = FlowGroup.ca_increase
    delayed_ack: int = FlowGroup.delayed_ack
    delayed_ack_timeout_s: float = FlowGroup.delayed_ack_timeout_s
    initial_window_packets: int = FlowGroup.initial_window_packets
    min_rto_s: float = FlowGroup.min_rto_s
    initial_rto_s: float = FlowGroup.initial_rto_s
    start_spread_s: float = FlowGroup.start_spread_s
    background_load: float = 0.0
    traffic: Traffic = "persistent"
    flow_size_distribution: SizeDistribution = FlowGroup.flow_size_distribution
    flow_size_packets: float = FlowGroup.flow_size_packets
    pareto_shape: float = FlowGroup.pareto_shape
    flow_arrival_rate_per_s: float = FlowGroup.flow_arrival_rate_per_s
    open_loop_load: float = 0.8
    open_loop_arrivals: OpenLoopArrivals = "poisson"
    open_loop_sizes: OpenLoopSizes = "fixed"
    discipline: Discipline = "droptail"
    byte_mode: bool = False
    aqm: AqmKind = "none"
    codel_target_s: float = 0.005
    codel_interval_s: float = 0.1
    duration_s: float = 60.0
    warmup_s: float = 10.0
    interval_s: float = 1.0
    sample_interval_s: float = 0.01
    traced_flows: int = 4
    packet_budget: int = DEFAULT_PACKET_BUDGET
    groups: tuple[FlowGroup, ...] = ()
    ecn_threshold_packets: int | None = None
    ecn_threshold_bytes: int | None = None

    @property
    def flow_groups(self) -> tuple[FlowGroup, ...]:
        """The flow groups: ``groups``, or one group of the scenario's own fields when it is
        empty; none in open-loop mode (no TCP flows)."""
        if self.traffic == "open_loop":
            return ()
        if self.groups:
            return tuple(
                g if g.name else g.replace(name=f"group {i}") for i, g in enumerate(self.groups)
            )
        own = {name: getattr(self, name) for name in GROUP_FIELDS}
        return (FlowGroup(name="group 0", **own),)

    def __post_init__(self) -> None:
        if self.rtt_jitter_s is None and isinstance(self.rtt_s, int | float):
            jitter_s = DEFAULT_RTT_JITTER_FRACTION * float(self.rtt_s)
            object.__setattr__(self, "rtt_jitter_s", jitter_s)

    def warnings(self) -> list[str]:
        """What is allowed but probably not meant: a zero RTT jitter among several TCP flows;
        DCTCP senders at a port that does not mark."""
        out = []
        if any(g.flows > 1 and g.rtt_jitter_s == 0.0 for g in self.flow_groups):
            out.append(ZERO_JITTER_WARNING)
        marking = self.ecn_threshold_packets is not None or self.ecn_threshold_bytes is not None
        marking = marking or self.aqm != "none"  # the AQMs mark ECN-capable packets
        if not marking and any(g.congestion_control == "dctcp" for g in self.flow_groups):
            out.append(NO_MARKING_WARNING)
        return out

    @property
    def dualq_scalable(self) -> bool:
        """With aqm "dualq": the senders are L4S (DCTCP, ECT(1)), so the port is DualQ's L
        queue; otherwise its Classic queue."""
        return self.aqm == "dualq" and any(
            g.congestion_control == "dctcp" for g in self.flow_groups
        )

    @property
    def wire_bytes(self) -> int:
        """Bytes on the wire per full data packet (payload plus header)."""
        return int(self.packet_bytes) + int(self.header_bytes)

    @property
    def tcp_flows(self) -> int:
        """Number of TCP flow slots, all groups together (0 in open-loop mode)."""
        return sum(int(g.flows) for g in self.flow_groups)

    def replace(self, **changes: Any) -> Scenario:
        """Return a copy with some fields changed (and validated)."""
        values = self.to_dict()
        unknown = set(changes) - set(values)
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, "absent", f"unknown scenario fields: {sorted(unknown)}")
        values.update(changes)
        return Scenario.from_dict(values)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of every field (``groups`` as a list of dicts)."""
        values = asdict(self)
        values["groups"] = [asdict(g) for g in self.groups]
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Scenario:
        """Build and validate a scenario from a dict of fields (unknown keys are an error).

        ``groups`` may be a list of dicts of :class:`FlowGroup` fields, or of FlowGroups.
        """
        names = {f.name for f in fields(cls)}
        unknown = set(values) - names
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, "absent", f"unknown scenario fields: {sorted(unknown)}")
        values = dict(values)
        groups = values.get("groups") or ()
        if not isinstance(groups, list | tuple):
            raise ParameterError.got("groups", "a list of flow groups", groups)
        values["groups"] = tuple(
            g if isinstance(g, FlowGroup) else _group_from(i, g) for i, g in enumerate(groups)
        )
        scenario = cls(**values)
        scenario.validate()
        return scenario

    def validate(self, buffer_packets: int | None = None) -> None:
        """Raise :class:`~models.errors.ParameterError` naming the field and the bound it breaks.

        Parameters
        ----------
        buffer_packets : int, optional
            Also check this bottleneck buffer (>= 1 packet) and the packet budget.
        """
        if self.groups:
            _check_groups(self)
        for name, spec in FIELDS.items():
            if name not in _CHECKED_APART:
                spec.check(name, getattr(self, name))
        if float(self.rtt_jitter_s or 0.0) >= self.rtt_s:
            raise ParameterError(
                "rtt_jitter_s",
                f"< rtt_s ({self.rtt_s:g})",
                f"rtt_jitter_s must be < rtt_s ({self.rtt_s:g}), got {self.rtt_jitter_s!r}",
            )
        _check_marking(self)
        if self.aqm != "none" and self.discipline != "droptail":
            raise ParameterError(
                "aqm",
                "none when discipline is fq",
                f"aqm {self.aqm} runs on the drop-tail FIFO; with discipline fq it must be none",
            )
        _check_dualq(self)
        if self.warmup_s >= self.duration_s:
            raise ParameterError(
                "warmup_s",
                f"< duration_s ({self.duration_s:g})",
                f"warmup_s must be < duration_s ({self.duration_s:g}), got {self.warmup_s!r}",
            )
        if self.traffic == "open_loop":
            FIELDS["open_loop_load"].check("open_loop_load", self.open_loop_load)
        else:
            FIELDS["flows"].check("flows", self.flows)
        if self.traffic == "poisson_flows":
            checks.positive("flow_arrival_rate_per_s", self.flow_arrival_rate_per_s)
        bits = 8.0 * self.wire_bytes
        if (self.duration_s - self.warmup_s) / self.interval_s > 10_000_000:
            raise ParameterError(
                "interval_s",
                ">= (duration_s - warmup_s) / 10,000,000",
                "interval_s is too small: more than 10,000,000 intervals",
            )
        if self.duration_s / self.sample_interval_s > 100_000_000:
            raise ParameterError(
                "sample_interval_s",
                ">= duration_s / 100,000,000",
                "sample_interval_s is too small: more than 100,000,000 samples",
            )
        if bits / self.capacity_bps > self.duration_s:
            raise ParameterError(
                "duration_s",
                "longer than one packet transmission time",
                "duration_s must be longer than one packet transmission time",
            )
        if buffer_packets is not None:
            int_in("buffer_packets", buffer_packets, 1, 10_000_000)
            estimate = estimate_packets(self)
            if estimate > self.packet_budget:
                raise ParameterError(
                    "packet_budget",
                    f">= {estimate:,} (the packets the run would simulate)",
                    f"the run would simulate about {estimate:,} bottleneck packets, more than "
                    f"packet_budget ({self.packet_budget:,}); shorten duration_s or lower "
                    "capacity_bps",
                )


def _check_marking(scenario: Scenario) -> None:
    packets, bytes_ = scenario.ecn_threshold_packets, scenario.ecn_threshold_bytes
    if packets is not None and bytes_ is not None:
        raise ParameterError(
            "ecn_threshold_bytes",
            "None when ecn_threshold_packets is set",
            "give the ECN marking threshold in packets (ecn_threshold_packets) or in bytes "
            "(ecn_threshold_bytes), not both",
        )
    if (packets is not None or bytes_ is not None) and scenario.discipline != "droptail":
        raise ParameterError(
            "discipline",
            "droptail when an ECN marking threshold is set",
            f"ECN marking is modelled at the drop-tail FIFO only; discipline is "
            f"{scenario.discipline!r}",
        )


def _check_dualq(scenario: Scenario) -> None:
    """DualQ runs one class of traffic (core/dualq.py): DCTCP senders alone, marked by its own
    L4S step, or no DCTCP sender."""
    if scenario.aqm != "dualq":
        return
    if scenario.ecn_threshold_packets is not None or scenario.ecn_threshold_bytes is not None:
        raise ParameterError(
            "aqm",
            "none when an ECN marking threshold is set",
            "aqm dualq marks L4S packets by its own step (Linux sch_dualpi2.c); leave "
            "ecn_threshold_packets and ecn_threshold_bytes out",
        )
    kinds = {g.congestion_control for g in scenario.flow_groups}
    if "dctcp" in kinds and (len(kinds) > 1 or scenario.background_load > 0.0):
        raise ParameterError(
            "aqm",
            "one class of traffic with dualq",
            "aqm dualq is simulated for one class of traffic: DCTCP senders alone (its L4S "
            "queue) or no DCTCP sender (its Classic queue); this scenario mixes DCTCP with "
            + ("Poisson background packets" if len(kinds) == 1 else "other senders"),
        )


def _group_from(index: int, values: Any) -> FlowGroup:
    name = f"groups[{index}]"
    if not isinstance(values, dict):
        raise ParameterError.got(name, "a table of flow group fields", values)
    try:
        return FlowGroup.from_dict(values)
    except ParameterError as exc:
        raise ParameterError(f"{name}.{exc.name}", exc.bound, f"{name}: {exc}") from exc
    except TypeError as exc:
        raise ParameterError(name, "flow group fields", f"{name}: {exc}") from exc


def _check_groups(scenario: Scenario) -> None:
    defaults = Scenario()
    for name in GROUP_FIELDS:
        if getattr(scenario, name) != getattr(defaults, name):
            raise ParameterError(
                name,
                "its default when groups are given",
                f"{name} is set on the scenario and groups are given: set it in each group",
            )
    if scenario.traffic == "open_loop":
        raise ParameterError(
            "traffic",
            "not open_loop when groups are given",
            "traffic open_loop has no TCP flows: it cannot have flow groups",
        )
    total = 0
    for i, group in enumerate(scenario.groups):
        if not isinstance(group, FlowGroup):
            raise ParameterError.got(f"groups[{i}]", "a FlowGroup", group)
        group.validate(prefix=f"groups[{i}].")
        total += int(group.flows)
    if total > MAX_FLOWS:
        raise ParameterError(
            "groups",
            f"<= {MAX_FLOWS:,} flows",
            f"the groups have {total:,} flows, more than {MAX_FLOWS:,}",
        )


#: Every field's default, read by the interfaces (command line, API) that take theirs from here.
SCENARIO_DEFAULTS: dict[str, Any] = {field.name: field.default for field in fields(Scenario)}


def estimate_packets(scenario: Scenario) -> int:
    """Bottleneck packets (arrivals, drops included) a run of ``scenario`` would simulate.

    An estimate for budgets: the offered packet rate, capped at the bottleneck's packet rate
    by the window dynamics of TCP, times the duration. Drops add to it; the estimate allows
    10 % of the bottleneck rate for them.

    Parameters
    ----------
    scenario : Scenario

    Returns
    -------
    int
        Estimated bottleneck packet arrivals over ``duration_s``.
    """
    wire_bits = 8.0 * scenario.wire_bytes
    line_pps = scenario.capacity_bps / wire_bits
    if scenario.traffic == "open_loop":
        rate_pps = scenario.open_loop_load * line_pps
    else:
        offered_pps = 0.0
        for group in scenario.flow_groups:
            window_pps = group.flows * group.max_window_packets / group.rtt_s
            access_pps = group.flows * group.access_bps / wire_bits
            offered_pps += min(window_pps, access_pps)
        tcp_pps = min(offered_pps, 1.1 * line_pps)
        rate_pps = tcp_pps + scenario.background_load * line_pps
    return math.ceil(rate_pps * scenario.duration_s)
