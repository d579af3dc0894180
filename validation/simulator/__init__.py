"""Packet-level discrete-event simulator of a dumbbell with one shared bottleneck.

The public entry points:

- :class:`Scenario` (``scenario.py``): every parameter of the network and the traffic; its
  ``groups`` (:class:`FlowGroup`) mix traffic of different kinds, paths and TCP options on
  one bottleneck (without groups, the scenario's own fields are its one group);
- :func:`simulate`: one run for one buffer size and seed -> :class:`RunResult` (totals, and
  ``groups``: a :class:`GroupResult` per flow group);
- :func:`replicate`: independent replications (seeds from ``SeedSequence(seed).spawn(n)``)
  -> :class:`ReplicatedResult` with 99% confidence intervals;
- :func:`replication_seeds`: the seed of each of :func:`replicate`'s runs;
- :func:`estimate_packets`: bottleneck packets a run would simulate (for budgets), and
  ``DEFAULT_PACKET_BUDGET``, the budget a scenario has unless it says otherwise.

The event loop is compiled with numba (the package ``core``; every array layout and code it
shares with the driver is declared once in ``layout.py``). A short pure-Python
implementation of the same model (``reference/simulator.py``, used by the tests and the
studies, never by the service) is what the compiled core is checked against, event for event.
"""

from validation.simulator.engine import replicate, replication_seeds, simulate
from validation.simulator.results import (
    Estimate,
    GroupResult,
    PacketTrace,
    ReplicatedResult,
    RunResult,
    SampledTrace,
    confidence_interval,
)
from validation.simulator.scenario import (
    DEFAULT_PACKET_BUDGET,
    FlowGroup,
    Scenario,
    estimate_packets,
)

__all__ = [
    "DEFAULT_PACKET_BUDGET",
    "Estimate",
    "FlowGroup",
    "GroupResult",
    "PacketTrace",
    "ReplicatedResult",
    "RunResult",
    "SampledTrace",
    "Scenario",
    "confidence_interval",
    "estimate_packets",
    "replicate",
    "replication_seeds",
    "simulate",
]
