"""Compile the simulator's core once, into numba's on-disk cache, with a run of a few packets.

``python -m validation.simulator.warm`` is what the service starts in the background (see
``app/jobs/warmup.py``): the worker processes then load the compiled core from the cache instead
of compiling it for the first check. It prints the seconds it took.
"""

from __future__ import annotations

import time

#: A link small enough that the run itself takes milliseconds: one flow for a tenth of a second.
WARM_SCENARIO = {
    "capacity_bps": 10e6,
    "flows": 1,
    "rtt_s": 0.01,
    "duration_s": 0.1,
    "warmup_s": 0.0,
}


def main() -> None:
    start = time.perf_counter()
    from validation.simulator import replicate
    from validation.simulator.scenario import Scenario

    replicate(Scenario.from_dict(dict(WARM_SCENARIO)), 10, 1, 1)
    print(f"simulator ready in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
