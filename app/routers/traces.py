"""``/v1/traces``: upload a packet trace, estimate BSCL's parameters from it (004 §VI), size.

``POST`` takes ``multipart/form-data`` with the trace in the ``file`` part (pcap, pcapng, or
the CSV ``bufsize simulate --trace`` writes) and optional text fields ``capacity_bps``,
``buffer_packets``, ``warmup_s``, ``max_loss``, ``verify``, ``replications`` and ``seed``, as the
``bufsize trace`` options (``verify``: the BSCL size checked by simulation with
validation/verify.py, as ``/v1/verifications`` checks a recommendation). The
body is streamed to disk as it arrives (never held in memory whole); a body over
``max_trace_bytes`` gets 413 as soon as its declared length, or the bytes read so far, pass
the limit. The trace is then read in a background job: 202 with the job's id at once, then
``GET /v1/traces/{id}`` for status, progress (the share of the file read) and the result. A
file that cannot be read makes the job fail with a message that says what is wrong and where
(line or byte offset); the service is not affected.
"""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import File, FormParser, create_form_parser

from app.deps import (
    TOKEN_RESPONSES,
    ClientDep,
    JobTokenDep,
    SettingsDep,
    TraceJobsDep,
    token_refused,
)
from app.errors import invalid
from app.jobs.store import NotOwner, QueueFull
from app.schemas.common import MAX_CAPACITY_BPS, MIN_CAPACITY_BPS
from app.schemas.traces import TraceCreatedOut, TraceJobOut
from app.services.names import FieldError, api_word
from app.services.trace import TraceOptions, trace_options
from app.settings import Settings
from app.trace_form import TRACE_FORM_FIELDS, TRACE_FORM_RULES
from app.trace_jobs import TraceJob, TraceJobs

router = APIRouter(prefix="/traces", tags=["traces"])

#: Form fields besides ``file``.
TEXT_FIELDS = tuple(TRACE_FORM_FIELDS)
#: Bytes a form part may hold in memory before it is written to disk.
IN_MEMORY_BYTES = 1 << 20

JobId = Annotated[
    str,
    PathParam(pattern=r"^[0-9a-f]{32}$", description="Job id returned by POST /v1/traces."),
]


def _invalid(name: str, message: str, value: Any) -> RequestValidationError:
    return invalid(("body", name), message, value=value)


def _options(form: dict[str, str], filename: str) -> TraceOptions:
    """The trace's options from the form's text fields (422 naming the field); a blank field
    is one not given, and a field must match its pattern in the OpenAPI schema."""
    for name, text in form.items():
        if len(text) > TRACE_FORM_FIELDS[name]["maxLength"]:
            raise _invalid(
                name, f"{name}: longer than {TRACE_FORM_FIELDS[name]['maxLength']} characters", None
            )
    fields = {name: text for name, text in form.items() if text.strip()}
    for name, text in fields.items():
        if re.fullmatch(TRACE_FORM_FIELDS[name]["pattern"], text) is None:
            raise _invalid(
                name,
                f"{name}: cannot read {text!r}; {TRACE_FORM_FIELDS[name]['description']}",
                text,
            )
    try:
        options = trace_options(
            fields,
            api_word,
            capacity_range=(MIN_CAPACITY_BPS, MAX_CAPACITY_BPS),
            filename=filename,
        )
    except FieldError as exc:
        raise invalid(("body", *exc.field), str(exc), value=exc.value) from exc
    verify = fields.get("verify", "false").strip()
    return replace(options, verify=verify in ("true", "1"))


@router.post(
    "",
    status_code=202,
    summary="Upload a packet trace and estimate BSCL's parameters from it",
    description="multipart/form-data: the trace in the `file` part (pcap, pcapng or the CSV of "
    '`bufsize simulate --trace`), and optional fields `capacity_bps` (\\"50 Mbit/s\\"), '
    "`buffer_packets` (the buffer while the trace was taken: packets or a size), "
    '`warmup_s` (\\"10s\\"), `max_loss` '
    '(\\"1%\\"), `verify` (true: simulate the BSCL size, half and double it, as '
    "/v1/verifications does for a recommendation), `replications` and `seed`. Answers 202 "
    "with the job's "
    "id; poll GET /v1/traces/{id}. 413 when the body passes max_trace_bytes (checked as it "
    "arrives); 415 for a body that is not multipart/form-data; 422 naming the field; 429 when "
    "too many trace jobs are pending.",
    responses={
        413: {"description": "Body over max_trace_bytes."},
        415: {"description": "Not multipart/form-data."},
        422: {"description": "A form field or the trace is invalid; `detail` names it."},
        429: {"description": "Too many trace jobs waiting or running; retry after Retry-After."},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": {
                            "file": {
                                "type": "string",
                                "format": "binary",
                                "description": "The trace: pcap, pcapng, or the CSV "
                                "time_s,flow,size_bytes,dropped.",
                            },
                            **TRACE_FORM_FIELDS,
                        },
                        **TRACE_FORM_RULES,
                    }
                }
            },
        }
    },
)
async def create_trace(
    request: Request,
    response: Response,
    jobs: TraceJobsDep,
    settings: SettingsDep,
    client: ClientDep,
) -> TraceCreatedOut:
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise HTTPException(
            status_code=415,
            detail="send the trace as multipart/form-data with the file in the 'file' part",
        )
    upload_dir = jobs.upload_dir()
    try:
        return await _receive(request, response, jobs, settings, client, upload_dir)
    except BaseException:
        # Refused, or the client went away: the upload and its directory go (a queued job
        # owns them from submit on, and deletes them when it ends).
        shutil.rmtree(upload_dir, ignore_errors=True)
        raise


async def _receive(
    request: Request,
    response: Response,
    jobs: TraceJobs,
    settings: Settings,
    client: str,
    upload_dir: Path,
) -> TraceCreatedOut:
    """Stream the body into ``upload_dir`` and queue the trace's job."""
    content_type = request.headers.get("content-type", "")
    fields: dict[str, str] = {}
    files: dict[str, File] = {}

    def on_field(field: Any) -> None:
        name = (field.field_name or b"").decode("utf-8", "replace")
        if name in TEXT_FIELDS:
            fields[name] = (field.value or b"").decode("utf-8", "replace")

    def on_file(file: File) -> None:
        name = (file.field_name or b"").decode("utf-8", "replace")
        files[name] = file

    parser: FormParser
    try:
        parser = create_form_parser(
            {"Content-Type": content_type.encode("latin-1")},
            on_field,
            on_file,
            config={
                "UPLOAD_DIR": str(upload_dir),
                "MAX_MEMORY_FILE_SIZE": IN_MEMORY_BYTES,
                "UPLOAD_DELETE_TMP": False,
            },
        )
        async for chunk in request.stream():  # the body limit stops this with 413
            parser.write(chunk)
        parser.finalize()
    except FormParserError as exc:  # a malformed body: the client's
        raise HTTPException(
            status_code=400, detail=f"the multipart body could not be read: {exc}"
        ) from exc
    upload = files.get("file")
    if upload is None:
        raise _invalid("file", "the trace must be sent in a form part named 'file'", None)
    filename = (upload.file_name or b"trace").decode("utf-8", "replace")
    options = _options(fields, filename)
    upload.flush_to_disk()
    upload.file_object.close()
    path = Path(
        upload.actual_file_name.decode()
        if isinstance(upload.actual_file_name, bytes)
        else str(upload.actual_file_name)
    )
    try:
        job, token = jobs.submit(upload_dir, path, options, client)
    except QueueFull as exc:
        raise HTTPException(
            status_code=429,
            detail=str(exc),
            headers={"Retry-After": str(settings.retry_after_s)},
        ) from exc
    response.headers["Location"] = str(request.url_for("get_trace", job_id=job.id))
    return TraceCreatedOut(id=job.id, status=job.status, bytes=upload.size, token=token)


def _job_out(job: TraceJob) -> TraceJobOut:
    return TraceJobOut(
        id=job.id,
        status=job.status,
        progress=job.progress if math.isfinite(job.progress) else 0.0,
        message=job.message,
        created_at=job.created_at,
        finished_at=job.finished_at,
        result=job.result,
    )


@router.get(
    "/{job_id}",
    summary="Status, progress and result of a trace job",
    description="Status (queued, running, succeeded, failed), progress (the share of the file "
    "read; while the file is read again, at the estimated rate or for this link's queue, the "
    "message says which reading and its share; "
    "while the check runs, the message counts its runs), and when done the estimates "
    "with their 95% intervals, the BSCL buffer, and the simulation check (`verification`, the "
    "shape of the one from /v1/verifications) when verify was asked. A failed job's message "
    "says what is wrong with "
    "the file and where.",
    responses={404: {"description": "No trace job with this id."}},
)
def get_trace(job_id: JobId, jobs: TraceJobsDep) -> TraceJobOut:
    job = jobs.get(job_id)
    if job is None:
        raise HTTPException(status_code=404, detail=f"no trace job {job_id}")
    return _job_out(job)


@router.delete(
    "/{job_id}",
    summary="Cancel a trace job",
    description="A queued job is cancelled at once; a running one's process is stopped within "
    "about a second, and the job then reads 'cancelled'. The upload is deleted either way. "
    "Needs the job's token (X-Job-Token, returned by the POST that created it): 401 without, "
    "403 with another. 409 if the job already ended.",
    responses={
        **TOKEN_RESPONSES,
        404: {"description": "No trace job with this id."},
        409: {"description": "The job already succeeded, failed or was cancelled."},
    },
)
def cancel_trace(job_id: JobId, jobs: TraceJobsDep, token: JobTokenDep) -> TraceJobOut:
    try:
        cancelled = jobs.cancel(job_id, token)
    except NotOwner as exc:
        raise token_refused("trace", job_id, token) from exc
    if cancelled is None:
        raise HTTPException(status_code=404, detail=f"no trace job {job_id}")
    job, active = cancelled
    if not active:
        raise HTTPException(status_code=409, detail=f"trace job {job_id} already {job.status}")
    return _job_out(job)
