"""Trace jobs: an uploaded trace read in a process of its own, its state kept in the job store.

A trace job runs in a child process started for it (:mod:`app.trace_child`), one at a time per
service, under a memory limit (``trace_job_memory_bytes``, the child's address space): a trace
that needs more fails with that reason, and the service process never holds the trace's
arrays. The child is one of the service's ``workers`` processes: it waits for a slot of the
budget it shares with the simulation pool (:class:`app.jobs.budget.WorkerBudget`), and its
check's simulator runs are made in it, one after another, so that the job is one process,
within its one limit, and simulations and traces together never compute more than ``workers``
jobs at once. (A process of its own rather than a task of the pool's executor: a process's
address-space limit can only be lowered, so a pool worker would keep a trace job's limit for
every later job; and cancelling a trace job kills its process, which would break the
executor and interrupt every simulation running in it.)

The child reports over a pipe; a thread of the service writes the job's status, progress,
message and result into the ``trace_jobs`` table of the job store's database
(:class:`app.trace_store.TraceJobRow`), so a finished job answers after a restart as a
simulation job does. The child dies with the service (:func:`validation.lifeline.die_with_service`).

Each job gets a capability token at submission (cancelling needs it, as for simulation jobs) and
counts against ``max_pending_jobs`` and its client's share of them.

The upload lives in a directory of its own (``bufsize-trace-*`` in the temporary directory),
deleted with it when the job ends: succeeded, failed, cancelled, its process died, or refused
at submission. A job that a stopped or killed service left queued or running is run again by
the next service on this database (at its start, or as soon as it sees the other one gone)
while its upload is there, and failed with that reason otherwise; upload directories that no
job owns and whose service is gone (a service killed while it received them) are deleted then.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import multiprocessing
import os
import secrets
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, cast

from sqlalchemy import Table, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.jobs.budget import WorkerBudget
from app.jobs.store import ClientQuotaFull, NotOwner, QueueFull, make_engine, token_key
from app.jobs.tables import rows_changed
from app.services.trace import TraceOptions, summary
from app.settings import Settings
from app.trace_child import TraceRunner, memory_message, read_trace, run_child
from app.trace_store import TraceJobRow
from validation.sweeps import IN_PROCESS

#: The states of a trace job; the last three are final.
TraceStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
_ACTIVE = ("queued", "running")
#: Seconds between the service's writes of a running job's progress (and looks for a cancel).
PROGRESS_PERIOD_S = 0.5
#: Seconds between looks for jobs and uploads left by a service that is gone.
RECOVERY_PERIOD_S = 10.0
RESTARTED = "the service stopped while this job ran; it ran again from its upload"
UPLOAD_GONE = "the service stopped while this job ran, and its upload is gone: send it again"
SHUTDOWN = "interrupted by a service shutdown; runs again from its upload when the service starts"
UPLOAD_PREFIX = "bufsize-trace-"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TraceJob:
    """One trace job as the API shows it."""

    id: str
    status: TraceStatus
    progress: float
    message: str
    result: dict[str, Any] | None
    created_at: dt.datetime
    finished_at: dt.datetime | None


class TracePending(QueueFull):
    """Too many trace jobs waiting or running."""

    def __init__(self, pending: int, limit: int) -> None:
        Exception.__init__(
            self,
            f"{pending} trace jobs are waiting or running; the limit is {limit} "
            "(max_pending_jobs); retry later",
        )


def _utc(moment: dt.datetime | None) -> dt.datetime | None:
    # SQLite keeps no time zone: the times are written in UTC
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment


def _view(row: TraceJobRow) -> TraceJob:
    created = _utc(row.created_at)
    assert created is not None
    return TraceJob(
        id=row.id,
        status=cast(TraceStatus, row.status),
        progress=row.progress,
        message=row.message,
        result=row.result,
        created_at=created,
        finished_at=_utc(row.finished_at),
    )


def _start_ticks(pid: int) -> str | None:
    """A process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def this_instance() -> str:
    """This service process, as ``<pid>.<start time>`` (a pid alone is reused)."""
    return f"{os.getpid()}.{_start_ticks(os.getpid())}"


def instance_running(instance: str) -> bool:
    """Whether the service process ``instance`` (:func:`this_instance`) still runs."""
    pid, _, started = instance.partition(".")
    if not pid.isdigit():
        return False
    return _start_ticks(int(pid)) == started


def _delete(directory: str) -> None:
    """Remove an upload's directory and what is in it (nothing if it is gone)."""
    if directory:
        shutil.rmtree(directory, ignore_errors=True)


class TraceJobs:
    """The trace jobs of this service: rows in the store, and the thread that runs them."""

    def __init__(
        self,
        settings: Settings,
        runner: TraceRunner = read_trace,
        budget: WorkerBudget | None = None,
    ) -> None:
        self.settings = settings
        self.runner = runner
        #: The worker slots shared with the simulation pool: a running job holds one.
        self.budget = budget if budget is not None else WorkerBudget(settings.workers)
        self.instance = this_instance()
        self.engine = make_engine(settings.database_url)
        TraceJobRow.metadata.create_all(self.engine, tables=[cast(Table, TraceJobRow.__table__)])
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # Upload directories of this database: bufsize-trace-<database>-<instance>-<random>
        self._database_tag = hashlib.sha256(settings.database_url.encode()).hexdigest()[:12]
        self._admission = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.budget.on_release("traces", self._wake.set)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    # ----- life cycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Adopt what a stopped service left, then run jobs as they come."""
        self.recover()
        self._thread = threading.Thread(target=self._loop, name="bufsize-traces", daemon=True)
        self._thread.start()

    def shutdown(self) -> None:
        """Stop: a running job's process is killed and the job runs again at the next start."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        self.engine.dispose()

    # ----- the web process's calls -------------------------------------------------------------

    def upload_dir(self) -> Path:
        """A new directory for one upload (the caller deletes it unless :meth:`submit` takes it)."""
        prefix = f"{UPLOAD_PREFIX}{self._database_tag}-{self.instance}-"
        return Path(tempfile.mkdtemp(prefix=prefix))

    def submit(
        self, upload_dir: Path, path: Path, options: TraceOptions, client: str
    ) -> tuple[TraceJob, str]:
        """Queue the upload at ``path`` (in ``upload_dir``, which the job now owns); returns the
        job and its capability token. Raises :class:`TracePending` past ``max_pending_jobs``,
        :class:`ClientQuotaFull` past the client's share."""
        settings = self.settings
        token = secrets.token_urlsafe(24)
        with self._admission, self.session() as session:
            pending = session.scalar(
                select(func.count()).select_from(TraceJobRow).where(TraceJobRow.status.in_(_ACTIVE))
            )
            if (pending or 0) >= settings.max_pending_jobs:
                raise TracePending(pending or 0, settings.max_pending_jobs)
            mine = session.scalar(
                select(func.count())
                .select_from(TraceJobRow)
                .where(TraceJobRow.status.in_(_ACTIVE), TraceJobRow.client == client)
            )
            if (mine or 0) >= settings.client_pending_jobs:
                raise ClientQuotaFull(
                    client,
                    f"{mine} trace jobs waiting or running, its share "
                    f"(max_pending_jobs_per_client={settings.client_pending_jobs})",
                )
            row = TraceJobRow(
                id=uuid.uuid4().hex,
                status="queued",
                progress=0.0,
                message="",
                upload_dir=str(upload_dir),
                upload_path=str(path),
                options=asdict(options),
                owner_key=token_key(token),
                client=client,
                service=self.instance,
                cancel_requested=False,
                restarts=0,
                created_at=dt.datetime.now(dt.UTC),
            )
            session.add(row)
            session.flush()
            job = _view(row)
        self._wake.set()
        return job, token

    def get(self, job_id: str) -> TraceJob | None:
        with self.session() as session:
            row = session.get(TraceJobRow, job_id)
            return None if row is None else _view(row)

    def cancel(self, job_id: str, token: str | None) -> tuple[TraceJob, bool] | None:
        """Cancel a queued job at once (its upload deleted); ask a running one to stop (its
        process is killed within ``PROGRESS_PERIOD_S``). ``token`` must be the job's
        (:class:`NotOwner` otherwise). Returns the job and whether it was still queued or
        running (an ended job is left as it is)."""
        with self.session() as session:
            row = session.get(TraceJobRow, job_id)
            if row is None:
                return None
            if token is None or not secrets.compare_digest(token_key(token), row.owner_key):
                raise NotOwner(job_id)
            active = row.status in _ACTIVE
            if row.status == "queued":
                row.status, row.message = "cancelled", "cancelled before it started"
                row.cancel_requested = True
                row.finished_at = dt.datetime.now(dt.UTC)
                _delete(row.upload_dir)
                row.upload_dir = row.upload_path = ""
            elif row.status == "running" and not row.cancel_requested:
                row.cancel_requested = True
                row.message = "cancellation requested; the reading stops within a second"
            session.flush()
            return _view(row), active

    # ----- recovery ----------------------------------------------------------------------------

    def recover(self) -> None:
        """Adopt the jobs of services on this database that are gone: run again from their
        upload (``max_job_restarts`` times at most), or failed without it; delete the uploads
        of ended jobs and the upload directories no job owns whose service is gone."""
        now = dt.datetime.now(dt.UTC)
        owned: set[str] = set()
        with self._admission, self.session() as session:
            for row in session.scalars(select(TraceJobRow).where(TraceJobRow.upload_dir != "")):
                if row.status in _ACTIVE and (
                    row.service == self.instance or instance_running(row.service)
                ):
                    owned.add(row.upload_dir)
                    continue
                if row.status in _ACTIVE:
                    self._adopt(row, now)
                if row.status in _ACTIVE:
                    owned.add(row.upload_dir)
                else:
                    _delete(row.upload_dir)
                    row.upload_dir = row.upload_path = ""
        for directory in Path(tempfile.gettempdir()).glob(f"{UPLOAD_PREFIX}{self._database_tag}-*"):
            instance = directory.name.removeprefix(f"{UPLOAD_PREFIX}{self._database_tag}-")
            instance = instance.rsplit("-", 1)[0]
            if str(directory) not in owned and not instance_running(instance):
                _delete(str(directory))
        self._wake.set()

    def _adopt(self, row: TraceJobRow, now: dt.datetime) -> None:
        """A job whose service is gone: queued here again, or ended with the reason."""
        row.restarts += 1
        limit = self.settings.max_job_restarts
        if row.cancel_requested:
            row.status, row.message = "cancelled", "cancelled (the service stopped meanwhile)"
        elif not (row.upload_path and os.path.exists(row.upload_path)):
            row.status, row.message = "failed", UPLOAD_GONE
        elif row.restarts > limit:
            row.status = "failed"
            row.message = (
                f"the service stopped while this job ran, {row.restarts} times (limit "
                f"max_job_restarts={limit}); not run again"
            )
        else:
            row.status, row.progress, row.message = "queued", 0.0, RESTARTED
            row.service = self.instance
            return
        row.finished_at = now

    # ----- running -----------------------------------------------------------------------------

    def _loop(self) -> None:
        next_recovery = time.monotonic() + RECOVERY_PERIOD_S
        while not self._stopping.is_set():
            self._wake.wait(RECOVERY_PERIOD_S)
            self._wake.clear()
            try:
                if time.monotonic() >= next_recovery:
                    next_recovery = time.monotonic() + RECOVERY_PERIOD_S
                    self.recover()
                while not self._stopping.is_set() and self._run_next():
                    pass
            except Exception:  # the store may be briefly unreachable: try again later
                logger.exception("running trace jobs failed")

    def _claim(self) -> TraceJobRow | None:
        with self.session() as session:
            row = session.scalars(
                select(TraceJobRow)
                .where(TraceJobRow.status == "queued", TraceJobRow.service == self.instance)
                .order_by(TraceJobRow.created_at)
                .limit(1)
            ).first()
            if row is None:
                return None
            done = session.execute(
                update(TraceJobRow)
                .where(TraceJobRow.id == row.id, TraceJobRow.status == "queued")
                .values(status="running")
            )
            return row if rows_changed(done) == 1 else None

    def _run_next(self) -> bool:
        """Run the oldest queued job of this service; False when there is none, or no worker
        slot is free (a slot given back wakes this thread)."""
        if not self.budget.take("traces", 1):
            return False
        try:
            row = self._claim()
        except BaseException:
            self.budget.give(1, ended=False)
            raise
        if row is None:
            self.budget.give(1, ended=False)
            return False
        try:
            return self._run(row)
        finally:
            self.budget.give(1)

    def _run(self, row: TraceJobRow) -> bool:
        options = TraceOptions(**row.options)
        outcome = self._in_child(row.id, row.upload_path, options)
        if outcome is None:  # the service is stopping: the job runs again at the next start
            self._set(row.id, status="queued", message=SHUTDOWN)
            return False
        status, message, result = outcome
        if status == "failed":
            message = message.replace(row.upload_path, options.filename or "trace")
        elif result is not None:
            result["file"] = options.filename or result.get("file")
            message = summary(result)
        if (row.restarts or row.message == SHUTDOWN) and status != "cancelled":
            message += f" ({RESTARTED})"
        values: dict[str, Any] = {"status": status, "message": message, "result": result}
        if status == "succeeded":
            values["progress"] = 1.0
        # The upload goes first: a job that reads as ended has none left on disk.
        _delete(row.upload_dir)
        self._set(
            row.id,
            **values,
            finished_at=dt.datetime.now(dt.UTC),
            upload_dir="",
            upload_path="",
        )
        return True

    def _set(self, job_id: str, **values: Any) -> bool:
        """Write a running job of this service; False if it is no longer running here."""
        with self.session() as session:
            done = session.execute(
                update(TraceJobRow)
                .where(
                    TraceJobRow.id == job_id,
                    TraceJobRow.status == "running",
                    TraceJobRow.service == self.instance,
                )
                .values(**values)
            )
            return rows_changed(done) == 1

    def _cancel_requested(self, job_id: str) -> bool:
        with self.session() as session:
            return bool(
                session.scalar(select(TraceJobRow.cancel_requested).where(TraceJobRow.id == job_id))
            )

    def _in_child(
        self, job_id: str, path: str, options: TraceOptions
    ) -> tuple[TraceStatus, str, dict[str, Any] | None] | None:
        """Run the job in a child process; its outcome, or None when the service stops."""
        memory_bytes = self.settings.trace_job_memory_bytes
        context = multiprocessing.get_context("spawn")
        receive, send = context.Pipe(duplex=False)
        child = context.Process(
            target=run_child,
            args=(
                self.runner,
                path,
                options,
                IN_PROCESS,
                memory_bytes,
                send,
                os.getpid(),
            ),
            name=f"bufsize-trace-{job_id[:8]}",
        )
        child.start()
        send.close()
        outcome: tuple[TraceStatus, str, dict[str, Any] | None] | None = None
        progress: float | None = None
        message: str | None = None
        last_write = time.monotonic()
        try:
            while outcome is None:
                now = time.monotonic()
                if now - last_write >= PROGRESS_PERIOD_S:
                    last_write = now
                    if self._cancel_requested(job_id):
                        return "cancelled", "cancelled while running", None
                    values: dict[str, Any] = {}
                    if progress is not None:
                        values["progress"] = progress
                    if message is not None:
                        values["message"] = message
                    if values:
                        self._set(job_id, **values)
                    progress = message = None
                if self._stopping.is_set():
                    return None
                if receive.poll(0.1):
                    try:
                        kind, value = receive.recv()
                    except EOFError:
                        break
                    if kind == "progress":
                        progress = float(value)
                    elif kind == "message":
                        message = str(value)
                    else:
                        outcome = value
                elif not child.is_alive() and not receive.poll():
                    break
        finally:
            if outcome is None and child.is_alive():
                child.terminate()  # the child stops its check's simulator processes, then itself
                child.join(timeout=5)
            child.join(timeout=30)
            if child.is_alive():
                child.kill()
                child.join()
            receive.close()
        if outcome is None:
            return (
                "failed",
                f"the process reading this trace died (exit code {child.exitcode}); one "
                f"cause: {memory_message(memory_bytes)}",
                None,
            )
        return outcome
