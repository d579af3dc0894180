"""Paper, model and simulation side by side: :class:`Comparison` and the verdict rule."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from validation.datasets import Row

Verdict = Literal["agrees", "disagrees", "not reproducible here"]


@dataclass
class Comparison:
    """One row of the report.

    Attributes
    ----------
    dataset, row, quantity, source, quote : from the dataset row.
    paper, low, high : the paper's value and the range it allows (NaN paper: no number stated).
    model : the model's prediction (NaN: none applies); model_name says which model.
    simulation : mean over replications (NaN: not simulated); simulation_ci99 the half-width
        of its 99% confidence interval; replications the number of runs.
    verdict : agrees / disagrees / not reproducible here.
    reason : why, with the measured figures.
    note : scaling or reading the reader must know.
    diagnostics : other measures of the simulated runs (means), for explaining a verdict.
    seeds : the seed of each replication (empty: not simulated).
    scenarios : per simulated variant, its buffer and every scenario parameter
        (``validation.simulator.Scenario.to_dict``).
    versions : bufsize and the numerical packages that produced the runs.
    """

    dataset: str
    row: str
    quantity: str
    paper: float
    low: float
    high: float
    model: float
    model_name: str
    simulation: float
    simulation_ci99: float
    replications: int
    verdict: Verdict
    reason: str
    note: str
    source: str
    quote: str
    diagnostics: dict[str, float]
    seeds: list[int] = field(default_factory=list)
    scenarios: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (NaN -> None)."""
        out = asdict(self)
        return {k: _clean(v) for k, v in out.items()}


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def fmt(value: float) -> str:
    """A number to four significant digits (``-`` for NaN)."""
    return "-" if not math.isfinite(value) else f"{value:.4g}"


def within(value: float, half_width: float, low: float, high: float) -> bool:
    """True when ``value ± half_width`` meets the range ``[low, high]``."""
    h = 0.0 if not math.isfinite(half_width) else half_width
    return value + h >= low and value - h <= high


def judge(
    row: Row,
    value: float,
    half_width: float,
    *,
    what: str,
    explanation: str = "",
) -> tuple[Verdict, str]:
    """The verdict on ``value`` (simulated or modelled) against the row's range.

    ``value`` agrees when its 99% confidence interval meets the paper's range; otherwise it
    disagrees, and the reason says by how much and in which direction, followed by
    ``explanation`` (the measured figures and known differences that account for it).
    """
    band = f"[{fmt(row.low)}, {fmt(row.high)}]"
    ci = "" if not math.isfinite(half_width) else f" ± {fmt(half_width)} (99% CI)"
    if not math.isfinite(value):
        return "not reproducible here", f"the {what} gave no value. {explanation}".strip()
    if within(value, half_width, row.low, row.high):
        return "agrees", f"{what} {fmt(value)}{ci} is within the paper's range {band}."
    side = "above" if value > row.high else "below"
    gap = value - row.high if value > row.high else row.low - value
    reason = f"{what} {fmt(value)}{ci} is {side} the paper's range {band} by {fmt(gap)}."
    return "disagrees", f"{reason} {explanation}".strip()


#: The definition the report prints above its table.
DEFINITION = (
    "a row agrees when the simulation's 99% confidence interval meets the range the paper's "
    "statement allows; a row with no simulation (a formula the paper prints) is judged on its "
    "model's value; a row with neither is not reproducible here"
)


def follows_definition(comparison: Comparison) -> bool:
    """Whether a row's verdict is the one :data:`DEFINITION` gives for its figures."""
    if comparison.verdict == "not reproducible here":
        return True  # a reason of its own (a scaling refused, a quantity not measured)
    if math.isfinite(comparison.simulation):
        value, half = comparison.simulation, comparison.simulation_ci99
    elif math.isfinite(comparison.model):
        value, half = comparison.model, math.nan
    else:
        return False
    meets = within(value, half, comparison.low, comparison.high)
    return comparison.verdict == ("agrees" if meets else "disagrees")
