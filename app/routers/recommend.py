"""``/v1/recommend``: every rule for one port, their assumptions checked, and one size."""

from __future__ import annotations

from cachetools import LRUCache
from fastapi import APIRouter, Response

from app.answer_pool import AnswerPool
from app.deps import AnswerPoolDep
from app.schemas.recommend import (
    RecommendRequest,
    RecommendWithDeviceResponse,
)
from app.services import recommend as service
from models.recommend import LinkScenario, Targets

router = APIRouter(tags=["recommend"])

# Recommendations kept, serialized, for repeated identical requests (the engine is a pure
# function of scenario and targets; one answer is about 25 kB).
CACHED_RECOMMENDATIONS = 512


#: Recent answers, JSON, by scenario and targets (least recently used dropped first). A
#: mapping the awaited answer is put into, not functools.lru_cache, which would keep the
#: coroutine instead of its answer.
_ANSWERS: LRUCache[tuple[LinkScenario, Targets], bytes] = LRUCache(CACHED_RECOMMENDATIONS)


def clear_cached_answers() -> None:
    _ANSWERS.clear()


async def recommendation_json(pool: AnswerPool, scenario: LinkScenario, targets: Targets) -> bytes:
    """The engine's answer as JSON bytes, in :class:`RecommendResponse`'s shape: a recent one
    from the cache, else computed by ``pool``."""
    key = (scenario, targets)
    content = _ANSWERS.get(key)  # marks it the most recently used
    if content is None:
        content = await pool.recommendation_json(scenario, targets)
        _ANSWERS[key] = content  # dropping the least recently used one when full
    return content


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
async def recommend_buffer(body: RecommendRequest, pool: AnswerPoolDep) -> Response:
    # Computed by the service's answer processes (app.answer_pool), awaited on the event loop;
    # never in the thread pool: one answer is ~2 ms of CPU, and twenty threads sharing the GIL
    # made the slowest answers wait three times longer than the queue (benchmarks/api_load.py:
    # distinct scenarios, p99 161 ms in threads, 41 ms on the loop).
    scenario, targets = body.to_domain()
    if body.device is None:
        content = await recommendation_json(pool, scenario, targets)
    else:
        result = service.recommend_for(scenario, targets, body.device.to_domain())
        content = RecommendWithDeviceResponse.for_device(result).model_dump_json().encode()
    return Response(content, media_type="application/json")
