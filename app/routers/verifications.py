"""``/v1/verifications``: a recommendation checked by simulation (thin wrapper).

``POST`` takes the body of ``/v1/recommend`` plus ``replications`` and ``seed``. It plans the
verification (validation/verify.py: the recommended size, half and double, on the link scaled
to a simulable size) and queues the runs as an ordinary simulation job. The request is
idempotent: the same body names the same job, so the client polls by sending it again. While
the job runs the answer is 202 with the job's id and progress (the raw runs are at
``GET /v1/simulations/{id}``); once it has succeeded the answer is 200 with predicted and
simulated utilization, loss and queueing delay side by side and a verdict. A link that cannot
be scaled faithfully is answered at once with 200 and the reason.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import Field

from app.deps import JobPoolDep, SettingsDep
from app.errors import invalid
from app.jobs.store import QueueFull
from app.jobs.tables import JobStatus
from app.schemas.common import ResponseModel
from app.schemas.recommend import RecommendRequest
from app.services.verify import outcome, plan_verification

router = APIRouter(prefix="/verifications", tags=["recommend"])


class VerificationRequest(RecommendRequest):
    """A link and targets, as for /v1/recommend, and how to replicate the simulations."""

    replications: int = Field(5, ge=2, le=50, description="Simulator runs per buffer size.")
    seed: int = Field(1, ge=0, le=2**63 - 1, description="Seed of the replications.")


class VerificationOut(ResponseModel):
    """A verification: queued or running (202), or done (200) with its outcome."""

    id: str | None = Field(description="The simulation job's id (GET /v1/simulations/{id}).")
    status: str = Field(description="queued, running, succeeded, failed, cancelled, or done.")
    progress: float = Field(ge=0.0, le=1.0)
    message: str | None = None
    verification: dict[str, Any] | None = Field(
        description="Scaling, per-size predicted vs simulated figures and the verdict "
        "(validation.verify.Verification), once available."
    )


@router.post(
    "",
    response_model=VerificationOut,
    summary="Check a recommendation by simulation",
    description="Simulate the recommended buffer, half and double it on the link scaled to a "
    "simulable size (C and N scaled together; per-flow rate, RTTs and window kept). Answers "
    "202 with the job's id and progress while it runs; send the same body again to poll; 200 "
    "with predicted vs simulated utilization, loss and queueing delay and a verdict when done.",
    responses={202: {"description": "Queued or running; poll by sending the same body."}},
)
def create_verification(
    body: VerificationRequest,
    request: Request,
    response: Response,
    pool: JobPoolDep,
    settings: SettingsDep,
) -> VerificationOut:
    link, targets = body.to_domain()
    planned = plan_verification(link, targets, body.replications, body.seed, settings)
    p = planned.plan
    if planned.job is None:
        return VerificationOut(
            id=None, status="done", progress=1.0, verification=p.unfaithful().to_dict()
        )
    spec, packets = planned.job.spec, planned.job.packets
    if packets > settings.max_packets_per_job:
        raise invalid(
            ("body", "replications"),
            f"the verification would simulate about {packets:,} bottleneck packets; the limit "
            f"is {settings.max_packets_per_job:,} (max_packets_per_job): ask for fewer "
            "replications",
            value=body.replications,
        )
    try:
        job, _ = pool.submit(spec)
    except QueueFull as exc:
        raise HTTPException(
            status_code=429, detail=str(exc), headers={"Retry-After": str(settings.retry_after_s)}
        ) from exc
    response.headers["Location"] = str(request.url_for("get_simulation", job_id=job.id))
    if job.status != JobStatus.SUCCEEDED:
        response.status_code = 202
        return VerificationOut(
            id=job.id,
            status=job.status.value,
            progress=job.progress,
            message=job.message,
            verification=None,
        )
    return VerificationOut(
        id=job.id,
        status=job.status.value,
        progress=1.0,
        message=job.message,
        verification=outcome(p, pool.store.results(spec)).to_dict(),
    )
