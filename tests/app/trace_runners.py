"""Stand-in trace-job runners for the job-machinery tests (no tests here).

A trace job's process imports its runner by reference, so these live in a module of their own.
They follow :class:`app.trace_child.TraceRunner`. ``held`` waits, after its first reports, until
the file named by the environment variable ``TRACE_TEST_RELEASE`` exists (the test creates it),
so that a test can look at a job while it runs without depending on how long anything takes;
the process inherits the variable from the test, which sets it before the service starts.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from app.services.trace import TraceOptions
from app.trace_child import Send, read_trace

#: The environment variable naming the file whose creation releases a held runner.
RELEASE = "TRACE_TEST_RELEASE"
#: The message a held runner sends before it waits.
HELD_MESSAGE = "second reading at the estimated rate (10 Mbit/s): 40% of the file"


def wait_for_release() -> None:
    release = Path(os.environ[RELEASE])
    deadline = time.monotonic() + 300
    while not release.exists():
        assert time.monotonic() < deadline, "the test never released the runner"
        time.sleep(0.02)


def held(path: Path, options: TraceOptions, workers: int | None, send: Send) -> dict[str, Any]:
    """Reports the file read once and a second reading at 40 %, waits for the release, then
    reads the trace for real."""
    send(("progress", 1.0))
    send(("message", HELD_MESSAGE))
    wait_for_release()
    return read_trace(path, options, workers, send)


def greedy(path: Path, options: TraceOptions, workers: int | None, send: Send) -> dict[str, Any]:
    """Asks for 8 GiB at once, as a reader whose cost grew with a trace's span would."""
    send(("progress", 0.5))
    block = np.ones(1 << 30, dtype=np.float64)
    return {"sum": float(block.sum())}


def crashing(path: Path, options: TraceOptions, workers: int | None, send: Send) -> dict[str, Any]:
    """Kills its own process, as the kernel's out-of-memory killer would."""
    send(("progress", 0.1))
    os._exit(9)


def told_workers(
    path: Path, options: TraceOptions, workers: int | None, send: Send
) -> dict[str, Any]:
    """Refuses the trace, saying which ``workers`` its check was given."""
    raise ValueError(f"the check's workers: {workers!r}")
