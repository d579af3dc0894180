"""/v1/simulations limits and errors: 413 for big bodies, 422 naming the field and the bound.

Also the settings' own checks, which stop the service at start-up when a setting cannot work.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.jobs.lifespan import simulation_runner
from app.main import create_app
from app.settings import Settings, get_settings
from tests.app import test_api_simulations_runners as runners
from validation.simulator.scenario import Scenario, estimate_packets


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=2,
        max_pending_jobs_per_client=2,  # one TestClient is one client; the queue is its own
        max_body_bytes=2048,
        max_replications=10,
        max_packets_per_job=1_000_000,
        dask_scheduler=None,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    app.dependency_overrides[simulation_runner] = lambda: runners.quick_runner
    with TestClient(app) as test_client:
        yield test_client


def small_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "scenario": {"capacity_bps": "1 Mbit/s", "duration_s": 10, "warmup_s": 1},
        "buffer_packets": [5, 10],
        "replications": 2,
        "seed": 3,
    }
    body.update(changes)
    return body


def only_error(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 422, answer.text
    (error,) = answer.json()["detail"]
    assert isinstance(error, dict)
    return error


def test_body_over_the_limit_gets_413_naming_the_limit(client: TestClient) -> None:
    answer = client.post(
        "/v1/simulations",
        content=b'{"padding": "' + b"x" * 4000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 413
    assert answer.json()["detail"] == (
        "request body too large (4,015 bytes); the limit is 2,048 bytes (max_body_bytes)"
    )


def test_chunked_body_over_the_limit_gets_413(client: TestClient) -> None:
    # No Content-Length: the body is counted as it arrives.
    chunks = iter([b'{"padding": "', b"x" * 4000, b'"}'])
    answer = client.post(
        "/v1/simulations", content=chunks, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413
    assert "the limit is 2,048 bytes (max_body_bytes)" in answer.json()["detail"]


def test_bbr_senders_are_accepted(client: TestClient) -> None:
    body = small_body()
    body["scenario"] |= {
        "groups": [{"flows": 2, "congestion_control": "bbr"}, {"congestion_control": "cubic"}]
    }
    answer = client.post("/v1/simulations", json=body)
    assert answer.status_code == 202, answer.text
    body = small_body()
    body["scenario"] |= {"congestion_control": "bbr"}
    answer = client.post("/v1/simulations", json=body)
    assert answer.status_code == 202, answer.text


def test_replications_over_the_limit_get_422_naming_the_bound(client: TestClient) -> None:
    error = only_error(client.post("/v1/simulations", json=small_body(replications=11)))
    assert error["loc"] == ["body", "replications"]
    assert error["msg"] == "replications must be <= 10 (max_replications), got 11"


def test_packet_budget_over_the_limit_gets_422_naming_the_bound(client: TestClient) -> None:
    body = small_body()
    body["scenario"]["duration_s"] = 10_000
    # The job's size is the simulator's own estimate per run, times runs and buffer sizes.
    per_run = estimate_packets(Scenario(capacity_bps=1e6, duration_s=10_000.0, warmup_s=1.0))
    error = only_error(client.post("/v1/simulations", json=body))
    assert error["loc"] == ["body", "scenario", "duration_s"]
    assert f"about {per_run * 2 * 2:,} bottleneck packets" in error["msg"]
    assert "the limit is 1,000,000 (max_packets_per_job)" in error["msg"]


def test_scenario_bound_between_two_fields_names_the_field(client: TestClient) -> None:
    body = small_body()
    body["scenario"] |= {"rtt_s": "10 ms", "rtt_jitter_s": "20 ms"}
    error = only_error(client.post("/v1/simulations", json=body))
    assert error["loc"] == ["body", "scenario", "rtt_jitter_s"]
    assert error["msg"].startswith("rtt_jitter_s must be < rtt_s (0.01)")


@pytest.mark.parametrize(
    ("scenario", "field", "words"),
    [
        ({"capacity_bps": "fast"}, "capacity_bps", "cannot read"),
        ({"capacity_bps": "100 ms"}, "capacity_bps", "not a rate"),
        ({"flows": 0}, "flows", "greater than or equal to 1"),
        ({"traffic": "bursty"}, "traffic", "persistent"),
        ({"congestion_control": "vegas"}, "congestion_control", "'bbr'"),
        ({"ca_increase": "per_byte"}, "ca_increase", "'bytes_acked' or 'per_ack'"),
        ({"warmup_s": 20}, "warmup_s", "must be < duration_s"),
        ({"packet_budget": 5}, "packet_budget", "Extra inputs"),
        ({"groups": [{"flows": 2}, {"flows": 0}]}, "groups", "greater than or equal to 1"),
        (
            {"groups": [{"rtt_s": "5 ms", "rtt_jitter_s": "6 ms"}]},
            "groups",
            "groups[0].rtt_jitter_s",
        ),
        ({"groups": [{"flows": 2}], "flows": 5}, "flows", "set it in each group"),
        ({"congestion_control": "vegas"}, "congestion_control", "'dctcp'"),
        ({"ecn_threshold_packets": 0}, "ecn_threshold_packets", "greater than or equal to 1"),
        ({"ecn_threshold_bytes": "90 ms"}, "ecn_threshold_bytes", "not a size"),
        (
            {"ecn_threshold_packets": 5, "ecn_threshold_bytes": 9000},
            "ecn_threshold_bytes",
            "not both",
        ),
        (
            {"ecn_threshold_packets": 5, "discipline": "fq"},
            "discipline",
            "drop-tail FIFO only",
        ),
        ({"groups": [{"flows": 2, "ecn": "maybe"}]}, "groups", "valid boolean"),
    ],
)
def test_invalid_scenario_field_gets_422_naming_it(
    client: TestClient, scenario: dict[str, Any], field: str, words: str
) -> None:
    body = small_body()
    body["scenario"] |= scenario
    error = only_error(client.post("/v1/simulations", json=body))
    assert error["loc"][:3] == ["body", "scenario", field]
    assert words in error["msg"]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"buffer_packets": []}, ["body", "buffer_packets"]),
        ({"buffer_packets": [0]}, ["body", "buffer_packets", 0]),
        ({"replications": 0}, ["body", "replications"]),
        ({"seed": -1}, ["body", "seed"]),
    ],
)
def test_invalid_request_field_gets_422(
    client: TestClient, changes: dict[str, Any], loc: list[Any]
) -> None:
    assert only_error(client.post("/v1/simulations", json=small_body(**changes)))["loc"] == loc


def test_unknown_and_malformed_job_ids(client: TestClient) -> None:
    missing = "0" * 32
    assert client.get(f"/v1/simulations/{missing}").status_code == 404
    assert client.delete(f"/v1/simulations/{missing}").status_code == 404
    assert only_error(client.get("/v1/simulations/not-an-id"))["loc"] == ["path", "job_id"]


def test_settings_refuse_what_cannot_work(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'jobs.db'}"
    with pytest.raises(ValidationError, match=r"max_pending_jobs \(2\) must be >= workers \(3\)"):
        Settings(database_url=database, workers=3, max_pending_jobs=2)
    with pytest.raises(ValidationError, match="in-memory SQLite"):
        Settings(database_url="sqlite://")
    with pytest.raises(ValidationError, match="cannot read 'nonsense' as an SQLAlchemy URL"):
        Settings(database_url="nonsense")
    with pytest.raises(ValidationError, match="max_body_bytes"):
        Settings(database_url=database, max_body_bytes=0)


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BUFSIZE_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    monkeypatch.setenv("BUFSIZE_MAX_PENDING_JOBS", "7")
    monkeypatch.setenv("BUFSIZE_DASK_SCHEDULER", "tcp://127.0.0.1:8786")
    settings = Settings()
    assert settings.max_pending_jobs == 7
    assert settings.dask_scheduler == "tcp://127.0.0.1:8786"
    assert settings.database_url.endswith("env.db")


def test_dctcp_with_a_marking_threshold_is_accepted_in_si_units(client: TestClient) -> None:
    body = small_body()
    body["scenario"] |= {
        "groups": [
            {"flows": 2, "congestion_control": "dctcp"},
            {"flows": 2, "congestion_control": "cubic", "ecn": True},
        ],
        "ecn_threshold_bytes": "15 kB",
    }
    answer = client.post("/v1/simulations", json=body)
    assert answer.status_code == 202, answer.text
    assert answer.json()["warnings"] == []
    job = client.get(f"/v1/simulations/{answer.json()['id']}").json()
    scenario = job["request"]["scenario"]
    assert scenario["ecn_threshold_bytes"] == 15_000
    assert scenario["ecn_threshold_packets"] is None
    assert [g["congestion_control"] for g in scenario["groups"]] == ["dctcp", "cubic"]
    assert [g["ecn"] for g in scenario["groups"]] == [False, True]


def test_dctcp_without_a_marking_threshold_is_warned_about(client: TestClient) -> None:
    body = small_body()
    body["scenario"] |= {"congestion_control": "dctcp"}
    answer = client.post("/v1/simulations", json=body)
    assert answer.status_code == 202, answer.text
    assert any("never marks" in w for w in answer.json()["warnings"])
