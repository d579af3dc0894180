"""Simulation and trace jobs share the service's ``workers``: never more job processes at once.

The budget alone first (who is woken when), then a service of one worker: a trace job that
holds its slot keeps a simulation job queued until it ends, and the trace job's process is
told to make its check's runs itself (so its memory limit bounds the whole job).
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.jobs.budget import WorkerBudget
from tests.app import trace_runners
from tests.app.test_api_simulations import request_body
from tests.app.test_api_simulations_runners import quick_runner
from tests.app.test_api_traces import trace_service
from validation.sweeps import IN_PROCESS, executor

TRACE = b"time_s,flow,size_bytes,dropped\n" + b"".join(
    f"{i * 0.001:.6f},{i % 2},1500,0\n".encode() for i in range(2000)
)


def test_the_budget_gives_at_most_its_slots_and_wakes_who_waits() -> None:
    budget = WorkerBudget(2)
    woken: list[str] = []
    budget.on_release("simulations", lambda: woken.append("simulations"))
    budget.on_release("traces", lambda: woken.append("traces"))
    assert budget.take("simulations", 5) == 2
    assert budget.take("traces", 1) == 0
    assert budget.in_use == 2
    # Slots not used go back: only the consumer refused meanwhile is told (both were).
    budget.give(1, ended=False)
    assert sorted(woken) == ["simulations", "traces"]
    woken.clear()
    assert budget.take("traces", 1) == 1
    budget.give(1, ended=False)  # nobody was refused since: nobody is woken
    assert woken == []
    budget.give(1)  # a job ended: everyone is told
    assert sorted(woken) == ["simulations", "traces"]
    assert budget.in_use == 0
    with pytest.raises(ValueError, match="1 slots given back, 0 taken"):
        budget.give(1)
    with pytest.raises(ValueError, match="at least 1"):
        WorkerBudget(0)


def test_an_in_process_executor_runs_in_this_process() -> None:
    with executor("", IN_PROCESS) as pool:
        assert pool.submit(os.getpid).result() == os.getpid()
        failed = pool.submit(int, "x")
        with pytest.raises(ValueError):
            failed.result()


def _until(client: TestClient, url: str, done: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        body: dict[str, Any] = client.get(url).json()
        if done(body):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


@pytest.fixture
def release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    monkeypatch.setenv(trace_runners.RELEASE, str(tmp_path / "release"))
    return tmp_path / "release"


def test_a_running_trace_job_holds_the_only_worker(tmp_path: Path, release: Path) -> None:
    with trace_service(tmp_path, trace_runners.held, quick_runner) as client:
        posted = client.post("/v1/traces", files={"file": ("link.csv", TRACE, "text/csv")})
        assert posted.status_code == 202, posted.text
        trace_url = f"/v1/traces/{posted.json()['id']}"
        _until(client, trace_url, lambda b: b["message"] == trace_runners.HELD_MESSAGE)
        created = client.post("/v1/simulations", json=request_body())
        assert created.status_code == 202, created.text
        simulation_url = f"/v1/simulations/{created.json()['id']}"
        # The pool looks at its queue when a job is submitted; its only worker is the trace's.
        assert client.get(simulation_url).json()["status"] == "queued"
        release.touch()
        trace = _until(client, trace_url, lambda b: b["status"] != "running")
        assert trace["status"] == "succeeded", trace
        simulation = _until(client, simulation_url, lambda b: b["status"] == "succeeded")
    # Whenever the dispatcher looked, the simulation started only once the trace had ended.
    started = datetime.fromisoformat(simulation["started_at"])
    assert started >= datetime.fromisoformat(trace["finished_at"])


def test_a_trace_jobs_check_runs_in_its_own_process(tmp_path: Path, release: Path) -> None:
    with trace_service(tmp_path, trace_runners.told_workers) as client:
        posted = client.post("/v1/traces", files={"file": ("link.csv", TRACE, "text/csv")})
        assert posted.status_code == 202, posted.text
        url = f"/v1/traces/{posted.json()['id']}"
        ended = _until(client, url, lambda b: b["status"] not in ("queued", "running"))
    assert ended["status"] == "failed"
    assert ended["message"] == f"the check's workers: {IN_PROCESS!r}"
