"""Packet-simulation runs: a scenario checked against the service's limits, queued, and run.

``POST /v1/simulations`` and ``POST /v1/verifications`` plan their job here
(:func:`plan_job`: the scenario checked, the job's packets counted against the limits); the job
pool's workers run each buffer size with :func:`run_replications`; ``bufsize simulate`` runs
its scenario with :func:`run_buffer`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.jobs.compact import stored_bytes_bound
from app.jobs.spec import SimulationSpec
from app.services.names import FieldError, Words, api_word
from validation.simulator import ReplicatedResult, RunResult, Scenario
from validation.simulator.scenario import estimate_packets


class Limits(Protocol):
    """The service's limits on one job (:class:`app.settings.Settings` has them)."""

    @property
    def max_replications(self) -> int: ...

    @property
    def max_packets_per_job(self) -> int: ...

    @property
    def max_result_bytes(self) -> int: ...


def build_scenario(fields: dict[str, Any]) -> Scenario:
    """The simulator's scenario from its fields; ``ParameterError`` naming the field if invalid."""
    return Scenario.from_dict(fields)


@dataclass(frozen=True)
class JobPlan:
    """A simulation job ready to queue: its spec, its scenario, its size in bottleneck packets."""

    spec: SimulationSpec
    scenario: Scenario
    packets_per_run: int

    @property
    def packets(self) -> int:
        return self.packets_per_run * self.spec.replications * len(self.spec.buffer_packets)


def check_replications(replications: int, limits: Limits) -> None:
    """:class:`FieldError` at ``replications`` above the service's ``max_replications``."""
    if replications > limits.max_replications:
        raise FieldError(
            ("replications",),
            f"replications must be <= {limits.max_replications} (max_replications), "
            f"got {replications}",
            replications,
        )


def plan_job(
    scenario: Scenario,
    fields: dict[str, Any],
    buffer_packets: list[int],
    replications: int,
    seed: int,
    limits: Limits,
) -> JobPlan:
    """The job of ``scenario`` (whose JSON fields are ``fields``) at each buffer size.

    The replications are checked here; the job's size, by :func:`check_job_size` (a
    simulation job) or the verification's own check (one batch of it).
    """
    check_replications(replications, limits)
    spec = SimulationSpec.create(fields, buffer_packets, replications, seed)
    return JobPlan(spec, scenario, estimate_packets(scenario))


def check_job_size(job_plan: JobPlan, limits: Limits, words: Words = api_word) -> None:
    """:class:`FieldError` when the job would simulate more bottleneck packets than
    ``limits.max_packets_per_job`` (at ``scenario.duration_s``) or store more than
    ``limits.max_result_bytes`` (at ``replications``), saying which inputs to change."""
    spec, per_run, packets = job_plan.spec, job_plan.packets_per_run, job_plan.packets
    replications, sizes = words("replications"), len(spec.buffer_packets)
    if packets > limits.max_packets_per_job:
        raise FieldError(
            ("scenario", "duration_s"),
            f"the job would simulate about {packets:,} bottleneck packets ({per_run:,} per run x "
            f"{spec.replications} {replications} x {sizes} buffer sizes); the limit is "
            f"{limits.max_packets_per_job:,} (max_packets_per_job): shorten "
            f"{words('duration_s')}, lower {words('capacity_bps')}, or ask for fewer "
            f"{replications} or buffer sizes",
            job_plan.scenario.duration_s,
        )
    runs = spec.replications * sizes
    stored = runs * stored_bytes_bound(max(1, len(job_plan.scenario.groups)))
    if stored > limits.max_result_bytes:
        raise FieldError(
            ("replications",),
            f"the job's results would take about {stored:,} bytes ({runs} runs of at most "
            f"{stored // runs:,} bytes each); the limit is {limits.max_result_bytes:,} "
            f"(max_result_bytes): ask for fewer {replications} or buffer sizes",
            spec.replications,
        )


def run_replications(
    scenario: dict[str, Any],
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
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


def run_buffer(
    scenario: Scenario,
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: Callable[[float], None],
    *,
    trace: bool = False,
) -> RunResult | ReplicatedResult:
    """One run of ``scenario`` (``replications`` 1, seeded by ``seed``) or ``replications``."""
    from validation.simulator import replicate, simulate

    if replications > 1:
        return replicate(scenario, buffer_packets, replications, seed, progress, trace=trace)
    return simulate(scenario, buffer_packets, seed, trace=trace, progress=progress)
