"""/v1/simulations: jobs queued, run in worker processes, cancelled, resumed, limited, reused.

Each test runs the real service (``create_app`` with its lifespan and worker pool) on a SQLite
file of its own. The job-machinery tests use the stand-in runners of
``test_api_simulations_runners`` (a run of a few tens of milliseconds per step); the packet
simulator itself is exercised end to end in ``test_api_simulations_e2e``.

Waits poll the job until it reaches the expected state; their deadline only turns a hang into
a failure and asserts nothing about speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import psutil
import pytest
from fastapi.testclient import TestClient

from app.jobs.lifespan import simulation_runner
from app.jobs.spec import SimulationSpec
from app.jobs.store import JobStore
from app.jobs.tables import Job
from app.jobs.worker import Runner
from app.main import create_app
from app.settings import Settings, get_settings
from tests.app import test_api_simulations_runners as runners

DEADLINE_S = 120.0


def job_settings(database: Path, **limits: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{database}",
        "workers": 1,
        "max_pending_jobs": 4,
        "max_packets_per_job": 10**12,
        "stale_job_after_s": 0.0,
        "dask_scheduler": None,
        # One TestClient is one client: its share is the whole queue here (tests of the
        # per-client share set it).
        "max_pending_jobs_per_client": 10_000,
    }
    values.update(limits)
    return Settings(**values)


@contextmanager
def service(settings: Settings, runner: Runner) -> Iterator[TestClient]:
    """The application with its job pool started (and stopped on leaving)."""
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    app.dependency_overrides[simulation_runner] = lambda: runner
    with TestClient(app) as client:
        yield client


def request_body(steps: int = 1, buffers: list[int] | None = None, seed: int = 1) -> dict[str, Any]:
    # duration_s doubles as the stepped runner's step count (20 ms each).
    return {
        "scenario": {"duration_s": steps, "warmup_s": 0},
        "buffer_packets": buffers or [8],
        "replications": 2,
        "seed": seed,
    }


def wait_for(
    client: TestClient, job_id: str, done: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        job = client.get(f"/v1/simulations/{job_id}").json()
        if done(job):
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job never reached the expected state: {job}")
        time.sleep(0.05)


def finished(job: dict[str, Any]) -> bool:
    return job["status"] in ("succeeded", "failed", "cancelled")


def test_job_runs_in_the_background_and_reports_results(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.stepped_runner) as client:
        answer = client.post("/v1/simulations", json=request_body(steps=5, buffers=[20, 10]))
        assert answer.status_code == 202
        accepted = answer.json()
        assert accepted["status"] == "queued" and accepted["reused"] is False
        assert answer.headers["location"].endswith(f"/v1/simulations/{accepted['id']}")
        job = wait_for(client, accepted["id"], finished)
    assert job["status"] == "succeeded", job
    assert job["progress"] == 1.0
    # Canonical request: buffer sizes sorted; results in increasing buffer size.
    assert job["request"]["buffer_packets"] == [10, 20]
    assert [r["buffer_packets"] for r in job["results"]] == [10, 20]
    assert job["results"][0]["utilization"] == pytest.approx(10 / 11)
    assert job["started_at"] is not None and job["finished_at"] is not None


def test_cancelled_job_stops_and_its_process_ends(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.stepped_runner) as client:
        # 100,000 steps of 20 ms: far longer than the test, so only cancelling ends it.
        created = client.post("/v1/simulations", json=request_body(steps=100_000)).json()
        job_id, owner = created["id"], {"X-Job-Token": created["token"]}
        running = wait_for(client, job_id, lambda j: j["status"] == "running" and j["progress"] > 0)
        pid = _worker_pid(tmp_path / "jobs.db", job_id)
        assert psutil.pid_exists(pid)

        answer = client.delete(f"/v1/simulations/{job_id}", headers=owner)
        assert answer.status_code == 200
        assert answer.json()["cancel_requested"] is True
        job = wait_for(client, job_id, finished)
        assert job["status"] == "cancelled", job
        assert job["progress"] < 1.0 and job["results"] == []
        assert running["progress"] <= job["progress"]
        # One process per job (jobs_per_worker_process=1): the worker exits with its job.
        deadline = time.monotonic() + DEADLINE_S
        while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, f"worker {pid} still alive after cancelling"
            time.sleep(0.05)
        # Cancelling again is harmless; a finished job cannot be cancelled.
        again = client.delete(f"/v1/simulations/{job_id}", headers=owner)
        assert again.json()["status"] == "cancelled"


def test_queued_job_is_cancelled_at_once(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.stepped_runner) as client:
        first = client.post("/v1/simulations", json=request_body(steps=100_000, seed=1)).json()
        wait_for(client, first["id"], lambda j: j["status"] == "running")
        second = client.post("/v1/simulations", json=request_body(steps=100_000, seed=2)).json()
        # One worker, busy with the first job: the second waits in the queue.
        assert client.get(f"/v1/simulations/{second['id']}").json()["status"] == "queued"
        cancelled = client.delete(
            f"/v1/simulations/{second['id']}", headers={"X-Job-Token": second["token"]}
        ).json()
        assert cancelled["status"] == "cancelled"
        assert cancelled["started_at"] is None
        client.delete(f"/v1/simulations/{first['id']}", headers={"X-Job-Token": first["token"]})
        assert wait_for(client, first["id"], finished)["status"] == "cancelled"


def test_finished_job_cannot_be_cancelled(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.quick_runner) as client:
        created = client.post("/v1/simulations", json=request_body()).json()
        job_id = created["id"]
        assert wait_for(client, job_id, finished)["status"] == "succeeded"
        answer = client.delete(
            f"/v1/simulations/{job_id}", headers={"X-Job-Token": created["token"]}
        )
        assert answer.status_code == 409
        assert "already succeeded" in answer.json()["detail"]


def test_failing_run_marks_the_job_failed_with_its_reason(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.failing_runner) as client:
        job_id = client.post("/v1/simulations", json=request_body()).json()["id"]
        job = wait_for(client, job_id, finished)
    assert job["status"] == "failed"
    assert job["message"] == "RuntimeError: no route to buffer 8"


def test_job_whose_worker_process_keeps_dying_fails_with_the_reason(tmp_path: Path) -> None:
    settings = job_settings(tmp_path / "jobs.db", max_job_restarts=1)
    with service(settings, runners.crashing_runner) as client:
        job_id = client.post("/v1/simulations", json=request_body()).json()["id"]
        job = wait_for(client, job_id, finished)
    # Resumed once, in a new pool (a dead worker breaks the old one), then given up.
    assert job["status"] == "failed"
    assert job["message"] == (
        "the worker process running this job died, 2 times (limit max_job_restarts=1); "
        "not resumed again"
    )


def test_queue_full_gets_429_with_retry_after(tmp_path: Path) -> None:
    settings = job_settings(tmp_path / "jobs.db", workers=1, max_pending_jobs=2, retry_after_s=7)
    with service(settings, runners.stepped_runner) as client:
        created = [
            client.post("/v1/simulations", json=request_body(steps=100_000, seed=seed)).json()
            for seed in (1, 2)
        ]
        ids = [job["id"] for job in created]
        tokens = {job["id"]: {"X-Job-Token": job["token"]} for job in created}
        answer = client.post("/v1/simulations", json=request_body(steps=100_000, seed=3))
        assert answer.status_code == 429
        assert answer.headers["retry-after"] == "7"
        assert "limit is 2 (max_pending_jobs)" in answer.json()["detail"]
        # An identical request is not a new job: it gets the pending one, even when full.
        again = client.post("/v1/simulations", json=request_body(steps=100_000, seed=2))
        assert again.status_code == 202
        assert again.json() | {"estimated_packets": 0} == {
            "id": ids[1],
            "status": again.json()["status"],
            "reused": True,
            "token": None,  # the results are shared, not the right to cancel
            "estimated_packets": 0,
            "warnings": [],
        }
        # Room again once a job is cancelled.
        client.delete(f"/v1/simulations/{ids[1]}", headers=tokens[ids[1]])
        assert client.post("/v1/simulations", json=request_body(seed=4)).status_code == 202
        for job_id in ids:
            client.delete(f"/v1/simulations/{job_id}", headers=tokens[job_id])
            wait_for(client, job_id, finished)


def test_identical_request_reuses_the_stored_result(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.quick_runner) as client:
        first = client.post("/v1/simulations", json=request_body(buffers=[16, 8])).json()
        done = wait_for(client, first["id"], finished)
        assert done["status"] == "succeeded"
        # The same runs asked differently: units, order and repeats of the buffer sizes.
        body = request_body(buffers=[8, 16, 8])
        body["scenario"] |= {"capacity_bps": "100 Mbit/s", "rtt_s": "100 ms"}
        second = client.post("/v1/simulations", json=body)
        assert second.status_code == 202
        assert second.json()["id"] == first["id"]
        assert second.json()["reused"] is True
        assert second.json()["status"] == "succeeded"
        # Another seed is another job.
        third = client.post("/v1/simulations", json=request_body(buffers=[8, 16], seed=2)).json()
        assert third["id"] != first["id"] and third["reused"] is False
        wait_for(client, third["id"], finished)


def test_a_buffer_size_already_simulated_is_not_run_again(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.quick_runner) as client:
        first = client.post("/v1/simulations", json=request_body(buffers=[8])).json()
        one = wait_for(client, first["id"], finished)["results"][0]
        second = client.post("/v1/simulations", json=request_body(buffers=[8, 16])).json()
        both = wait_for(client, second["id"], finished)
    assert both["status"] == "succeeded"
    assert both["results"][0] == one  # the same stored result, same worker process
    assert both["results"][1]["computed_by_pid"] != one["computed_by_pid"]
    assert "1 of them reused" in both["message"]


def test_job_survives_a_service_restart(tmp_path: Path) -> None:
    database = tmp_path / "jobs.db"
    settings = job_settings(database)
    # Three buffer sizes of 40 steps (0.8 s) each; the service stops during the second.
    body = request_body(steps=40, buffers=[1, 2, 3])
    with service(settings, runners.stepped_runner) as client:
        job_id = client.post("/v1/simulations", json=body).json()["id"]
        wait_for(client, job_id, lambda j: len(j["results"]) == 1)
    stopped = JobStore(settings.database_url).get(job_id)
    assert stopped is not None
    assert stopped.status == "queued"
    assert stopped.message is not None and "resumes where it stopped" in stopped.message

    with service(settings, runners.stepped_runner) as client:
        job = wait_for(client, job_id, finished)
    assert job["status"] == "succeeded", job
    first, second, third = job["results"]
    # The first buffer size was kept from before the restart; the rest ran in a new process.
    assert first["computed_by_pid"] != second["computed_by_pid"] == third["computed_by_pid"]
    assert "1 of them reused" in job["message"]


def test_job_left_running_by_a_crash_is_resumed(tmp_path: Path) -> None:
    settings = job_settings(tmp_path / "jobs.db")
    job_id = _job_left_running(settings)
    with service(settings, runners.quick_runner) as client:
        job = wait_for(client, job_id, finished)
    assert job["status"] == "succeeded"
    assert "resumed after 1 restart" in job["message"]


def test_running_job_with_a_live_worker_elsewhere_is_left_alone(tmp_path: Path) -> None:
    # Another service on the same database reported progress moments ago: not interrupted.
    settings = job_settings(tmp_path / "jobs.db", stale_job_after_s=3600.0)
    job_id = _job_left_running(settings)
    with service(settings, runners.quick_runner) as client:
        job = client.get(f"/v1/simulations/{job_id}").json()
    assert job["status"] == "running" and job["message"] is None
    # Two hours of silence later, the next start resumes it.
    store = JobStore(settings.database_url)
    with store.session() as session:
        row = session.get(Job, job_id)
        assert row is not None
        row.updated_at = row.updated_at - timedelta(hours=2)
    store.close()
    with service(settings, runners.quick_runner) as client:
        job = wait_for(client, job_id, finished)
    assert job["status"] == "succeeded"
    assert "resumed after 1 restart" in job["message"]


def test_job_interrupted_too_often_is_failed_with_a_reason(tmp_path: Path) -> None:
    settings = job_settings(tmp_path / "jobs.db", max_job_restarts=0)
    job_id = _job_left_running(settings)
    with service(settings, runners.quick_runner) as client:
        job = client.get(f"/v1/simulations/{job_id}").json()
    assert job["status"] == "failed"
    assert job["message"] == (
        "the service stopped while this job was running, 1 times "
        "(limit max_job_restarts=0); not resumed again"
    )


def test_runs_on_dask_when_a_scheduler_is_configured(tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        settings = job_settings(tmp_path / "jobs.db", dask_scheduler=cluster.scheduler_address)
        with service(settings, runners.quick_runner) as client:
            job_id = client.post("/v1/simulations", json=request_body(buffers=[4, 8])).json()["id"]
            job = wait_for(client, job_id, finished)
    assert job["status"] == "succeeded", job
    assert [r["buffer_packets"] for r in job["results"]] == [4, 8]


def _job_left_running(settings: Settings) -> str:
    """A job in the state a crashed service leaves: running, no worker alive."""
    store = JobStore(settings.database_url)
    spec = SimulationSpec.create({"duration_s": 1.0, "warmup_s": 0.0}, [4], 1, 1)
    job, _, _ = store.submit(spec, max_pending=10)
    assert store.claim(1) == [(job.id, 1)]
    store.close()
    return job.id


def _worker_pid(database: Path, job_id: str) -> int:
    job = JobStore(f"sqlite:///{database}").get(job_id)
    assert job is not None and job.worker is not None
    return int(job.worker.rsplit(":", 1)[1])
