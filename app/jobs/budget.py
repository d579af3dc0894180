"""The service's worker budget: the ``workers`` processes that simulation and trace jobs share.

A simulation job takes one slot for its worker process (:class:`app.jobs.pool.JobPool`), a trace
job one for its own process (:class:`app.trace_jobs.TraceJobs`, whose check runs its simulator
runs in that same process), so that at most ``workers`` jobs compute at any time, each in one
process, whatever the mix of jobs (an idle worker process of the simulation pool may wait
beside a running trace job).

A consumer takes slots before it claims jobs and gives back those it did not use. A slot given
back wakes every consumer when a job ended, and otherwise only the consumers that were refused
a slot since they last looked: so a consumer that found the budget briefly held by the other
one's look at its queue is woken at once, and two idle consumers do not wake each other forever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class WorkerBudget:
    """``total`` slots, taken and given back by the job consumers of one service."""

    def __init__(self, total: int) -> None:
        if total < 1:
            raise ValueError(f"workers must be at least 1, not {total}")
        self.total = total
        self._taken = 0
        self._lock = threading.Lock()
        self._wakes: dict[str, Callable[[], None]] = {}
        self._refused: set[str] = set()

    def on_release(self, consumer: str, wake: Callable[[], None]) -> None:
        """Call ``wake`` when slots come back that ``consumer`` may want."""
        with self._lock:
            self._wakes[consumer] = wake

    def take(self, consumer: str, most: int) -> int:
        """Take up to ``most`` free slots for ``consumer``; returns how many (maybe 0)."""
        with self._lock:
            taken = max(0, min(most, self.total - self._taken))
            self._taken += taken
            if taken < most:
                self._refused.add(consumer)
            else:
                self._refused.discard(consumer)
            return taken

    def give(self, count: int = 1, *, ended: bool = True) -> None:
        """Give back ``count`` slots: a job ``ended`` (every consumer is told), or slots taken
        and not used (only consumers refused meanwhile are told)."""
        if count == 0:
            return
        with self._lock:
            if count > self._taken:
                raise ValueError(f"{count} slots given back, {self._taken} taken")
            self._taken -= count
            told = set(self._wakes) if ended else set(self._refused)
            self._refused -= told
            wakes = [self._wakes[name] for name in told if name in self._wakes]
        for wake in wakes:
            wake()

    @property
    def in_use(self) -> int:
        """Slots taken now."""
        with self._lock:
            return self._taken
