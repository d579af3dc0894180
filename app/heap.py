"""The start-up heap kept out of the garbage collector's passes, so they never pause an answer.

A service process holds about 150,000 objects once FastAPI, pydantic, NumPy, SciPy and the
engine are imported. Python's full (generation 2) collection walks every one of them: it came
about once per 2,000 ``/v1/recommend`` answers and paused the event loop for 140-240 ms (the
loaded 2-core machine), so every request in flight then waited for it, which alone puts the
p99 of a benchmark run of a thousand answers far above its median. Objects that live as long
as the process need no collecting: :func:`settle` computes one answer (the engine's lazy
imports happen now, not in a request) and moves everything alive into the collector's
permanent generation (:func:`gc.freeze`); later passes walk only what requests create.
"""

from __future__ import annotations

import gc

from app.services.recommend import recommendation_json
from models.recommend import LinkScenario, Targets

#: An ordinary port, answered once at start-up.
_WARM_UP = LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=1000, packet_bytes=1500.0)


def settle() -> None:
    """Warm the engine, then exempt every object alive now from garbage collection."""
    recommendation_json(_WARM_UP, Targets())
    gc.freeze()


def release() -> None:
    """Undo :func:`settle` (at shutdown: a test process starts many apps one after another)."""
    gc.unfreeze()
