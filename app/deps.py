"""The typed dependencies of the routes, in one place: ``JobPoolDep``, ``SettingsDep``, ...

Each alias is ``Annotated[T, Depends(provider)]``; a route names the alias and gets a ``T``, and
``app.dependency_overrides[provider]`` replaces it (the tests give a temporary database so).
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Security
from fastapi.security import APIKeyHeader

from app.answer_pool import AnswerPool
from app.jobs.lifespan import get_answer_pool, get_job_pool, get_trace_jobs, get_warmup
from app.jobs.pool import JobPool
from app.jobs.warmup import SimulatorWarmup
from app.settings import Settings, get_settings, settings_of
from app.trace_jobs import TraceJobs

#: The running simulation job pool (503 when it is not running).
JobPoolDep = Annotated[JobPool, Depends(get_job_pool)]
#: The trace jobs (503 when they are not running).
TraceJobsDep = Annotated[TraceJobs, Depends(get_trace_jobs)]
#: The service's settings.
SettingsDep = Annotated[Settings, Depends(get_settings)]
#: The start-up compile of the simulator (what a waiting check says meanwhile).
WarmupDep = Annotated[SimulatorWarmup, Depends(get_warmup)]
#: The processes computing /v1/recommend's answers (none: computed on the event loop).
AnswerPoolDep = Annotated[AnswerPool, Depends(get_answer_pool)]

#: Methods that read: open by id even when API keys are set.
READING = frozenset({"GET", "HEAD", "OPTIONS"})

api_key_header = APIKeyHeader(
    name="X-API-Key",
    scheme_name="ApiKey",
    description="Needed on every POST and DELETE under /v1 when the service is started with "
    "BUFSIZE_API_KEYS; quotas (pending jobs, work) are counted per key.",
    auto_error=False,
)
job_token_header = APIKeyHeader(
    name="X-Job-Token",
    scheme_name="JobToken",
    description="The capability token returned (once) by the POST that created the job; "
    "cancelling needs it. Reading a job needs only its id.",
    auto_error=False,
)


async def client_of(
    request: Request,
    key: Annotated[str | None, Security(api_key_header)] = None,
) -> str:
    """Who sends the request, for quotas: ``key:<name>`` with API keys, else ``address:<ip>``.

    With ``BUFSIZE_API_KEYS`` set, a POST or DELETE without a valid key gets 401.
    """
    # Every /v1 request asks this: on the event loop (it neither waits nor computes much), with
    # the settings read here, not as a dependency, which FastAPI would run in a thread: two
    # thread hops cost about a tenth of a /v1/recommend answer.
    settings = settings_of(request.app)
    if not settings.api_keys:
        return f"address:{request.client.host if request.client else 'unknown'}"
    name = None
    for secret, key_name in settings.key_names.items():
        if key is not None and hmac.compare_digest(key.encode(), secret.encode()):
            name = key_name
    if name is None:
        if request.method in READING:
            return "anonymous reader"
        raise HTTPException(
            status_code=401,
            detail="this service needs an API key: send it in the X-API-Key header "
            "(BUFSIZE_API_KEYS)",
            headers={"WWW-Authenticate": 'ApiKey header="X-API-Key"'},
        )
    return f"key:{name}"


#: The client a request counts against (see :func:`client_of`).
ClientDep = Annotated[str, Depends(client_of)]
#: The capability token of the job a request acts on, if sent.
JobTokenDep = Annotated[str | None, Security(job_token_header)]

#: The answers of a DELETE whose job token is missing or another job's (OpenAPI ``responses``).
TOKEN_RESPONSES: dict[int | str, dict[str, str]] = {
    401: {"description": "No X-Job-Token sent."},
    403: {"description": "The token is not this job's."},
}


def token_refused(kind: str, job_id: str, token: str | None) -> HTTPException:
    """401 (no token sent) or 403 (another job's token) for cancelling a ``kind`` job."""
    if token is None:
        return HTTPException(
            status_code=401,
            detail="cancelling needs the job's token in X-Job-Token (returned by the POST "
            "that created the job)",
            headers={"WWW-Authenticate": 'ApiKey header="X-Job-Token"'},
        )
    return HTTPException(
        status_code=403,
        detail=f"this token does not open {kind} job {job_id}: only its submitter may cancel it",
    )
