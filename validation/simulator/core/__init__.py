"""Compiled event loop of the simulator (numba): the model of the reference
(``validation/simulator/reference/simulator.py``) on flat arrays.

The state lives in the arrays of :class:`validation.simulator.layout.Arrays`, which the Python
driver (``engine.py``) allocates; their layouts and every code are declared once in
``layout.py``. No Python object is touched per event. Modules, in the order of the model:

- ``jit.py``: compilation options; the raw pointers every function takes (``s``);
- ``cache.py``: numba's on-disk cache, invalidated by a change to any module here;
- ``heap.py``: the event heap, the per-flow event lists, the uniform random stream;
- ``counters.py``, ``fifo.py``, ``fair_queue.py``, ``port.py``: the bottleneck;
- ``codel.py`` (CoDel, RFC 8289), ``dualq.py`` (DualPI2, RFC 9332, as Linux runs it by
  default, one class of traffic), both deciding at dequeue on the FIFO of
  ``dequeue_fifo.py``; ``pie.py`` (PIE, RFC 8033, on the drop-tail FIFO); ``aqm.py`` (where
  their signal becomes a drop): the port's AQM;
- ``sender.py``, ``receiver.py``: TCP;
- ``loop.py``: the first events, ``run_chunk`` and ``finish``, the driver's entry points.

Differences of structure (not of model) from the reference:

- the reference keeps every event in one heap; here only each flow's earliest packet arrival
  and earliest delivery are in the heap, the others wait in per-flow lists (``heap.py``);
- the reference schedules a DELACK event for every delayed-ACK timer started; here a flow has
  at most one in the heap, and the latest timer enters it, with the time and key the
  reference gave it, when the earlier one runs stale (``heap.push_delack``);
- in drop-tail FIFO mode a packet's departure time is known when it is accepted, so
  departures are not heap events (``fifo.py``). With fair queueing, and with CoDel and DualQ
  (whose drops at dequeue move later departures), departures are events.
"""

from validation.simulator.core.loop import HEAP_MARGIN, finish, init_events, run_chunk

__all__ = ["HEAP_MARGIN", "finish", "init_events", "run_chunk"]
