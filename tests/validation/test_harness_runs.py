"""The harness's run plan: the sequential stopping rule and the on-disk cache of runs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from validation.datasets import Row
from validation.harness.plan import Check, single
from validation.harness.run_cache import RunCache, task_key
from validation.harness.runner import MIN_REPLICATIONS, decided
from validation.simulator import Scenario
from validation.sweeps import Task, run_task


def _check(low: float, high: float, judge_on: str = "simulation") -> Check:
    row = Row("toy", "r", "utilization", math.nan, low, high, "000 §0", "a quote", {})
    return Check(row, {"run": (Scenario(), 10)}, single("run", "utilization"), judge_on=judge_on)


def test_a_row_stops_early_only_when_its_interval_is_wholly_inside_or_outside_the_range() -> None:
    # Three runs of 0.90, 0.91, 0.92: mean 0.91, 99% CI ± t(0.995, 2)·0.01/√3 = ± 0.0573.
    runs = [0.90, 0.91, 0.92]
    assert decided(_check(0.8, 1.0), runs)  # [0.853, 0.967] inside [0.8, 1.0]: agrees
    assert decided(_check(0.5, 0.8), runs)  # wholly above 0.8: disagrees
    assert decided(_check(0.97, 1.0), runs)  # wholly below 0.97: disagrees
    assert not decided(_check(0.9, 1.0), runs)  # straddles 0.9: one more replication
    assert not decided(_check(0.0, 0.86), runs)  # straddles 0.86
    # Fewer than the minimum never stops, whatever the interval.
    assert MIN_REPLICATIONS == 3
    assert not decided(_check(0.0, 1.0), runs[:2])
    # A row judged on its model stops at the minimum (its simulation is only shown).
    # A formula row that is simulated is judged on its simulation (the report's definition),
    # so it follows the same rule: straddling 0.9, it takes one more replication.
    assert not decided(_check(0.9, 1.0, judge_on="model"), runs)
    # Identical runs: a zero-width interval, decided by where the value lies.
    assert decided(_check(0.9, 1.0), [1.0, 1.0, 1.0])


TASK = Task(Scenario(capacity_bps=10e6, flows=4, rtt_s=0.05, duration_s=2.0, warmup_s=0.5), 8, 3)


def test_the_cache_returns_what_was_kept_and_misses_any_change(tmp_path: Path) -> None:
    cache = RunCache(tmp_path)
    assert cache.get(TASK) is None
    measures = run_task(TASK)
    cache.put(TASK, measures)
    assert RunCache(tmp_path).get(TASK) == measures
    # Another seed, buffer or scenario field is another run.
    for other in (
        Task(TASK.scenario, TASK.buffer_packets, TASK.seed + 1),
        Task(TASK.scenario, TASK.buffer_packets + 1, TASK.seed),
        Task(TASK.scenario.replace(rtt_s=0.06), TASK.buffer_packets, TASK.seed),
    ):
        assert task_key(other) != task_key(TASK)
        assert cache.get(other) is None
    found, missing = cache.split([TASK, Task(TASK.scenario, 9, 3)])
    assert list(found) == [TASK] and missing == [Task(TASK.scenario, 9, 3)]


def test_an_unreadable_cache_file_is_a_miss(tmp_path: Path) -> None:
    cache = RunCache(tmp_path)
    cache.put(TASK, run_task(TASK))
    (path,) = tmp_path.rglob("*.json")
    path.write_text("{not json")
    assert cache.get(TASK) is None


@pytest.mark.slow
def test_a_second_run_of_a_suite_reads_every_run_from_the_cache(tmp_path: Path) -> None:
    from validation.harness.runner import run_suite
    from validation.harness.verdict import follows_definition

    first = run_suite("quick", names=["auge_roberts"], workers=1, cache=RunCache(tmp_path))
    second = run_suite("quick", names=["auge_roberts"], workers=1, cache=RunCache(tmp_path))
    assert first.meta["runs_simulated"] > 0 and first.meta["runs_from_cache"] == 0
    assert second.meta["runs_simulated"] == 0
    assert second.meta["runs_from_cache"] == first.meta["runs_simulated"]
    assert [c.to_dict() for c in second.comparisons] == [c.to_dict() for c in first.comparisons]
    for item in first.comparisons:
        if item.replications:
            assert MIN_REPLICATIONS <= item.replications <= 4
    # Every row's verdict is the one the report's definition gives for its figures (the
    # single-flow rows are formula values that are also simulated: judged on the simulation).
    wrong = [(c.row, c.verdict, c.reason) for c in first.comparisons if not follows_definition(c)]
    assert not wrong, wrong
    assert any(c.model_name and c.replications for c in first.comparisons)
