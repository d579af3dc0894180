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


class Gate(Protocol):
    """What the warm-up holds: the pool's readiness (set when jobs may be dispatched)."""

    ready: threading.Event

    def wake(self) -> None: ...


class SimulatorWarmup:
    """Compiles the simulator in a child process; the gate opens when it ends, whatever the
    outcome (a failed warm-up only means the first job compiles, as without it)."""

    def __init__(self, command: tuple[str, ...] | None = None) -> None:
        #: The child process that compiles (the simulator's own warm-up run by default).
        self.command = command or (sys.executable, "-m", "validation.simulator.warm")
        self.started_at: float | None = None
        self.finished_at: float | None = None

    def start(self, gate: Gate) -> None:
        gate.ready.clear()
        self.started_at = time.monotonic()
        threading.Thread(target=self._run, args=(gate,), name="bufsize-warmup", daemon=True).start()

    def _run(self, gate: Gate) -> None:
        try:
            done = subprocess.run(
                list(self.command),
                capture_output=True,
                text=True,
                timeout=WARMUP_TIMEOUT_S,
                check=False,
            )
            if done.returncode != 0:
                logger.warning("simulator warm-up failed: %s", done.stderr.strip()[-500:])
            else:
                logger.info("%s", done.stdout.strip())
        except (OSError, subprocess.TimeoutExpired) as exc:
            logger.warning("simulator warm-up did not finish: %s", exc)
        finally:
            self.finished_at = time.monotonic()
            gate.ready.set()
            gate.wake()

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
