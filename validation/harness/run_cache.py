"""Simulated runs kept on disk by scenario, buffer and seed (a run is never simulated twice).

A run is deterministic for its task (:class:`validation.sweeps.Task`: scenario, buffer, seed)
and the simulator's code, so its measures can be kept and reused: a row whose scenario did not
change since the last ``bufsize validate`` is read back instead of simulated again. The key of
a run is the SHA-256 of the task's fields, the measures a sweep returns and
:func:`validation.simulator.stamp.simulator_stamp` (every source file of the simulator and the
versions of numpy and numba): any change to the
simulator, to a scenario or to a seed misses the cache and simulates anew.

One JSON file per run, ``<directory>/<key[:2]>/<key>.json``; a file that cannot be read is
treated as missing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from validation.simulator.stamp import simulator_stamp
from validation.sweeps import MEASURES, Task


def task_key(task: Task) -> str:
    """The key of one run: its scenario, buffer and seed, the measures and the simulator."""
    fields: dict[str, Any] = {
        "scenario": task.scenario.to_dict(),
        "buffer_packets": task.buffer_packets,
        "seed": task.seed,
        "measures": list(MEASURES),
        "simulator": simulator_stamp(),
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


class RunCache:
    """Measures of simulated runs in ``directory`` (created on the first write).

    Attributes
    ----------
    directory : folder of the cached runs.
    hits, misses : runs read back and runs not found, since this object was made.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.hits = 0
        self.misses = 0

    def _path(self, task: Task) -> Path:
        key = task_key(task)
        return self.directory / key[:2] / f"{key}.json"

    def get(self, task: Task) -> dict[str, float] | None:
        """The measures of ``task`` if a previous run kept them, else None."""
        try:
            text = self._path(task).read_text()
            measures = json.loads(text)
        except (OSError, ValueError):
            self.misses += 1
            return None
        if not isinstance(measures, dict) or any(name not in measures for name in MEASURES):
            self.misses += 1
            return None
        self.hits += 1
        return {str(k): float(v) for k, v in measures.items()}

    def put(self, task: Task, measures: dict[str, float]) -> None:
        """Keep the measures of ``task`` (written to a temporary file, then renamed)."""
        path = self._path(task)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(measures, sort_keys=True))
        temporary.replace(path)

    def split(self, tasks: Sequence[Task]) -> tuple[dict[Task, dict[str, float]], list[Task]]:
        """The tasks already kept (with their measures) and the ones still to simulate."""
        found: dict[Task, dict[str, float]] = {}
        missing: list[Task] = []
        for task in tasks:
            measures = self.get(task)
            if measures is None:
                missing.append(task)
            else:
                found[task] = measures
        return found, missing
