"""Whole-process time of the command line against importing numpy (and numba), side by side.

Targets (issue "a fast command line"): ``bufsize --help`` at most 2x ``python -c "import numpy"``,
``bufsize recommend`` at most 4x; ``bufsize simulate`` of a 0.1-second run is printed next to
``python -c "import numba"``, the floor any process that runs the compiled simulator pays.

Each round runs every command once, in turn, so that the machine's load falls on all of them
alike; the figures are medians over the rounds, and the ratios are those of the medians. The
first round only warms the caches (the file system's, Python's bytecode cache and numba's
on-disk cache) and is not counted. The commands run with Python's bytecode cache on, as a
user's Python has it: numpy's modules were compiled when pip installed them, and with
``PYTHONDONTWRITEBYTECODE`` set in the calling shell bufsize's own modules would be compiled
again in every process, which no installed copy does. Beside the wall time, the processor
time (user + system) of each process is printed: it is less disturbed by other work on a
shared machine. Usage::

    .venv/bin/python benchmarks/cli_startup.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PYTHON = sys.executable
BUFSIZE = str(Path(PYTHON).with_name("bufsize"))

COMMANDS: dict[str, list[str]] = {
    "python -c 'import numpy'": [PYTHON, "-c", "import numpy"],
    "python -c 'import numba'": [PYTHON, "-c", "import numba"],
    "bufsize --help": [BUFSIZE, "--help"],
    "bufsize recommend": [
        BUFSIZE,
        "recommend",
        "--capacity",
        "10 Gbit/s",
        "--rtt",
        "100ms",
        "--flows",
        "1000",
        "--max-window",
        "64",
    ],
    "bufsize simulate (0.1 s run)": [
        BUFSIZE,
        "simulate",
        "--capacity",
        "10 Mbit/s",
        "--flows",
        "3",
        "--rtt",
        "40ms",
        "--duration",
        "0.1s",
        "--warmup",
        "0s",
        "--buffer",
        "10",
    ],
}

#: (command, baseline, target ratio or None when only printed)
RATIOS = [
    ("bufsize --help", "python -c 'import numpy'", 2.0),
    ("bufsize recommend", "python -c 'import numpy'", 4.0),
    ("bufsize simulate (0.1 s run)", "python -c 'import numba'", None),
]


#: The commands' environment: a fixed terminal width, and the bytecode cache on.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "COLUMNS": "150",
}


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall time and processor time of one whole process, in seconds (its output discarded)."""
    cpu_before = _cpu_s()
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - started, _cpu_s() - cpu_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15, help="counted rounds (after a warm-up)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpu: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for round_index in range(args.rounds + 1):
        for name, argv in COMMANDS.items():
            elapsed, cpu_s = run_once(argv)
            if round_index > 0:
                times[name].append(elapsed)
                cpu[name].append(cpu_s)
    median = {name: statistics.median(values) for name, values in times.items()}
    cpu_median = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"Whole-process time, median of {args.rounds} alternating rounds:")
    print(f"  {'':<32} {'wall':>7}   {'(range)':<15} {'cpu':>7}")
    for name, value in median.items():
        spread = f"{min(times[name]):.3f}-{max(times[name]):.3f}"
        print(f"  {name:<32} {value:7.3f} s ({spread} s) {cpu_median[name]:7.3f} s")
    print("Ratios of the medians (wall; processor time in brackets):")
    for name, base, target in RATIOS:
        ratio = median[name] / median[base]
        cpu_ratio = cpu_median[name] / cpu_median[base]
        verdict = (
            ""
            if target is None
            else f"  target <= {target:g}: {'met' if ratio <= target else 'NOT met'}"
        )
        print(f"  {name} / {base}: {ratio:.2f} ({cpu_ratio:.2f}){verdict}")


if __name__ == "__main__":
    main()
