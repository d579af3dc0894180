"""Sweeps: many simulator runs (buffer sizes × scenarios × replications) on a pool of workers.

The runs go to a local process pool by default, or to a Dask cluster when
``BUFSIZE_DASK_SCHEDULER`` (or the ``scheduler`` argument) names a scheduler. Both are used
through the same :class:`concurrent.futures.Executor` interface (Dask's
``Client.get_executor()``), so the code path is the same and, each run being deterministic
for its seed, so are the results.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from validation.lifeline import die_with_service
from validation.simulator import Scenario, simulate
from validation.socket_dir import forkserver_context

#: Measures of a run that a sweep returns (floats; see validation.simulator.RunResult).
MEASURES = (
    "utilization",
    "goodput_bps",
    "loss_rate",
    "queue_delay_mean_s",
    "queue_delay_p99_s",
    "mean_queue_packets",
    "timeouts",
    "jain_index",
    "bottleneck_packets",
)
#: The environment variable naming a Dask scheduler ("tcp://host:8786").
SCHEDULER_ENV = "BUFSIZE_DASK_SCHEDULER"

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Task:
    """One simulator run: a scenario, a buffer size and a seed."""

    scenario: Scenario
    buffer_packets: int
    seed: int


def run_task(task: Task) -> dict[str, float]:
    """Simulate one task and return its :data:`MEASURES` (what a worker runs).

    Beside the measures: ``capacity_bps``, ``wall_s`` (the run's wall time) and ``cpu_s``
    (the worker's CPU time for it, which other load on the machine does not inflate).
    """
    cpu_start_s = time.process_time()
    result = simulate(task.scenario, task.buffer_packets, task.seed)
    out = {name: float(getattr(result, name)) for name in MEASURES}
    out["capacity_bps"] = float(task.scenario.capacity_bps)
    out["wall_s"] = float(result.wall_s)
    out["cpu_s"] = time.process_time() - cpu_start_s
    return out


#: ``workers`` for runs one after another in the calling process (no worker process): a trace
#: job's check, whose process is its one slot of the service's workers and its memory limit.
IN_PROCESS = 0


class InProcessExecutor(Executor):
    """Runs each submitted call at once, in this process; its future is already done."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # the caller sees it from future.result(), as from a pool
            future.set_exception(exc)
        return future


def default_workers() -> int:
    """Local worker processes: the CPUs this process may use."""
    return max(len(os.sched_getaffinity(0)), 1)


@contextmanager
def executor(scheduler: str | None = None, workers: int | None = None) -> Iterator[Executor]:
    """An executor for sweeps: Dask when a scheduler is named, else local processes.

    Parameters
    ----------
    scheduler : str, optional
        Address of a Dask scheduler; ``None`` reads ``BUFSIZE_DASK_SCHEDULER``; "" forces the
        local pool.
    workers : int, optional
        Local worker processes (default: the CPUs available); :data:`IN_PROCESS` (0) runs them
        in this process, one after another, whatever the scheduler.
    """
    if workers == IN_PROCESS:
        yield InProcessExecutor()
        return
    address = os.environ.get(SCHEDULER_ENV, "") if scheduler is None else scheduler
    if address:
        from distributed import Client

        client = Client(address, set_as_default=False)
        try:
            yield client.get_executor()
        finally:
            client.close()
        return
    context = forkserver_context()
    # The fork server compiles (or loads) the simulator's core once; the workers inherit it.
    context.set_forkserver_preload(["validation.sweeps", "validation.warm_core"])
    # Each worker dies with this process (kill -9 included): no sweep computes for nobody.
    pool = ProcessPoolExecutor(
        max_workers=workers or default_workers(),
        mp_context=context,
        initializer=die_with_service,
        initargs=(os.getpid(),),
    )
    with _LIVE_LOCK:
        _LIVE.add(pool)
    try:
        yield pool
    except BaseException:
        _stop(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(pool)


#: The local sweep pools running in this process (for :func:`stop_all`).
_LIVE: set[ProcessPoolExecutor] = set()
_LIVE_LOCK = threading.Lock()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: queued runs dropped, running ones killed (a run is not interruptible;
    ``ProcessPoolExecutor`` has no public way to stop its workers before Python 3.14)."""
    pool.shutdown(wait=False, cancel_futures=True)
    # None once the pool is broken (a worker or the fork server failed to start)
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()


def stop_all() -> int:
    """Stop every local sweep pool of this process (a service shutting down); returns how many.

    The sweeps' callers see their runs fail (``BrokenProcessPool``) and return.
    """
    with _LIVE_LOCK:
        pools = list(_LIVE)
    for pool in pools:
        _stop(pool)
    return len(pools)


def run_tasks(
    tasks: Sequence[Task],
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    on_result: Callable[[Task, dict[str, float]], None] | None = None,
    pool: Executor | None = None,
) -> list[dict[str, float]]:
    """Run every task and return their measures in the order of ``tasks``.

    Parameters
    ----------
    tasks : sequence of Task
    scheduler, workers : see :func:`executor`.
    progress : callable, optional
        Called with (runs done, runs in all) after each run.
    on_result : callable, optional
        Called with each task and its measures as soon as it is done (to keep them).
    pool : Executor, optional
        An executor already open (from :func:`executor`), kept for many calls; by default one
        is opened for this call and closed after it.
    """
    results: list[dict[str, float] | None] = [None] * len(tasks)
    if not tasks:
        return []
    # Longest runs first, so that the pool does not wait on one long run at the end.
    order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]))
    with ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(executor(scheduler, workers))
        finished: Iterator[tuple[int, dict[str, float]]]
        if isinstance(pool, InProcessExecutor):
            # One run after another, each reported as it ends (a submission would run them all
            # before the first report).
            finished = ((i, run_task(tasks[i])) for i in order)
        else:
            futures: dict[Future[dict[str, float]], int] = {
                pool.submit(run_task, tasks[i]): i for i in order
            }
            finished = ((futures[f], f.result()) for f in as_completed(futures))
        for done, (i, result) in enumerate(finished, start=1):
            results[i] = result
            if on_result is not None:
                on_result(tasks[i], result)
            if progress is not None:
                progress(done, len(tasks))
    return [r for r in results if r is not None]


def _cost(task: Task) -> float:
    scenario = task.scenario
    return scenario.capacity_bps * scenario.duration_s / (8.0 * scenario.wire_bytes)
