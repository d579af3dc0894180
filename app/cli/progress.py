"""The progress bar of the long-running commands (``simulate``, ``trace``, ``verify``,
``validate``): on stderr, and only once a command has run for a while."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

#: Wall time after which the progress bar appears, s (shorter runs print no bar).
PROGRESS_AFTER_S = 0.5


@dataclass
class ProgressBar:
    """A rich progress bar on stderr over all buffer sizes, shown once a command runs long.

    ``report(step, fraction)`` relays the simulator's progress callback for buffer size
    ``step`` of ``steps`` (one run, or its replications); the bar appears only when stderr is
    a terminal and the command has been running for ``PROGRESS_AFTER_S`` seconds.
    """

    steps: int
    console: Console = field(default_factory=lambda: Console(stderr=True))
    started_s: float = field(default_factory=time.perf_counter)
    _bar: Progress | None = None
    _task: Any = None

    def report(self, step: int, fraction: float, description: str = "") -> None:
        """Show ``step + fraction`` steps done out of ``steps``."""
        if not self.console.is_terminal:
            return
        if self._bar is None:
            if time.perf_counter() - self.started_s < PROGRESS_AFTER_S:
                return
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("simulating", total=float(self.steps))
        done = min(step + min(max(fraction, 0.0), 1.0), float(self.steps))
        self._bar.update(self._task, completed=done, description=description or "simulating")

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
