"""Trace jobs outlive the service: ``kill -9`` of ``bufsize serve`` while a trace job runs loses
nothing. The job's process dies with the service, the restarted service runs the job again
from its upload and it succeeds; the upload and its directory are gone once it ends. And a
refused upload leaves no directory behind.

A real service in a subprocess (as ``test_jobs_service_death.py``), its temporary directory
(``TMPDIR``) one of the test's own, so that the uploads can be looked for.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.app.test_jobs_service_death import Service, alive, descendants
from tests.app.trace_links import write_congested_trace

#: How long the job's processes may outlive the service, s: its sentinel checks every 0.5 s;
#: a machine loaded by a parallel test suite has been seen to take over 5 s.
GRACE_S = 30.0


def _trace(path: Path) -> None:
    """A simulated 10 Mbit/s link (8 persistent flows, 10 % background) with a BSCL size, so
    that ``verify`` runs the simulator on it (several seconds: the job is caught running)."""
    write_congested_trace(path)


def _wait(
    service: Service, job_id: str, done: Callable[[dict[str, Any]], bool], timeout_s: float
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        job: dict[str, Any] = httpx.get(f"{service.url}/v1/traces/{job_id}").json()
        if done(job):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.2)


@pytest.fixture
def uploads() -> Iterator[Path]:
    """The service's ``TMPDIR``: a short path, since the sweep pool's fork server binds a Unix
    socket inside it (at most 107 bytes; a pytest-xdist ``tmp_path`` plus the socket's own
    name is longer, and the check then failed with ``AF_UNIX path too long``)."""
    path = Path(tempfile.mkdtemp(prefix="bzt-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.slow
def test_a_trace_job_killed_with_the_service_runs_again_and_leaves_no_upload(
    tmp_path: Path, uploads: Path
) -> None:
    trace = tmp_path / "link.csv"
    _trace(trace)
    database, log = tmp_path / "jobs.sqlite3", tmp_path / "service.log"
    env = {"TMPDIR": str(uploads)}
    first = Service(database, log, env)
    try:
        answer = httpx.post(
            f"{first.url}/v1/traces",
            files={"file": ("link.csv", trace.read_bytes(), "text/csv")},
            data={
                "capacity_bps": "10 Mbit/s",
                "warmup_s": "4s",
                "verify": "true",
                # 10 replications (about 130 simulator runs): the check lasts several seconds, so
                # its relayed "verifying" message (written at most every 0.5 s, PROGRESS_PERIOD_S)
                # is seen on a fast machine too; with 2 (26 runs) a quiet machine finished the
                # check between two writes and the wait ran out.
                "replications": "10",
            },
            timeout=60,
        )
        assert answer.status_code == 202, answer.text
        job_id = answer.json()["id"]
        assert answer.json()["token"]
        assert len(list(uploads.glob("bufsize-trace-*/*"))) == 1  # the upload waits
        # The reading done, the check's simulator runs: the service relays the child's message.
        _wait(first, job_id, lambda job: job["message"].startswith("verifying"), 240)
        children = descendants(first.process.pid)
        assert children, "no process below the service reads the trace"
        first.process.kill()  # kill -9
        first.process.wait()
        killed_at = time.monotonic()
        while any(alive(pid) for pid in children) and time.monotonic() - killed_at < GRACE_S:
            time.sleep(0.1)
        assert not [pid for pid in children if alive(pid)], "the trace job outlived the service"
    finally:
        first.stop()
    second = Service(database, log, env)
    try:
        job = _wait(second, job_id, lambda job: job["status"] in ("succeeded", "failed"), 600)
        assert job["status"] == "succeeded", job
        assert "ran again from its upload" in job["message"], job["message"]
        assert job["result"]["verification"]["rule"] == "bscl"
        assert list(uploads.glob("bufsize-trace-*")) == []  # the upload and its directory
        # A refused upload (no 'file' part) leaves no directory either.
        refused = httpx.post(
            f"{second.url}/v1/traces", files={"other": ("x.csv", b"time_s\n", "text/csv")}
        )
        assert refused.status_code == 422, refused.text
        assert list(uploads.glob("bufsize-trace-*")) == []
    finally:
        second.stop()
