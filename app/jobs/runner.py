"""The packet simulator as seen by the job machinery: build, check, size and run a scenario."""

from __future__ import annotations

from typing import Any

from app.jobs.worker import Progress
from validation.simulator.scenario import Scenario


def build_scenario(fields: dict[str, Any]) -> Scenario:
    """The simulator's scenario from its fields; ``ParameterError`` naming the field if invalid."""
    return Scenario.from_dict(fields)


def run_replications(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Progress,
) -> dict[str, Any]:
    """Replicated runs of ``scenario`` with a buffer of ``buffer_packets``, as a JSON-able dict.

    Replications are seeded by ``SeedSequence(seed).spawn(replications)`` in the simulator; the
    same seed is used for every buffer size of a job (common random numbers across the sweep).
    """
    from validation.simulator import replicate

    result = replicate(
        build_scenario(scenario), buffer_packets, replications, seed, progress=progress
    )
    out: dict[str, Any] = result.to_dict()
    return out
