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
from validation.harness.run_cache import RunCache
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


#: Fewest replications of a row before the stopping rule may end it. With two runs the 99%
#: Student-t interval is ±63.7 standard errors, too wide to decide anything.
MIN_REPLICATIONS = 3


def decided(check: Check, values: Sequence[float]) -> bool:
    """Whether a row's verdict is settled by the replications run so far (the stopping rule).

    Sequential stopping: after ``n`` ≥ :data:`MIN_REPLICATIONS` replications, a row judged on
    the simulation stops when the 99% confidence interval of its mean lies wholly inside the
    paper's range (it agrees, and a narrower interval would still agree unless the mean moved
    by more than the interval's half-width) or wholly outside it (it disagrees likewise). An
    interval that straddles an end of the range gets another replication, up to the suite's
    ``replications``; the verdict is then given by the usual rule (:func:`judge`) on every run.
    A row whose paper value is a formula is judged on its simulation like any other when it is
    simulated (the report's definition), so it follows the same rule.
    """
    if len(values) < MIN_REPLICATIONS:
        return False
    estimate = confidence_interval(values)
    low, high = estimate.mean - estimate.ci99_half_width, estimate.mean + estimate.ci99_half_width
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    row = check.row
    return (row.low <= low and high <= row.high) or high < row.low or low > row.high


def run_suite(
    suite_name: str,
    *,
    names: Sequence[str] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    with_phi: bool | None = None,
    cache: RunCache | None = None,
) -> Report:
    """Run the suite ``suite_name`` ("quick" or "full") and compare with the papers.

    Every row gets :data:`MIN_REPLICATIONS` replications, then one more at a time while
    :func:`decided` says its verdict is not settled, up to the suite's ``replications``. Runs
    are identified by scenario, buffer and seed: rows that share a run share its result, and
    with ``cache`` a run kept by an earlier invocation is read back instead of simulated.

    Parameters
    ----------
    suite_name : str
    names : datasets to run (default: all).
    with_phi : also measure φ(i) and γ(ρ) by the Augé-Roberts method (:mod:`phi`); by
        default when every dataset runs.
    scheduler, workers : where the runs go (see :func:`validation.sweeps.executor`).
    progress : called with (runs done, most runs in all).
    cache : runs kept on disk (:class:`RunCache`); None simulates every run.
    """
    if suite_name not in SUITES:
        raise ValueError(f"suite must be one of {', '.join(SUITES)}; got {suite_name!r}")
    suite = SUITES[suite_name]
    start = time.perf_counter()
    checks = build_checks(suite, names)
    study = phi.STUDIES[suite_name] if (names is None if with_phi is None else with_phi) else None
    phi_tasks = study.tasks() if study is not None else []
    simulated = {
        number: replication_seeds(check.seed, suite.replications)
        for number, check in enumerate(checks)
        if not check.not_reproducible and check.variants
    }
    # Replications each row has had, and the most it can have: its measured upper bound.
    done = dict.fromkeys(simulated, 0)
    wanted = {number: min(MIN_REPLICATIONS, len(seeds)) for number, seeds in simulated.items()}
    by_task: dict[Task, dict[str, float]] = {}
    most = len(
        {
            Task(scenario, buffer_packets, seed)
            for number, seeds in simulated.items()
            for scenario, buffer_packets in checks[number].variants.values()
            for seed in seeds
        }
        | {task for _, _, task in phi_tasks}
    )
    count = {"done": 0, "simulated": 0}
    cpu_s = 0.0
    extra: list[Task] = [task for _, _, task in phi_tasks]
    while True:
        todo: list[Task] = []
        for number, seeds in simulated.items():
            for seed in seeds[done[number] : wanted[number]]:
                todo.extend(
                    Task(scenario, buffer_packets, seed)
                    for scenario, buffer_packets in checks[number].variants.values()
                )
        todo = [task for task in dict.fromkeys(todo + extra) if task not in by_task]
        extra = []
        if not todo:
            break
        found, missing = cache.split(todo) if cache is not None else ({}, todo)
        by_task.update(found)
        count["done"] += len(found)
        if progress is not None and found:
            progress(count["done"], most)
        base = count["done"]

        def relay(finished: int, _total: int, base: int = base) -> None:
            if progress is not None:
                progress(base + finished, most)

        measured = run_tasks(
            missing,
            scheduler=scheduler,
            workers=workers,
            progress=relay,
            on_result=cache.put if cache is not None else None,
        )
        by_task.update(zip(missing, measured, strict=True))
        cpu_s += sum(measures.get("cpu_s", 0.0) for measures in measured)
        count["done"] += len(missing)
        count["simulated"] += len(missing)
        for number in simulated:
            done[number] = wanted[number]
            runs = _runs(checks[number], simulated[number][: done[number]], by_task)
            measure = checks[number].measure
            if measure is None or decided(checks[number], [measure(r) for r in runs]):
                continue
            wanted[number] = min(done[number] + 1, suite.replications)
    phi_summary = None
    if study is not None:
        phi_summary = phi.summarize(study, [(b, i, by_task[t]) for b, i, t in phi_tasks])
    versions = software_versions()
    comparisons = [
        compare(
            check,
            _runs(check, simulated[number][: done[number]], by_task),
            seeds=simulated[number][: done[number]],
            versions=versions,
        )
        if number in simulated
        else compare(check, None, versions=versions)
        for number, check in enumerate(checks)
    ]
    return Report(
        suite=suite_name,
        comparisons=comparisons,
        wall_s=time.perf_counter() - start,
        runs=len(by_task),
        meta={
            "replications": suite.replications,
            "min_replications": MIN_REPLICATIONS,
            "stopping_rule": STOPPING_RULE,
            "runs_simulated": count["simulated"],
            "simulated_cpu_s": cpu_s,
            "runs_from_cache": len(by_task) - count["simulated"],
            "runs_at_most": most,
            "full_scale": suite.full_scale,
            "versions": versions,
        },
        phi=phi_summary,
    )


#: The stopping rule in words, for the report.
STOPPING_RULE = (
    f"each row gets {MIN_REPLICATIONS} replications, then one more at a time while the 99% "
    "confidence interval of its mean straddles an end of the paper's range, up to the suite's "
    "replications"
)


def _runs(
    check: Check, seeds: Sequence[int], by_task: dict[Task, dict[str, float]]
) -> list[dict[str, dict[str, float]]]:
    """One replication's measures per seed, by variant."""
    return [
        {
            variant: by_task[Task(scenario, buffer_packets, seed)]
            for variant, (scenario, buffer_packets) in check.variants.items()
        }
        for seed in seeds
    ]


def compare(
    check: Check,
    runs: list[dict[str, dict[str, float]]] | None,
    *,
    seeds: Sequence[int] = (),
    versions: dict[str, str] | None = None,
) -> Comparison:
    """The comparison of one check, given its runs (None when it was not simulated).

    ``seeds`` are the replications' seeds and ``versions`` the software that ran them; both
    are carried into the comparison with every variant's scenario, for the report.
    """
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
    elif check.judge_on == "model" and not math.isfinite(value):
        # A formula value with nothing simulated: the model is all there is to judge.
        verdict, reason = judge(row, check.model, math.nan, what=check.model_name or "model")
    elif check.judge_on == "model":
        # Simulated too: the report's definition judges the simulation; the model's own
        # verdict is said beside it.
        verdict, reason = judge(row, value, half_width, what="simulation", explanation=explanation)
        model_says = judge(row, check.model, math.nan, what=check.model_name or "model")[1]
        reason = f"{reason} The model alone: {model_says}"
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
        seeds=[int(seed) for seed in seeds] if runs is not None else [],
        scenarios={
            variant: {"buffer_packets": buffer_packets, **scenario.to_dict()}
            for variant, (scenario, buffer_packets) in check.variants.items()
        }
        if runs is not None
        else {},
        versions=dict(versions or {}),
    )
