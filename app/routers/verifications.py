"""``/v1/verifications``: a recommendation checked by simulation (thin wrapper).

``POST`` takes the body of ``/v1/recommend`` plus ``replications``, ``max_replications`` and
``seed``. It plans the verification (app/services/verify.py, validation/verify.py: the
recommended size, half and double, on the link scaled to a simulable size) and queues its runs
as ordinary simulation jobs. When a target is left undecided at a size (its 99 % bounds
straddle it), a further job runs an extra batch of replications for the undecided sizes, up to
``max_replications`` per size, as ``bufsize recommend --verify`` does (same seeds). The
request is idempotent: the same body names the same jobs, in the same order, so the client
polls by sending it again. While a job runs the answer is 202 with its id and progress (the raw
runs are at ``GET /v1/simulations/{id}``); once every batch needed has succeeded the answer is
200 with predicted and simulated utilization, loss and queueing delay side by side, each target
met / missed / undecided at each size, and the prediction's fate. A link that cannot be scaled
faithfully is answered at once with 200 and the reason.

With ``search`` the same jobs serve validation/size_search.py's bisection (as ``bufsize recommend
--search``): each size tried is such a check, and the answer, once every job it needs has
succeeded, holds ``search`` (the smallest size found to meet every target, the size one step
smaller, and each size tried with its figures) instead of ``verification``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import Field

from app.deps import ClientDep, JobPoolDep, SettingsDep, WarmupDep
from app.jobs.store import JobView, QueueFull
from app.jobs.tables import JobStatus
from app.schemas.common import MAX_SEED, ResponseModel
from app.schemas.recommend import RecommendRequest
from app.services.simulate import JobPlan
from app.services.verify import (
    Pending,
    check_batch_size,
    checked,
    job_runner,
    plan_verification,
    searched,
)

router = APIRouter(prefix="/verifications", tags=["recommend"])


class VerificationRequest(RecommendRequest):
    """A link and targets, as for /v1/recommend, and how to replicate the simulations."""

    replications: int = Field(5, ge=2, le=50, description="Simulator runs per buffer size.")
    max_replications: int | None = Field(
        None,
        ge=2,
        le=150,
        description="Most runs per buffer size when extra batches are needed to decide a "
        "target (its 99 % bounds straddling it); default 3 x replications; >= replications.",
    )
    seed: int = Field(1, ge=0, le=MAX_SEED, description="Seed of the replications.")
    search: bool = Field(
        False,
        description="Search by simulation for the smallest size meeting every target "
        "(bisection on a log scale in the rules' bracket, each size checked as a verification "
        "checks one) instead of checking the recommended size, half and double.",
    )


class VerificationOut(ResponseModel):
    """A verification: queued or running (202), or done (200) with its outcome."""

    id: str | None = Field(description="The simulation job's id (GET /v1/simulations/{id}).")
    status: str = Field(description="queued, running, succeeded, failed, cancelled, or done.")
    progress: float = Field(ge=0.0, le=1.0)
    message: str | None = None
    token: str | None = Field(
        None,
        description="The running job's capability token, given once, by the POST that created "
        "the job: send it as X-Job-Token to DELETE /v1/simulations/{id}. Null when the job "
        "already existed (an identical body shares the result, not the control).",
    )
    verification: dict[str, Any] | None = Field(
        description="Scaling, per-size predicted vs simulated figures, each target met, missed "
        "or undecided, and the verdict (validation.verify.Verification), once available."
    )
    search: dict[str, Any] | None = Field(
        None,
        description="With search: the smallest size found to meet every target, the size one "
        "step smaller, and each size tried with its simulated figures "
        "(validation.size_search.SearchOutcome), once available.",
    )


@router.post(
    "",
    response_model=VerificationOut,
    summary="Check a recommendation by simulation, or search the smallest size",
    description="Simulate the recommended buffer, half and double it on the link scaled to a "
    "simulable size (C and N scaled together; per-flow rate, RTTs and window kept), with extra "
    "replications for a size whose target is undecided, up to max_replications; or, with "
    "search, bisect the rules' bracket for the smallest size meeting every target. Answers 202 "
    "with the running job's id and progress; send the same body again to poll; 200 when done "
    "with predicted vs simulated utilization, loss and queueing delay, each target met, missed "
    "or undecided from one-sided 99 % bounds, and how the prediction fared.",
    responses={202: {"description": "Queued or running; poll by sending the same body."}},
)
def create_verification(
    body: VerificationRequest,
    request: Request,
    response: Response,
    pool: JobPoolDep,
    warmup: WarmupDep,
    settings: SettingsDep,
    client: ClientDep,
) -> VerificationOut:
    link, targets = body.to_domain()
    planned = plan_verification(
        link, targets, body.replications, body.seed, settings, body.max_replications
    )
    p = planned.plan
    if p.scenario is None and not body.search:
        return VerificationOut(
            id=None, status="done", progress=1.0, verification=p.unfaithful().to_dict()
        )

    def submit(job_plan: JobPlan) -> JobView:
        check_batch_size(job_plan, settings, body.replications)
        try:
            job, _, token = pool.submit(job_plan.spec, client, job_plan.packets)
        except QueueFull as exc:
            raise HTTPException(
                status_code=429,
                detail=str(exc),
                headers={"Retry-After": str(settings.retry_after_s)},
            ) from exc
        if token is not None:
            tokens[job.id] = token
        return job

    tokens: dict[str, str] = {}
    seen: list[JobView] = []
    run = job_runner(submit, pool.store.results_with_runs, settings, seen)
    try:
        if body.search:
            found, outcome = searched(planned, run), None
        else:
            found, outcome = None, checked(planned, run)
    except Pending as waiting:
        job = waiting.job
        response.status_code = 202
        response.headers["Location"] = str(request.url_for("get_simulation", job_id=job.id))
        extra = f"extra batch {waiting.batch} of replications: " if waiting.batch else ""
        # While the simulator compiles at start-up, the time spent against the usual time.
        preparing = warmup.status() if job.status == JobStatus.QUEUED else None
        return VerificationOut(
            id=job.id,
            status=job.status.value,
            progress=job.progress if preparing is None else preparing[1],
            message=preparing[0]
            if preparing is not None
            else (f"{extra}{job.message or ''}" if extra else job.message),
            token=tokens.get(job.id),
            verification=None,
        )
    result = {
        "verification": outcome.to_dict() if outcome is not None else None,
        "search": found.to_dict() if found is not None else None,
    }
    if not seen:  # nothing simulated: the search could not start (the reason is in it)
        return VerificationOut(id=None, status="done", progress=1.0, **result)
    job = seen[-1]
    response.headers["Location"] = str(request.url_for("get_simulation", job_id=job.id))
    return VerificationOut(
        id=job.id, status=job.status.value, progress=1.0, message=job.message, **result
    )
