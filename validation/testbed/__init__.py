"""Linux's own TCP through a namespace dumbbell: the simulator's reference on this machine.

- :class:`Testbed` (``bed.py``): sender, router and receiver namespaces; the router forwards
  through a user-space process (``forwarder.py``) that is the bottleneck port (a link of the
  given rate with a drop-tail buffer counted in packets) and the ACKs' delay line (each
  flow's RTT); bulk flows (``endpoints.py``) with their congestion control set per socket;
  :meth:`Testbed.run` measures utilization, loss and queueing delay after a warm-up;
  :meth:`Testbed.transfer` times one finite transfer alone on the idle link;
  everything is removed when the context ends.
- ``sanity.py``: the checks a run passes before its figures count (RTT within 1 ms, no
  drop outside the bottleneck, the congestion control asked for; per link, one Reno flow
  with 2 BDP of buffer at >= 99 %).
- ``wakeups.py``: while a testbed is open it holds a PM QoS request that keeps idle CPUs
  polling, so a virtual machine's halted vCPUs do not wake late and stretch the RTTs.
"""

from validation.testbed.bed import (
    Flow,
    Measurement,
    Testbed,
    TestbedError,
    TestbedUnavailable,
    Transfer,
    remains,
    unavailable_reason,
)
from validation.testbed.sanity import reno_check, run_problems, transfer_problems

__all__ = [
    "Flow",
    "Measurement",
    "Testbed",
    "TestbedError",
    "TestbedUnavailable",
    "Transfer",
    "remains",
    "reno_check",
    "run_problems",
    "transfer_problems",
    "unavailable_reason",
]
