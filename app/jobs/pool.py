"""The bounded worker pool: hands queued jobs to workers, at most ``workers`` at a time.

The ``workers`` slots are shared with the trace jobs (:class:`app.jobs.budget.WorkerBudget`):
a simulation job takes one for its worker, a trace job one for its process.

Workers are a local :class:`~concurrent.futures.ProcessPoolExecutor` (processes forked from a
``forkserver``, each replaced after ``jobs_per_worker_process`` jobs) or, when ``dask_scheduler`` is
set, the executor of a Dask distributed client. Both are driven through the same
``concurrent.futures.Executor`` interface, so the code path is the same either way; only the
executor differs.

A dispatcher thread claims queued jobs from the store (oldest first) whenever a job is
submitted or a worker frees up, and submits :func:`app.jobs.worker.execute_job` for each. The
job's state lives in the store, not here: a restart loses nothing but the executor. At start-up
and then periodically, jobs marked running whose worker has been silent for
``stale_job_after_s`` (and that this pool is not running) are resumed or failed with a reason;
at shutdown, this pool's running jobs go back to the queue.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from app.jobs.budget import WorkerBudget
from app.jobs.spec import SimulationSpec
from app.jobs.store import ClientQuota, JobStore, JobView
from app.jobs.worker import Runner, execute_job
from app.settings import Settings
from validation.lifeline import die_with_service
from validation.socket_dir import forkserver_context

logger = logging.getLogger(__name__)

WORKER_DIED = "the worker process running this job died"
SHUTDOWN_MESSAGE = (
    "interrupted by a service shutdown; resumes where it stopped when the service starts again"
)


class JobPool:
    """Submits, dispatches and cancels simulation jobs for one service instance."""

    def __init__(
        self,
        settings: Settings,
        runner: Runner,
        *,
        poll_s: float = 1.0,
        budget: WorkerBudget | None = None,
    ) -> None:
        self.settings = settings
        self.runner = runner
        #: The worker slots this pool shares with the service's trace jobs.
        self.budget = budget if budget is not None else WorkerBudget(settings.workers)
        self.store = JobStore(settings.database_url)
        self._poll_s = poll_s
        self._executor: Executor | None = None
        self._client: Any = None  # distributed.Client when a Dask scheduler is configured
        self._inflight: dict[Future[str], tuple[str, int]] = {}
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.budget.on_release("simulations", self._wake.set)
        #: Cleared while the simulator is being compiled at start-up: no job is dispatched.
        self.ready = threading.Event()
        self.ready.set()

    # ----- life cycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Recover the jobs a previous instance left running, then start dispatching."""
        self._recover()
        self._executor = self._make_executor()
        self._thread = threading.Thread(target=self._loop, name="bufsize-jobs", daemon=True)
        self._thread.start()
        self._wake.set()

    def alive(self) -> bool:
        """Whether the pool dispatches jobs: its thread runs and it has an executor."""
        return (
            self._thread is not None
            and self._thread.is_alive()
            and self._executor is not None
            and not self._stopping.is_set()
        )

    def shutdown(self) -> None:
        """Stop dispatching, send running jobs back to the queue and wait for their workers.

        A worker notices at its next progress report that its job is no longer its own and
        stops; the job resumes when the service starts again.
        """
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            running = [job_id for job_id, _ in self._inflight.values()]
        requeued = self.store.requeue(running, SHUTDOWN_MESSAGE)
        if requeued:
            logger.info("%d running simulation job(s) will resume at the next start", requeued)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        if self._client is not None:
            self._client.close()
        self.store.close()

    def _make_executor(self) -> Executor:
        if self.settings.dask_scheduler:
            from distributed import Client

            self._client = Client(self.settings.dask_scheduler, set_as_default=False)
            executor: Executor = self._client.get_executor(pure=False)
            return executor
        # Worker processes are forked from a single-threaded server process that has already
        # imported the worker code: safe from a threaded web process, and quick to start, so a
        # fresh process per job costs little.
        context = forkserver_context()
        context.set_forkserver_preload(["app.jobs.worker", "app.jobs.runner"])
        # Each worker stops when this process is gone (killed, say), so that a restarted service
        # is the only one computing the jobs it resumes.
        return ProcessPoolExecutor(
            max_workers=self.settings.workers,
            mp_context=context,
            max_tasks_per_child=self.settings.jobs_per_worker_process,
            initializer=die_with_service,
            initargs=(os.getpid(),),
        )

    # ----- the web process's calls -------------------------------------------------------------

    def submit(
        self, spec: SimulationSpec, client: str = "", packets: int = 0
    ) -> tuple[JobView, bool, str | None]:
        """Queue ``spec`` for ``client`` (or reuse the identical job); raises ``QueueFull``
        (``ClientQuotaFull`` past the client's share). Returns the job, whether it was reused
        and the new job's capability token."""
        quota = ClientQuota(
            client=client,
            max_jobs=self.settings.client_pending_jobs,
            max_packets=self.settings.max_pending_packets_per_client,
        )
        job, reused, token = self.store.submit(spec, self.settings.max_pending_jobs, quota, packets)
        if not reused:
            self._wake.set()
        return job, reused, token

    def cancel(self, job_id: str, token: str | None) -> JobView | None:
        job = self.store.cancel(job_id, token)
        self._wake.set()
        return job

    # ----- dispatching -------------------------------------------------------------------------

    def _loop(self) -> None:
        next_recovery = time.monotonic() + self._recovery_period_s
        while not self._stopping.is_set():
            self._wake.wait(self._poll_s)
            self._wake.clear()
            if self._stopping.is_set():
                break
            try:
                if time.monotonic() >= next_recovery:
                    next_recovery = time.monotonic() + self._recovery_period_s
                    self._recover()
                self._dispatch()
            except Exception:  # the store may be briefly unreachable: try again later
                logger.exception("dispatching simulation jobs failed")

    @property
    def _recovery_period_s(self) -> float:
        return max(self._poll_s, self.settings.stale_job_after_s / 4.0)

    def _recover(self) -> dict[str, int]:
        """Resume (or fail) jobs left running by a stopped service or a dead worker."""
        with self._lock:
            mine = {job_id for job_id, _ in self._inflight.values()}
            counts = self.store.recover(
                self.settings.max_job_restarts, self.settings.stale_job_after_s, exclude=mine
            )
        if any(counts.values()):
            logger.warning("interrupted simulation jobs found: %s", counts)
        return counts

    def wake(self) -> None:
        """Look at the queue now (e.g. once the simulator is ready)."""
        self._wake.set()

    def _dispatch(self) -> None:
        if not self.ready.is_set():
            return
        with self._lock:
            free = self.budget.take("simulations", self.settings.workers)
            try:
                claimed = self.store.claim(free) if free else []
            except BaseException:
                self.budget.give(free, ended=False)
                raise
            self.budget.give(free - len(claimed), ended=False)
            for job_id, attempt in claimed:
                try:
                    future = self._submit(job_id, attempt)
                except Exception as exc:
                    self.store.fail_attempt(
                        job_id, attempt, f"could not start a worker: {type(exc).__name__}: {exc}"
                    )
                    self.budget.give(1)
                    continue
                self._inflight[future] = (job_id, attempt)
                future.add_done_callback(self._finished)

    def _submit(self, job_id: str, attempt: int) -> Future[str]:
        assert self._executor is not None
        url, runner = self.settings.database_url, self.runner
        try:
            return self._executor.submit(execute_job, job_id, attempt, url, runner)
        except BrokenProcessPool:
            # A worker process died (killed, out of memory); the pool cannot be used again.
            logger.warning("the worker pool broke; starting a new one")
            self._executor.shutdown(wait=False)
            self._executor = self._make_executor()
            return self._executor.submit(execute_job, job_id, attempt, url, runner)

    def _finished(self, future: Future[str]) -> None:
        with self._lock:
            job_id, attempt = self._inflight[future]
        # The job stays in _inflight until its outcome is stored: recovery skips the jobs in
        # _inflight, and would otherwise take a job whose worker just died, still marked
        # running, for one the service left behind, and record the wrong cause.
        try:
            exc = None if future.cancelled() else future.exception()
            if isinstance(exc, BrokenProcessPool):
                # A worker process died (killed, out of memory), taking the pool with it:
                # every job it was running is resumed, and a job that keeps killing its
                # worker fails after max_job_restarts.
                self.store.interrupt_attempt(
                    job_id, attempt, self.settings.max_job_restarts, WORKER_DIED
                )
            elif exc is not None:
                # The worker could not record what happened (a lost Dask worker, say).
                self.store.fail_attempt(
                    job_id,
                    attempt,
                    f"the worker running this job stopped: {type(exc).__name__}: {exc}",
                )
        finally:
            with self._lock:
                del self._inflight[future]
            self.budget.give(1)
            self._wake.set()

    @property
    def running(self) -> int:
        """Jobs currently handed to workers by this instance."""
        with self._lock:
            return len(self._inflight)
