"""What runs in a worker (a local process or a Dask task): one attempt at one job.

:func:`execute_job` reads the job from the store, runs every buffer size whose result is not
stored yet (so an interrupted job resumes where it stopped, and runs another job already did are
reused), saves each result as soon as it is computed, and records the final status. Progress is
written to the store at each report of the runner; the same write tells the worker to stop when
the job was cancelled or is no longer its own.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
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


#: How often a worker process checks that the service that started it is still running, s.
SERVICE_CHECK_PERIOD_S = 0.5
#: ``prctl`` option that has the kernel signal a process when its parent exits (Linux).
PR_SET_PDEATHSIG = 1


def die_with_service(service_pid: int) -> None:
    """Initializer of a worker process: the worker is killed as soon as the service is gone.

    The worker's parent is the pool's forkserver, not the service, and the forkserver outlives
    the service as long as a worker runs; and while the compiled simulator runs, the worker's
    own threads do not get to run. So the worker forks a small sentinel process that checks every
    ``SERVICE_CHECK_PERIOD_S`` that the service still exists, and kills the worker when it does
    not: a job must never be computed by a worker that no service owns while a restarted service
    computes it again. The sentinel holds no file of the worker's and dies with it (on Linux the
    kernel kills it when the worker exits, ``PR_SET_PDEATHSIG``; elsewhere it notices in one
    period).
    """
    worker_pid = os.getpid()
    started = _start_time(service_pid)
    if os.fork() != 0:
        return
    try:  # the sentinel
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        if sys.platform == "linux":
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        while os.getppid() == worker_pid and _running(service_pid, started):
            time.sleep(SERVICE_CHECK_PERIOD_S)
        if os.getppid() == worker_pid:
            os.kill(worker_pid, signal.SIGKILL)
    finally:
        os._exit(0)


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _running(pid: int, started: str | None) -> bool:
    """Whether ``pid`` exists, is no zombie, and is the process that started at ``started``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return started is None and sys.platform != "linux"
    except OSError:
        return True
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0] not in ("Z", "X") and (started is None or fields[19] == started)


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
