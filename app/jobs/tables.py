"""The job store's tables (SQLAlchemy 2 declarative mapping): simulation jobs and run results."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar, cast

from sqlalchemy import JSON, BigInteger, DateTime, Integer, String, Text
from sqlalchemy.engine import CursorResult, Result
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


def rows_changed(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE changed: ``Session.execute`` types its answer as a
    ``Result``, and for those statements it is the ``CursorResult`` that counts them."""
    return cast(CursorResult[Any], result).rowcount


class JobStatus(StrEnum):
    """Where a job is in its life; the last three are final."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
FINAL = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSON,
        datetime: DateTime(timezone=True),
    }


class Job(Base):
    """One simulation request: its canonical spec, status, progress and what happened to it."""

    __tablename__ = "simulation_jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64), index=True)
    request: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), index=True)
    progress: Mapped[float] = mapped_column(default=0.0)
    # Incremented each time the job is handed to a worker; a worker's writes carry its attempt
    # number, so a worker left over from an earlier attempt cannot overwrite a newer one.
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    # Times the job was found running at start-up (the service stopped under it).
    restarts: Mapped[int] = mapped_column(Integer, default=0)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    # SHA-256 of the capability token returned to the job's submitter: cancelling needs the
    # token (None for a job made before tokens existed: nobody can cancel it through the API).
    owner_key: Mapped[str | None] = mapped_column(String(64), default=None)
    # Who submitted it (an API key's name, or the client's address), for per-client quotas.
    client: Mapped[str | None] = mapped_column(String(255), default=None, index=True)
    # Bottleneck packets the job simulates (the estimate at submission), for the work quota.
    packets: Mapped[int] = mapped_column(BigInteger, default=0)
    message: Mapped[str | None] = mapped_column(Text, default=None)
    worker: Mapped[str | None] = mapped_column(String(255), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class RunResult(Base):
    """The replicated runs of one scenario at one buffer size, keyed by :meth:`run_key`: each
    measure's mean and confidence interval (the runs themselves are in :class:`RunDetail`)."""

    __tablename__ = "simulation_results"

    run_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    buffer_packets: Mapped[int] = mapped_column(Integer)
    result: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RunDetail(Base):
    """Every replication of one :class:`RunResult`, compacted (``app.jobs.compact``): read only
    when a client asks for the runs, so a job's status never loads them."""

    __tablename__ = "simulation_runs"

    run_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    runs: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
