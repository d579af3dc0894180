"""Schemas of the recommendation: a link scenario and targets in, every rule and one size out."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from app.errors import parameters_of
from app.schemas.common import (
    MAX_CAPACITY_BPS,
    MAX_FLOWS,
    MAX_QUANTITY_STRINGS,
    MAX_RTT_LIST,
    MAX_RTT_S,
    MAX_WINDOW_PACKETS,
    MIN_CAPACITY_BPS,
    CapacityBps,
    PacketBytes,
    RequestModel,
    ResponseModel,
    RttS,
    StringItems,
    Unit,
    all_of,
    exactly_one_of,
    only_with_an_aqm,
)
from app.schemas.device import DeviceConfigOut, DeviceIn
from app.schemas.optical import OpticalDesignOut
from app.services.device import config_answer
from app.services.recommend import RecommendationForDevice
from models.choices import AQMS, Aqm, CongestionControl, Medium, Priority
from models.recommend import LinkScenario, Recommendation, Targets

Status = Literal["holds", "fails", "unknown"]

#: The AQMs (``aqm`` other than none): only they take a target and an interval.
AQM_NAMES = tuple(a for a in AQMS if a != "none")

#: The engine's inputs, each taken from the request's field of the same name.
_LINK_FIELDS = tuple(f.name for f in fields(LinkScenario))
_TARGET_FIELDS = tuple(f.name for f in fields(Targets))

OptionalRate = Annotated[
    float,
    Field(ge=MIN_CAPACITY_BPS, le=MAX_CAPACITY_BPS),
    Unit("rate"),
]
#: An AQM's time parameter: positive, at most a minute, in seconds or with a unit.
AqmTimeS = Annotated[float, Field(gt=0.0, le=MAX_RTT_S), Unit("time")]


_THESIS_EXAMPLE: dict[str, Any] = {
    "scenario": {
        "capacity_bps": "10 Gbit/s",
        "rtt_s": "100 ms",
        "flows": 1000,
        "packet_bytes": "1000 B",
        "max_window_packets": 64,
        "access_bps": "10 Mbit/s",
    },
    "targets": {"min_utilization": 0.9, "max_loss": 0.01},
}


class ScenarioIn(RequestModel):
    """The port and the traffic through it."""

    model_config = ConfigDict(
        json_schema_extra=all_of(
            exactly_one_of("rtt_s", "rtts_s"),
            only_with_an_aqm(AQM_NAMES, "aqm_target_s", "aqm_interval_s"),
        )
    )

    capacity_bps: CapacityBps
    rtt_s: RttS | None = Field(
        default=None,
        description="Round-trip time of the flows, in seconds (or e.g. '100 ms'); give this or "
        "rtts_s.",
    )
    rtts_s: (
        Annotated[
            list[RttS],
            Field(
                min_length=1,
                max_length=MAX_RTT_LIST,
                description="A sample of the flows' round-trip times, in seconds; their "
                "harmonic mean is the effective RTT (004 eqs. 11-12).",
            ),
            StringItems(MAX_QUANTITY_STRINGS),
        ]
        | None
    ) = None
    flows: int = Field(ge=1, le=MAX_FLOWS, description="Total number of flows N, a count.")
    packet_bytes: PacketBytes = 1500.0
    bottlenecked_flows: int | None = Field(
        default=None,
        ge=1,
        le=MAX_FLOWS,
        description="N_b, a count: long-lived flows limited only by congestion at this port "
        "(004 §II); at most flows.",
    )
    bottlenecked_share: float | None = Field(
        default=None,
        gt=0.0,
        le=1.0,
        description="C_e/C, dimensionless: share of the capacity the N_b flows carry.",
    )
    access_bps: OptionalRate | None = Field(
        default=None,
        description="Senders' access-link rate, in bit/s (or e.g. '100 Mbit/s'); sets the "
        "slowdown S = C/access of 000 Thm 2.",
    )
    peak_rate_bps: OptionalRate | None = Field(
        default=None,
        description="Largest rate one flow can reach, in bit/s (or e.g. '50 Mbit/s'); by "
        "default the smaller of the access rate and W/RTT when known.",
    )
    max_window_packets: float | None = Field(
        default=None,
        ge=1.0,
        le=MAX_WINDOW_PACKETS,
        description="Largest congestion window a flow may use, in packets.",
    )
    paced: bool = Field(default=False, description="Whether senders pace over the RTT.")
    congestion_control: CongestionControl | None = Field(
        default=None,
        description="Senders' congestion control; sets the multiplicative decrease β and the "
        "rules that apply (DCTCP's marking threshold, BBR's probing queue). Absent or null: "
        "unknown, sized for Reno and for CUBIC and the larger size recommended.",
    )
    load: float | None = Field(
        default=None,
        gt=0.0,
        le=100.0,
        description="Offered load ρ, dimensionless fraction of the capacity (flow level, 003).",
    )
    medium: Medium = Field(
        default="electronic",
        description="Buffer technology; an all-optical buffer holds a few dozen packets.",
    )
    aqm: Aqm = Field(
        default="none",
        description="Active queue management on the port: CoDel (RFC 8289), PIE (RFC 8033) or "
        "the L4S DualQ Coupled AQM (RFC 9332). The AQM sets the standing queue; the buffer is "
        "the hard limit above it.",
    )
    aqm_target_s: AqmTimeS | None = Field(
        default=None,
        description="The AQM's target queueing delay, in seconds (or e.g. '5 ms'): CoDel's "
        "TARGET, PIE's QDELAY_REF, DualQ's Classic target. Only with an aqm; for CoDel below "
        "its interval (aqm_interval_s, 100 ms by default); by default the RFC's: 5 ms (CoDel, "
        "RFC 8289), 15 ms (PIE, RFC 8033; DualQ, RFC 9332).",
    )
    aqm_interval_s: AqmTimeS | None = Field(
        default=None,
        description="The AQM's control interval, in seconds (or e.g. '100 ms'): CoDel's "
        "INTERVAL (above the target), PIE's T_UPDATE, DualQ's Tupdate. Only with an aqm; by "
        "default the RFC's: 100 ms (CoDel), 15 ms (PIE), 16 ms (DualQ).",
    )
    incast_senders: int | None = Field(
        default=None,
        ge=1,
        le=MAX_FLOWS,
        description="Senders answering one request at once (datacenter fan-in), a count: "
        "their initial windows arrive as one burst.",
    )
    initial_window_packets: float = Field(
        default=10.0,
        ge=1.0,
        le=MAX_WINDOW_PACKETS,
        description="Senders' initial window, in packets (10, RFC 6928).",
    )
    input_queued: bool = Field(
        default=False,
        description="Whether the switch is input-queued with virtual output queues (CIOQ, "
        "000 §5.1).",
    )
    speedup: float | None = Field(
        default=None, ge=1.0, le=64.0, description="Switch fabric speedup, dimensionless (CIOQ)."
    )
    ports: int | None = Field(
        default=None, ge=2, le=1_000_000, description="Ports of the switch, a count (CIOQ)."
    )

    @model_validator(mode="after")
    def _exactly_one_rtt(self) -> Self:
        if (self.rtt_s is None) == (self.rtts_s is None):
            raise ValueError("give exactly one of rtt_s or rtts_s")
        return self

    @property
    def rtts(self) -> tuple[float, ...]:
        """The RTTs as the engine takes them."""
        return tuple(self.rtts_s) if self.rtts_s is not None else (float(self.rtt_s or 0.0),)

    def to_domain(self) -> LinkScenario:
        """The engine's scenario: each field of :class:`LinkScenario` from the field of the same
        name (the RTTs from ``rtt_s`` or ``rtts_s``); ``ParameterError`` naming a refused one."""
        values = {name: getattr(self, name) for name in _LINK_FIELDS}
        values["rtts_s"] = self.rtts
        return LinkScenario(**values)


class TargetsIn(RequestModel):
    """What the operator wants from the port."""

    min_utilization: float | None = Field(
        default=None,
        gt=0.0,
        lt=1.0,
        description="Throughput wanted, dimensionless, as a fraction of what the traffic can "
        "carry through the port, below 1 (100 % is refused: enter e.g. 0.999); 0.9 when not "
        "given (source: default).",
    )
    max_loss: float | None = Field(
        default=None,
        gt=0.0,
        lt=1.0,
        description="Largest packet loss probability; 0.01 when not given (source: default).",
    )
    max_queueing_delay_s: (
        Annotated[
            float,
            Field(
                gt=0.0,
                le=MAX_RTT_S,
                description="Largest queueing delay B/C, in seconds (or e.g. '5 ms'); one "
                "effective RTT when not given (source: default).",
            ),
            Unit("time"),
        ]
        | None
    ) = None
    priority: Priority = Field(
        default="throughput",
        description="What to keep when the delay bound conflicts with utilization and loss.",
    )

    def to_domain(self) -> Targets:
        """The engine's targets (the same field names); ``ParameterError`` naming a refused one."""
        return Targets(**{name: getattr(self, name) for name in _TARGET_FIELDS})


_DEVICE_EXAMPLE: dict[str, Any] = {
    **_THESIS_EXAMPLE,
    "device": {"vendor": "junos", "interface": "et-0/0/0"},
}


class RecommendRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_THESIS_EXAMPLE, _DEVICE_EXAMPLE]})

    scenario: ScenarioIn
    targets: TargetsIn = Field(default_factory=TargetsIn)
    device: DeviceIn | None = Field(
        default=None,
        description="A device to configure: the answer then carries device_config, the "
        "recommended size as that device's configuration (as /v1/config returns it).",
    )

    def to_domain(self) -> tuple[LinkScenario, Targets]:
        """The engine's scenario and targets; a refused value is a 422 naming its field."""
        return link_and_targets(self.scenario, self.targets)


def link_and_targets(scenario: ScenarioIn, targets: TargetsIn) -> tuple[LinkScenario, Targets]:
    """The engine's scenario and targets from a request's parts, each refused value a 422 at
    ``body.scenario.<name>`` or ``body.targets.<name>``."""
    with parameters_of("scenario"):
        link = scenario.to_domain()
    with parameters_of("targets"):
        goals = targets.to_domain()
    return link, goals


# --- the answer ---------------------------------------------------------------------------------
# Field for field the dataclasses of :mod:`models.recommend.result` (one result shape): the
# router builds :class:`RecommendResponse` with ``model_validate(result, from_attributes=True)``
# and tests/app/test_api_recommend_shape.py checks that every model here has exactly the fields
# of its dataclass. What these add is the OpenAPI description and the bounds of each field.


def _finite_or_none(values: Any) -> Any:
    """Non-finite floats become null (JSON has no infinity); curves may reach them. One call
    per list (a curve has 160 points, and a validator per item cost a tenth of an answer)."""
    if not isinstance(values, list | tuple):
        return values
    return [
        None if isinstance(value, float) and not math.isfinite(value) else value for value in values
    ]


FiniteOrNone = Annotated[list[float | None], BeforeValidator(_finite_or_none)]


class AssumptionOut(ResponseModel):
    text: str = Field(description="The condition the rule rests on.")
    status: Status
    reason: str = Field(description="Why it holds, fails or is unknown for this scenario.")


class PredictionOut(ResponseModel):
    buffer_packets: float = Field(ge=0.0, description="Buffer, in packets.")
    utilization: float | None = Field(
        ge=0.0,
        le=1.0,
        description="Fraction of the capacity. Null where not predicted (BBR senders below "
        "0.1 BDP; DCTCP behind DualQ's L4S step on a wide-area link).",
    )
    normalized_utilization: float | None = Field(
        ge=0.0,
        le=1.0,
        description="Fraction of what the traffic can carry (vs. the target); null where the "
        "utilization is not predicted.",
    )
    loss_probability: float | None = Field(
        ge=0.0, le=1.0, description="Null when the inputs do not decide it (N_b not given)."
    )
    queueing_delay_s: float = Field(
        ge=0.0, description="Largest queueing delay, a full buffer at line rate, in seconds."
    )
    meets_utilization: bool | None
    meets_loss: bool | None
    meets_delay: bool


class TargetOut(ResponseModel):
    name: str = Field(description="min_utilization, max_loss or max_queueing_delay_s.")
    value: float
    source: Literal["default", "user"] = Field(description="Whether the user gave it.")


class TargetCheckOut(ResponseModel):
    name: str
    source: Literal["default", "user"]
    met: bool | None = Field(description="Null when the inputs do not decide it.")


class RuleOut(ResponseModel):
    rule: str = Field(description="Identifier of the rule.")
    name: str
    equation: str
    reference: str = Field(description="Seed paper, section and equation.")
    buffer_packets: int | None = Field(
        default=None, ge=0, description="Buffer, in packets, rounded up; null if not computable."
    )
    buffer_packets_exact: float | None = Field(default=None, description="Unrounded, packets.")
    buffer_bytes: float | None = Field(default=None, ge=0.0, description="Buffer, in bytes.")
    buffer_s: float | None = Field(
        default=None, ge=0.0, description="Buffer, in seconds of queueing at line rate."
    )
    assumptions: list[AssumptionOut]
    status: Status = Field(description="fails if any assumption fails, else unknown if any is.")
    predicted: PredictionOut | None = None
    note: str | None = None
    targets_met: list[TargetCheckOut] = Field(
        description="Each target at this size: met or not, and whether the user gave it."
    )


class RegimeOut(ResponseModel):
    regime: Literal["transparent", "elastic", "overload", "unknown"]
    reason: str
    sizing_rule: str
    warning: str | None = None
    source: str = Field(description="What decided the regime.")
    traffic_model: str = Field(description="The model used to predict performance.")
    deciding_inputs: list[str] = Field(
        description="When the regime is unknown: the inputs that would decide it."
    )
    saturation_probability: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Probability that the flows' peak rates add up to the capacity (003 §4).",
    )


class RecommendedOut(ResponseModel):
    rule: str = Field(description="The rule that governs the recommended size.")
    buffer_packets: int = Field(ge=0, description="Recommended buffer, in packets.")
    buffer_bytes: float = Field(ge=0.0, description="Recommended buffer, in bytes.")
    buffer_s: float = Field(
        ge=0.0, description="Recommended buffer, in seconds of queueing at line rate."
    )
    reason: str
    predicted: PredictionOut
    minimum_meeting_targets_packets: int | None = Field(
        default=None,
        description="Smallest buffer, in packets, at which utilization and loss targets are met.",
    )
    targets_met: list[TargetCheckOut]


class TradeOffOut(ResponseModel):
    conflict: str
    explanation: str
    alternatives: list[PredictionOut]
    max_queueing_delay_s: float | None = Field(
        default=None, description="The delay target, in seconds."
    )
    min_feasible_delay_s: float | None = Field(
        default=None,
        description="The smallest delay bound the other targets allow, in seconds (004 eq. 25).",
    )


class CurvesOut(ResponseModel):
    buffer_packets: list[float] = Field(description="Buffer sizes, packets (log-spaced).")
    utilization: FiniteOrNone
    normalized_utilization: FiniteOrNone
    loss_probability: FiniteOrNone
    queueing_delay_s: FiniteOrNone = Field(description="Seconds.")


class DerivedInputsOut(ResponseModel):
    effective_rtt_s: float = Field(gt=0.0, description="Harmonic mean of the RTTs, seconds.")
    bdp_packets: float = Field(ge=0.0, description="C·T_e, packets.")
    packet_time_s: float = Field(gt=0.0, description="One packet at line rate, seconds.")
    md_beta: float = Field(description="Multiplicative decrease β, dimensionless.")
    window_limited_load: float | None = Field(
        default=None, description="ρ = N·W/(C·RTT), dimensionless, when W is known."
    )
    bottlenecked_flows_used: int
    bottlenecked_flows_given: bool
    bottlenecked_share: float
    loss_sync_q: float
    peak_rate_fraction: float | None = None
    slowdown: float | None = Field(
        default=None,
        description="S: fewest slots between two packets of a flow, C/access or M/W_max when "
        "paced (000 App. B), dimensionless.",
    )
    congestion_control: str = Field(
        description="The congestion control the answer is sized for: the one given, or the "
        "candidate (Reno or CUBIC) whose size is recommended when none was given."
    )
    congestion_control_given: bool


class WhatIfOut(ResponseModel):
    input: str = Field(description="The input that would change the answer.")
    assumption: str
    rule: str
    buffer_packets: int | None = None
    buffer_s: float | None = None
    explanation: str


class CIOQOut(ResponseModel):
    emulates_output_queueing: bool
    output_buffer_packets: float
    voq_packets_per_input: float
    note: str
    input_buffer_packets: float


class RecommendResponse(ResponseModel):
    """The engine's answer (:class:`models.recommend.Recommendation`), field for field."""

    @classmethod
    def of(cls, rec: Recommendation) -> Self:
        return cls.model_validate(rec, from_attributes=True)

    inputs: DerivedInputsOut = Field(description="Quantities derived from the scenario.")
    rules: list[RuleOut] = Field(description="Every rule, with its assumptions checked.")
    regime: RegimeOut
    recommended: RecommendedOut
    feasible: bool = Field(description="Whether one size meets every target.")
    trade_off: TradeOffOut | None = Field(
        default=None, description="When no size meets every target: what each choice costs."
    )
    curves: CurvesOut = Field(description="Predicted performance against buffer size.")
    optical: OpticalDesignOut | None = Field(
        default=None, description="The optical delay-line FIFO, for an optical buffer."
    )
    warnings: list[str]
    software_versions: dict[str, str] = Field(
        description="Versions of bufsize and of the numerical libraries (numpy, scipy, numba) "
        "that produced this answer."
    )
    targets: list[TargetOut] = Field(
        description="The targets sized for, each with its value and source (default or user)."
    )
    what_if: list[WhatIfOut] = Field(
        description="How the answer changes if an assumption is confirmed or an input given."
    )
    cioq: CIOQOut | None = Field(
        default=None, description="Input and output buffers of an input-queued switch."
    )


class RecommendWithDeviceResponse(RecommendResponse):
    """The recommendation, and the snippet for its size when the request named a device."""

    @classmethod
    def for_device(cls, result: RecommendationForDevice) -> RecommendWithDeviceResponse:
        """The answer of :func:`app.services.recommend.recommend_for`."""
        answer = cls.model_validate(result.recommendation, from_attributes=True)
        answer.device_config = DeviceConfigOut.model_validate(config_answer(result.device_config))
        return answer

    device_config: DeviceConfigOut | None = Field(
        default=None,
        description="Only when the request gives device: the recommended size as that "
        "device's configuration, rounded up to its memory cell (the shape /v1/config returns).",
    )
