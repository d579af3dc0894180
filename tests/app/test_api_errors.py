"""app.errors: only a model's ParameterError is the client's 422; every other exception is a 500."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import app.routers.pacing
import app.routers.recommend
import app.routers.rules
import app.routers.simulations
import app.schemas.recommend
import app.services.recommend
from app.errors import INTERNAL_ERROR, finite_result, install_error_handlers
from app.jobs.lifespan import simulation_runner
from app.main import create_app
from app.settings import Settings, get_settings
from models.errors import ParameterError
from models.queues import mm1b_loss_probability
from tests.app import test_api_simulations_runners as runners

demo = FastAPI()
install_error_handlers(demo)


@demo.get("/model")
def model_refuses() -> float:
    return float(mm1b_loss_probability(-0.5, 10))


@demo.get("/service")
def service_fault() -> float:
    raise ValueError("a bug in the service")


@demo.get("/overflow")
def service_overflow() -> float:
    return float(10.0**400)


@demo.get("/infinite")
def infinite() -> float:
    return finite_result(float("inf"), "load", "too close to 1")


demo_client = TestClient(demo, raise_server_exceptions=False)


def test_model_value_error_is_422_naming_parameter_and_bound() -> None:
    response = demo_client.get("/model")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {"loc": ["body", "load"], "msg": "load must be > 0, got -0.5", "type": "value_error"}
        ]
    }


@pytest.mark.parametrize("path", ["/service", "/overflow"])
def test_service_faults_are_not_blamed_on_the_client(path: str) -> None:
    response = demo_client.get(path)
    assert response.status_code == 500
    assert response.json() == INTERNAL_ERROR


def test_non_finite_result_refuses_the_field() -> None:
    response = demo_client.get("/infinite")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "load"]


# --- the real service: a model function replaced by one that raises ------------------------

SECRET = "internal detail /srv/bufsize/models/secret.py line 42"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The service with a job pool on a temporary database and the quick simulation runner."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=4,
        dask_scheduler=None,
    )
    service = create_app()
    service.dependency_overrides[get_settings] = lambda: settings
    service.dependency_overrides[simulation_runner] = lambda: runners.quick_runner
    app.routers.recommend.clear_cached_answers()
    with TestClient(service, raise_server_exceptions=False) as test_client:
        yield test_client
    app.routers.recommend.clear_cached_answers()


THESIS = {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "flows": 1000, "packet_bytes": 1000}

# (module, model function it calls, path, body, where a ParameterError of the function lands)
API_PATHS: list[tuple[Any, str, str, dict[str, Any], list[str]]] = [
    (
        app.routers.rules,
        "sqrt_n_buffer_packets",
        "/v1/rules/sqrt-n",
        {"capacity_bps": 1e9, "rtt_s": 0.1, "flows": 100},
        ["body"],
    ),
    (
        app.routers.rules,
        "bscl_buffer",
        "/v1/rules/bscl",
        {
            "capacity_bps": 1e9,
            "bottlenecked_share": 0.8,
            "bottlenecked_flows": 100,
            "effective_rtt_s": 0.1,
        },
        ["body"],
    ),
    (
        app.routers.pacing,
        "paced_drop_probability_bound",
        "/v1/pacing/bound",
        {
            "capacity_bps": 1e9,
            "rtt_s": 0.1,
            "flows": 10,
            "max_window_packets": 64,
            "access_bps": 1e7,
            "buffer_packets": 10,
        },
        ["body"],
    ),
    (app.services.recommend, "recommend_link", "/v1/recommend", {"scenario": THESIS}, ["body"]),
    (
        app.schemas.recommend,
        "LinkScenario",
        "/v1/recommend",
        {"scenario": THESIS},
        ["body", "scenario"],
    ),
    (
        app.schemas.recommend,
        "Targets",
        "/v1/recommend",
        {"scenario": THESIS},
        ["body", "targets"],
    ),
    (
        app.routers.simulations,
        "build_scenario",
        "/v1/simulations",
        {"scenario": {"capacity_bps": 1e6, "duration_s": 2, "warmup_s": 1}, "buffer_packets": [5]},
        ["body", "scenario"],
    ),
]
IDS = [f"{path}:{name}" for _, name, path, _, _ in API_PATHS]


def _raising(exc: BaseException) -> Any:
    def model(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return model


@pytest.mark.parametrize(("module", "name", "path", "body", "within"), API_PATHS, ids=IDS)
@pytest.mark.parametrize(
    "exc",
    [ValueError(SECRET), OverflowError(SECRET), ZeroDivisionError(SECRET), KeyError(SECRET)],
    ids=["ValueError", "OverflowError", "ZeroDivisionError", "KeyError"],
)
def test_a_bug_inside_a_model_is_a_500_with_no_internals(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    module: Any,
    name: str,
    path: str,
    body: dict[str, Any],
    within: list[str],
    exc: BaseException,
) -> None:
    # Not the client's fault: a plain ValueError (or overflow) from a model is a fault of the
    # service, whatever its message says; the body tells nothing of it, the log tells all.
    monkeypatch.setattr(module, name, _raising(exc))
    with caplog.at_level(logging.ERROR, logger="app.errors"):
        response = client.post(path, json=body)
    assert response.status_code == 500, response.text
    assert response.json() == INTERNAL_ERROR
    assert "secret" not in response.text
    assert any(
        record.exc_info is not None and record.exc_info[1] is exc for record in caplog.records
    )


@pytest.mark.parametrize(("module", "name", "path", "body", "within"), API_PATHS, ids=IDS)
def test_every_parameter_error_is_a_422_naming_its_field(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    name: str,
    path: str,
    body: dict[str, Any],
    within: list[str],
) -> None:
    # The field comes from ParameterError.name, not from the message (which names none here).
    error = ParameterError("capacity_bps", "<= 1e12", "the message names no field")
    monkeypatch.setattr(module, name, _raising(error))
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    assert response.json() == {
        "detail": [
            {
                "loc": [*within, "capacity_bps"],
                "msg": "the message names no field",
                "type": "value_error",
            }
        ]
    }
