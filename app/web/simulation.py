"""The "check by simulation" request the page sends: ``POST /v1/verifications``.

The page posts the recommendation's own ``/v1/recommend`` body with :data:`REPLICATIONS` and
:data:`SEED`; the verification (validation/verify.py) scales the link to a simulable size by
its documented rule, simulates the recommended buffer, half and double it, and answers with
predicted vs simulated figures and a verdict per size. The page polls by sending the same body
again (the request is idempotent) and cancels through the simulation job's id it is given.
"""

from __future__ import annotations

from typing import Any

from app.schemas.recommend import RecommendRequest

#: Replications per buffer size: the 99% confidence interval uses Student's t with 4 degrees
#: of freedom (4.6 standard errors).
REPLICATIONS = 5
SEED = 1


def verification_plan(request: RecommendRequest) -> dict[str, Any]:
    """The /v1/verifications body for this recommendation, and the sentence shown beside it."""
    body = request.model_dump(mode="json", exclude_none=True)
    body["replications"] = REPLICATIONS
    body["seed"] = SEED
    return {
        "request": body,
        "description": (
            "Simulates the recommended buffer, half and double it, on your link scaled to a "
            "simulable size (capacity and flows scaled together; per-flow rate, RTTs and window "
            f"kept), {REPLICATIONS} runs each; points carry 99 % confidence intervals."
        ),
    }
