"""``/v1/simulations``: packet-simulation jobs, run in the background and polled.

``POST`` checks the request and the service's limits and answers 202 with the job's id at once
(or the id of the identical request's job, whose result is reused). ``GET`` reports status,
progress and the results of the buffer sizes finished so far; ``DELETE`` cancels.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response

from app.deps import (
    TOKEN_RESPONSES,
    ClientDep,
    JobPoolDep,
    JobTokenDep,
    SettingsDep,
    token_refused,
)
from app.errors import parameters_of
from app.jobs.store import JobStore, JobView, NotOwner, QueueFull
from app.jobs.tables import JobStatus
from app.schemas.simulations import (
    MAX_BUFFER_SIZES,
    BufferResult,
    SimulationAccepted,
    SimulationJob,
    SimulationRequest,
    SimulationSpecOut,
)
from app.services.simulate import build_scenario, check_job_size, plan_job

router = APIRouter(
    prefix="/simulations",
    tags=["simulations"],
    responses={503: {"description": "The simulation job pool is not running."}},
)

JobId = Annotated[
    str,
    Path(
        pattern=r"^[0-9a-f]{32}$",
        description="Job id returned by POST /v1/simulations.",
        examples=["5e149d43f5e6414e9dcd3270073e4ca2"],
    ),
]


@router.post(
    "",
    status_code=202,
    summary="Start a simulation job",
    description="Queue a packet-simulation job: the scenario at each buffer size, replicated. "
    "Answers 202 with the job's id and its token (keep it: DELETE needs it) at once; poll GET "
    "/v1/simulations/{id}. An identical request (same scenario in SI units, buffer sizes, "
    "replications and seed) reuses the earlier job and its result, without its token: it "
    "shares the results, not the right to cancel. 429 also when this client (API key, or "
    "address) already has its share of the queue. 413 if the body is too large; 422 naming "
    "the field if the job is invalid or over the packet, replication or result-size limits; "
    "429 with Retry-After if too many jobs are pending.",
    responses={
        413: {"description": "Request body over max_body_bytes."},
        429: {"description": "Too many jobs queued or running; retry after Retry-After seconds."},
    },
)
def create_simulation(
    body: SimulationRequest,
    request: Request,
    response: Response,
    pool: JobPoolDep,
    settings: SettingsDep,
    client: ClientDep,
) -> SimulationAccepted:
    fields = body.scenario.model_dump()
    with parameters_of("scenario"):
        scenario = build_scenario(fields)
    fields["rtt_jitter_s"] = scenario.rtt_jitter_s  # canonical: the default filled in from rtt_s
    job_plan = plan_job(
        scenario, fields, body.buffer_packets, body.replications, body.seed, settings
    )
    check_job_size(job_plan, settings)
    spec, packets = job_plan.spec, job_plan.packets
    try:
        job, reused, token = pool.submit(spec, client, packets)
    except QueueFull as exc:
        raise HTTPException(
            status_code=429, detail=str(exc), headers={"Retry-After": str(settings.retry_after_s)}
        ) from exc
    response.headers["Location"] = str(request.url_for("get_simulation", job_id=job.id))
    return SimulationAccepted(
        id=job.id,
        status=job.status.value,
        reused=reused,
        token=token,
        estimated_packets=packets,
        warnings=scenario.warnings(),
    )


@router.get(
    "/{job_id}",
    summary="Status, progress and results of a simulation job",
    description="Status (queued, running, succeeded, failed, cancelled), progress from 0 to 1, "
    "what happened last, and the results of every buffer size finished so far: each measure's "
    "mean over the replications and the half-width of its 99% confidence interval. With "
    "runs=true, every replication's measures too, one buffer size per page (runs_page, from 0, "
    "in increasing buffer size; runs_pages says how many): each run's long series are cut to "
    "1,000 points (queue_distribution binned, queue_distribution_bin_packets packets a bin; "
    "other long lists summarized as <name>_summary).",
    responses={404: {"description": "No job with this id."}},
)
def get_simulation(
    job_id: JobId,
    pool: JobPoolDep,
    runs: Annotated[bool, Query(description="Include every replication's measures.")] = False,
    runs_page: Annotated[
        int,
        Query(
            ge=0,
            le=MAX_BUFFER_SIZES - 1,
            description="With runs=true: which buffer size's runs (0: the smallest).",
        ),
    ] = 0,
) -> SimulationJob:
    job = pool.store.get(job_id)
    if job is None:
        raise HTTPException(status_code=404, detail=f"no simulation job {job_id}")
    return _job_out(pool.store, job, runs_page=runs_page if runs else None)


@router.delete(
    "/{job_id}",
    summary="Cancel a simulation job",
    description="A queued job is cancelled at once; a running one stops at its next progress "
    "report (within about a second) and then reads 'cancelled'. Needs the job's token "
    "(X-Job-Token, returned by the POST that created it): 401 without, 403 with another. 409 "
    "if the job already finished.",
    responses={
        **TOKEN_RESPONSES,
        404: {"description": "No job with this id."},
        409: {"description": "The job already succeeded or failed."},
    },
)
def cancel_simulation(job_id: JobId, pool: JobPoolDep, token: JobTokenDep) -> SimulationJob:
    try:
        job = pool.cancel(job_id, token)
    except NotOwner as exc:
        raise token_refused("simulation", job_id, token) from exc
    if job is None:
        raise HTTPException(status_code=404, detail=f"no simulation job {job_id}")
    if job.status in (JobStatus.SUCCEEDED, JobStatus.FAILED):
        raise HTTPException(
            status_code=409, detail=f"simulation job {job_id} already {job.status.value}"
        )
    return _job_out(pool.store, job, runs_page=None)


def _job_out(store: JobStore, job: JobView, *, runs_page: int | None) -> SimulationJob:
    stored = store.results(job.spec)
    paged = (
        job.spec.buffer_packets[runs_page]
        if runs_page is not None and runs_page < len(job.spec.buffer_packets)
        else None
    )
    results = []
    for buffer_packets in sorted(stored):
        result = dict(stored[buffer_packets])
        result.pop("runs", None)
        if buffer_packets == paged:
            result["runs"] = store.runs(job.spec, buffer_packets) or []
        result["buffer_packets"] = buffer_packets
        results.append(BufferResult.model_validate(result))
    return SimulationJob(
        id=job.id,
        status=job.status.value,
        progress=job.progress,
        cancel_requested=job.cancel_requested,
        message=job.message,
        created_at=job.created_at,
        started_at=job.started_at,
        finished_at=job.finished_at,
        request=SimulationSpecOut(**job.spec.to_json()),
        warnings=build_scenario(job.spec.scenario).warnings(),
        results=results,
        runs_page=runs_page,
        runs_pages=len(job.spec.buffer_packets) if runs_page is not None else None,
    )
