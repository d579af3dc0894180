"""What the job store keeps of a run: its measures, and its long series bounded in length.

A run's series grow with the request: the queue distribution has one entry per packet of the
buffer (a million for ``buffer_packets: [1000000]``), the per-flow throughputs one per flow,
the loss bursts one per burst. Stored as they are, a 148-byte request once kept 100 MB. Each
series is cut to at most :data:`MAX_SERIES_POINTS` values before it is stored:

- ``queue_distribution`` (the time fraction with k packets queued, k = 0, 1, ...) loses its
  trailing zeros, then adjacent occupancies are summed into bins of
  ``queue_distribution_bin_packets`` packets each (1: not binned), so the fractions still sum
  to the same total;
- any other list longer than the bound is replaced by ``<name>_summary``: its count, mean,
  minimum, median, 99th percentile and maximum.

:func:`stored_bytes_bound` is what one stored run can take at most, used to refuse a job whose
results would pass ``max_result_bytes`` before it runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: The longest series a stored run keeps.
MAX_SERIES_POINTS = 1_000
#: JSON bytes of one number at most (a float's shortest repr, a comma, a space).
_NUMBER_BYTES = 26
#: The run's scalar measures, scenario and versions: a bound on their JSON, bytes.
_SCALARS_BYTES = 8_192
#: A flow group's measures and scenario fields in a run, bytes at most.
_GROUP_BYTES = 4_096
#: The run's series (queue distribution, per-flow throughputs, loss bursts, interval
#: throughputs), each at most MAX_SERIES_POINTS numbers or a summary.
_SERIES = 4


def _summary(values: list[float]) -> dict[str, float | int | None]:
    data = np.asarray([v for v in values if v is not None], dtype=float)
    if data.size == 0:
        return {
            "count": len(values),
            "mean": None,
            "min": None,
            "p50": None,
            "p99": None,
            "max": None,
        }
    return {
        "count": len(values),
        "mean": float(data.mean()),
        "min": float(data.min()),
        "p50": float(np.quantile(data, 0.5)),
        "p99": float(np.quantile(data, 0.99)),
        "max": float(data.max()),
    }


def _binned(distribution: list[float]) -> tuple[list[float], int]:
    end = len(distribution)
    while end > 1 and not distribution[end - 1]:
        end -= 1
    kept = distribution[:end]
    width = max(1, math.ceil(len(kept) / MAX_SERIES_POINTS))
    if width == 1:
        return kept, 1
    values = np.asarray(kept, dtype=float)
    padded = np.zeros(math.ceil(len(values) / width) * width)
    padded[: len(values)] = values
    return padded.reshape(-1, width).sum(axis=1).tolist(), width


def compact_run(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` with every series at most :data:`MAX_SERIES_POINTS` long (see the module)."""
    out: dict[str, Any] = {}
    for name, value in run.items():
        if name == "queue_distribution" and isinstance(value, list):
            out[name], out["queue_distribution_bin_packets"] = _binned(value)
        elif isinstance(value, list) and len(value) > MAX_SERIES_POINTS and name != "groups":
            out[f"{name}_summary"] = _summary(value)
        else:
            out[name] = value
    return out


def compact_result(result: dict[str, Any]) -> dict[str, Any]:
    """A buffer size's replicated result with each of its runs compacted."""
    out = dict(result)
    if isinstance(out.get("runs"), list):
        out["runs"] = [compact_run(run) for run in out["runs"]]
    return out


def stored_bytes_bound(groups: int) -> int:
    """The most JSON one compacted run of a scenario with ``groups`` flow groups takes."""
    return _SCALARS_BYTES + groups * _GROUP_BYTES + _SERIES * MAX_SERIES_POINTS * _NUMBER_BYTES
