"""Importing this module compiles the simulator's core once (or loads it from numba's cache).

The sweep pool's fork server (:func:`validation.sweeps.executor`) preloads this module, so
that its worker processes, forked from the server, inherit the compiled core instead of each
compiling it: on a fresh checkout (numba's on-disk cache empty) that compilation takes about
a minute of CPU per process, which every worker used to spend at once.
"""

from __future__ import annotations

from validation.simulator import Scenario, simulate

#: A run of a few hundred packets: enough to compile every function of the event loop.
WARM_UP = Scenario(capacity_bps=1e6, flows=2, rtt_s=0.05, duration_s=0.5, warmup_s=0.1)

simulate(WARM_UP, 5, 1)
