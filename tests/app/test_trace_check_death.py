"""A trace check's simulator processes die with the service, on SIGTERM and on kill -9, and
there are BUFSIZE_WORKERS of them.

A real service (``bufsize serve``) reads a simulated trace with ``verify=true`` and 20
replications (a check of a minute or more); once the check runs, the service is stopped. Every
process below it (the sweep pool's workers, their sentinels, the forkserver, the resource
tracker) must be gone within a few seconds. They once ran on for minutes (~560 MB).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.app.test_jobs_service_death import GRACE_S, Service, _commands, alive, descendants
from tests.app.trace_links import write_congested_trace

#: In the command line of a forkserver, and of the processes it forks.
FORKSERVER = "multiprocessing.forkserver import main"


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def _forked_by_forkserver(pid: int) -> bool:
    try:
        return FORKSERVER in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


def _forkserver_children(service: int) -> list[int]:
    """The pools' workers: the live children of the forkservers below the service (the job
    pool's, and the one the trace job's process started for its check). A forkserver's
    workers carry its command line; a worker's own sentinel, the worker's child, is not
    counted."""
    below = descendants(service)
    servers = {
        pid
        for pid in below
        if _forked_by_forkserver(pid) and not _forked_by_forkserver(_parent(pid) or 0)
    }
    return [pid for pid in below if _parent(pid) in servers and alive(pid)]


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "kill-9"])
def test_no_process_outlives_the_service_during_a_trace_check(
    tmp_path: Path, stop: signal.Signals
) -> None:
    trace = tmp_path / "link.csv"
    write_congested_trace(trace)
    service = Service(
        tmp_path / "jobs.sqlite3", tmp_path / "service.log", env={"BUFSIZE_WORKERS": "1"}
    )
    try:
        answer = httpx.post(
            f"{service.url}/v1/traces",
            files={"file": ("link.csv", trace.read_bytes(), "text/csv")},
            data={
                "capacity_bps": "10 Mbit/s",
                "warmup_s": "4s",
                "verify": "true",
                "replications": "20",
            },
            timeout=60,
        )
        assert answer.status_code == 202, answer.text
        location = f"{service.url}{answer.headers['location']}"
        deadline = time.monotonic() + 300
        while "verifying" not in (httpx.get(location).json()["message"] or ""):
            assert time.monotonic() < deadline, httpx.get(location).json()
            time.sleep(0.25)
        while not _forkserver_children(service.process.pid):
            assert time.monotonic() < deadline, "no simulator process found"
            time.sleep(0.1)
        # BUFSIZE_WORKERS=1: one simulator process for the check (its pool once took every CPU).
        # Counted every 0.1 s for a second, not once: the check runs several sweeps, each with
        # a pool of its own, and a single look can fall between two of them and see none (it
        # did once, in a full run on a quiet machine).
        counts = []
        for _ in range(10):
            counts.append(len(_forkserver_children(service.process.pid)))
            time.sleep(0.1)
        assert max(counts) == 1, counts
        processes = descendants(service.process.pid)
        service.process.send_signal(stop)
        service.process.wait(timeout=60)
        stopped_at = time.monotonic()
        while any(alive(pid) for pid in processes) and time.monotonic() - stopped_at < GRACE_S:
            time.sleep(0.1)
        survivors = [pid for pid in processes if alive(pid)]
        assert survivors == [], f"{_commands(survivors)} still run {GRACE_S} s after the service"
    finally:
        service.stop()
