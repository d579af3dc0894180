"""app.errors: a model's refusal is the client's 422; the service's own faults stay 500s."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.errors import error_detail, finite_result, install_error_handlers
from models.queues import mm1b_loss_probability

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


client = TestClient(demo, raise_server_exceptions=False)


def test_model_value_error_is_422_naming_parameter_and_bound() -> None:
    response = client.get("/model")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {"loc": ["body", "load"], "msg": "load must be > 0, got -0.5", "type": "value_error"}
        ]
    }


@pytest.mark.parametrize("path", ["/service", "/overflow"])
def test_service_faults_are_not_blamed_on_the_client(path: str) -> None:
    assert client.get(path).status_code == 500


def test_non_finite_result_refuses_the_field() -> None:
    response = client.get("/infinite")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "load"]


@pytest.mark.parametrize(
    ("message", "loc"),
    [
        ("flows must be >= 1, got 0", ["body", "flows"]),
        ("capacity_bps: cannot read 'x' as a quantity", ["body", "capacity_bps"]),
        ("give exactly one of rtt_s or rtts_s", ["body"]),
        ("load N·max_window_packets/(C·RTT) must be in [0, 1), got 2", ["body"]),
    ],
)
def test_error_detail_locates_the_named_field(message: str, loc: list[str]) -> None:
    assert error_detail(message)["loc"] == loc
