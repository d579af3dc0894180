"""A recommendation checked by simulation (the recommended size, half and double it), and the
smallest size found by simulation.

``bufsize recommend --verify`` runs the check here and now (:class:`RunHere`);
``POST /v1/verifications`` plans it (:func:`plan_verification`) and runs its batches of
replications as ordinary simulation jobs through :func:`job_runner` (one job per simulated
scenario and batch, the same seeds as the command line's): each answer replays the batches
from the stored results and stops at the first job not finished (:class:`Pending`). The logic
(scaling rule, sizes, verdicts, extra batches for undecided targets) is
:mod:`validation.verify`'s. ``bufsize recommend --search`` and ``search`` in the same request
run :mod:`validation.size_search`'s bisection the same two ways (:meth:`RunHere.search`,
:func:`searched`), each size tried being such a check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.jobs.spec import SimulationSpec
from app.jobs.store import JobView
from app.jobs.tables import JobStatus
from app.services.names import FieldError, Words, api_word
from app.services.recommend import recommend
from app.services.simulate import JobPlan, Limits, check_replications, plan_job
from models.recommend import LinkScenario, Recommendation, Targets
from validation.size_search import SearchOutcome, search, search_with
from validation.verify import (
    DEFAULT_BUDGET_FACTOR,
    BatchRunner,
    Plan,
    Progress,
    Verification,
    batch_seed,
    plan,
    run_batches,
    verify,
)

#: Queues one job (or finds the same one) and returns it: the edge's, which answers the limits.
Submit = Callable[[JobPlan], JobView]
#: A finished job's stored results: buffer packets -> result with its ``runs``.
Results = Callable[[SimulationSpec], dict[int, dict[str, Any]]]


class Pending(Exception):
    """A job the answer waits for (queued or running, or failed), and its batch's number."""

    def __init__(self, job: JobView, batch: int) -> None:
        super().__init__(job.id)
        self.job = job
        self.batch = batch


@dataclass(frozen=True)
class PlannedVerification:
    """The recommendation and what its check simulates (:meth:`Plan.unfaithful` is the answer
    when ``plan.scenario`` is None: the link is not simulated)."""

    recommendation: Recommendation
    plan: Plan


def replication_budget(replications: int, max_replications: int | None, limits: Limits) -> int:
    """The most runs per size: the one asked for, or 3 x ``replications`` within the limit."""
    check_replications(replications, limits)
    if max_replications is None:
        return min(DEFAULT_BUDGET_FACTOR * replications, limits.max_replications)
    if max_replications < replications:
        raise FieldError(
            ("max_replications",),
            f"max_replications must be >= replications ({replications}), got {max_replications}",
            max_replications,
        )
    if max_replications > limits.max_replications:
        raise FieldError(
            ("max_replications",),
            f"max_replications must be <= {limits.max_replications} (max_replications), "
            f"got {max_replications}",
            max_replications,
        )
    return max_replications


def plan_verification(
    link: LinkScenario,
    targets: Targets,
    replications: int,
    seed: int,
    limits: Limits,
    max_replications: int | None = None,
) -> PlannedVerification:
    """The check of ``link``'s recommendation."""
    rec = recommend(link, targets)
    budget = replication_budget(replications, max_replications, limits)
    p = plan(link, rec, targets, replications=replications, seed=seed, max_replications=budget)
    return PlannedVerification(rec, p)


def check_batch_size(
    job_plan: JobPlan, limits: Limits, replications: int, words: Words = api_word
) -> None:
    """:class:`FieldError` at ``replications`` (the request's) when one batch of the check
    would simulate more bottleneck packets than ``limits.max_packets_per_job``."""
    if job_plan.packets > limits.max_packets_per_job:
        raise FieldError(
            ("replications",),
            f"the verification would simulate about {job_plan.packets:,} bottleneck packets in "
            f"one job; the limit is {limits.max_packets_per_job:,} (max_packets_per_job): ask "
            f"for fewer {words('replications')}",
            replications,
        )


def job_runner(
    submit: Submit, results: Results, limits: Limits, seen: list[JobView]
) -> BatchRunner:
    """A batch runner on the service's jobs: each batch's sizes, one job per simulated scenario.

    Raises :class:`Pending` at the first job not succeeded; ``seen`` keeps the last job.
    """

    def run(p: Plan, labels: list[str], batch: int) -> list[dict[str, float]]:
        n = p.batch_replications(batch)
        specs: dict[str, SimulationSpec] = {}
        for scenario, group in p.groups(labels):
            job_plan = plan_job(
                scenario,
                scenario.to_dict(),
                [p.simulated[label] for label in group],
                n,
                batch_seed(p.seed, batch),
                limits,
            )
            job = submit(job_plan)
            seen[:] = [job]
            if job.status != JobStatus.SUCCEEDED:
                raise Pending(job, batch)
            specs.update(dict.fromkeys(group, job_plan.spec))
        out: list[dict[str, float]] = []
        for label in labels:
            out.extend(results(specs[label])[p.simulated[label]]["runs"])
        return out

    return run


def checked(planned: PlannedVerification, run: BatchRunner) -> Verification:
    """The check's outcome, its batches run by ``run`` (:func:`job_runner` for the service)."""
    return run_batches(planned.plan, run)


def searched(planned: PlannedVerification, run: BatchRunner) -> SearchOutcome:
    """The search's outcome, its batches run by ``run`` (:func:`job_runner` for the service)."""
    p = planned.plan
    return search_with(
        p.link,
        planned.recommendation,
        p.targets,
        run,
        replications=p.replications,
        seed=p.seed,
        max_replications=p.max_replications,
    )


@dataclass(frozen=True)
class RunHere:
    """A check or a search run here and now (``bufsize recommend --verify``/``--search``):
    runs per size, their seed, the most runs per size, and who hears of each finished run."""

    replications: int
    seed: int
    max_replications: int | None = None
    progress: Progress | None = None

    def check(self, link: LinkScenario, rec: Recommendation, targets: Targets) -> Verification:
        """The check of ``rec`` (:func:`validation.verify.verify`)."""
        return verify(link, rec, targets, **self._options())

    def search(self, link: LinkScenario, rec: Recommendation, targets: Targets) -> SearchOutcome:
        """The smallest size meeting ``targets`` (:func:`validation.size_search.search`)."""
        return search(link, rec, targets, **self._options())

    def _options(self) -> dict[str, Any]:
        return {
            "replications": self.replications,
            "seed": self.seed,
            "max_replications": self.max_replications,
            "progress": self.progress,
        }
