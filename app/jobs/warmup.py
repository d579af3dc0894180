"""The simulator compiled in the background when the service starts, and what a check says
meanwhile.

The packet simulator's core is compiled by numba on its first run and cached on disk
(``validation/simulator/core/cache.py``); ``make install`` fills that cache. When the cache is
cold (a fresh copy, a change to the core) the first check would sit at 0 % while a worker
compiles. With ``warm_simulator`` set (``bufsize serve`` sets it), :class:`SimulatorWarmup`
compiles the core in a child process at start-up; the job pool dispatches no job until it is
done, and a check that waits says "preparing the simulator (first run only)" with the time
spent against the usual time.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from typing import Protocol

logger = logging.getLogger(__name__)

#: Seconds a cold compile takes on the two-core machine the service is developed on, idle
#: (16 s of CPU measured for ``python -m validation.simulator.warm``): the progress shown while
#: preparing is the time spent over this, capped below 1.
TYPICAL_COMPILE_S = 30.0
#: The longest the warm-up may take before the pool stops waiting for it.
WARMUP_TIMEOUT_S = 900.0
MESSAGE = "preparing the simulator (first run only)"
#: The simulator's own warm-up run (``python -m validation.simulator.warm``).
WARM_COMMAND = (sys.executable, "-m", "validation.simulator.warm")

#: A warm-up started before the service, with its start time (:func:`start_early`).
_early: list[tuple[subprocess.Popen[str], float]] = []


def start_early(command: tuple[str, ...] = WARM_COMMAND) -> subprocess.Popen[str]:
    """Start the compile first thing, before the service imports and starts (``bufsize serve``
    does): the lifespan's :class:`SimulatorWarmup` then waits for this process instead of
    starting its own, so the compile overlaps the service's start-up."""
    process = _spawn(command)
    _early.append((process, time.monotonic()))
    return process


def _spawn(command: tuple[str, ...]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


class Gate(Protocol):
    """What the warm-up holds: the pool's readiness (set when jobs may be dispatched)."""

    ready: threading.Event

    def wake(self) -> None: ...


class SimulatorWarmup:
    """Compiles the simulator in a child process; the gate opens when it ends, whatever the
    outcome (a failed warm-up only means the first job compiles, as without it)."""

    def __init__(self, command: tuple[str, ...] | None = None) -> None:
        #: The child process that compiles (the simulator's own warm-up run by default, or
        #: the one :func:`start_early` started, adopted).
        self.command = command or WARM_COMMAND
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self._process: subprocess.Popen[str] | None = None
        self._stopped = False

    def start(self, gate: Gate) -> None:
        gate.ready.clear()
        early = _early.pop() if _early and _early[-1][0].args == list(self.command) else None
        self.started_at = time.monotonic() if early is None else early[1]
        process = None if early is None else early[0]
        threading.Thread(
            target=self._run, args=(gate, process), name="bufsize-warmup", daemon=True
        ).start()

    def _run(self, gate: Gate, process: subprocess.Popen[str] | None) -> None:
        try:
            if process is None:
                process = _spawn(self.command)
            self._process = process
            if self._stopped:  # stopped before the thread got here
                process.kill()
            try:
                out, err = process.communicate(timeout=WARMUP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise
            if self._stopped:
                logger.info("simulator warm-up stopped with the service")
            elif process.returncode != 0:
                logger.warning("simulator warm-up failed: %s", err.strip()[-500:])
            else:
                logger.info("%s", out.strip())
        except (OSError, subprocess.TimeoutExpired) as exc:
            logger.warning("simulator warm-up did not finish: %s", exc)
        finally:
            self.finished_at = time.monotonic()
            gate.ready.set()
            gate.wake()

    def stop(self) -> None:
        """Stop the compile if it still runs (the service stops): no child outlives it."""
        self._stopped = True
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    @property
    def preparing(self) -> bool:
        return self.started_at is not None and self.finished_at is None

    def status(self) -> tuple[str, float] | None:
        """(message, progress in [0, 0.95]) while preparing, else None."""
        if not self.preparing or self.started_at is None:
            return None
        spent = time.monotonic() - self.started_at
        progress = min(0.95, spent / TYPICAL_COMPILE_S)
        return (
            f"{MESSAGE}: compiling its code, {spent:.0f} s so far (about "
            f"{TYPICAL_COMPILE_S:.0f} s on an idle machine)",
            progress,
        )
