"""Each simulation scenario field's unit, bounds and help, declared once.

The defaults are on :class:`validation.simulator.Scenario` itself (``SCENARIO_DEFAULTS``); this
table holds the rest of what an interface needs to take a field: the unit in its name, the
values the simulator accepts, and one sentence saying what it is. :meth:`Scenario.validate`
checks each field against its bounds here, the API's request schema
(``app/schemas/simulations.py``) takes its bounds and descriptions from here (adding the
service's own, tighter caps), and the options of ``bufsize simulate`` take their help from here.
``tests/test_scenario_fields.py`` fails on a field missing from this table or an interface
that says otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, get_args

from models import checks
from models.choices import CONGESTION_CONTROLS, RECOVERIES, SIMULATED_AQMS
from models.errors import ParameterError

# The choices of the simulator's own fields, each a Literal and the tuple of its values; those
# the engine and the service share are in models/choices.py.
#: A flow group's traffic; the scenario's may also be open-loop (packets with no TCP senders).
GroupTraffic = Literal["persistent", "closed_loop", "poisson_flows"]
GROUP_TRAFFIC_KINDS: tuple[GroupTraffic, ...] = get_args(GroupTraffic)
Traffic = Literal[GroupTraffic, "open_loop"]
TRAFFIC_KINDS: tuple[Traffic, ...] = get_args(Traffic)
CaIncrease = Literal["bytes_acked", "per_ack"]
CA_INCREASE_KINDS: tuple[CaIncrease, ...] = get_args(CaIncrease)
Discipline = Literal["droptail", "fq"]
DISCIPLINES: tuple[Discipline, ...] = get_args(Discipline)
SizeDistribution = Literal["fixed", "uniform", "pareto"]
SIZE_KINDS: tuple[SizeDistribution, ...] = get_args(SizeDistribution)
OpenLoopArrivals = Literal["poisson", "periodic"]
OPEN_LOOP_ARRIVALS: tuple[OpenLoopArrivals, ...] = get_args(OpenLoopArrivals)
OpenLoopSizes = Literal["fixed", "exponential"]
OPEN_LOOP_SIZES: tuple[OpenLoopSizes, ...] = get_args(OpenLoopSizes)

#: Largest maximum window the simulator keeps a SACK scoreboard for, in packets.
MAX_WINDOW_LIMIT_PACKETS = 65_536
#: Largest number of flow slots (persistent flows, users, or concurrent Poisson flows).
MAX_FLOWS = 200_000
#: Largest ECN marking threshold in bytes.
MAX_ECN_THRESHOLD_BYTES = 10**12

Kind = Literal["float", "int", "bool", "choice", "groups"]


@dataclass(frozen=True)
class FieldSpec:
    """What a scenario field holds: its kind, unit, accepted values and help sentence.

    ``low``/``high`` bound a number (``None``: unbounded on that side), each end excluded when
    ``low_open``/``high_open``; ``optional`` allows ``None`` (meaning set in the help).
    """

    kind: Kind
    help: str
    unit: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    optional: bool = False

    def check(self, name: str, value: Any) -> None:
        """Raise :class:`ParameterError` naming ``name`` if ``value`` is not accepted."""
        if value is None and self.optional:
            return
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ParameterError.got(name, "true or false", value)
        elif self.kind == "choice":
            if value not in self.choices:
                allowed = ", ".join(self.choices)
                raise ParameterError(
                    name, f"one of {allowed}", f"{name} must be one of {allowed}; got {value!r}"
                )
        elif self.kind == "int":
            assert self.low is not None and self.high is not None
            int_in(name, value, int(self.low), int(self.high))
        elif self.kind == "float":
            self._check_float(name, value)

    def _check_float(self, name: str, value: Any) -> None:
        low = -math.inf if self.low is None else self.low
        if self.high is not None:
            checks.in_range(
                name,
                value,
                low,
                self.high,
                low_inclusive=not self.low_open,
                high_inclusive=not self.high_open,
            )
        elif low == 0.0:
            (checks.positive if self.low_open else checks.non_negative)(name, value)
        else:
            checks.at_least(name, value, low)


def int_in(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int, refused (naming ``name``) unless a whole number in [low, high]."""
    if isinstance(value, bool):
        raise ParameterError.got(name, "an integer", value)
    number = checks.integer_at_least(name, value, low)
    if number > high:
        raise ParameterError.got(name, f"<= {high}", value)
    return number


def _rate(help_: str) -> FieldSpec:
    return FieldSpec("float", help_, "bit/s", low=0.0, low_open=True)


def _time(help_: str, *, zero: bool = False, high: float | None = None) -> FieldSpec:
    return FieldSpec("float", help_, "s", low=0.0, low_open=not zero, high=high)


def _count(help_: str, low: int, high: int, unit: str = "", optional: bool = False) -> FieldSpec:
    return FieldSpec("int", help_, unit, low=low, high=high, optional=optional)


def _choice(help_: str, choices: tuple[str, ...]) -> FieldSpec:
    return FieldSpec("choice", help_, choices=choices)


#: Every field of :class:`~validation.simulator.Scenario`, in its order.
FIELDS: dict[str, FieldSpec] = {
    "capacity_bps": _rate("Bottleneck rate"),
    "flows": _count(
        "Persistent flows, closed-loop users, or the most concurrent Poisson flows", 1, MAX_FLOWS
    ),
    "rtt_s": _time("Mean two-way propagation delay"),
    "rtt_jitter_s": FieldSpec(
        "float", "Half-width of the uniform spread of the flows' RTTs", "s", low=0.0
    ),
    "access_bps": _rate("Rate of each sender's access link"),
    "max_window_packets": _count(
        "Largest (advertised) window", 1, MAX_WINDOW_LIMIT_PACKETS, "packets"
    ),
    "packet_bytes": _count("Payload per data packet (TCP MSS)", 1, 1_000_000, "bytes"),
    "header_bytes": _count("TCP/IP headers per data packet on the wire", 0, 1_000_000, "bytes"),
    "pacing": FieldSpec("bool", "Senders space their packets srtt/cwnd apart"),
    "recovery": _choice("Loss recovery: SACK (RFC 6675) or NewReno (RFC 6582)", RECOVERIES),
    "congestion_control": _choice(
        "Congestion control: Reno (RFC 5681), CUBIC (RFC 9438), DCTCP (RFC 8257, ECN-capable: "
        "the port needs a marking threshold) or BBR v1 (Cardwell et al. 2016; always paced)",
        CONGESTION_CONTROLS,
    ),
    "ecn": FieldSpec(
        "bool",
        "Classic ECN (RFC 3168) for Reno and CUBIC senders: a CE mark is treated as a loss, "
        "without retransmission (DCTCP always uses ECN)",
    ),
    "ca_increase": _choice(
        "Congestion-avoidance growth per ACK: bytes_acked counts the segments it newly "
        "acknowledges (RFC 3465, as Linux: one segment per RTT); per_ack counts one segment "
        "whatever it acknowledges (RFC 5681 eq. 3, ns-2: half a segment per RTT with delayed "
        "ACKs)",
        CA_INCREASE_KINDS,
    ),
    "delayed_ack": _count("In-order segments per ACK (1: no delayed ACKs)", 1, 64),
    "delayed_ack_timeout_s": _time("Longest an acknowledgement is held"),
    "initial_window_packets": _count(
        "Initial congestion window (RFC 6928)", 1, MAX_WINDOW_LIMIT_PACKETS, "packets"
    ),
    "min_rto_s": _time("Lower bound of the retransmission timeout"),
    "initial_rto_s": _time("Retransmission timeout before the first RTT sample"),
    "start_spread_s": _time("Flows start at times uniform in [0, start_spread_s)", zero=True),
    "background_load": FieldSpec(
        "float",
        "Load of Poisson background packets, a fraction of the capacity",
        low=0.0,
        high=1.0,
        high_open=True,
    ),
    "traffic": _choice(
        "Persistent flows, closed-loop users, Poisson flow arrivals, or open-loop packets (no TCP)",
        TRAFFIC_KINDS,
    ),
    "flow_size_distribution": _choice("Distribution of finite flow sizes", SIZE_KINDS),
    "flow_size_packets": FieldSpec("float", "Mean finite flow size", "packets", low=1.0),
    "pareto_shape": FieldSpec(
        "float", "Shape of Pareto flow sizes", low=1.0, high=100.0, low_open=True
    ),
    "flow_arrival_rate_per_s": FieldSpec("float", "Rate of Poisson flow arrivals", "1/s", low=0.0),
    "open_loop_load": FieldSpec(
        "float",
        "Offered load of open-loop packets, a fraction of the capacity",
        low=0.0,
        high=10.0,
        low_open=True,
    ),
    "open_loop_arrivals": _choice("Open-loop packet arrivals", OPEN_LOOP_ARRIVALS),
    "open_loop_sizes": _choice(
        "Open-loop packet sizes (mean packet_bytes + header_bytes)", OPEN_LOOP_SIZES
    ),
    "discipline": _choice(
        "Drop-tail FIFO, or per-flow fair queueing dropping from the longest queue", DISCIPLINES
    ),
    "byte_mode": FieldSpec(
        "bool", "The buffer holds buffer_packets x (packet_bytes + header_bytes) bytes"
    ),
    "aqm": _choice(
        "Active queue management below the buffer's hard limit: CoDel (RFC 8289, drops at "
        "dequeue), PIE (RFC 8033, random drops at enqueue, 15 ms reference delay) or DualQ "
        "(RFC 9332 DualPI2 at dequeue, Linux's defaults, one class of traffic: DCTCP senders "
        "alone or none); "
        "packets of ECN-capable senders are marked CE instead. Not with discipline fq",
        SIMULATED_AQMS,
    ),
    "codel_target_s": _time("CoDel's TARGET, the sojourn time it lets persist", high=10.0),
    "codel_interval_s": _time(
        "CoDel's INTERVAL, how long the sojourn time may stay above target before CoDel drops",
        high=100.0,
    ),
    "duration_s": _time("Simulated time"),
    "warmup_s": _time("Measures start after this time", zero=True),
    "interval_s": _time("Length of the per-interval throughput bins"),
    "sample_interval_s": _time("Period of the queue and cwnd traces"),
    "traced_flows": _count("Flows (the first ones) whose cwnd is traced", 0, 1024),
    "packet_budget": _count("Most bottleneck packets one run may simulate", 1, 10**15),
    "groups": FieldSpec(
        "groups",
        "Flow groups, each with its own traffic, path and TCP options; results are reported "
        "per group",
    ),
    "ecn_threshold_packets": _count(
        "The port marks an ECN-capable arrival CE instead of dropping it when it finds at "
        "least this many packets there (the one in transmission included): DCTCP's K "
        "(Alizadeh et al. 2010: K > C·RTT/7); the buffer stays the hard limit",
        1,
        10_000_000,
        "packets",
        optional=True,
    ),
    "ecn_threshold_bytes": _count(
        "The same marking threshold in bytes on the wire (at most one of the two)",
        1,
        MAX_ECN_THRESHOLD_BYTES,
        "bytes",
        optional=True,
    ),
}
