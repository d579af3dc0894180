"""Trace jobs: an uploaded trace read in the background, with progress, results kept in memory.

Reading a trace is one pass over a file already on this machine, so a trace job runs in a
thread of this process (one at a time) rather than in the simulation job pool; its status,
progress and result live in memory until the service restarts, and the uploaded file is
deleted when the job ends. At most ``max_pending_jobs`` trace jobs wait or run at once.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app.services.trace import TraceOptions, run_trace, summary

#: The states of a trace job, in order.
TraceStatus = Literal["queued", "running", "succeeded", "failed"]


@dataclass
class TraceJob:
    """One uploaded trace: what to do with it, and how far it got."""

    id: str
    path: Path
    options: TraceOptions
    status: TraceStatus = "queued"
    progress: float = 0.0
    message: str = ""
    result: dict[str, Any] | None = None
    created_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    finished_at: dt.datetime | None = None


class TracePending(Exception):
    """Too many trace jobs waiting or running."""


class TraceJobs:
    """The trace jobs of this process and the thread that runs them."""

    def __init__(self, max_pending: int, workers: int | None = None) -> None:
        self.max_pending = max_pending
        #: Worker processes of a check's simulator runs (the service's BUFSIZE_WORKERS).
        self.workers = workers
        self.jobs: dict[str, TraceJob] = {}
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trace")

    def submit(self, path: Path, options: TraceOptions) -> TraceJob:
        with self._lock:
            pending = sum(job.status in ("queued", "running") for job in self.jobs.values())
            if pending >= self.max_pending:
                raise TracePending(
                    f"{pending} trace jobs are waiting or running; the limit is "
                    f"{self.max_pending} (max_pending_jobs)"
                )
            job = TraceJob(id=uuid.uuid4().hex, path=path, options=options)
            self.jobs[job.id] = job
        self._executor.submit(self._run, job)
        return job

    def get(self, job_id: str) -> TraceJob | None:
        return self.jobs.get(job_id)

    def shutdown(self) -> None:
        """Drop the queued jobs and stop a running check's simulator processes (the service
        is stopping: nothing it started may outlive it)."""
        from validation.sweeps import stop_all

        self._executor.shutdown(wait=False, cancel_futures=True)
        stop_all()

    def _run(self, job: TraceJob) -> None:
        from validation.traces import TraceFormatError

        job.status = "running"

        def progress(fraction: float) -> None:
            job.progress = min(max(fraction, 0.0), 1.0)

        def reading_again(label: str, fraction: float) -> None:
            # progress stays at 1 (the file was read once); the message says what runs now
            job.message = f"{label}: {fraction:.0%} of the file"

        def verifying(done: int, total: int) -> None:
            job.message = f"verifying the BSCL size: {done}/{total} simulator runs"

        try:
            doc = run_trace(
                job.path,
                job.options,
                progress=progress,
                stage=reading_again,
                verify_progress=verifying,
                workers=self.workers,
            ).doc
            job.result = doc
            job.message = summary(doc)
            job.status = "succeeded"
            job.progress = 1.0
        except (TraceFormatError, ValueError) as exc:
            # The trace, not the service: say what is wrong with it (and where).
            job.status = "failed"
            job.message = str(exc).replace(str(job.path), job.options.filename or "trace")
        except Exception as exc:  # a bug: report it as ours, not as the user's input
            job.status = "failed"
            job.message = f"internal error while reading the trace ({type(exc).__name__})"
        finally:
            job.finished_at = dt.datetime.now(dt.UTC)
            try:
                os.unlink(job.path)
            except OSError:
                pass
