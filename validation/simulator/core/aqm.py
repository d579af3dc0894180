"""Where an AQM's congestion signal becomes a drop or an ECN mark: one place.

CoDel (``codel.py``) and PIE (``pie.py``) decide *that* a packet is to carry the congestion
signal; :func:`aqm_signal` decides *how*: through ``ecn.mark_or_drop``, an ECN-capable packet
(its group's ``EcnMode`` is not OFF) is marked CE and kept, any other dropped. CoDel: RFC 8289
§1, read, "it may be reasonable to ECN-mark packets instead" (its pseudocode, §5, only drops),
and Linux's ``codel_impl.h``, which marks instead of dropping. PIE: RFC 8033 §5.1, read, "PIE
MAY support ECN by marking (rather than dropping) ECN-capable packets" until the drop
probability exceeds ``mark_ecnth`` = 10 %, which the caller passes as ``may_mark`` (at most
10 %, as Linux's ``sch_pie.c``). DualQ (``dualq.py``): RFC 9332 Appendix A.1, an ECN-capable
packet is marked, any other dropped, except on overload, where ``may_mark`` is False (Linux's
``sch_dualpi2.c``, ``dualpi2_classic_marking``).
"""

from __future__ import annotations

from validation.simulator.core.counters import COUNTS, drop
from validation.simulator.core.ecn import mark_or_drop
from validation.simulator.core.jit import jit
from validation.simulator.layout import FlowCount, GlobalFloat, GlobalInt


@jit
def aqm_signal(sp, t, flow, size, may_mark):
    """Signal congestion on a packet of ``flow`` at t: CE_FLAG when it is marked (the caller
    keeps it), -1 when it is dropped (counted as a drop and, apart, as an AQM drop).

    The caller has taken the packet out of the queue (CoDel) or not let it in yet (PIE).
    """
    s = sp[0]
    signal = mark_or_drop(sp, t, flow, size) if may_mark else -1
    if signal < 0:
        if not may_mark:
            drop(sp, t, flow, size)
        if t >= s.g[GlobalFloat.WARMUP_S]:
            s.gi[GlobalInt.AQM_DROPS] += 1
            s.fc[COUNTS * flow + FlowCount.AQM_DROPS] += 1.0
    return signal
