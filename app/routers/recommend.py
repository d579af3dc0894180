"""``/v1/recommend``: every rule for one port, their assumptions checked, and one size."""

from __future__ import annotations

from functools import lru_cache

from fastapi import APIRouter, Response
from pydantic import TypeAdapter

from app.schemas.recommend import (
    RecommendRequest,
    RecommendWithDeviceResponse,
)
from app.services import recommend as service
from models.recommend import LinkScenario, Recommendation, Targets

router = APIRouter(tags=["recommend"])

# Recommendations kept, serialized, for repeated identical requests (the engine is a pure
# function of scenario and targets; one answer is about 25 kB).
CACHED_RECOMMENDATIONS = 512


#: The engine's answer written straight from its dataclasses: the bytes
#: ``RecommendResponse.of(answer).model_dump_json()`` writes (field for field, non-finite
#: numbers as null; tests/app/test_api_recommend_shape.py compares them), without validating
#: every answer into the response model first (0.28 -> 0.09 ms of an answer's ~2.5 ms).
_ANSWER_JSON = TypeAdapter(Recommendation)


@lru_cache(maxsize=CACHED_RECOMMENDATIONS)
def recommendation_json(scenario: LinkScenario, targets: Targets) -> bytes:
    """The engine's answer as JSON bytes, in :class:`RecommendResponse`'s shape."""
    return _ANSWER_JSON.dump_json(service.recommend(scenario, targets))


@router.post(
    "/recommend",
    response_model=RecommendWithDeviceResponse,
    summary="Recommend a buffer size",
    description="Every sizing rule of the five papers (docs/references.md) applied to the port, "
    "each with its assumptions marked holds / fails / unknown and its predicted utilization, "
    "loss and delay; the traffic regime; one recommended size with the rule that governs it "
    "and why; the trade-off when no size meets every target (004 §V); and curves against "
    "buffer size for plotting. With a device, also the recommended size as that device's "
    "configuration (device_config, the shape /v1/config returns).",
)
async def recommend_buffer(body: RecommendRequest) -> Response:
    # Run on the event loop, not in the thread pool: one answer is ~2 ms of CPU, and twenty
    # threads sharing the GIL made the slowest answers wait three times longer than the queue
    # (benchmarks/api_load.py: distinct scenarios, p99 161 ms in threads, 41 ms here).
    scenario, targets = body.to_domain()
    if body.device is None:
        content = recommendation_json(scenario, targets)
    else:
        result = service.recommend_for(scenario, targets, body.device.to_domain())
        content = RecommendWithDeviceResponse.for_device(result).model_dump_json().encode()
    return Response(content, media_type="application/json")
