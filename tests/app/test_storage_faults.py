"""Storage faults are named: a full disk is 503 with Retry-After, /readyz says what is not ready
while /healthz stays up, and ``bufsize serve`` refuses a corrupt or unreachable database in one
line naming the path, BUFSIZE_DATABASE_URL and the fix.

The full disk is injected with SQLite's ``max_page_count`` (the database may not grow past its
present size), which fails a write with the same error, SQLITE_FULL, as a full file system.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from app.jobs.spec import SimulationSpec
from app.jobs.store import JobStore
from tests.app import test_api_simulations_runners as runners
from tests.app.test_api_simulations import job_settings, service
from tests.ports import free_port

BUFSIZE = str(Path(sys.executable).with_name("bufsize"))


@pytest.fixture
def disk_full() -> Iterator[dict[str, bool]]:
    """While ``state["full"]``, every new SQLite connection may not grow its database."""
    state = {"full": False}

    def limit(dbapi_connection: Any, _record: Any) -> None:
        if state["full"]:
            cursor = dbapi_connection.cursor()
            pages = cursor.execute("PRAGMA page_count").fetchone()[0]
            cursor.execute(f"PRAGMA max_page_count = {pages}")
            cursor.close()

    event.listen(Engine, "connect", limit)
    yield state
    event.remove(Engine, "connect", limit)


def test_a_full_disk_is_503_with_retry_after_and_readyz_says_so(
    tmp_path: Path, disk_full: dict[str, bool]
) -> None:
    settings = job_settings(tmp_path / "jobs.db")
    with service(settings, runners.quick_runner) as client:
        assert client.get("/readyz").json() == {
            "status": "ready",
            "checks": {"database": "ok", "workers": "ok", "temporary_directory": "ok"},
        }
        disk_full["full"] = True
        client.app.state.job_pool.store.engine.dispose()  # type: ignore[attr-defined]
        statuses = []
        for seed in range(40):  # each job is a row; the pages fill within a few
            body = {
                "buffer_packets": [10],
                "seed": seed,
                "scenario": {"duration_s": 2, "warmup_s": 0},
            }
            answer = client.post("/v1/simulations", json=body)
            statuses.append(answer.status_code)
            if answer.status_code != 202:
                break
        assert answer.status_code == 503, statuses
        assert int(answer.headers["retry-after"]) > 0
        detail = answer.json()["detail"]
        assert "full" in detail and "BUFSIZE_DATABASE_URL" in detail
        assert str(tmp_path / "jobs.db") in detail
        # Liveness stays up; readiness names the database.
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert "full" in ready.json()["checks"]["database"]
        assert ready.json()["checks"]["workers"] == "ok"
        disk_full["full"] = False
        client.app.state.job_pool.store.engine.dispose()  # type: ignore[attr-defined]
        assert client.get("/readyz").status_code == 200


def _serve(database_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BUFSIZE_DATABASE_URL": database_url}
    argv = [BUFSIZE, "serve", "--port", str(free_port())]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def _corrupt(path: Path) -> None:
    """A store with some results, then one page in the middle of the file overwritten."""
    store = JobStore(f"sqlite:///{path}")
    spec = SimulationSpec.create({"duration_s": 1.0}, [1], replications=1, seed=1)
    for buffer in range(1, 200):
        store.save_result(spec.run_key(buffer), buffer, {"utilization": 0.5, "pad": "x" * 500})
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    with path.open("r+b") as file:
        file.seek(page * (pages // 2))
        file.write(b"\xa5" * page)


def test_serve_refuses_a_corrupt_database_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "jobs.sqlite3"
    _corrupt(path)
    done = _serve(f"sqlite:///{path}")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0]
    assert "BUFSIZE_DATABASE_URL" in lines[0]
    assert "backup" in lines[0]  # the fix: restore it, or move it aside


def test_serve_refuses_a_database_in_a_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "jobs.sqlite3"
    done = _serve(f"sqlite:///{path}")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0] and "BUFSIZE_DATABASE_URL" in lines[0]
    assert "does not exist" in lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="a private mount namespace needs root")
def test_serve_refuses_a_read_only_database_in_one_line(tmp_path: Path) -> None:
    # Root ignores file permissions, so the store's directory is mounted read-only (a bind
    # mount in a mount namespace of the service's own, gone when it exits): writes fail with
    # EROFS for root too, as on a read-only volume.
    store = tmp_path / "store"
    store.mkdir()
    path = store / "jobs.sqlite3"
    JobStore(f"sqlite:///{path}").close()
    script = (
        f'mount --bind "{store}" "{store}" && mount -o remount,bind,ro "{store}" && '
        f'exec "{BUFSIZE}" serve --port {free_port()}'
    )
    env = {**os.environ, "BUFSIZE_DATABASE_URL": f"sqlite:///{path}"}
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0] and "BUFSIZE_DATABASE_URL" in lines[0]
    assert "mounted read-only" in lines[0] and "remount it read-write" in lines[0]
    # The mount was the service's own: the store is writable again outside it.
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE probe (x INTEGER)")


def test_uvicorn_started_directly_refuses_a_corrupt_database_in_one_line(tmp_path: Path) -> None:
    # The lifespan checks the store too, so `uvicorn app.main:app` stops before it listens, and
    # its log says why in one line instead of Starlette's traceback.
    path = tmp_path / "jobs.sqlite3"
    _corrupt(path)
    env = {**os.environ, "BUFSIZE_DATABASE_URL": f"sqlite:///{path}"}
    argv = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(free_port())]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 2 and errors[1].endswith("Application startup failed. Exiting."), errors
    assert str(path) in errors[0] and "BUFSIZE_DATABASE_URL" in errors[0], errors
    assert "backup" in errors[0]
