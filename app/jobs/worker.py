"""What runs in a worker (a local process or a Dask task): one attempt at one job.

:func:`execute_job` reads the job from the store, runs every buffer size whose result is not
stored yet (so an interrupted job resumes where it stopped, and runs another job already did are
reused), saves each result as soon as it is computed, and records the final status. Progress is
written to the store at each report of the runner; the same write tells the worker to stop when
the job was cancelled or is no longer its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from app.jobs.store import JobCancelled, JobStore, JobSuperseded
from app.jobs.tables import JobStatus

logger = logging.getLogger(__name__)

Progress = Callable[[float], None]


class Runner(Protocol):
    """Runs the replications of one buffer size; returns a JSON-able dict of the results.

    ``progress(fraction_done)`` must be called every second or so; when it raises, the run must
    stop and let the exception propagate (that is how a job is cancelled). A runner is sent to
    worker processes by reference, so it must be a module-level function.
    """

    def __call__(
        self,
        scenario: dict[str, Any],
        buffer_packets: int,
        replications: int,
        seed: int,
        progress: Progress,
    ) -> dict[str, Any]: ...


_stores: dict[str, JobStore] = {}


def _store(database_url: str) -> JobStore:
    # One engine per database and process, reused by the jobs that process runs.
    store = _stores.get(database_url)
    if store is None:
        store = _stores[database_url] = JobStore(database_url)
    return store


def execute_job(job_id: str, attempt: int, database_url: str, runner: Runner) -> str:
    """Run attempt ``attempt`` of job ``job_id``; return the status it ended in.

    ``"superseded"`` means the job was no longer this attempt's (the service shut down or
    restarted meanwhile) and nothing was recorded.
    """
    store = _store(database_url)
    job = store.get(job_id)
    if job is None:
        return "missing"
    spec = job.spec
    total = len(spec.buffer_packets)
    try:
        store.report_progress(job_id, attempt, job.progress)
        stored = store.results(spec)
        reused = len(stored)
        done = reused
        for buffer_packets in spec.buffer_packets:
            if buffer_packets in stored:
                continue

            def progress(fraction: float, done_before: int = done) -> None:
                fraction = min(max(float(fraction), 0.0), 1.0)
                store.report_progress(job_id, attempt, (done_before + fraction) / total)

            result = runner(spec.scenario, buffer_packets, spec.replications, spec.seed, progress)
            store.save_result(spec.run_key(buffer_packets), buffer_packets, result)
            done += 1
            store.report_progress(job_id, attempt, done / total)
    except JobCancelled:
        store.finish(job_id, attempt, JobStatus.CANCELLED, "cancelled while running")
        return JobStatus.CANCELLED.value
    except JobSuperseded:
        return "superseded"
    except Exception as exc:
        stopped = _stopped_while_failing(store, job_id, attempt)
        if stopped is not None:
            return stopped
        logger.exception("simulation job %s failed", job_id)
        store.finish(job_id, attempt, JobStatus.FAILED, f"{type(exc).__name__}: {exc}")
        return JobStatus.FAILED.value
    message = f"{total} buffer size(s) simulated"
    if reused:
        message += f", {reused} of them reused from stored results"
    if job.restarts:
        message += f"; resumed after {job.restarts} restart(s)"
    store.finish(job_id, attempt, JobStatus.SUCCEEDED, message)
    return JobStatus.SUCCEEDED.value


def _stopped_while_failing(store: JobStore, job_id: str, attempt: int) -> str | None:
    """If a runner wrapped our stop signal in another exception, honour the stop anyway."""
    try:
        store.check_attempt(job_id, attempt)
    except JobCancelled:
        store.finish(job_id, attempt, JobStatus.CANCELLED, "cancelled while running")
        return JobStatus.CANCELLED.value
    except JobSuperseded:
        return "superseded"
    return None
