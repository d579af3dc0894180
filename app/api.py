"""The versioned API: every family's router, gathered under ``/v1``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from app.deps import client_of
from app.routers import (
    device_config,
    flow_level,
    optical,
    pacing,
    queues,
    recommend,
    rules,
    simulations,
    traces,
    verifications,
)
from app.schemas.common import ErrorMessage

# Answers every operation may give besides its own (422 is documented by FastAPI itself).
COMMON_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorMessage, "description": "The body could not be read as JSON."},
}

# Every operation names the client (and, with BUFSIZE_API_KEYS, checks its key).
api_router = APIRouter(prefix="/v1", responses=COMMON_RESPONSES, dependencies=[Depends(client_of)])
api_router.include_router(rules.router)
api_router.include_router(queues.router)
api_router.include_router(flow_level.router)
api_router.include_router(pacing.router)
api_router.include_router(optical.router)
api_router.include_router(recommend.router)
api_router.include_router(device_config.router)
api_router.include_router(simulations.router)
api_router.include_router(verifications.router)
api_router.include_router(traces.router)
