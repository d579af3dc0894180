"""The dumbbell scenario the packet simulator runs: every parameter, SI units in the names.

A :class:`Scenario` describes the network and the traffic but not the bottleneck buffer,
which is given to :func:`validation.simulator.simulate` separately so that one scenario can be
swept over buffer sizes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from models import checks
from models.errors import ParameterError

Traffic = Literal["persistent", "closed_loop", "poisson_flows", "open_loop"]
Recovery = Literal["sack", "newreno"]
Discipline = Literal["droptail", "fq"]
SizeDistribution = Literal["fixed", "uniform", "pareto"]
OpenLoopArrivals = Literal["poisson", "periodic"]
OpenLoopSizes = Literal["fixed", "exponential"]

TRAFFIC_KINDS = ("persistent", "closed_loop", "poisson_flows", "open_loop")
SIZE_KINDS = ("fixed", "uniform", "pareto")

#: Largest maximum window the simulator keeps a SACK scoreboard for, in packets.
MAX_WINDOW_LIMIT_PACKETS = 65_536
#: Largest number of flow slots (persistent flows, users, or concurrent Poisson flows).
MAX_FLOWS = 200_000
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
    recovery, delayed ACKs every 2 segments, initial window 10 (RFC 6928), minimum RTO 200 ms,
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
    delayed_ack : in-order segments per acknowledgement (1 = no delayed ACKs).
    delayed_ack_timeout_s : longest an acknowledgement is held, s.
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
    open_loop_load : offered load of the open-loop packets (dimensionless, fraction of
        capacity_bps).
    open_loop_arrivals : "poisson" or "periodic".
    open_loop_sizes : "fixed" or "exponential" packet sizes (mean packet_bytes + header_bytes).
    discipline : "droptail" FIFO, or "fq" (per-flow fair queueing, drop from the longest
        queue, 002 §V.B).
    byte_mode : the buffer holds buffer_packets·(packet_bytes + header_bytes) bytes instead of
        buffer_packets packets.
    duration_s : simulated time, s.
    warmup_s : measures start after warmup_s, s.
    interval_s : length of the per-interval throughput bins, s.
    sample_interval_s : period of the cwnd and queue traces, s.
    traced_flows : how many flows (the first ones) the cwnd trace follows.
    packet_budget : the most bottleneck packets a run may simulate (see estimate_packets).
    """

    capacity_bps: float = 100e6
    flows: int = 40
    rtt_s: float = 0.1
    rtt_jitter_s: float | None = None
    access_bps: float = 1e9
    max_window_packets: int = DEFAULT_MAX_WINDOW_PACKETS
    packet_bytes: int = DEFAULT_PACKET_BYTES
    header_bytes: int = 52
    pacing: bool = False
    recovery: Recovery = "sack"
    delayed_ack: int = 2
    delayed_ack_timeout_s: float = 0.2
    initial_window_packets: int = 10
    min_rto_s: float = 0.2
    initial_rto_s: float = 1.0
    start_spread_s: float = 1.0
    background_load: float = 0.0
    traffic: Traffic = "persistent"
    flow_size_distribution: SizeDistribution = "fixed"
    flow_size_packets: float = 1000.0
    pareto_shape: float = 1.5
    flow_arrival_rate_per_s: float = 0.0
    open_loop_load: float = 0.8
    open_loop_arrivals: OpenLoopArrivals = "poisson"
    open_loop_sizes: OpenLoopSizes = "fixed"
    discipline: Discipline = "droptail"
    byte_mode: bool = False
    duration_s: float = 60.0
    warmup_s: float = 10.0
    interval_s: float = 1.0
    sample_interval_s: float = 0.01
    traced_flows: int = 4
    packet_budget: int = DEFAULT_PACKET_BUDGET

    def __post_init__(self) -> None:
        if self.rtt_jitter_s is None and isinstance(self.rtt_s, int | float):
            jitter_s = DEFAULT_RTT_JITTER_FRACTION * float(self.rtt_s)
            object.__setattr__(self, "rtt_jitter_s", jitter_s)

    def warnings(self) -> list[str]:
        """What is allowed but probably not meant: a zero RTT jitter among several TCP flows."""
        if self.tcp_flows > 1 and self.rtt_jitter_s == 0.0:
            return [ZERO_JITTER_WARNING]
        return []

    @property
    def wire_bytes(self) -> int:
        """Bytes on the wire per full data packet (payload plus header)."""
        return int(self.packet_bytes) + int(self.header_bytes)

    @property
    def tcp_flows(self) -> int:
        """Number of TCP flow slots (0 in open-loop mode)."""
        return 0 if self.traffic == "open_loop" else int(self.flows)

    def replace(self, **changes: Any) -> Scenario:
        """Return a copy with some fields changed (and validated)."""
        values = asdict(self)
        unknown = set(changes) - set(values)
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, "absent", f"unknown scenario fields: {sorted(unknown)}")
        values.update(changes)
        new = Scenario(**values)
        new.validate()
        return new

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of every field."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Scenario:
        """Build and validate a scenario from a dict of fields (unknown keys are an error)."""
        names = {f.name for f in fields(cls)}
        unknown = set(values) - names
        if unknown:
            name = sorted(unknown)[0]
            raise ParameterError(name, "absent", f"unknown scenario fields: {sorted(unknown)}")
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
        checks.positive("capacity_bps", self.capacity_bps)
        checks.positive("rtt_s", self.rtt_s)
        if checks.non_negative("rtt_jitter_s", self.rtt_jitter_s) >= self.rtt_s:
            raise ParameterError(
                "rtt_jitter_s",
                f"< rtt_s ({self.rtt_s:g})",
                f"rtt_jitter_s must be < rtt_s ({self.rtt_s:g}), got {self.rtt_jitter_s!r}",
            )
        checks.positive("access_bps", self.access_bps)
        _int_in("max_window_packets", self.max_window_packets, 1, MAX_WINDOW_LIMIT_PACKETS)
        _int_in("packet_bytes", self.packet_bytes, 1, 1_000_000)
        _int_in("header_bytes", self.header_bytes, 0, 1_000_000)
        _choice("recovery", self.recovery, ("sack", "newreno"))
        _int_in("delayed_ack", self.delayed_ack, 1, 64)
        checks.positive("delayed_ack_timeout_s", self.delayed_ack_timeout_s)
        _int_in("initial_window_packets", self.initial_window_packets, 1, MAX_WINDOW_LIMIT_PACKETS)
        checks.positive("min_rto_s", self.min_rto_s)
        checks.positive("initial_rto_s", self.initial_rto_s)
        checks.non_negative("start_spread_s", self.start_spread_s)
        checks.in_range("background_load", self.background_load, 0.0, 1.0, high_inclusive=False)
        _choice("traffic", self.traffic, TRAFFIC_KINDS)
        _choice("flow_size_distribution", self.flow_size_distribution, SIZE_KINDS)
        checks.at_least("flow_size_packets", self.flow_size_packets, 1.0)
        checks.in_range("pareto_shape", self.pareto_shape, 1.0, 100.0, low_inclusive=False)
        checks.non_negative("flow_arrival_rate_per_s", self.flow_arrival_rate_per_s)
        _choice("open_loop_arrivals", self.open_loop_arrivals, ("poisson", "periodic"))
        _choice("open_loop_sizes", self.open_loop_sizes, ("fixed", "exponential"))
        _choice("discipline", self.discipline, ("droptail", "fq"))
        checks.positive("duration_s", self.duration_s)
        checks.non_negative("warmup_s", self.warmup_s)
        if self.warmup_s >= self.duration_s:
            raise ParameterError(
                "warmup_s",
                f"< duration_s ({self.duration_s:g})",
                f"warmup_s must be < duration_s ({self.duration_s:g}), got {self.warmup_s!r}",
            )
        checks.positive("interval_s", self.interval_s)
        checks.positive("sample_interval_s", self.sample_interval_s)
        _int_in("traced_flows", self.traced_flows, 0, 1024)
        _int_in("packet_budget", self.packet_budget, 1, 10**15)
        if self.traffic == "open_loop":
            checks.in_range("open_loop_load", self.open_loop_load, 0.0, 10.0, low_inclusive=False)
        else:
            _int_in("flows", self.flows, 1, MAX_FLOWS)
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
            _int_in("buffer_packets", buffer_packets, 1, 10_000_000)
            estimate = estimate_packets(self)
            if estimate > self.packet_budget:
                raise ParameterError(
                    "packet_budget",
                    f">= {estimate:,} (the packets the run would simulate)",
                    f"the run would simulate about {estimate:,} bottleneck packets, more than "
                    f"packet_budget ({self.packet_budget:,}); shorten duration_s or lower "
                    "capacity_bps",
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
        window_pps = scenario.flows * scenario.max_window_packets / scenario.rtt_s
        access_pps = scenario.flows * scenario.access_bps / wire_bits
        tcp_pps = min(window_pps, access_pps, 1.1 * line_pps)
        rate_pps = tcp_pps + scenario.background_load * line_pps
    return math.ceil(rate_pps * scenario.duration_s)


def _int_in(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool):
        raise ParameterError.got(name, "an integer", value)
    number = checks.integer_at_least(name, value, low)
    if number > high:
        raise ParameterError.got(name, f"<= {high}", value)
    return number


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ParameterError(
            name,
            f"one of {', '.join(allowed)}",
            f"{name} must be one of {', '.join(allowed)}; got {value!r}",
        )
