"""Stand-in simulation runners for the job-machinery tests (no tests here).

Worker processes import a runner by reference, so these live in a module of their own with
nothing heavy to import: a fresh worker process starts in a fraction of a second. They follow
the runner contract of :class:`app.jobs.worker.Runner`: report progress often, stop when the
report raises, return a JSON-able dict. They stand in for the packet simulator only where the
tests are about jobs (queueing, cancelling, restarting); the real simulator has its own test.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

STEP_S = 0.02


def _result(buffer_packets: int, replications: int, seed: int) -> dict[str, Any]:
    return {
        "buffer_packets": buffer_packets,
        "replications": replications,
        "seed": seed,
        "utilization": buffer_packets / (buffer_packets + 1.0),
        "computed_by_pid": os.getpid(),
    }


def quick_runner(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
) -> dict[str, Any]:
    """Finishes at once."""
    progress(0.5)
    return _result(buffer_packets, replications, seed)


def stepped_runner(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
) -> dict[str, Any]:
    """Takes duration_s x 20 ms of wall time per buffer size, reporting every step."""
    steps = int(scenario["duration_s"])
    for step in range(steps):
        time.sleep(STEP_S)
        progress(step / steps)
    return _result(buffer_packets, replications, seed)


def failing_runner(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
) -> dict[str, Any]:
    """Fails the way a simulator bug would."""
    progress(0.1)
    raise RuntimeError(f"no route to buffer {buffer_packets}")


def crashing_runner(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
) -> dict[str, Any]:
    """Kills its own process, as the kernel's out-of-memory killer would."""
    progress(0.1)
    os._exit(9)


#: The queue distribution of a run at buffer_packets = 1,000,000: every occupancy visited
#: (the worst case for storage), the fractions summing to 1.
WIDE_DISTRIBUTION = [1.0 / 1_000_001] * 1_000_001


def wide_runner(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
) -> dict[str, Any]:
    """A result the shape of the simulator's, with a million-entry queue distribution and
    10,000 per-flow throughputs in every run (what a 148-byte request once stored as 100 MB)."""
    progress(0.5)
    run = {
        "utilization": 0.9,
        "queue_distribution": WIDE_DISTRIBUTION,
        "per_flow_throughput_bps": [float(i) for i in range(10_000)],
        "loss_burst_lengths": [1, 2, 3],
    }
    return {**_result(buffer_packets, replications, seed), "runs": [run] * replications}
