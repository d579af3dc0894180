"""The packet simulator as the job pool runs it: :func:`app.services.simulate.run_replications`.

The pool sends its runner to worker processes by reference; this module is the one the pool's
forkserver preloads.
"""

from __future__ import annotations

from app.services.simulate import build_scenario, run_replications

__all__ = ["build_scenario", "run_replications"]
