"""The job store: every read and write of jobs and results, through SQLAlchemy.

The web process creates, lists and cancels jobs and hands queued ones to workers; the workers
(local processes or Dask tasks) report progress and save results through the same class, each
with its own engine. A worker's writes carry the job's attempt number and only land while that
attempt is the job's current one and the job is still running, so a worker that outlived a
restart, a cancellation or a shutdown notices at its next progress report and stops.

SQLite (the default) is opened in WAL mode with a generous busy timeout so that the web process
and the workers can write to it at once; PostgreSQL needs nothing special.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import socket
import threading
import uuid
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, case, create_engine, event, func, inspect, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import Session, sessionmaker

from app.jobs.compact import compact_result
from app.jobs.spec import SimulationSpec
from app.jobs.tables import (
    ACTIVE,
    FINAL,
    Base,
    Job,
    JobStatus,
    RunDetail,
    RunResult,
    rows_changed,
    utcnow,
)


class QueueFull(Exception):
    """No room for one more pending job."""

    def __init__(self, pending: int, limit: int) -> None:
        super().__init__(
            f"{pending} simulation jobs are queued or running, the limit is {limit} "
            "(max_pending_jobs); retry later"
        )
        self.pending = pending
        self.limit = limit


class ClientQuotaFull(QueueFull):
    """No room for one more pending job of this client (its share of the queue is used)."""

    def __init__(self, client: str, what: str) -> None:
        Exception.__init__(self, f"{client} already has {what}; retry when one finishes")
        self.client = client


class NotOwner(Exception):
    """The capability token given does not open this job."""


def token_key(token: str) -> str:
    """What the store keeps of a job's capability token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class ClientQuota:
    """One client's share of the queue: its pending jobs and their packets at most."""

    client: str
    max_jobs: int
    max_packets: int | None = None


class JobStopped(Exception):
    """Raised inside a worker's progress report: this attempt must stop now."""


class JobCancelled(JobStopped):
    """The job was cancelled by its client."""


class JobSuperseded(JobStopped):
    """The job is no longer this worker's: the service shut down, restarted or failed it."""


def _aware(moment: datetime | None) -> datetime | None:
    # SQLite keeps no time zone; everything stored is UTC.
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


@dataclass(frozen=True)
class JobView:
    """A snapshot of a job, detached from the database session."""

    id: str
    status: JobStatus
    progress: float
    spec: SimulationSpec
    request_hash: str
    message: str | None
    attempt: int
    restarts: int
    cancel_requested: bool
    worker: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @classmethod
    def of(cls, job: Job) -> JobView:
        created = _aware(job.created_at)
        assert created is not None
        return cls(
            id=job.id,
            status=JobStatus(job.status),
            progress=job.progress,
            spec=SimulationSpec.from_json(job.request),
            request_hash=job.request_hash,
            message=job.message,
            attempt=job.attempt,
            restarts=job.restarts,
            cancel_requested=job.cancel_requested,
            worker=job.worker,
            created_at=created,
            started_at=_aware(job.started_at),
            finished_at=_aware(job.finished_at),
        )


def _check_quota(session: Session, quota: ClientQuota, packets: int) -> None:
    jobs, work = session.execute(
        select(func.count(), func.coalesce(func.sum(Job.packets), 0)).where(
            Job.status.in_(ACTIVE), Job.client == quota.client
        )
    ).one()
    if jobs >= quota.max_jobs:
        raise ClientQuotaFull(
            quota.client,
            f"{jobs} jobs queued or running, its share (max_pending_jobs_per_client="
            f"{quota.max_jobs})",
        )
    if quota.max_packets is not None and work + packets > quota.max_packets:
        raise ClientQuotaFull(
            quota.client,
            f"{work:,} packets of jobs queued or running and this job adds {packets:,}; its "
            f"share is {quota.max_packets:,} (max_pending_packets_per_client)",
        )


def _sqlite_pragmas(dbapi_connection: Any, _connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


SERVICE_STOPPED = "the service stopped while this job was running"


def _interrupt(job: Job, now: datetime, max_restarts: int, cause: str) -> str:
    """Resume an interrupted job (its finished buffer sizes kept) or, past ``max_restarts``
    interruptions, fail it; cancel it if that was asked. Returns what was done."""
    job.restarts += 1
    job.updated_at = now
    if job.cancel_requested:
        job.status = JobStatus.CANCELLED
        job.message = f"cancelled ({cause} before the run stopped)"
        job.finished_at = now
        return "cancelled"
    if job.restarts > max_restarts:
        job.status = JobStatus.FAILED
        job.message = (
            f"{cause}, {job.restarts} times (limit max_job_restarts={max_restarts}); "
            "not resumed again"
        )
        job.finished_at = now
        return "failed"
    job.status = JobStatus.QUEUED
    job.message = (
        f"resumed: {cause} (restart {job.restarts} of at most {max_restarts}); "
        "finished buffer sizes are kept"
    )
    return "resumed"


def make_engine(database_url: str) -> Engine:
    """An engine for ``database_url``; SQLite files are shared safely between processes."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30.0}, pool_pre_ping=True
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def _add_missing_columns(engine: Engine) -> None:
    """Columns added to the jobs table since a store was created (owner_key, client, packets)."""
    table = Base.metadata.tables[Job.__tablename__]
    present = {column["name"] for column in inspect(engine).get_columns(table.name)}
    for column in table.columns:
        if column.name in present:
            continue
        kind = column.type.compile(engine.dialect)
        default = " DEFAULT 0" if column.name == "packets" else ""
        try:
            with engine.begin() as connection:
                connection.exec_driver_sql(
                    f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}{default}"
                )
        except (OperationalError, ProgrammingError):
            # Another process (a worker starting) added it first.
            names = {c["name"] for c in inspect(engine).get_columns(table.name)}
            if column.name not in names:
                raise


class JobStore:
    """Jobs and results in the database at ``database_url`` (tables created if missing)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.engine = make_engine(database_url)
        Base.metadata.create_all(self.engine)
        _add_missing_columns(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # Serialises "count the pending jobs, then add one" within this process.
        self._admission = threading.Lock()

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    # ----- the web process -------------------------------------------------------------------

    def submit(
        self,
        spec: SimulationSpec,
        max_pending: int,
        quota: ClientQuota | None = None,
        packets: int = 0,
    ) -> tuple[JobView, bool, str | None]:
        """Reuse the job that asked for the same runs, or queue a new one.

        Returns the job, whether it was reused, and the new job's capability token (None for a
        reused job: an identical request shares the results, not the right to cancel). A job
        that failed or was cancelled is not reused: the request runs again. Raises
        :class:`QueueFull` when a new job would exceed ``max_pending`` queued or running jobs,
        :class:`ClientQuotaFull` when it would exceed the client's ``quota``.
        """
        request_hash = spec.request_hash
        with self._admission, self.session() as session:
            existing = session.scalars(
                select(Job)
                .where(
                    Job.request_hash == request_hash,
                    Job.status.in_([*ACTIVE, JobStatus.SUCCEEDED]),
                )
                .order_by(Job.created_at.desc())
                .limit(1)
            ).first()
            if existing is not None:
                return JobView.of(existing), True, None
            pending = session.scalar(
                select(func.count()).select_from(Job).where(Job.status.in_(ACTIVE))
            )
            if pending is not None and pending >= max_pending:
                raise QueueFull(pending, max_pending)
            if quota is not None:
                _check_quota(session, quota, packets)
            token = secrets.token_urlsafe(24)
            job = Job(
                id=uuid.uuid4().hex,
                request_hash=request_hash,
                request=spec.to_json(),
                status=JobStatus.QUEUED,
                progress=0.0,
                attempt=0,
                restarts=0,
                cancel_requested=False,
                owner_key=token_key(token),
                client=None if quota is None else quota.client,
                packets=packets,
                created_at=utcnow(),
                updated_at=utcnow(),
            )
            session.add(job)
            session.flush()
            return JobView.of(job), False, token

    def get(self, job_id: str) -> JobView | None:
        with self.session() as session:
            job = session.get(Job, job_id)
            return None if job is None else JobView.of(job)

    def results(self, spec: SimulationSpec) -> dict[int, dict[str, Any]]:
        """The stored results of ``spec``'s buffer sizes, by buffer size (missing ones absent),
        without their runs (:meth:`runs`)."""
        keys = {spec.run_key(b): b for b in spec.buffer_packets}
        with self.session() as session:
            rows = session.scalars(select(RunResult).where(RunResult.run_key.in_(list(keys))))
            return {keys[row.run_key]: row.result for row in rows}

    def results_with_runs(self, spec: SimulationSpec) -> dict[int, dict[str, Any]]:
        """:meth:`results` with each buffer size's ``runs`` (for a check's verdicts)."""
        return {
            packets: {**result, "runs": self.runs(spec, packets) or []}
            for packets, result in self.results(spec).items()
        }

    def runs(self, spec: SimulationSpec, buffer_packets: int) -> list[dict[str, Any]] | None:
        """The stored (compacted) runs of one buffer size of ``spec``; None if not stored."""
        with self.session() as session:
            row = session.get(RunDetail, spec.run_key(buffer_packets))
            return None if row is None else list(row.runs)

    def cancel(self, job_id: str, token: str | None) -> JobView | None:
        """Cancel a queued job at once; ask a running one to stop at its next progress report.

        ``token`` must be the job's capability token (:class:`NotOwner` otherwise). A job
        already finished is left as it is.
        """
        with self.session() as session:
            job = session.get(Job, job_id, with_for_update=True)
            if job is None:
                return None
            if (
                token is None
                or job.owner_key is None
                or not hmac.compare_digest(token_key(token), job.owner_key)
            ):
                raise NotOwner(job_id)
            if job.status == JobStatus.QUEUED:
                job.status = JobStatus.CANCELLED
                job.cancel_requested = True
                job.message = "cancelled before it started"
                job.finished_at = job.updated_at = utcnow()
            elif job.status == JobStatus.RUNNING and not job.cancel_requested:
                job.cancel_requested = True
                job.message = "cancellation requested; the run stops at its next progress report"
                job.updated_at = utcnow()
            session.flush()
            return JobView.of(job)

    def claim(self, limit: int) -> list[tuple[str, int]]:
        """Mark up to ``limit`` of the oldest queued jobs running; return (id, attempt) of each."""
        claimed: list[tuple[str, int]] = []
        if limit <= 0:
            return claimed
        with self.session() as session:
            rows = session.execute(
                select(Job.id, Job.attempt)
                .where(Job.status == JobStatus.QUEUED)
                .order_by(Job.created_at)
                .limit(limit)
            ).all()
            now = utcnow()
            for job_id, attempt in rows:
                values: dict[str, Any] = {
                    "status": JobStatus.RUNNING,
                    "attempt": attempt + 1,
                    "started_at": func.coalesce(Job.started_at, now),
                    "updated_at": now,
                }
                if attempt > 0:
                    values["message"] = (
                        f"running again after an interruption (attempt {attempt + 1}); "
                        "finished buffer sizes are kept"
                    )
                done = session.execute(
                    update(Job)
                    .where(Job.id == job_id, Job.status == JobStatus.QUEUED)
                    .values(**values)
                )
                if rows_changed(done) == 1:
                    claimed.append((job_id, attempt + 1))
        return claimed

    def fail_attempt(self, job_id: str, attempt: int, reason: str) -> None:
        """Mark failed a running attempt whose worker could not report (it died, say)."""
        self._finish(job_id, attempt, JobStatus.FAILED, reason)

    def recover(
        self, max_restarts: int, stale_after_s: float, exclude: Collection[str] = ()
    ) -> dict[str, int]:
        """Resume jobs whose worker went silent, or fail them with a reason.

        A job still marked running whose last progress report is older than ``stale_after_s``
        (and that is not in ``exclude``, the jobs this service is running) was interrupted: the
        service stopped under it, or its worker died. It goes back to the queue (its finished
        buffer sizes are kept, so it resumes where it stopped) unless it has already been
        interrupted ``max_restarts`` times, or its client had asked to cancel it.
        """
        counts = {"resumed": 0, "failed": 0, "cancelled": 0}
        now = utcnow()
        with self.session() as session:
            query = select(Job).where(
                Job.status == JobStatus.RUNNING,
                Job.updated_at <= now - timedelta(seconds=stale_after_s),
            )
            if exclude:
                query = query.where(Job.id.not_in(list(exclude)))
            for job in session.scalars(query).all():
                outcome = _interrupt(job, now, max_restarts, SERVICE_STOPPED)
                counts[outcome] += 1
        return counts

    def interrupt_attempt(self, job_id: str, attempt: int, max_restarts: int, cause: str) -> None:
        """A running attempt's worker died: resume the job, or fail it after ``max_restarts``."""
        with self.session() as session:
            job = session.get(Job, job_id, with_for_update=True)
            if job is not None and job.attempt == attempt and job.status == JobStatus.RUNNING:
                _interrupt(job, utcnow(), max_restarts, cause)

    def requeue(self, job_ids: Collection[str], reason: str) -> int:
        """At shutdown: put these running jobs back in the queue; their workers stop when they
        notice. A job whose cancellation was asked for is cancelled instead."""
        if not job_ids:
            return 0
        ids = list(job_ids)
        now = utcnow()
        with self.session() as session:
            done = session.execute(
                update(Job)
                .where(
                    Job.id.in_(ids),
                    Job.status == JobStatus.RUNNING,
                    Job.cancel_requested.is_(False),
                )
                .values(status=JobStatus.QUEUED, message=reason, updated_at=now)
            )
            cancelled = session.execute(
                update(Job)
                .where(
                    Job.id.in_(ids),
                    Job.status == JobStatus.RUNNING,
                    Job.cancel_requested.is_(True),
                )
                .values(
                    status=JobStatus.CANCELLED,
                    message="cancelled (the service stopped before the run did)",
                    finished_at=now,
                    updated_at=now,
                )
            )
            return rows_changed(done) + rows_changed(cancelled)

    # ----- the workers -----------------------------------------------------------------------

    def report_progress(self, job_id: str, attempt: int, fraction: float) -> None:
        """Record progress; raise :class:`JobStopped` if this attempt must stop."""
        with self.session() as session:
            done = session.execute(
                update(Job)
                .where(
                    Job.id == job_id,
                    Job.attempt == attempt,
                    Job.status == JobStatus.RUNNING,
                    Job.cancel_requested.is_(False),
                )
                .values(
                    # Never backwards: a resumed attempt counts again from its kept results.
                    progress=case(
                        (Job.progress > min(max(fraction, 0.0), 1.0), Job.progress),
                        else_=min(max(fraction, 0.0), 1.0),
                    ),
                    worker=f"{socket.gethostname()}:{os.getpid()}",
                    updated_at=utcnow(),
                )
            )
            if rows_changed(done) == 1:
                return
        self.check_attempt(job_id, attempt)

    def check_attempt(self, job_id: str, attempt: int) -> None:
        """Raise :class:`JobStopped` unless ``attempt`` is the job's current, running one."""
        with self.session() as session:
            job = session.get(Job, job_id)
            if job is None or job.attempt != attempt or job.status != JobStatus.RUNNING:
                raise JobSuperseded(job_id)
            if job.cancel_requested:
                raise JobCancelled(job_id)

    def save_result(self, run_key: str, buffer_packets: int, result: dict[str, Any]) -> None:
        """Store one buffer size's result, its runs compacted (``app.jobs.compact``) and kept
        apart; if another job stored the same runs first, keep those."""
        summary = compact_result(result)
        runs = summary.pop("runs", None)
        try:
            with self.session() as session:
                if session.get(RunResult, run_key) is None:
                    session.add(
                        RunResult(run_key=run_key, buffer_packets=buffer_packets, result=summary)
                    )
                    if isinstance(runs, list):
                        session.add(RunDetail(run_key=run_key, runs=runs))
        except IntegrityError:
            pass  # the same run_key means the same runs: the stored copy is as good

    def finish(self, job_id: str, attempt: int, status: JobStatus, message: str | None) -> bool:
        """Final status of a running attempt; False if the attempt was no longer current."""
        return self._finish(job_id, attempt, status, message)

    def _finish(self, job_id: str, attempt: int, status: JobStatus, message: str | None) -> bool:
        assert status in FINAL
        values: dict[str, Any] = {
            "status": status,
            "message": message,
            "finished_at": utcnow(),
            "updated_at": utcnow(),
        }
        if status == JobStatus.SUCCEEDED:
            values["progress"] = 1.0
        with self.session() as session:
            done = session.execute(
                update(Job)
                .where(Job.id == job_id, Job.attempt == attempt, Job.status == JobStatus.RUNNING)
                .values(**values)
            )
            return rows_changed(done) == 1
