"""/v1/verifications: a recommendation checked by simulation through the service's job pool."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings, get_settings
from models.recommend import LinkScenario, recommend
from validation.size_search import search
from validation.verify import verify

DEADLINE_S = 300.0
# A 2 Mb/s link with 4 Reno flows: small enough to simulate in a few seconds.
LINK: dict[str, Any] = {
    "capacity_bps": "2 Mbit/s",
    "rtts_s": ["100 ms"],
    "flows": 4,
    "packet_bytes": "1000 B",
    "congestion_control": "reno",
}


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


@pytest.mark.slow
def test_verification_is_queued_then_answered_with_the_cli_figures(client: TestClient) -> None:
    # Two runs per size, up to four where a target is undecided: a size left undecided by the
    # first job gets a second job (the extra batch), named by the same body.
    body = {"scenario": LINK, "replications": 2, "max_replications": 4, "seed": 5}
    first = client.post("/v1/verifications", json=body)
    assert first.status_code == 202, first.text
    job_id = first.json()["id"]
    assert first.headers["location"].endswith(f"/v1/simulations/{job_id}")
    deadline = time.monotonic() + DEADLINE_S
    jobs = [job_id]
    while True:
        answer = client.post("/v1/verifications", json=body)  # the same body polls
        if answer.json()["id"] != jobs[-1]:
            jobs.append(answer.json()["id"])  # the next batch's job
        if answer.status_code == 200:
            break
        assert answer.status_code == 202 and time.monotonic() < deadline
        time.sleep(0.2)
    out = answer.json()["verification"]
    assert [s["label"] for s in out["sizes"]] == ["half", "recommended", "double"]
    # The service's job runs the same seeds as the library: the same figures.
    link = LinkScenario(
        capacity_bps=2e6, rtts_s=(0.1,), flows=4, packet_bytes=1000, congestion_control="reno"
    )
    local = verify(
        link, recommend(link), replications=2, max_replications=4, seed=5, workers=1
    ).to_dict()
    # One job per batch and simulated scenario (the access rate is not given: the slow end is a
    # scenario of its own); polling sees at least one of them. The service's runs per size are
    # the library's, extra batches included (measured: 4 runs at half and at the recommended
    # size, whose targets the first two left undecided).
    assert jobs and all(jobs)
    assert [s["label"] for s in out["slow_sizes"]] == [
        "half, slow access",
        "recommended, slow access",
        "double, slow access",
    ]
    assert out["not_represented"] == local["not_represented"]
    mine_and_theirs = zip(
        out["sizes"] + out["slow_sizes"], local["sizes"] + local["slow_sizes"], strict=True
    )
    for mine, theirs in mine_and_theirs:
        assert mine["replications"] == theirs["replications"]
        assert mine["utilization"] == pytest.approx(theirs["utilization"], rel=1e-12)
        assert mine["loss_rate"] == pytest.approx(theirs["loss_rate"], rel=1e-12, abs=1e-15)
        assert mine["verdict"] == theirs["verdict"]
    assert out["verdict"] == local["verdict"]


def test_unscalable_link_is_answered_at_once_with_the_reason(client: TestClient) -> None:
    # 100 flows at 100 Gb/s: scaling to 50,000 packets/s would leave a single flow.
    body = {"scenario": {"capacity_bps": "100 Gbit/s", "rtts_s": ["50 ms"], "flows": 100}}
    answer = client.post("/v1/verifications", json=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["id"] is None and data["status"] == "done"
    assert data["verification"]["verdict"] == "not reproducible here"
    assert "cannot be scaled faithfully" in data["verification"]["reason"]


def test_bad_replications_name_the_field(client: TestClient) -> None:
    answer = client.post("/v1/verifications", json={"scenario": LINK, "replications": 1})
    assert answer.status_code == 422
    assert "replications" in answer.text


def test_congestion_control_not_simulated_yet_is_answered_with_the_reason(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A simulator without CUBIC (as it was before RFC 9438's senders) must not check a CUBIC
    # recommendation with Reno senders: the answer names the congestion control.
    import validation.verify

    monkeypatch.setattr(validation.verify, "CC_KINDS", ("reno",))
    body = {"scenario": {**LINK, "congestion_control": "cubic"}}
    answer = client.post("/v1/verifications", json=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["id"] is None and data["status"] == "done"
    assert data["verification"]["verdict"] == "not reproducible here"
    assert data["verification"]["reason"] == (
        "not simulated: congestion control 'cubic' is not simulated yet (the simulator runs reno)"
    )


@pytest.mark.slow
def test_search_is_a_mode_of_the_same_request_with_the_cli_figures(client: TestClient) -> None:
    # `search: true` runs validation/size_search.py's bisection through the job pool, one job per
    # batch of each size tried; the same body polls, and the answer is the library's (same
    # seeds). The 2 Mb/s link with 4 Reno flows on 100 Mb/s access links, 3 runs per size.
    scenario = {**LINK, "access_bps": "100 Mbit/s"}
    body = {"scenario": scenario, "replications": 3, "max_replications": 3, "search": True}
    deadline = time.monotonic() + DEADLINE_S
    while True:
        answer = client.post("/v1/verifications", json=body)
        if answer.status_code == 200:
            break
        assert answer.status_code == 202, answer.text
        assert time.monotonic() < deadline
        time.sleep(0.2)
    out = answer.json()
    assert out["verification"] is None and out["search"] is not None
    link = LinkScenario(
        capacity_bps=2e6,
        rtts_s=(0.1,),
        flows=4,
        packet_bytes=1000,
        congestion_control="reno",
        access_bps=100e6,
    )
    local = search(
        link, recommend(link), replications=3, max_replications=3, seed=1, workers=1
    ).to_dict()
    found = out["search"]
    assert found["found_packets"] == local["found_packets"]
    assert found["smaller_packets"] == local["smaller_packets"]
    assert [t["buffer_packets"] for t in found["tried"]] == [
        t["buffer_packets"] for t in local["tried"]
    ]
    for mine, theirs in zip(found["tried"], local["tried"], strict=True):
        assert mine["check"]["utilization"] == pytest.approx(theirs["check"]["utilization"])


def test_the_post_that_makes_the_job_returns_its_token_and_only_it_can_cancel(
    client: TestClient,
) -> None:
    # The form cancels a check through DELETE /v1/simulations/{id}, which needs the job's token:
    # the verification must hand it over, once, to the POST that created the job.
    body = {"scenario": LINK, "replications": 2, "seed": 11}
    first = client.post("/v1/verifications", json=body)
    assert first.status_code == 202, first.text
    job_id, token = first.json()["id"], first.json()["token"]
    assert isinstance(token, str) and token
    again = client.post("/v1/verifications", json=body)  # a poll: same job, no token
    assert again.json()["id"] == job_id and again.json()["token"] is None
    assert client.delete(f"/v1/simulations/{job_id}").status_code == 401
    assert (
        client.delete(f"/v1/simulations/{job_id}", headers={"X-Job-Token": "x"}).status_code == 403
    )
    cancelled = client.delete(f"/v1/simulations/{job_id}", headers={"X-Job-Token": token})
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["cancel_requested"] or cancelled.json()["status"] == "cancelled"
