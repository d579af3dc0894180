"""Where an AQM's congestion signal becomes a drop (or, later, an ECN mark): one place.

CoDel (``codel.py``) and PIE (``pie.py``) decide *that* a packet is to carry the congestion
signal; :func:`aqm_signal` decides *how*. Today every signal is a drop (no flow of the
simulator is ECN-capable yet); mark mode (RFC 8289 §5 / RFC 8033 §5.1: an ECN-capable packet
gets CE and is sent instead of being dropped) is to be joined here with the port's ECN marking.
"""

from __future__ import annotations

from validation.simulator.core.counters import COUNTS, drop
from validation.simulator.core.jit import jit
from validation.simulator.layout import FlowCount, GlobalFloat, GlobalInt


@jit
def aqm_signal(sp, t, flow, size):  # type: ignore[no-untyped-def]
    """Signal congestion on a packet of ``flow`` at t; True when it was dropped (not marked).

    The caller has taken the packet out of the queue (CoDel) or not let it in (PIE); a drop
    is counted as a drop and, apart, as an AQM drop.
    """
    s = sp[0]
    drop(sp, t, flow, size)
    if t >= s.g[GlobalFloat.WARMUP_S]:
        s.gi[GlobalInt.AQM_DROPS] += 1
        s.fc[COUNTS * flow + FlowCount.AQM_DROPS] += 1.0
    return True
