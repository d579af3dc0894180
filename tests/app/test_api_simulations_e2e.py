"""/v1/simulations with the real packet simulator: a small job end to end, and one cancelled.

The runner is the service's own (``run_replications`` -> ``validation.simulator.replicate``) in
a worker process, as in production.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings, get_settings
from validation.simulator import Scenario, replicate

DEADLINE_S = 300.0

# Two flows through a 1 Mbit/s bottleneck with 50 ms RTT: the BDP is 6.25 packets of 1000 B.
SCENARIO: dict[str, Any] = {
    "capacity_bps": "1 Mbit/s",
    "flows": 2,
    "rtt_s": "50 ms",
    "duration_s": 20,
    "warmup_s": 2,
}
SCENARIO_SI = Scenario(capacity_bps=1e6, flows=2, rtt_s=0.05, duration_s=20.0, warmup_s=2.0)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=2,
        max_packets_per_job=10**10,
        dask_scheduler=None,
    )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    with TestClient(app) as test_client:
        yield test_client


def wait_until_finished(client: TestClient, job_id: str) -> dict[str, Any]:
    """The finished job, with every buffer size's runs (runs=true gives one a page)."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        job = client.get(f"/v1/simulations/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            for page, result in enumerate(job["results"]):
                params = {"runs": "true", "runs_page": page}
                paged = client.get(f"/v1/simulations/{job_id}", params=params).json()
                assert paged["runs_page"] == page
                result["runs"] = paged["results"][page]["runs"]
            return job
        assert time.monotonic() < deadline, f"job did not finish: {job}"
        time.sleep(0.1)


def test_small_simulation_end_to_end(client: TestClient) -> None:
    body = {"scenario": SCENARIO, "buffer_packets": [2, 25], "replications": 2, "seed": 7}
    answer = client.post("/v1/simulations", json=body)
    assert answer.status_code == 202
    assert answer.json()["estimated_packets"] > 0
    job = wait_until_finished(client, answer.json()["id"])
    assert job["status"] == "succeeded", job
    small, large = job["results"]
    assert (small["buffer_packets"], large["buffer_packets"]) == (2, 25)
    for result in (small, large):
        assert result["replications"] == 2 and len(result["runs"]) == 2
        assert 0.0 <= result["utilization"] <= 1.0
        assert result["scenario"]["capacity_bps"] == 1e6  # units parsed at the edge
    # Metamorphic: a buffer of four BDPs loses no more, and keeps the link no less busy, than
    # one of a third of a BDP (the same seeds for both sizes).
    assert large["loss_rate"] <= small["loss_rate"]
    assert large["utilization"] >= small["utilization"]
    # The job stores what the simulator computes for the same scenario, buffer and seed.
    direct = replicate(SCENARIO_SI, 25, 2, 7)
    for measure in ("utilization", "loss_rate", "goodput_bps", "queue_delay_mean_s"):
        assert large[measure] == direct[measure].mean, measure
    # Summary only unless runs are asked for.
    summary = client.get(f"/v1/simulations/{job['id']}").json()["results"][0]
    assert "runs" not in summary and summary["loss_rate"] == small["loss_rate"]


def test_real_run_is_cancelled_through_its_progress_reports(client: TestClient) -> None:
    # About 7e7 bottleneck packets: a minute of work or so, far longer than cancelling takes.
    body = {
        "scenario": {"capacity_bps": "1 Gbit/s", "flows": 100, "max_window_packets": 1000}
        | {"rtt_s": "50 ms", "duration_s": 500},
        "buffer_packets": [10],
        "replications": 1,
        "seed": 1,
    }
    created = client.post("/v1/simulations", json=body).json()
    job_id = created["id"]
    deadline = time.monotonic() + DEADLINE_S
    while client.get(f"/v1/simulations/{job_id}").json()["progress"] == 0.0:
        assert time.monotonic() < deadline, "the run never reported progress"
        time.sleep(0.05)
    client.delete(f"/v1/simulations/{job_id}", headers={"X-Job-Token": created["token"]})
    job = wait_until_finished(client, job_id)
    assert job["status"] == "cancelled", job
    assert job["results"] == []


def test_flow_groups_in_the_request_give_results_per_group(client: TestClient) -> None:
    groups = [
        {"name": "long", "flows": 2, "rtt_s": "40 ms", "max_window_packets": 20},
        {"name": "slow access", "flows": 2, "rtt_s": "60 ms", "access_bps": "100 kbit/s"},
    ]
    scenario = {k: v for k, v in SCENARIO.items() if k not in ("flows", "rtt_s")}
    body = {"scenario": scenario | {"groups": groups}, "buffer_packets": [10], "seed": 3}
    body["replications"] = 2
    answer = client.post("/v1/simulations", json=body)
    assert answer.status_code == 202, answer.json()
    job = wait_until_finished(client, answer.json()["id"])
    assert job["status"] == "succeeded", job
    (result,) = job["results"]
    assert [g["name"] for g in result["groups"]] == ["long", "slow access"]
    # 2 flows behind 100 kbit/s access links cannot exceed 200 kbit/s on the bottleneck.
    assert result["groups"][1]["throughput_bps"] <= 2 * 100e3
    assert job["request"]["scenario"]["groups"][1]["access_bps"] == 100e3
    direct = replicate(Scenario.from_dict(job["request"]["scenario"]), 10, 2, 3)
    assert result["groups"][0]["goodput_bps"] == direct.group_estimates[0]["goodput_bps"].mean
