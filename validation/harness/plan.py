"""What the harness runs for one dataset row: :class:`Check`, and the suites' run lengths."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from validation.datasets import Row
from validation.simulator import Scenario

#: One replication's measures, by variant name (see :data:`validation.sweeps.MEASURES`).
Measures = Mapping[str, Mapping[str, float]]
#: Turns one replication's measures of every variant into the row's quantity.
Measure = Callable[[Measures], float]


@dataclass(frozen=True)
class Suite:
    """How long and how often the rows of a suite are simulated.

    Attributes
    ----------
    name : "quick" or "full".
    replications : independent runs of each scenario.
    duration_s, warmup_s : simulated time and warm-up of a run whose dataset does not say.
    full_scale : run the papers' capacities and flow counts (False: the scaled-down scenarios
        the provenance file describes, and only the rows that are cheap at that scale).
    """

    name: str
    replications: int
    duration_s: float
    warmup_s: float
    full_scale: bool


SUITES: dict[str, Suite] = {
    "quick": Suite("quick", replications=4, duration_s=30.0, warmup_s=8.0, full_scale=False),
    "full": Suite("full", replications=4, duration_s=60.0, warmup_s=15.0, full_scale=True),
}


@dataclass
class Check:
    """A dataset row turned into simulator scenarios and the measure it is judged on.

    Attributes
    ----------
    row : the dataset row.
    variants : scenario and buffer of each simulated variant, by name (a ratio of two
        variants is measured on runs with the same seeds).
    measure : one replication's measures -> the row's quantity.
    model : what a model of ``models`` predicts for the row (NaN: no model applies).
    model_name : the model's name and citation.
    judge_on : "simulation", or "model" for rows that are formula values, not measurements.
    not_reproducible : why the row cannot be simulated here (None: it can).
    note : scaling or reading that the reader of the report must know.
    seed_key : rows with the same seed key (in one dataset) and the same variant share runs.
    """

    row: Row
    variants: dict[str, tuple[Scenario, int]] = field(default_factory=dict)
    measure: Measure | None = None
    model: float = math.nan
    model_name: str = ""
    judge_on: str = "simulation"
    not_reproducible: str | None = None
    note: str = ""
    seed_key: str = ""

    @property
    def seed(self) -> int:
        """Seed of the row's replications: a stable hash of dataset and row names."""
        return zlib.crc32(f"{self.row.dataset}/{self.seed_key or self.row.row}".encode())


def single(variant: str, name: str) -> Measure:
    """The measure ``name`` of one variant."""

    def measure(runs: Measures) -> float:
        return float(runs[variant][name])

    return measure


def scaled(variant: str, name: str, factor: float) -> Measure:
    """The measure ``name`` of one variant times ``factor``."""

    def measure(runs: Measures) -> float:
        return float(runs[variant][name]) * factor

    return measure


def ratio(numerator: str, denominator: str, name: str) -> Measure:
    """``name`` of one variant over ``name`` of another, on runs with the same seed."""

    def measure(runs: Measures) -> float:
        return float(runs[numerator][name]) / float(runs[denominator][name])

    return measure


def difference(first: str, second: str, name: str) -> Measure:
    """``name`` of ``first`` minus ``name`` of ``second``, on runs with the same seed."""

    def measure(runs: Measures) -> float:
        return float(runs[first][name]) - float(runs[second][name])

    return measure
