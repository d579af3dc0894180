"""Schemas of ``/v1/simulations``: a packet-simulation job, its status and its results.

The scenario fields are the simulator's (:class:`validation.simulator.scenario.Scenario`), with
its defaults; rates, times and sizes also accept strings with units. Bounds that involve two
fields (``rtt_jitter_s < rtt_s``, ``warmup_s < duration_s``) and the service's limits (packets per
job, replications, pending jobs) are checked by the route, with the same 422 shape.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field

from app.schemas.common import MAX_SEED, BufferPacketsIn, RequestModel, ResponseModel, Unit
from models.choices import CongestionControl, Recovery, SimulatedAqm
from validation.simulator.scenario import (
    DEFAULT_RTT_JITTER_FRACTION,
    MAX_ECN_THRESHOLD_BYTES,
    MAX_FLOWS,
    MAX_WINDOW_LIMIT_PACKETS,
    SCENARIO_DEFAULTS,
    CaIncrease,
    Discipline,
    GroupTraffic,
    OpenLoopArrivals,
    OpenLoopSizes,
    SizeDistribution,
    Traffic,
)

MAX_BUFFER_SIZES = 64
MAX_REPLICATIONS = 10_000  # hard ceiling; the service's max_replications is usually lower
MAX_DURATION_S = 1e6
#: The simulator's defaults (validation.simulator.Scenario), which the command line uses too.
DEFAULTS = SCENARIO_DEFAULTS

Rate = Annotated[float, Field(ge=1e3, le=1e15), Unit("rate")]


def _whole_bytes(value: Any) -> Any:
    """A size read from a quantity string is a float; a whole number of bytes becomes an int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: Whole bytes, or a size with its unit ('90 kB'); in a union with None pydantic would not take
#: the float a unit string is converted to as an int, hence the conversion.
ThresholdBytes = Annotated[
    int, Field(ge=1, le=MAX_ECN_THRESHOLD_BYTES), BeforeValidator(_whole_bytes), Unit("size")
]
Seconds = Annotated[float, Field(gt=0.0, le=MAX_DURATION_S), Unit("time")]
SecondsOrZero = Annotated[float, Field(ge=0.0, le=MAX_DURATION_S), Unit("time")]


class _FlowFields(RequestModel):
    """The fields a flow group shares with the scenario: its flows, path and TCP options.

    They mean what :class:`validation.simulator.Scenario`'s fields of the same names mean; in a
    group (:class:`FlowGroupIn`) they apply to that group's flows only.
    """

    flows: int = Field(
        default=DEFAULTS["flows"],
        ge=1,
        le=MAX_FLOWS,
        description="Persistent flows, closed-loop users, or the most concurrent Poisson flows.",
    )
    rtt_s: Seconds = Field(
        default=DEFAULTS["rtt_s"],
        le=60.0,
        description="Mean two-way propagation delay, in seconds (or e.g. '100 ms').",
    )
    rtt_jitter_s: SecondsOrZero | None = Field(
        default=None,
        le=60.0,
        description="Half-width of the uniform spread of the flows' RTTs, in s (< rtt_s); by "
        f"default {DEFAULT_RTT_JITTER_FRACTION:.0%} of rtt_s. 0 is allowed but warned about: "
        "flows with one RTT phase-lock.",
    )
    access_bps: Rate = Field(
        default=DEFAULTS["access_bps"],
        description="Rate of each source's access link, in bit/s (or '1 Gbit/s').",
    )
    max_window_packets: int = Field(
        default=DEFAULTS["max_window_packets"],
        ge=1,
        le=MAX_WINDOW_LIMIT_PACKETS,
        description="Maximum (advertised) window, in packets.",
    )
    pacing: bool = Field(
        default=DEFAULTS["pacing"], description="Space each flow's packets srtt/cwnd apart."
    )
    recovery: Recovery = Field(
        default=DEFAULTS["recovery"],
        description="Loss recovery: SACK (RFC 6675) or NewReno (RFC 6582).",
    )
    congestion_control: CongestionControl = Field(
        default=DEFAULTS["congestion_control"],
        description="Congestion control: Reno (RFC 5681), CUBIC (RFC 9438), DCTCP (RFC 8257, "
        "ECN-capable; give the port an ecn_threshold_packets or ecn_threshold_bytes) or BBR v1 "
        "(Cardwell et al. 2016; draft-cardwell-iccrg-bbr-congestion-control-00; always paced).",
    )
    ecn: bool = Field(
        default=DEFAULTS["ecn"],
        description="Classic ECN (RFC 3168) for reno and cubic senders: a CE mark is echoed "
        "until CWR and treated as a loss, without retransmission. dctcp always uses ECN.",
    )
    ca_increase: CaIncrease = Field(
        default=DEFAULTS["ca_increase"],
        description="Congestion-avoidance growth per ACK: 'bytes_acked' counts the segments "
        "it newly acknowledges (RFC 3465, as Linux: one segment per RTT); 'per_ack' counts one "
        "segment whatever it acknowledges (RFC 5681 eq. 3, ns-2, ns-3's TcpNewReno: half a "
        "segment per RTT with delayed ACKs).",
    )
    delayed_ack: int = Field(
        default=DEFAULTS["delayed_ack"],
        ge=1,
        le=64,
        description="In-order segments per ACK (1: no delayed ACKs).",
    )
    delayed_ack_timeout_s: Seconds = Field(
        default=DEFAULTS["delayed_ack_timeout_s"],
        description="Longest an acknowledgement is held, in seconds.",
    )
    initial_window_packets: int = Field(
        default=DEFAULTS["initial_window_packets"],
        ge=1,
        le=MAX_WINDOW_LIMIT_PACKETS,
        description="Initial congestion window, in packets.",
    )
    min_rto_s: Seconds = Field(
        default=DEFAULTS["min_rto_s"],
        description="Lower bound of the retransmission timeout, in seconds.",
    )
    initial_rto_s: Seconds = Field(
        default=DEFAULTS["initial_rto_s"],
        description="Retransmission timeout before the first RTT sample, in s.",
    )
    start_spread_s: SecondsOrZero = Field(
        default=DEFAULTS["start_spread_s"],
        description="Flows start at times uniform in [0, start_spread_s), in s.",
    )
    flow_size_distribution: SizeDistribution = Field(
        default=DEFAULTS["flow_size_distribution"], description="Distribution of finite flow sizes."
    )
    flow_size_packets: float = Field(
        default=DEFAULTS["flow_size_packets"],
        ge=1.0,
        le=1e12,
        description="Mean finite flow size, in packets.",
    )
    pareto_shape: float = Field(
        default=DEFAULTS["pareto_shape"],
        gt=1.0,
        le=100.0,
        description="Shape of Pareto flow sizes, dimensionless.",
    )
    flow_arrival_rate_per_s: float = Field(
        default=DEFAULTS["flow_arrival_rate_per_s"],
        ge=0.0,
        le=1e9,
        description="Rate of Poisson flow arrivals, per second.",
    )


class FlowGroupIn(_FlowFields):
    """A group of TCP flows with its own traffic kind, path and TCP options.

    The fields mean what the scenario's fields of the same names mean, for this group's flows
    (:class:`validation.simulator.FlowGroup`). Flows are numbered group after group.
    """

    name: str = Field(default="", max_length=100, description="Label of the group in results.")
    traffic: GroupTraffic = Field(
        default=DEFAULTS["traffic"],
        description="Persistent flows, closed-loop users, or Poisson flow arrivals.",
    )


class SimulationScenarioIn(_FlowFields):
    """The dumbbell to simulate: N sources behind their own access links, one bottleneck."""

    capacity_bps: Rate = Field(
        default=DEFAULTS["capacity_bps"],
        description="Bottleneck rate, in bit/s (or e.g. '100 Mbit/s').",
    )
    packet_bytes: Annotated[int, Field(ge=1, le=1_000_000), Unit("size")] = Field(
        default=DEFAULTS["packet_bytes"],
        description="Payload per data packet (MSS), in bytes (or e.g. '1000 B').",
    )
    header_bytes: Annotated[int, Field(ge=0, le=1_000_000), Unit("size")] = Field(
        default=DEFAULTS["header_bytes"],
        description="Extra bytes on the wire per data packet, in bytes.",
    )
    background_load: float = Field(
        default=DEFAULTS["background_load"],
        ge=0.0,
        lt=1.0,
        description="Load of Poisson background packets, dimensionless (fraction of capacity).",
    )
    traffic: Traffic = Field(
        default=DEFAULTS["traffic"],
        description="Persistent flows, closed-loop users, Poisson flow arrivals, or open-loop "
        "packets (no TCP).",
    )
    open_loop_load: float = Field(
        default=DEFAULTS["open_loop_load"],
        gt=0.0,
        le=10.0,
        description="Offered load of open-loop packets, dimensionless (fraction of capacity).",
    )
    open_loop_arrivals: OpenLoopArrivals = Field(
        default=DEFAULTS["open_loop_arrivals"], description="Open-loop packet arrivals."
    )
    open_loop_sizes: OpenLoopSizes = Field(
        default=DEFAULTS["open_loop_sizes"],
        description="Open-loop packet sizes (mean packet_bytes + header_bytes).",
    )
    discipline: Discipline = Field(
        default=DEFAULTS["discipline"],
        description="Drop-tail FIFO, or per-flow fair queueing dropping from the longest queue.",
    )
    byte_mode: bool = Field(
        default=DEFAULTS["byte_mode"],
        description="The buffer holds buffer_packets x (packet_bytes + header_bytes) bytes.",
    )
    ecn_threshold_packets: int | None = Field(
        default=DEFAULTS["ecn_threshold_packets"],
        ge=1,
        le=10_000_000,
        description="The port marks an ECN-capable arrival CE instead of dropping it when it "
        "finds at least this many packets there (the one in transmission included); DCTCP's K "
        "(Alizadeh et al. 2010: K > C·RTT/7). The buffer stays the hard limit. null: no "
        "marking. At most one of ecn_threshold_packets and ecn_threshold_bytes; drop-tail only.",
    )
    ecn_threshold_bytes: ThresholdBytes | None = Field(
        default=DEFAULTS["ecn_threshold_bytes"],
        description="The same marking threshold in bytes on the wire (or e.g. '90 kB').",
    )
    aqm: SimulatedAqm = Field(
        default=DEFAULTS["aqm"],
        description="Active queue management of the drop-tail FIFO, the buffer staying the hard "
        "limit: CoDel (RFC 8289, drops at dequeue) or PIE (RFC 8033, random drops at enqueue, "
        "15 ms reference delay); packets of ECN-capable groups (congestion_control dctcp, or "
        "ecn) are marked CE "
        "instead (PIE: while its drop probability is at most 10%). Not with discipline fq.",
    )
    codel_target_s: Annotated[float, Field(gt=0.0, le=10.0), Unit("time")] = Field(
        default=DEFAULTS["codel_target_s"],
        description="CoDel's TARGET, the sojourn time it lets persist, in seconds (or e.g. "
        "'5 ms').",
    )
    codel_interval_s: Annotated[float, Field(gt=0.0, le=100.0), Unit("time")] = Field(
        default=DEFAULTS["codel_interval_s"],
        description="CoDel's INTERVAL, how long the sojourn time may stay above target before "
        "CoDel drops, in seconds (or e.g. '100 ms').",
    )
    duration_s: Seconds = Field(
        default=DEFAULTS["duration_s"], description="Simulated time, in seconds."
    )
    warmup_s: SecondsOrZero = Field(
        default=DEFAULTS["warmup_s"],
        description="Measures start after warmup_s, in seconds (< duration_s).",
    )
    interval_s: Seconds = Field(
        default=DEFAULTS["interval_s"],
        description="Length of the per-interval throughput bins, in seconds.",
    )
    sample_interval_s: Seconds = Field(
        default=DEFAULTS["sample_interval_s"],
        description="Period of the queue and cwnd traces, in seconds.",
    )
    traced_flows: int = Field(
        default=DEFAULTS["traced_flows"],
        ge=0,
        le=1024,
        description="Flows (the first ones) whose cwnd is traced.",
    )
    groups: list[FlowGroupIn] = Field(
        default_factory=list,
        max_length=64,
        description="Flow groups, each with its own traffic, path and TCP options; results "
        "are reported per group. Empty: one group of the scenario's own flows, traffic, "
        "rtt_s, ... fields, which must keep their defaults when groups are given.",
    )


class SimulationRequest(RequestModel):
    """Simulate ``scenario`` once per buffer size, ``replications`` times each."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "scenario": {
                        "capacity_bps": "10 Mbit/s",
                        "flows": 10,
                        "rtt_s": "50 ms",
                        "duration_s": 20,
                        "warmup_s": 5,
                    },
                    "buffer_packets": [10, 20, 40],
                    "replications": 3,
                    "seed": 1,
                }
            ]
        }
    )

    scenario: SimulationScenarioIn = Field(default_factory=SimulationScenarioIn)
    buffer_packets: list[BufferPacketsIn] = Field(
        min_length=1,
        max_length=MAX_BUFFER_SIZES,
        description="Bottleneck buffer sizes to simulate, in packets (the one in transmission "
        "included); each is simulated with the same seeds.",
    )
    replications: int = Field(
        default=5,
        ge=1,
        le=MAX_REPLICATIONS,
        description="Independent runs per buffer size (99% confidence intervals need >= 2).",
    )
    seed: int = Field(
        default=1,
        ge=0,
        le=MAX_SEED,
        description="Seed of the replications (numpy SeedSequence(seed).spawn(replications)).",
    )


JobStatusName = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class SimulationAccepted(ResponseModel):
    """A job was queued, or an identical request's job is reused."""

    id: str = Field(description="Job id; poll GET /v1/simulations/{id}.")
    status: JobStatusName
    reused: bool = Field(description="True if an identical request's job (and result) is reused.")
    token: str | None = Field(
        default=None,
        description="The job's capability token, given once: send it as X-Job-Token to cancel. "
        "Null when an identical request's job is reused (its submitter keeps control).",
    )
    estimated_packets: int = Field(
        ge=0, description="Bottleneck packets the job simulates (simulator's estimate)."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="What the scenario allows but probably does not mean (a zero RTT jitter).",
    )


class SimulationSpecOut(ResponseModel):
    """The job's request in canonical form: SI units, buffer sizes sorted and distinct."""

    scenario: dict[str, Any]
    buffer_packets: list[int]
    replications: int
    seed: int


class BufferResult(ResponseModel):
    """Replicated runs at one buffer size: each measure's mean and 99% CI half-width.

    Every scalar measure ``m`` of the simulator comes as ``m`` (mean over replications) and
    ``m_ci99`` (half-width of its 99% confidence interval; null with one replication).
    """

    model_config = ConfigDict(extra="allow")

    buffer_packets: int = Field(ge=1, description="Buffer, in packets.")
    utilization: float | None = Field(
        default=None, description="Busy fraction of the bottleneck, dimensionless."
    )
    goodput_bps: float | None = Field(default=None, description="Goodput, in bit/s.")
    loss_rate: float | None = Field(
        default=None, description="Fraction of bottleneck arrivals dropped, dimensionless."
    )
    queue_delay_mean_s: float | None = Field(
        default=None, description="Mean queueing delay, in seconds."
    )
    queue_delay_p99_s: float | None = Field(
        default=None, description="99th percentile of queueing delay, in seconds."
    )
    marks: float | None = Field(
        default=None, description="Packets the port marked CE (ECN) after the warm-up."
    )
    mark_rate: float | None = Field(
        default=None,
        description="Fraction of bottleneck arrivals marked CE, dimensionless.",
    )
    groups: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Per flow group: name, flows, traffic, and each of goodput_bps, "
        "throughput_bps, utilization_share, loss_rate, timeouts, flows_completed, jain_index, "
        "marks, mark_rate, aqm_drops, overflow_drops as mean and _ci99.",
    )


class SimulationJob(ResponseModel):
    """A simulation job: status, progress and the results computed so far."""

    id: str
    status: JobStatusName
    progress: float = Field(ge=0.0, le=1.0, description="Fraction done, dimensionless.")
    cancel_requested: bool
    message: str | None = Field(
        description="What happened last: why it failed, that it resumed after a restart, ..."
    )
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    request: SimulationSpecOut
    warnings: list[str] = Field(
        default_factory=list,
        description="What the scenario allows but probably does not mean (a zero RTT jitter).",
    )
    results: list[BufferResult] = Field(
        description="One entry per finished buffer size, in increasing buffer size."
    )
    runs_page: int | None = Field(
        default=None,
        description="With runs=true: the page shown (the buffer size whose runs are included).",
    )
    runs_pages: int | None = Field(
        default=None, description="With runs=true: pages of runs, one per buffer size."
    )
