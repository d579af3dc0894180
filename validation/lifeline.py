"""Worker processes that die with the process that started them.

A process pool's workers are children of its forkserver, not of the process that made the pool:
killed with ``kill -9``, that process leaves its workers computing, and with them the
forkserver and the resource tracker. :func:`die_with_service`, a pool's initializer, ties each
worker to the process that started the pool (the service's job pool, and the sweeps of
``validation/sweeps.py`` that trace checks, searches and the validation harness run).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from pathlib import Path

#: How often a worker process checks that the service that started it is still running, s.
SERVICE_CHECK_PERIOD_S = 0.5
#: ``prctl`` option that has the kernel signal a process when its parent exits (Linux).
PR_SET_PDEATHSIG = 1


def die_with_service(service_pid: int) -> None:
    """Initializer of a worker process: the worker is killed as soon as the service is gone.

    (The "service" is whichever process started the pool: ``bufsize serve``, or the command
    that runs a sweep.) The worker's parent is the pool's forkserver, not the service, and the
    forkserver outlives the service as long as a worker runs; and while the compiled simulator
    runs, the worker's own threads do not get to run. So the worker forks a small sentinel
    process that checks every ``SERVICE_CHECK_PERIOD_S`` that the service still exists, and kills
    the worker when it does not: a job must never be computed by a worker that no service owns
    while a restarted service computes it again. The sentinel holds no file of the worker's and
    dies with it (on Linux the kernel kills it when the worker exits, ``PR_SET_PDEATHSIG``;
    elsewhere it notices in one period).
    """
    worker_pid = os.getpid()
    started = _start_time(service_pid)
    if os.fork() != 0:
        return
    try:  # the sentinel
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        if sys.platform == "linux":
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        while os.getppid() == worker_pid and _running(service_pid, started):
            time.sleep(SERVICE_CHECK_PERIOD_S)
        if os.getppid() == worker_pid:
            os.kill(worker_pid, signal.SIGKILL)
    finally:
        os._exit(0)


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _running(pid: int, started: str | None) -> bool:
    """Whether ``pid`` exists, is no zombie, and is the process that started at ``started``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return started is None and sys.platform != "linux"
    except OSError:
        return True
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0] not in ("Z", "X") and (started is None or fields[19] == started)
