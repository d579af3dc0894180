"""Jobs belong to whoever submitted them: cancelling needs the job's token, identical bodies
share results but not control; optional API keys with per-key quotas; without keys, each client
address has its share of the queue (one client no longer locks everyone out)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.jobs.lifespan import simulation_runner
from app.main import create_app
from app.settings import get_settings
from tests.app import test_api_simulations_runners as runners
from tests.app.test_api_simulations import (
    finished,
    job_settings,
    request_body,
    service,
    wait_for,
)

LONG = request_body(steps=100_000)


def test_a_second_client_cannot_cancel_the_first_clients_job(tmp_path: Path) -> None:
    with service(job_settings(tmp_path / "jobs.db"), runners.stepped_runner) as alice:
        created = alice.post("/v1/simulations", json=LONG).json()
        job_id, token = created["id"], created["token"]
        assert len(token) >= 32
        # Bob sends the same body: he shares the job (and its results), not its token.
        shared = alice.post("/v1/simulations", json=LONG).json()
        assert shared["id"] == job_id and shared["reused"] is True and shared["token"] is None
        # Bob cannot cancel it: no token is 401, a made-up or another job's token is 403.
        no_token = alice.delete(f"/v1/simulations/{job_id}")
        assert no_token.status_code == 401 and "X-Job-Token" in no_token.json()["detail"]
        other = alice.post("/v1/simulations", json=request_body(steps=100_000, seed=9)).json()
        for wrong in ("x" * 32, other["token"]):
            answer = alice.delete(f"/v1/simulations/{job_id}", headers={"X-Job-Token": wrong})
            assert answer.status_code == 403, answer.text
        assert alice.get(f"/v1/simulations/{job_id}").json()["cancel_requested"] is False
        # Its submitter can.
        mine = alice.delete(f"/v1/simulations/{job_id}", headers={"X-Job-Token": token})
        assert mine.status_code == 200 and mine.json()["cancel_requested"] is True
        alice.delete(f"/v1/simulations/{other['id']}", headers={"X-Job-Token": other["token"]})
        assert wait_for(alice, job_id, finished)["status"] == "cancelled"


def test_without_keys_each_client_address_has_its_share(tmp_path: Path) -> None:
    # Four places in the queue, two for each client by default (half of max_pending_jobs).
    settings = job_settings(
        tmp_path / "jobs.db", max_pending_jobs=4, max_pending_jobs_per_client=None
    )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    app.dependency_overrides[simulation_runner] = lambda: runners.stepped_runner
    with (
        TestClient(app, client=("192.0.2.1", 5000)) as greedy,
        TestClient(app, client=("192.0.2.2", 5000)) as other,
    ):
        tokens = []
        for seed in (1, 2):
            answer = greedy.post("/v1/simulations", json=request_body(steps=100_000, seed=seed))
            assert answer.status_code == 202
            tokens.append((answer.json()["id"], answer.json()["token"]))
        refused = greedy.post("/v1/simulations", json=request_body(steps=100_000, seed=3))
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) > 0
        assert "max_pending_jobs_per_client=2" in refused.json()["detail"]
        # The queue is not full: another client still gets in.
        answer = other.post("/v1/simulations", json=request_body(steps=100_000, seed=4))
        assert answer.status_code == 202
        tokens.append((answer.json()["id"], answer.json()["token"]))
        for job_id, token in tokens:
            greedy.delete(f"/v1/simulations/{job_id}", headers={"X-Job-Token": token})
            wait_for(greedy, job_id, finished)


def test_api_keys_are_required_and_quotas_are_per_key(tmp_path: Path) -> None:
    settings = job_settings(
        tmp_path / "jobs.db",
        max_pending_jobs=4,
        max_pending_jobs_per_client=1,
        api_keys="alice:alice-secret-0123456789,bob:bob-secret-0123456789",
    )
    alice = {"X-API-Key": "alice-secret-0123456789"}
    bob = {"X-API-Key": "bob-secret-0123456789"}
    with service(settings, runners.stepped_runner) as client:
        for headers in ({}, {"X-API-Key": "guess-0123456789abcdef"}):
            answer = client.post("/v1/simulations", json=LONG, headers=headers)
            assert answer.status_code == 401, answer.text
            assert "X-API-Key" in answer.json()["detail"]
            assert client.post("/v1/rules/bdp", json={}, headers=headers).status_code == 401
        first = client.post("/v1/simulations", json=LONG, headers=alice)
        assert first.status_code == 202, first.text
        # Reading stays open by id.
        assert client.get(f"/v1/simulations/{first.json()['id']}").status_code == 200
        second = client.post(
            "/v1/simulations", json=request_body(steps=100_000, seed=2), headers=alice
        )
        assert second.status_code == 429 and "key:alice" in second.json()["detail"]
        third = client.post(
            "/v1/simulations", json=request_body(steps=100_000, seed=3), headers=bob
        )
        assert third.status_code == 202
        for answer in (first, third):
            job = answer.json()
            client.delete(
                f"/v1/simulations/{job['id']}",
                headers={**alice, "X-Job-Token": job["token"]},
            )
            wait_for(client, job["id"], finished)


def test_the_openapi_document_names_the_security_schemes() -> None:
    schema = create_app().openapi()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["ApiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": schemes["ApiKey"]["description"],
    }
    assert schemes["JobToken"]["name"] == "X-Job-Token"
    # The key is optional (unless BUFSIZE_API_KEYS is set); cancelling needs the token either way.
    cancel = schema["paths"]["/v1/simulations/{job_id}"]["delete"]
    assert cancel["security"] == [{"ApiKey": [], "JobToken": []}, {"JobToken": []}]
    create = schema["paths"]["/v1/simulations"]["post"]
    assert create["security"] == [{"ApiKey": []}, {}]
