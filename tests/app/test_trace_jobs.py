"""Trace jobs like the other jobs: a capability token to cancel, a process of their own under a
memory limit, kept in the job store across a restart, and no upload left behind.

The service runs in this process (TestClient); each job runs in a process of its own, with a
stand-in runner (``tests/app/trace_runners.py``) where the test is about the job machinery, and
the real one where it is about the result. The temporary directory is the test's own, so that
uploads can be looked for.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.trace_jobs import RESTARTED, UPLOAD_PREFIX
from tests.app import trace_runners
from tests.app.test_api_traces import trace_service

TRACE = b"time_s,flow,size_bytes,dropped\n" + b"".join(
    f"{i * 0.001:.6f},{i % 2},1500,0\n".encode() for i in range(2000)
)


@pytest.fixture
def uploads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory of the service (where uploads wait), and the held runners'
    release file set."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    monkeypatch.setenv(trace_runners.RELEASE, str(tmp_path / "release"))
    return directory


def _post(client: TestClient) -> dict[str, Any]:
    answer = client.post("/v1/traces", files={"file": ("link.csv", TRACE, "text/csv")})
    assert answer.status_code == 202, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _until(client: TestClient, job_id: str, statuses: tuple[str, ...]) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        body: dict[str, Any] = client.get(f"/v1/traces/{job_id}").json()
        if body["status"] in statuses:
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def _running_held(client: TestClient, job_id: str) -> None:
    """Wait until the held runner of ``job_id`` has reported (its process runs)."""
    deadline = time.monotonic() + 300
    while client.get(f"/v1/traces/{job_id}").json()["message"] != trace_runners.HELD_MESSAGE:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_cancelling_needs_the_token_and_deletes_the_upload(tmp_path: Path, uploads: Path) -> None:
    with trace_service(tmp_path, trace_runners.held) as client:
        first, second = _post(client), _post(client)
        assert first["token"] and second["token"] and first["token"] != second["token"]
        _running_held(client, first["id"])
        assert len(list(uploads.glob(f"{UPLOAD_PREFIX}*/*"))) == 2  # both uploads wait
        url = f"/v1/traces/{second['id']}"
        missing = client.delete(url)
        assert missing.status_code == 401
        assert "X-Job-Token" in missing.json()["detail"]
        other = client.delete(url, headers={"X-Job-Token": first["token"]})
        assert other.status_code == 403
        # The queued job: cancelled at once, its upload gone.
        queued = client.delete(url, headers={"X-Job-Token": second["token"]})
        assert queued.status_code == 200, queued.text
        assert queued.json()["status"] == "cancelled"
        assert len(list(uploads.glob(f"{UPLOAD_PREFIX}*"))) == 1
        again = client.delete(url, headers={"X-Job-Token": second["token"]})
        assert again.status_code == 409
        # The running job: its process is stopped, then the job reads cancelled.
        url = f"/v1/traces/{first['id']}"
        running = client.delete(url, headers={"X-Job-Token": first["token"]})
        assert running.status_code == 200, running.text
        assert running.json()["status"] == "running"
        assert "cancellation requested" in running.json()["message"]
        ended = _until(client, first["id"], ("succeeded", "failed", "cancelled"))
        assert ended["status"] == "cancelled", ended
        assert ended["message"] == "cancelled while running"
        assert ended["result"] is None
        assert list(uploads.iterdir()) == []  # no upload, no empty directory


def test_a_job_over_its_memory_limit_fails_with_the_reason(tmp_path: Path, uploads: Path) -> None:
    limit = 1 << 30  # the runner asks for 8 GiB at once
    with trace_service(tmp_path, trace_runners.greedy, trace_job_memory_bytes=limit) as client:
        job = _post(client)
        ended = _until(client, job["id"], ("succeeded", "failed"))
        assert ended["status"] == "failed", ended
        assert ended["message"] == (
            "reading this trace needs more than the 1 GiB a trace job may use "
            "(trace_job_memory_bytes)"
        )
        assert client.get("/healthz").json() == {"status": "ok"}  # the service lives on
    assert list(uploads.iterdir()) == []


def test_a_job_whose_process_dies_fails_with_the_reason(tmp_path: Path, uploads: Path) -> None:
    with trace_service(tmp_path, trace_runners.crashing) as client:
        job = _post(client)
        ended = _until(client, job["id"], ("succeeded", "failed"))
        assert ended["status"] == "failed", ended
        assert ended["message"].startswith(
            "the process reading this trace died (exit code 9); one cause: reading this trace "
            "needs more than the 6 GiB"
        )
    assert list(uploads.iterdir()) == []


def test_a_job_interrupted_by_a_shutdown_runs_again_at_the_next_start(
    tmp_path: Path, uploads: Path
) -> None:
    """The service stops while one job runs and another waits: at the next start both run
    from their uploads and answer; an upload directory of this database that no job owns and
    whose service is gone (a service killed while receiving it) is deleted at that start."""
    with trace_service(tmp_path, trace_runners.held) as client:
        first, second = _post(client), _post(client)
        _running_held(client, first["id"])
    assert len(list(uploads.glob(f"{UPLOAD_PREFIX}*/*"))) == 2  # kept for the next start
    database = hashlib.sha256(f"sqlite:///{tmp_path / 'jobs.db'}".encode()).hexdigest()[:12]
    # Left by services that are gone (process 0 never is one): this database's, another's.
    orphan = uploads / f"{UPLOAD_PREFIX}{database}-0.1-abc"
    foreign = uploads / f"{UPLOAD_PREFIX}{'f' * 12}-0.1-abc"
    for directory in (orphan, foreign):
        directory.mkdir()
        (directory / "part").write_bytes(b"half an upload")
    with trace_service(tmp_path) as client:
        done = [_until(client, job["id"], ("succeeded", "failed")) for job in (first, second)]
    read = (
        "2,000 packets of 2 flows read; no BSCL size (the trace shows no flow bottlenecked at "
        "this link (N_b = 0) or no RTT sample: BSCL needs both)"
    )
    assert [job["status"] for job in done] == ["succeeded", "succeeded"], done
    assert done[0]["message"] == f"{read} ({RESTARTED})"
    assert done[1]["message"] == read  # it had not started
    assert done[0]["result"]["estimates"]["packets"] == 2000
    assert list(uploads.iterdir()) == [foreign]
