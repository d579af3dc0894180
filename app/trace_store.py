"""The trace jobs' table, in the job store's database: a trace job outlives the service.

Each row says where the job's upload waits (its own directory, deleted with it when the job
ends), the options it is read with, who may cancel it (the SHA-256 of its capability token, as
for simulation jobs), which service instance owns it, and how far it got.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.jobs.tables import Base, utcnow


class TraceJobRow(Base):
    """One uploaded trace: its upload, its options, its owner and how far it got."""

    __tablename__ = "trace_jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    progress: Mapped[float] = mapped_column(default=0.0)
    message: Mapped[str] = mapped_column(Text, default="")
    # The directory holding the upload (deleted, with the upload, when the job ends), or "".
    upload_dir: Mapped[str] = mapped_column(Text, default="")
    upload_path: Mapped[str] = mapped_column(Text, default="")
    options: Mapped[dict[str, Any]]
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    # SHA-256 of the capability token returned to the submitter (cancelling needs the token).
    owner_key: Mapped[str] = mapped_column(String(64))
    # Who submitted it (an API key's name, or the client's address), for per-client quotas.
    client: Mapped[str] = mapped_column(String(255), index=True)
    # The service instance (process id and start time) that runs it; another instance adopts
    # the job once that one is gone.
    service: Mapped[str] = mapped_column(String(64), index=True)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    # Times the job was found queued or running under a service that had stopped.
    restarts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
