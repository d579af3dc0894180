"""The job store on PostgreSQL (``BUFSIZE_DATABASE_URL=postgresql+psycopg://...``).

A throwaway PostgreSQL cluster is created with the server's own ``initdb`` and ``pg_ctl``,
listening only on a Unix socket in a temporary directory, and removed afterwards. The same
restart scenario as on SQLite must hold: a job interrupted by a shutdown finishes after the
service comes back, keeping the results stored before.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.jobs.store import JobStore
from tests.app import test_api_simulations_runners as runners
from tests.app.test_api_simulations import finished, job_settings, request_body, service, wait_for


def _server_tool(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None
    )
    if found is None:
        raise AssertionError(f"PostgreSQL's {name} is needed for this test and was not found")
    return found


def _as_server_user(args: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; CI runs as root, so the cluster belongs to nobody.
    return ["runuser", "-u", "nobody", "--", *args] if os.geteuid() == 0 else args


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    root = Path(tempfile.mkdtemp(prefix="bufsize-pg-"))
    root.chmod(0o777)
    data = root / "data"
    subprocess.run(
        _as_server_user([_server_tool("initdb"), "-D", str(data), "-A", "trust", "-U", "bufsize"]),
        check=True,
        capture_output=True,
    )
    pg_ctl = _server_tool("pg_ctl")
    options = f"-k {root} -c listen_addresses=''"
    start = [pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
    subprocess.run(_as_server_user(start), check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://bufsize@/postgres?host={root}"
    finally:
        stop = [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(_as_server_user(stop), check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def test_job_survives_a_restart_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    settings = job_settings(tmp_path / "unused.db").model_copy(
        update={"database_url": postgres_url}
    )
    body = request_body(steps=40, buffers=[1, 2, 3])
    with service(settings, runners.stepped_runner) as client:
        job_id = client.post("/v1/simulations", json=body).json()["id"]
        wait_for(client, job_id, lambda j: len(j["results"]) == 1)
    stopped = JobStore(postgres_url).get(job_id)
    assert stopped is not None and stopped.status == "queued"

    with service(settings, runners.stepped_runner) as client:
        job = wait_for(client, job_id, finished)
        # An identical request is answered from the store.
        again = client.post("/v1/simulations", json=body).json()
    assert job["status"] == "succeeded", job
    assert [r["buffer_packets"] for r in job["results"]] == [1, 2, 3]
    assert again["id"] == job_id and again["reused"] is True
