"""A recommendation checked by simulation: the recommended size, half and double it.

``bufsize recommend --verify`` runs the check here and now (:func:`run_verification`);
``POST /v1/verifications`` plans it (:func:`plan_verification`), queues its runs as an ordinary
simulation job, and reads the outcome from the job's results (:func:`outcome`). The logic
(scaling rule, sizes, verdicts) is :mod:`validation.verify`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.services.recommend import recommend
from app.services.simulate import JobPlan, Limits, check_replications, plan_job
from models.recommend import LinkScenario, Recommendation, Targets
from validation.verify import Plan, Progress, Verification, assemble, plan, verify


@dataclass(frozen=True)
class PlannedVerification:
    """The recommendation, what its check simulates, and the job that runs it (None when the
    link is not simulated: :meth:`Plan.unfaithful` is then the answer)."""

    recommendation: Recommendation
    plan: Plan
    job: JobPlan | None


def plan_verification(
    link: LinkScenario, targets: Targets, replications: int, seed: int, limits: Limits
) -> PlannedVerification:
    """The check of ``link``'s recommendation, planned as one simulation job."""
    rec = recommend(link, targets)
    check_replications(replications, limits)
    p = plan(link, rec, targets, replications=replications, seed=seed)
    if p.scenario is None:
        return PlannedVerification(rec, p, None)
    job = plan_job(
        p.scenario,
        p.scenario.to_dict(),
        sorted(set(p.simulated.values())),
        replications,
        seed,
        limits,
    )
    return PlannedVerification(rec, p, job)


def outcome(p: Plan, stored: dict[int, dict[str, Any]]) -> Verification:
    """The verdicts from the job's stored results (buffer packets -> result with ``runs``)."""
    runs = {label: stored[packets]["runs"] for label, packets in p.simulated.items()}
    return assemble(p, runs)


def run_verification(
    link: LinkScenario,
    rec: Recommendation,
    targets: Targets,
    replications: int,
    seed: int,
    progress: Progress | None = None,
) -> Verification:
    """Simulate the check now (:func:`validation.verify.verify`), reporting ``progress``."""
    return verify(link, rec, targets, replications=replications, seed=seed, progress=progress)
