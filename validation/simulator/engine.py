"""Running the simulator: one run (:func:`simulate`) and replications (:func:`replicate`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from validation.simulator.results import ReplicatedResult, RunResult, summarize
from validation.simulator.scenario import Scenario

ProgressCallback = Callable[[float], None]


def simulate(
    scenario: Scenario,
    buffer_packets: int,
    seed: int,
    *,
    trace: bool = False,
    progress: ProgressCallback | None = None,
) -> RunResult:
    """Simulate ``scenario`` with a bottleneck buffer of ``buffer_packets`` packets.

    Parameters
    ----------
    scenario : Scenario
        The network and traffic; validated before anything runs.
    buffer_packets : int
        Most packets the bottleneck holds, the one in transmission included.
    seed : int
        Seed of the run's ``numpy.random.Generator``; the same seed gives the same result.
    trace : bool
        Also record the packet trace (departures and drops) and the sampled cwnd/queue trace.
    progress : callable, optional
        Called with the fraction of simulated time done, at least every ~0.5 s of wall time;
        an exception it raises stops the run and propagates (cancellation).

    Returns
    -------
    RunResult
    """
    raise NotImplementedError("the compiled core is being written")


def replicate(
    scenario: Scenario,
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: ProgressCallback | None = None,
) -> ReplicatedResult:
    """Independent replications seeded by ``SeedSequence(seed).spawn(replications)``.

    Returns
    -------
    ReplicatedResult
        Each scalar measure's mean and 99% confidence-interval half-width, and the runs.
    """
    scenario.validate(buffer_packets)
    children = np.random.SeedSequence(seed).spawn(replications)
    runs: list[RunResult] = []
    for index, child in enumerate(children):
        run_seed = int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))

        def scaled(fraction: float, index: int = index) -> None:
            if progress is not None:
                progress((index + fraction) / replications)

        runs.append(simulate(scenario, buffer_packets, run_seed, progress=scaled))
    return summarize(scenario, buffer_packets, seed, runs)
