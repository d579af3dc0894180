"""/v1/recommend's answer cache (app/routers/recommend.py): an identical request is answered
from it without computing, and it keeps the CACHED_RECOMMENDATIONS answers used most recently,
dropping the least recently used one first."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

import app.routers.recommend
from app.routers.recommend import CACHED_RECOMMENDATIONS, recommendation_json
from models.recommend import LinkScenario, Targets


class CountingPool:
    """Stands in for the answer pool: records which links it was asked to compute."""

    def __init__(self) -> None:
        self.computed: list[float] = []

    async def recommendation_json(self, scenario: LinkScenario, targets: Targets) -> bytes:
        self.computed.append(scenario.capacity_bps)
        return f"answer for {scenario.capacity_bps}".encode()


def _link(i: int) -> LinkScenario:
    return LinkScenario(capacity_bps=1e9 + i, rtts_s=(0.05,), flows=10)


def _ask(pool: Any, links: list[LinkScenario], targets: Targets | None = None) -> list[bytes]:
    async def ask_all() -> list[bytes]:
        return [await recommendation_json(pool, link, targets or Targets()) for link in links]

    return asyncio.run(ask_all())


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    app.routers.recommend.clear_cached_answers()
    yield
    app.routers.recommend.clear_cached_answers()


def test_an_identical_request_is_answered_from_the_cache() -> None:
    pool = CountingPool()
    first, second = _ask(pool, [_link(0), _link(0)])
    assert first == second == b"answer for 1000000000.0"
    assert pool.computed == [1e9]
    # Other targets are another answer.
    _ask(pool, [_link(0)], Targets(min_utilization=0.9))
    assert pool.computed == [1e9, 1e9]


def test_the_cache_keeps_the_most_recently_used_answers() -> None:
    pool = CountingPool()
    links = [_link(i) for i in range(CACHED_RECOMMENDATIONS + 1)]
    _ask(pool, links[:CACHED_RECOMMENDATIONS])
    _ask(pool, [links[0]])  # used again: now the most recent
    _ask(pool, [links[CACHED_RECOMMENDATIONS]])  # one more than the cache holds
    assert len(pool.computed) == CACHED_RECOMMENDATIONS + 1
    # Every answer but the least recently used one (links[1]) is still kept ...
    kept = [links[0], *links[2:]]
    assert _ask(pool, kept) == [f"answer for {link.capacity_bps}".encode() for link in kept]
    assert len(pool.computed) == CACHED_RECOMMENDATIONS + 1
    # ... and that one was dropped: asked again, it is computed again.
    _ask(pool, [links[1]])
    assert pool.computed[-1] == links[1].capacity_bps
    assert len(pool.computed) == CACHED_RECOMMENDATIONS + 2
