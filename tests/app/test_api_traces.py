"""/v1/traces: upload a trace (multipart, streamed to disk), poll the job, errors and limits."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings, get_settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=4,
        max_body_bytes=2048,
        max_trace_bytes=64 * 1024,
        dask_scheduler=None,
    )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    with TestClient(app) as test_client:
        yield test_client


def _csv(rows: int) -> bytes:
    """Two flows taking turns at 1 ms spacing, a drop every 50 packets."""
    lines = ["time_s,flow,size_bytes,dropped"]
    for i in range(rows):
        lines.append(f"{i * 0.001:.6f},{i % 2},1500,{int(i % 50 == 49)}")
    return ("\n".join(lines) + "\n").encode()


def _wait(client: TestClient, location: str) -> dict[str, Any]:
    for _ in range(600):
        body: dict[str, Any] = client.get(location).json()
        if body["status"] in ("succeeded", "failed"):
            return body
        time.sleep(0.05)
    raise AssertionError("the trace job did not finish in 30 s")


def test_upload_is_read_in_a_job(client: TestClient) -> None:
    response = client.post(
        "/v1/traces",
        files={"file": ("link.csv", _csv(2000), "text/csv")},
        data={"capacity": "12 Mbit/s", "warmup": "0.2s"},
    )
    assert response.status_code == 202, response.text
    body = _wait(client, response.headers["location"])
    assert body["status"] == "succeeded", body
    estimates = body["result"]["estimates"]
    assert estimates["packets"] == 2000
    assert estimates["flows"] == 2
    assert estimates["capacity_bps"] == 12e6
    # 36 of the 1,800 rows after the 0.2 s warm-up are drops (rows 249, 299, ..., 1999).
    assert estimates["loss_rate"]["value"] == pytest.approx(36 / 1800, rel=1e-12)
    assert body["progress"] == 1.0
    assert body["result"]["file"] == "link.csv"


def test_bad_file_fails_the_job_and_names_the_line(client: TestClient) -> None:
    content = _csv(10) + b"0.5,1,oops,0\n"
    response = client.post("/v1/traces", files={"file": ("bad.csv", content, "text/csv")})
    assert response.status_code == 202
    body = _wait(client, response.headers["location"])
    assert body["status"] == "failed"
    assert "line 12" in body["message"] and "size_bytes" in body["message"]
    assert "bad.csv" in body["message"]
    assert client.get("/healthz").json() == {"status": "ok"}  # the service stays up


def test_upload_over_the_limit_gets_413_before_it_is_read(client: TestClient) -> None:
    big = _csv(5000)
    assert len(big) > 64 * 1024
    response = client.post("/v1/traces", files={"file": ("big.csv", big, "text/csv")})
    assert response.status_code == 413
    assert "max_trace_bytes" in response.json()["detail"]


def test_upload_without_a_declared_length_is_stopped_at_the_limit(client: TestClient) -> None:
    boundary = "b0undary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode()

    def body() -> Iterator[bytes]:  # a generator: sent chunked, no Content-Length
        yield head
        for _ in range(100):
            yield b"0.1,1,1500,0\n" * 100

    response = client.post(
        "/v1/traces",
        content=body(),
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    assert response.status_code == 413


def test_field_errors_name_the_field(client: TestClient) -> None:
    files = {"file": ("t.csv", _csv(10), "text/csv")}
    response = client.post("/v1/traces", files=files, data={"capacity": "fast"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "capacity"]
    response = client.post("/v1/traces", data={"capacity": "1 Mbit/s"}, files={"x": ("a", b"")})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "file"]
    response = client.post("/v1/traces", content=b"{}", headers={"content-type": "text/json"})
    assert response.status_code == 415


def test_unknown_job_is_404(client: TestClient) -> None:
    assert client.get("/v1/traces/" + "0" * 32).status_code == 404
