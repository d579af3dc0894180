"""Whether a speed-up left the simulator's sample paths alone: every case of
``simulator_speed.CASES`` at a fixed seed, each result's fields hashed bit for bit.

Run with ``.venv/bin/python benchmarks/simulator_speed_same.py --duration 20 > after.txt`` in
each checkout (``PYTHONPATH`` set to it) and compare the files, or give ``--before`` and
``--after`` (roots of two checkouts, as for ``simulator_speed_ab.py``) to run both and print
``same`` or ``DIFFER`` per case. A line is the case, its bottleneck packets and the SHA-256 of
every field of its :class:`validation.simulator.RunResult` except the wall time and the
software versions (floats by their bytes, arrays by their bytes and shape), so any change of
the sample path shows; a change of speed does not.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import subprocess
import sys
from typing import Any

import numpy as np

#: Fields that differ between identical runs (timing) or checkouts (versions), not results.
_SKIP = {"wall_s", "software_versions"}


def _feed(digest: Any, value: Any) -> None:
    """Add ``value`` to ``digest``, exactly (floats by their IEEE bytes)."""
    if isinstance(value, np.ndarray):
        digest.update(str((value.dtype, value.shape)).encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, float):
        digest.update(np.float64(value).tobytes())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name not in _SKIP:
                digest.update(f.name.encode())
                _feed(digest, getattr(value, f.name))
    elif isinstance(value, list | tuple):
        digest.update(f"[{len(value)}".encode())
        for item in value:
            _feed(digest, item)
    else:
        digest.update(repr(value).encode())


def fingerprints(duration: float, seed: int, only: str) -> list[str]:
    """One line per case: name, bottleneck packets, hash of the result's fields."""
    import simulator_speed as bench  # the CASES of this script's checkout

    from validation.simulator import simulate

    lines = []
    for name, scenario, buffer_packets, scale in bench.CASES:
        if only not in name:
            continue
        duration_s = duration * scale
        sc = scenario.replace(duration_s=duration_s, warmup_s=min(10.0 * scale, duration_s / 2))
        result = simulate(sc, buffer_packets, seed)
        digest = hashlib.sha256()
        _feed(digest, result)
        lines.append(f"{name}: {result.bottleneck_packets} packets, {digest.hexdigest()}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=20.0, help="simulated seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="only the cases whose name contains this")
    parser.add_argument("--before", help="root of the first checkout")
    parser.add_argument("--after", help="root of the second checkout")
    args = parser.parse_args()
    if not args.before and not args.after:
        print("\n".join(fingerprints(args.duration, args.seed, args.only)))
        return
    if not args.before or not args.after:
        parser.error("--before and --after go together")
    command = [sys.executable, os.path.abspath(__file__), "--duration", str(args.duration)]
    command += ["--seed", str(args.seed), "--only", args.only]
    outputs = []
    for root in (args.before, args.after):
        env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        outputs.append(done.stdout.strip().splitlines())
    for before, after in zip(*outputs, strict=True):
        same = before == after
        print(f"same: {before}" if same else f"DIFFER: {before} | after: {after}")


if __name__ == "__main__":
    main()
