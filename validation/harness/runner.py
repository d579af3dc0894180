"""Run a suite: every dataset's checks -> simulator runs on a sweep pool -> comparisons."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.provenance import software_versions
from validation import datasets
from validation.harness import phi
from validation.harness.plan import SUITES, Check, Suite
from validation.harness.registry import BUILDERS
from validation.harness.verdict import Comparison, Verdict, fmt, judge
from validation.simulator import confidence_interval, replication_seeds
from validation.sweeps import Task, run_tasks

Progress = Callable[[int, int], None]

#: Measures shown beside a verdict, with their labels.
DIAGNOSTICS = {
    "utilization": "utilization",
    "loss_rate": "loss",
    "timeouts": "timeouts",
    "mean_queue_packets": "mean queue (packets)",
    "queue_delay_mean_s": "mean queueing delay (s)",
}


@dataclass
class Report:
    """A suite's comparisons and what produced them."""

    suite: str
    comparisons: list[Comparison]
    wall_s: float
    runs: int
    meta: dict[str, Any] = field(default_factory=dict)
    phi: dict[str, Any] | None = None

    def counts(self) -> dict[str, int]:
        """How many rows got each verdict."""
        out = {"agrees": 0, "disagrees": 0, "not reproducible here": 0}
        for item in self.comparisons:
            out[item.verdict] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict: the rows (dataset, row, paper, model, simulation, verdict, reason...)."""
        return {
            "suite": self.suite,
            "wall_s": self.wall_s,
            "runs": self.runs,
            "counts": self.counts(),
            "meta": self.meta,
            "rows": [item.to_dict() for item in self.comparisons],
            "phi": self.phi,
        }


def build_checks(suite: Suite, names: Sequence[str] | None = None) -> list[Check]:
    """Every check of the suite, dataset by dataset."""
    checks: list[Check] = []
    for name in names or datasets.names():
        if name not in BUILDERS:
            raise ValueError(f"no harness for dataset {name!r}; known: {', '.join(BUILDERS)}")
        checks.extend(BUILDERS[name](datasets.load(name), suite))
    return checks


def run_suite(
    suite_name: str,
    *,
    names: Sequence[str] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    with_phi: bool | None = None,
) -> Report:
    """Run the suite ``suite_name`` ("quick" or "full") and compare with the papers.

    Parameters
    ----------
    suite_name : str
    names : datasets to run (default: all).
    with_phi : also measure φ(i) and γ(ρ) by the Augé-Roberts method (:mod:`phi`); by
        default when every dataset runs.
    scheduler, workers : where the runs go (see :func:`validation.sweeps.executor`).
    progress : called with (runs done, runs in all).
    """
    if suite_name not in SUITES:
        raise ValueError(f"suite must be one of {', '.join(SUITES)}; got {suite_name!r}")
    suite = SUITES[suite_name]
    start = time.perf_counter()
    checks = build_checks(suite, names)
    tasks: list[Task] = []
    index: list[tuple[int, str, int]] = []  # (check, variant, replication) of each task
    for number, check in enumerate(checks):
        if check.not_reproducible or not check.variants:
            continue
        seeds = replication_seeds(check.seed, suite.replications)
        for variant, (scenario, buffer_packets) in check.variants.items():
            for rep, seed in enumerate(seeds):
                tasks.append(Task(scenario, buffer_packets, seed))
                index.append((number, variant, rep))
    study = phi.STUDIES[suite_name] if (names is None if with_phi is None else with_phi) else None
    phi_tasks = study.tasks() if study is not None else []
    unique = list(dict.fromkeys(tasks + [task for _, _, task in phi_tasks]))
    # Rows that share a seed key share their runs.
    measured = run_tasks(unique, scheduler=scheduler, workers=workers, progress=progress)
    by_task = dict(zip(unique, measured, strict=True))
    results = [by_task[task] for task in tasks]
    phi_summary = None
    if study is not None:
        phi_summary = phi.summarize(study, [(b, i, by_task[t]) for b, i, t in phi_tasks])
    per_check: dict[int, list[dict[str, dict[str, float]]]] = {}
    for (number, variant, rep), measures in zip(index, results, strict=True):
        reps = per_check.setdefault(number, [{} for _ in range(suite.replications)])
        reps[rep][variant] = measures
    comparisons = [compare(check, per_check.get(number)) for number, check in enumerate(checks)]
    return Report(
        suite=suite_name,
        comparisons=comparisons,
        wall_s=time.perf_counter() - start,
        runs=len(unique),
        meta={
            "replications": suite.replications,
            "full_scale": suite.full_scale,
            "versions": software_versions(),
        },
        phi=phi_summary,
    )


def compare(check: Check, runs: list[dict[str, dict[str, float]]] | None) -> Comparison:
    """The comparison of one check, given its runs (None when it was not simulated)."""
    row = check.row
    value, half_width, reps = math.nan, math.nan, 0
    diagnostics: dict[str, float] = {}
    shown: list[str] = []
    if runs is not None and check.measure is not None:
        values = [check.measure(rep) for rep in runs]
        estimate = confidence_interval(values)
        value, half_width, reps = estimate.mean, estimate.ci99_half_width, len(values)
        for variant in check.variants:
            prefix = "" if len(check.variants) == 1 else f"{variant} "
            for name, label in DIAGNOSTICS.items():
                mean = float(np.mean([rep[variant][name] for rep in runs]))
                diagnostics[prefix + name] = mean
                shown.append(f"{prefix}{label} {fmt(mean)}")
    measured = ", ".join(shown)
    explanation = " ".join(
        part for part in (f"Measured: {measured}." if measured else "", check.note) if part
    )
    verdict: Verdict
    if check.not_reproducible:
        verdict, reason = "not reproducible here", check.not_reproducible
        if math.isfinite(check.model):
            reason = f"{reason} ({judge(row, check.model, math.nan, what='the model')[1]})"
    elif check.judge_on == "model":
        verdict, reason = judge(row, check.model, math.nan, what=check.model_name or "model")
        if math.isfinite(value):
            reason = f"{reason} Simulation shown for reference. {explanation}".strip()
    else:
        verdict, reason = judge(row, value, half_width, what="simulation", explanation=explanation)
    return Comparison(
        dataset=row.dataset,
        row=row.row,
        quantity=row.quantity,
        paper=row.paper,
        low=row.low,
        high=row.high,
        model=check.model,
        model_name=check.model_name,
        simulation=value,
        simulation_ci99=half_width,
        replications=reps,
        verdict=verdict,
        reason=reason,
        note=check.note,
        source=row.source,
        quote=row.quote,
        diagnostics=diagnostics,
    )
