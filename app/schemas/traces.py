"""Answers of ``/v1/traces``: the upload's receipt and the trace job's state.

The job's ``result`` is the JSON ``bufsize trace --json`` prints (estimates with their
intervals, the BSCL size, and the simulation check when ``verify`` was asked).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from app.schemas.common import (
    ResponseModel,
)
from app.trace_jobs import TraceStatus


class TraceCreatedOut(ResponseModel):
    """The receipt of an upload: the job reading it."""

    id: str = Field(description="The trace job's id; poll GET /v1/traces/{id}.")
    status: TraceStatus = Field(description="The job's status when the upload was accepted.")
    bytes: int = Field(description="Size of the uploaded trace, in bytes.")
    token: str = Field(
        description="The job's capability token, given once: send it as X-Job-Token to cancel."
    )


class TraceJobOut(ResponseModel):
    """A trace job: how far it got and, when it succeeded, what the trace says."""

    id: str = Field(description="The trace job's id.")
    status: TraceStatus = Field(description="queued, running, succeeded, failed or cancelled.")
    progress: float = Field(
        ge=0.0,
        le=1.0,
        description="Share of the file read, 0 to 1. It never goes back: while the file is "
        "read again (no capacity given and a link slow enough that the first reading needs "
        "it; with drops, capacity and buffer, for this link's queue as the flows paced by "
        "slower access links show it), it stays at 1 and the message says which reading runs "
        "and how far it got.",
    )
    message: str = Field(
        description="While a later reading runs, which one and its share of the file; while "
        "the check runs, its runs done; when failed, what is wrong with the file and where."
    )
    created_at: datetime = Field(description="When the upload was accepted (UTC).")
    finished_at: datetime | None = Field(description="When the job ended (UTC), or null.")
    result: dict[str, Any] | None = Field(
        description="When succeeded: `file`, `estimates` (N_b, T_e, C_e, α, each with its 95% "
        "interval), `bscl` (the size, or null with `bscl_error`) and, with verify, "
        "`verification` (the shape of /v1/verifications' answer)."
    )
