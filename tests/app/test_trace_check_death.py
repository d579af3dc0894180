"""A trace check runs in its job's one process, which dies with the service, on SIGTERM and on
kill -9.

A real service (``bufsize serve``, ``BUFSIZE_WORKERS=1``) reads a simulated trace with
``verify=true`` and 20 replications (a check of a minute or more); while the check runs, the
trace job's process is the only job process below the service (no simulator process of its
own: its check's runs are made in it, within its memory limit and its one worker slot). Then
the service is stopped: every process below it (the job's process, /v1/recommend's answer
workers, the resource trackers, a
forkserver) must be gone within a few seconds. A check's simulator processes once ran on for
minutes (~560 MB).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.app.test_jobs_service_death import (
    Service,
    alive,
    assert_none_outlives,
    descendants,
)
from tests.app.trace_links import write_congested_trace

#: /v1/recommend's answer processes (app/answer_pool.py), forked by the same forkserver: they
#: run beside the job and must die with the service too.
ANSWER_WORKERS = 2
#: In the command line of a forkserver, and of the processes it forks.
FORKSERVER = "multiprocessing.forkserver import main"
#: In the command line of a process started by multiprocessing's ``spawn``.
SPAWNED = "multiprocessing.spawn import spawn_main"


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


def _spawned(pid: int) -> bool:
    try:
        return SPAWNED in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


def _trace_job_processes(service: int) -> list[int]:
    """The live processes started with multiprocessing's ``spawn`` below the service: the trace
    jobs' (the simulation pool forks its workers from a forkserver). A job process's sentinel
    (:func:`validation.lifeline.die_with_service`, a fork: the same command line) is not
    counted."""
    return [
        pid
        for pid in descendants(service)
        if _spawned(pid) and not _spawned(_parent(pid) or 0) and alive(pid)
    ]


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
        tmp_path / "jobs.sqlite3",
        tmp_path / "service.log",
        env={"BUFSIZE_WORKERS": "1", "BUFSIZE_ANSWER_WORKERS": str(ANSWER_WORKERS)},
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
        # BUFSIZE_WORKERS=1: the trace job's process, and no simulator process beside it (a
        # check once had a pool of its own, outside the job's memory limit and worker slot);
        # the forkserver's only children are the answer workers.
        # Counted every 0.1 s for a second, not once: the check runs several sweeps, and a
        # single look could fall between two of them.
        counts = []
        for _ in range(10):
            pid = service.process.pid
            counts.append((len(_trace_job_processes(pid)), len(_forkserver_children(pid))))
            time.sleep(0.1)
        assert set(counts) == {(1, ANSWER_WORKERS)}, counts
        processes = descendants(service.process.pid)
        service.process.send_signal(stop)
        service.process.wait(timeout=60)
        assert_none_outlives(processes)
    finally:
        service.stop()
