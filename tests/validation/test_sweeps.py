"""Sweeps: the local process pool and a Dask cluster give identical results for the same seeds."""

from __future__ import annotations

import distributed
import pytest

from validation import sweeps
from validation.simulator import Scenario, replication_seeds
from validation.sweeps import IN_PROCESS, Task, run_task, run_tasks

# A small Fig. 3.1-like case (000 §3.4): 10 Mb/s, 8 flows, two buffers × two seeds.
SCENARIO = Scenario(capacity_bps=10e6, flows=8, rtt_s=0.05, duration_s=3.0, warmup_s=1.0)
TASKS = [
    Task(SCENARIO, buffer_packets, seed)
    for buffer_packets in (5, 40)
    for seed in replication_seeds(7, 2)
]


def test_local_pool_gives_each_task_its_own_result_in_order() -> None:
    done: list[int] = []
    results = run_tasks(TASKS, scheduler="", workers=2, progress=lambda d, t: done.append(d))
    assert done == [1, 2, 3, 4]
    assert [_measures(r) for r in results] == [_measures(run_task(task)) for task in TASKS]
    # A bigger buffer gives at least the utilization of a smaller one (same seeds).
    assert results[2]["utilization"] >= results[0]["utilization"] - 0.02


def test_in_process_runs_give_the_pools_results_each_reported_as_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[str] = []
    results = run_tasks(
        TASKS, workers=IN_PROCESS, progress=lambda d, t: events.append(f"reported {d}/{t}")
    )
    assert [_measures(r) for r in results] == [_measures(run_task(task)) for task in TASKS]
    # Each run reported before the next one starts (a trace job relays these as it goes).
    events.clear()

    def recorded(task: Task) -> dict[str, float]:
        events.append("run")
        return {"buffer_packets": float(task.buffer_packets)}

    monkeypatch.setattr(sweeps, "run_task", recorded)
    run_tasks(TASKS[:3], workers=IN_PROCESS, progress=lambda d, t: events.append(f"{d}/{t}"))
    assert events == ["run", "1/3", "run", "2/3", "run", "3/3"]


@pytest.mark.slow
def test_dask_cluster_gives_the_same_results_as_the_local_pool() -> None:
    local = run_tasks(TASKS, scheduler="", workers=2)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        remote = run_tasks(TASKS, scheduler=cluster.scheduler_address)
    assert [_measures(r) for r in local] == [_measures(r) for r in remote]


def _measures(result: dict[str, float]) -> dict[str, float]:
    """Everything but the wall and CPU time of the run."""
    return {k: v for k, v in result.items() if k not in ("wall_s", "cpu_s")}
