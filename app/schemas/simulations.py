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
from validation.simulator.fields import FIELDS
from validation.simulator.scenario import (
    DEFAULT_RTT_JITTER_FRACTION,
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

#: The service's caps on rates and times, tighter than the simulator's own bounds.
RATE_CAPS = {"ge": 1e3, "le": 1e15}
TIME_CAPS = {"le": MAX_DURATION_S}


def _whole_bytes(value: Any) -> Any:
    """A size read from a quantity string is a float; a whole number of bytes becomes an int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: How the API's description states each unit of validation.simulator.fields.
_UNIT_WORDS = {
    "s": "in seconds (or e.g. '100 ms')",
    "bit/s": "in bit/s (or e.g. '100 Mbit/s')",
    "bytes": "in bytes (or e.g. '1000 B')",
    "packets": "in packets",
    "1/s": "per second",
}


def _bounds(name: str, **caps: Any) -> Any:
    """The bounds of scenario field ``name`` (:data:`validation.simulator.fields.FIELDS`) as
    pydantic constraints, with the service's tighter ``caps``.

    Fields that take a quantity string carry them inside their type, before ``Unit``, so that
    they apply to the converted value: ``Annotated[float, _bounds(name), Unit("time")]``.
    """
    spec = FIELDS[name]
    bounds: dict[str, Any] = {}
    if spec.kind in ("int", "float"):
        number = int if spec.kind == "int" else float
        if spec.low is not None:
            bounds["gt" if spec.low_open else "ge"] = number(spec.low)
        if spec.high is not None:
            bounds["lt" if spec.high_open else "le"] = number(spec.high)
    bounds.update(caps)
    return Field(**bounds)


def _scenario_field(name: str, note: str = "") -> Any:
    """The request field of scenario field ``name``: its default (``Scenario``) and its help
    (:data:`validation.simulator.fields.FIELDS`, then ``note``); its bounds are in its type."""
    spec = FIELDS[name]
    unit = _UNIT_WORDS.get(spec.unit)
    description = spec.help + (f", {unit}" if unit else "") + "." + (f" {note}" if note else "")
    return Field(default=DEFAULTS[name], description=description)


class _FlowFields(RequestModel):
    """The fields a flow group shares with the scenario: its flows, path and TCP options.

    They mean what :class:`validation.simulator.Scenario`'s fields of the same names mean; in a
    group (:class:`FlowGroupIn`) they apply to that group's flows only. Each field's bounds and
    help are the simulator's (:mod:`validation.simulator.fields`), with the service's caps.
    """

    flows: Annotated[int, _bounds("flows")] = _scenario_field("flows")
    rtt_s: Annotated[float, _bounds("rtt_s", le=60.0), Unit("time")] = _scenario_field("rtt_s")
    rtt_jitter_s: Annotated[float, _bounds("rtt_jitter_s", le=60.0), Unit("time")] | None = (
        _scenario_field(
            "rtt_jitter_s",
            f"Below rtt_s; by default {DEFAULT_RTT_JITTER_FRACTION:.0%} of rtt_s. 0 is allowed "
            "but warned about: flows with one RTT phase-lock.",
        )
    )
    access_bps: Annotated[float, _bounds("access_bps", **RATE_CAPS), Unit("rate")] = (
        _scenario_field("access_bps")
    )
    max_window_packets: Annotated[int, _bounds("max_window_packets")] = _scenario_field(
        "max_window_packets"
    )
    pacing: bool = _scenario_field("pacing")
    recovery: Recovery = _scenario_field("recovery")
    congestion_control: CongestionControl = _scenario_field("congestion_control")
    ecn: bool = _scenario_field("ecn")
    ca_increase: CaIncrease = _scenario_field("ca_increase")
    delayed_ack: Annotated[int, _bounds("delayed_ack")] = _scenario_field("delayed_ack")
    delayed_ack_timeout_s: Annotated[
        float, _bounds("delayed_ack_timeout_s", **TIME_CAPS), Unit("time")
    ] = _scenario_field("delayed_ack_timeout_s")
    initial_window_packets: Annotated[int, _bounds("initial_window_packets")] = _scenario_field(
        "initial_window_packets"
    )
    min_rto_s: Annotated[float, _bounds("min_rto_s", **TIME_CAPS), Unit("time")] = _scenario_field(
        "min_rto_s"
    )
    initial_rto_s: Annotated[float, _bounds("initial_rto_s", **TIME_CAPS), Unit("time")] = (
        _scenario_field("initial_rto_s")
    )
    start_spread_s: Annotated[float, _bounds("start_spread_s", **TIME_CAPS), Unit("time")] = (
        _scenario_field("start_spread_s")
    )
    flow_size_distribution: SizeDistribution = _scenario_field("flow_size_distribution")
    flow_size_packets: Annotated[float, _bounds("flow_size_packets", le=1e12)] = _scenario_field(
        "flow_size_packets"
    )
    pareto_shape: Annotated[float, _bounds("pareto_shape")] = _scenario_field("pareto_shape")
    flow_arrival_rate_per_s: Annotated[float, _bounds("flow_arrival_rate_per_s", le=1e9)] = (
        _scenario_field("flow_arrival_rate_per_s")
    )


class FlowGroupIn(_FlowFields):
    """A group of TCP flows with its own traffic kind, path and TCP options.

    The fields mean what the scenario's fields of the same names mean, for this group's flows
    (:class:`validation.simulator.FlowGroup`). Flows are numbered group after group.
    """

    name: str = Field(default="", max_length=100, description="Label of the group in results.")
    traffic: GroupTraffic = _scenario_field("traffic")


class SimulationScenarioIn(_FlowFields):
    """The dumbbell to simulate: N sources behind their own access links, one bottleneck."""

    capacity_bps: Annotated[float, _bounds("capacity_bps", **RATE_CAPS), Unit("rate")] = (
        _scenario_field("capacity_bps")
    )
    packet_bytes: Annotated[
        int, _bounds("packet_bytes"), BeforeValidator(_whole_bytes), Unit("size")
    ] = _scenario_field("packet_bytes")
    header_bytes: Annotated[
        int, _bounds("header_bytes"), BeforeValidator(_whole_bytes), Unit("size")
    ] = _scenario_field("header_bytes")
    background_load: Annotated[float, _bounds("background_load")] = _scenario_field(
        "background_load"
    )
    traffic: Traffic = _scenario_field("traffic")
    open_loop_load: Annotated[float, _bounds("open_loop_load")] = _scenario_field("open_loop_load")
    open_loop_arrivals: OpenLoopArrivals = _scenario_field("open_loop_arrivals")
    open_loop_sizes: OpenLoopSizes = _scenario_field("open_loop_sizes")
    discipline: Discipline = _scenario_field("discipline")
    byte_mode: bool = _scenario_field("byte_mode")
    ecn_threshold_packets: Annotated[int, _bounds("ecn_threshold_packets")] | None = (
        _scenario_field(
            "ecn_threshold_packets",
            "null: no marking. At most one of the two thresholds; drop-tail only.",
        )
    )
    ecn_threshold_bytes: (
        Annotated[int, _bounds("ecn_threshold_bytes"), BeforeValidator(_whole_bytes), Unit("size")]
        | None
    ) = _scenario_field("ecn_threshold_bytes", "Or e.g. '90 kB'.")
    aqm: SimulatedAqm = _scenario_field("aqm")
    codel_target_s: Annotated[float, _bounds("codel_target_s"), Unit("time")] = _scenario_field(
        "codel_target_s"
    )
    codel_interval_s: Annotated[float, _bounds("codel_interval_s"), Unit("time")] = _scenario_field(
        "codel_interval_s"
    )
    duration_s: Annotated[float, _bounds("duration_s", **TIME_CAPS), Unit("time")] = (
        _scenario_field("duration_s")
    )
    warmup_s: Annotated[float, _bounds("warmup_s", **TIME_CAPS), Unit("time")] = _scenario_field(
        "warmup_s", "Below duration_s."
    )
    interval_s: Annotated[float, _bounds("interval_s", **TIME_CAPS), Unit("time")] = (
        _scenario_field("interval_s")
    )
    sample_interval_s: Annotated[float, _bounds("sample_interval_s", **TIME_CAPS), Unit("time")] = (
        _scenario_field("sample_interval_s")
    )
    traced_flows: Annotated[int, _bounds("traced_flows")] = _scenario_field("traced_flows")
    groups: list[FlowGroupIn] = Field(
        default_factory=list,
        max_length=64,
        description=FIELDS["groups"].help + ". Empty: one group of the scenario's own flows, "
        "traffic, rtt_s, ... fields, which must keep their defaults when groups are given.",
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
