"""``/v1/recommend`` computed by the service's answer processes (app/answer_pool.py).

The service started with ``answer_workers`` answers from worker processes: the same bytes as the
engine's answer in this process, a worker killed from outside is replaced, and the workers stop
with the service (tests/app/test_jobs_service_death.py kills ``bufsize serve`` itself).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import app.routers.recommend
import app.services.recommend
from app.main import create_app
from app.schemas.recommend import RecommendRequest, RecommendResponse
from app.settings import Settings, get_settings
from models.recommend import recommend

WORKERS = 2

SCENARIOS: list[dict[str, Any]] = [
    # 000 §1.3's link with slow access links: every rule applies
    {
        "capacity_bps": 10e9,
        "rtt_s": 0.1,
        "flows": 1000,
        "packet_bytes": 1000.0,
        "max_window_packets": 64,
        "access_bps": 10e6,
    },
    # few long flows, congestion control not given: both candidates sized
    {"capacity_bps": 1e9, "rtt_s": 0.05, "flows": 4},
    {"capacity_bps": 40e9, "rtt_s": 0.02, "flows": 200, "congestion_control": "cubic"},
]


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[FastAPI, TestClient]]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        dask_scheduler=None,
        answer_workers=WORKERS,
    )
    application = create_app()
    application.dependency_overrides[get_settings] = lambda: settings
    app.routers.recommend.clear_cached_answers()
    with TestClient(application) as client:
        yield application, client
    app.routers.recommend.clear_cached_answers()


def _engine_here(scenario: dict[str, Any]) -> bytes:
    """The answer computed in this process and written through the response model."""
    link, targets = RecommendRequest.model_validate({"scenario": scenario}).to_domain()
    return RecommendResponse.of(recommend(link, targets)).model_dump_json().encode()


def _refuse(*args: Any) -> Any:
    raise AssertionError("the answer was computed in the web process")


def test_answers_come_from_the_workers_byte_for_byte(
    service: tuple[FastAPI, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    application, client = service
    pids = application.state.answer_pool.worker_pids()
    assert len(pids) == WORKERS and os.getpid() not in pids
    expected = [_engine_here(scenario) for scenario in SCENARIOS]
    # The web process's engine now fails: the answers below were computed elsewhere.
    monkeypatch.setattr(app.services.recommend, "recommend_link", _refuse)
    for scenario, engine_answer in zip(SCENARIOS, expected, strict=True):
        response = client.post("/v1/recommend", json={"scenario": scenario})
        assert response.status_code == 200, response.text
        assert response.content == engine_answer


def test_a_killed_worker_is_replaced(service: tuple[FastAPI, TestClient]) -> None:
    application, client = service
    pool = application.state.answer_pool
    before = pool.worker_pids()
    os.kill(before[0], signal.SIGKILL)
    # Each answer still comes (the one that met the broken pool computed in the web process),
    # and new workers take the next ones.
    for capacity in (1e9, 2e9, 3e9):
        scenario = {**SCENARIOS[1], "capacity_bps": capacity}
        response = client.post("/v1/recommend", json={"scenario": scenario})
        assert response.status_code == 200, response.text
        assert response.content == _engine_here(scenario)
    after = pool.worker_pids()
    assert after and not set(after) & set(before)


def test_without_workers_the_web_process_answers(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'jobs.db'}", answer_workers=0)
    application = create_app()
    application.dependency_overrides[get_settings] = lambda: settings
    app.routers.recommend.clear_cached_answers()
    with TestClient(application) as client:
        assert application.state.answer_pool.worker_pids() == []
        response = client.post("/v1/recommend", json={"scenario": SCENARIOS[1]})
    assert response.status_code == 200, response.text
    assert response.content == _engine_here(SCENARIOS[1])
