"""Workers die with the service: after ``kill -9`` of ``bufsize serve`` its worker processes stop
within seconds, and the restarted service finishes the interrupted job, once.

A real service in a subprocess, on a free loopback port with a temporary SQLite store, running
the packet simulator: a job of two 1 Gbit/s runs (a few seconds each) is killed in its first run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ports import free_port

BUFSIZE = str(Path(sys.executable).with_name("bufsize"))
#: How long the worker processes may outlive the service, s (the check runs every 0.5 s).
GRACE_S = 5.0

JOB = {
    "scenario": {
        "capacity_bps": "1 Gbit/s",
        "flows": 50,
        "rtt_s": "50 ms",
        "duration_s": 120,
        "warmup_s": 1,
    },
    "buffer_packets": [100, 200],
    "replications": 1,
    "seed": 1,
}


def descendants(root: int) -> set[int]:
    """Every process below ``root`` in the process tree (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state not in ("Z", "X")


def assert_none_outlives(processes: set[int]) -> None:
    """Every one of ``processes`` has ended within ``GRACE_S`` of now (the service's end)."""
    ended_at = time.monotonic()
    while any(alive(pid) for pid in processes) and time.monotonic() - ended_at < GRACE_S:
        time.sleep(0.1)
    survivors = [pid for pid in processes if alive(pid)]
    assert survivors == [], f"{_commands(survivors)} still run {GRACE_S} s after the service"


def _commands(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:100])
        except OSError:
            out.append(str(pid))
    return out


class Service:
    """``bufsize serve`` in a subprocess."""

    def __init__(self, database: Path, log: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "BUFSIZE_DATABASE_URL": f"sqlite:///{database}",
            "BUFSIZE_WORKERS": "1",
            "BUFSIZE_STALE_JOB_AFTER_S": "2",
            "BUFSIZE_MAX_PACKETS_PER_JOB": str(10**9),
            **(env or {}),
        }
        argv = [BUFSIZE, "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [*argv, "--no-access-log"], env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 180  # a loaded machine starts it slowly
        while True:
            assert self.process.poll() is None, log.read_text()
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.2)

    def get(self, job_id: str) -> dict[str, Any]:
        answer: dict[str, Any] = httpx.get(f"{self.url}/v1/simulations/{job_id}").json()
        return answer

    def wait_for(self, job_id: str, done: Any, timeout_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            job = self.get(job_id)
            if done(job):
                return job
            assert time.monotonic() < deadline, job
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def paths(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    yield tmp_path / "jobs.sqlite3", tmp_path / "service.log"


@pytest.mark.slow
def test_workers_die_with_the_service_and_the_job_finishes_once(
    paths: tuple[Path, Path],
) -> None:
    database, log = paths
    first = Service(database, log)
    try:
        answer = httpx.post(f"{first.url}/v1/simulations", json=JOB)
        assert answer.status_code == 202, answer.text
        job_id = answer.json()["id"]
        # Status "running" comes with the claim; progress above 0 once a worker computes.
        first.wait_for(job_id, lambda job: job["progress"] > 0.0, 120)
        workers = descendants(first.process.pid)
        assert workers, "no worker process below the service"
        first.process.kill()  # kill -9
        first.process.wait()
        assert_none_outlives(workers)
    finally:
        first.stop()

    second = Service(database, log)
    try:
        job = second.wait_for(job_id, lambda job: job["status"] in ("succeeded", "failed"), 240)
        assert job["status"] == "succeeded", job
        # Resumed once, by the restarted service: its first attempt was interrupted.
        assert "resumed after 1 restart(s)" in job["message"], job["message"]
        assert [r["buffer_packets"] for r in job["results"]] == [100, 200]
        assert all(0.0 < r["utilization"] <= 1.0 for r in job["results"])
    finally:
        second.stop()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "SIGTERM"])
def test_answer_workers_die_with_the_service(
    paths: tuple[Path, Path], stop: signal.Signals
) -> None:
    # /v1/recommend's answer processes (app/answer_pool.py): BUFSIZE_ANSWER_WORKERS of them,
    # none left once the service is gone.
    database, log = paths
    service = Service(database, log, {"BUFSIZE_ANSWER_WORKERS": "2", "BUFSIZE_WARM_SIMULATOR": "0"})
    try:
        answer = httpx.post(
            f"{service.url}/v1/recommend",
            json={"scenario": {"capacity_bps": 1e9, "rtt_s": 0.05, "flows": 4}},
            timeout=60,
        )
        assert answer.status_code == 200, answer.text
        # the two workers, with the fork server and the resource tracker
        below = descendants(service.process.pid)
        assert len(below) >= 2, _commands(sorted(below))
        service.process.send_signal(stop)
        service.process.wait(timeout=60)
        assert_none_outlives(below)
    finally:
        service.stop()
