"""What the recommendation engine returns: frozen dataclasses that serialise with ``to_dict``."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from models.cioq import CIOQAdvice
from models.optical import OpticalFifoDesign

Status = Literal["holds", "fails", "unknown"]
Source = Literal["default", "user"]


def plain(value: Any) -> Any:
    """Turn dataclasses, tuples, NumPy arrays and scalars into JSON-ready Python values.

    Non-finite floats become ``None`` (JSON has no infinity). Plain numbers and strings, by
    far the most common values (the curves hold hundreds), are tested for first.
    """
    if isinstance(value, float):  # also numpy.float64, a float subclass
        return float(value) if math.isfinite(value) else None
    if value is None or isinstance(value, str | int):  # bool is an int
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return plain(value.item())
    return value


class _Serialisable:
    def to_dict(self) -> dict[str, Any]:
        """The result as plain dicts, lists, numbers and strings (JSON-ready)."""
        out = plain(self)
        assert isinstance(out, dict)
        return out


@dataclass(frozen=True)
class Assumption(_Serialisable):
    """One condition a rule rests on, checked against the scenario."""

    text: str
    status: Status
    reason: str


@dataclass(frozen=True)
class Prediction(_Serialisable):
    """The engine's predicted performance of the port at one buffer size.

    ``utilization`` is a fraction of the capacity; ``normalized_utilization`` is a fraction of
    the most the traffic can carry (what :class:`Targets.min_utilization` is compared with);
    ``queueing_delay_s`` is the largest queueing delay, a full buffer at line rate (004 eq. 24).
    ``loss_probability`` and ``meets_loss`` are ``None`` when the inputs do not decide the loss
    (long-lived flows whose number N_b at this port is not given). ``utilization``,
    ``normalized_utilization`` and ``meets_utilization`` are ``None`` where no model here
    predicts the utilization (BBR senders below the smallest buffer their simulated figures
    were measured at; DCTCP senders behind DualQ's L4S step on a wide-area link).
    """

    buffer_packets: float
    utilization: float | None
    normalized_utilization: float | None
    loss_probability: float | None
    queueing_delay_s: float
    meets_utilization: bool | None
    meets_loss: bool | None
    meets_delay: bool


@dataclass(frozen=True)
class Target(_Serialisable):
    """One target the engine sized for, its value and whether the user gave it."""

    name: str
    value: float
    source: Source


@dataclass(frozen=True)
class TargetCheck(_Serialisable):
    """Whether a size meets one target (``met`` None: the inputs do not decide it)."""

    name: str
    source: Source
    met: bool | None


@dataclass(frozen=True)
class RuleResult(_Serialisable):
    """One sizing rule from the literature applied to the scenario.

    ``buffer_packets`` is rounded up to whole packets; ``buffer_packets_exact`` is the formula's
    value. They are ``None`` when the scenario lacks an input the rule needs (``note`` says which).
    ``status`` is ``"fails"`` if any assumption fails, else ``"unknown"`` if any is unknown.
    """

    rule: str
    name: str
    equation: str
    reference: str
    buffer_packets: int | None
    buffer_packets_exact: float | None
    buffer_bytes: float | None
    buffer_s: float | None
    assumptions: tuple[Assumption, ...]
    status: Status
    predicted: Prediction | None
    note: str | None = None
    targets_met: tuple[TargetCheck, ...] = ()


@dataclass(frozen=True)
class RegimeInfo(_Serialisable):
    """The traffic regime of the port (002 §III.C, 003 §3.3) and the model the engine used."""

    regime: str
    reason: str
    sizing_rule: str
    warning: str | None
    source: str
    traffic_model: str
    deciding_inputs: tuple[str, ...] = ()
    saturation_probability: float | None = None


@dataclass(frozen=True)
class RecommendedSize(_Serialisable):
    """The one size the engine recommends, the rule that governs it and why."""

    rule: str
    buffer_packets: int
    buffer_bytes: float
    buffer_s: float
    reason: str
    predicted: Prediction
    minimum_meeting_targets_packets: int | None
    targets_met: tuple[TargetCheck, ...]


@dataclass(frozen=True)
class TradeOff(_Serialisable):
    """Targets that no single buffer size meets, and what each choice costs (004 §V)."""

    conflict: str
    explanation: str
    alternatives: tuple[Prediction, ...]
    max_queueing_delay_s: float | None = None
    min_feasible_delay_s: float | None = None


@dataclass(frozen=True)
class Curves(_Serialisable):
    """Predicted utilization, loss and delay against buffer size (log-spaced), for plotting
    (``None`` where not predicted, as in :class:`Prediction`)."""

    buffer_packets: tuple[float, ...]
    utilization: tuple[float | None, ...]
    normalized_utilization: tuple[float | None, ...]
    loss_probability: tuple[float | None, ...]
    queueing_delay_s: tuple[float, ...]


@dataclass(frozen=True)
class DerivedInputs(_Serialisable):
    """Quantities the engine derived from the scenario (echoed so results can be checked)."""

    effective_rtt_s: float
    bdp_packets: float
    packet_time_s: float
    md_beta: float
    window_limited_load: float | None
    bottlenecked_flows_used: int
    bottlenecked_flows_given: bool
    bottlenecked_share: float
    loss_sync_q: float
    peak_rate_fraction: float | None
    slowdown: float | None
    #: The congestion control the answer is sized for: the one given, or, when none was
    #: given, the candidate whose size is recommended (``congestion_control_given`` False).
    congestion_control: str = "reno"
    congestion_control_given: bool = True


@dataclass(frozen=True)
class WhatIf(_Serialisable):
    """How the answer changes if the user confirms an assumption or gives a missing input."""

    input: str
    assumption: str
    rule: str
    buffer_packets: int | None
    buffer_s: float | None
    explanation: str


@dataclass(frozen=True)
class Recommendation(_Serialisable):
    """Everything the engine found for one scenario and set of targets."""

    inputs: DerivedInputs
    rules: tuple[RuleResult, ...]
    regime: RegimeInfo
    recommended: RecommendedSize
    feasible: bool
    trade_off: TradeOff | None
    curves: Curves
    optical: OpticalFifoDesign | None
    warnings: tuple[str, ...]
    software_versions: dict[str, str]
    targets: tuple[Target, ...]
    what_if: tuple[WhatIf, ...]
    cioq: CIOQAdvice | None
