"""``/v1/queues``: loss and delay of a drop-tail port fed by Poisson packet arrivals."""

from __future__ import annotations

from fastapi import APIRouter

from app.schemas.queues import MD1BRequest, MD1BResponse, MM1BRequest, MM1BResponse
from models.queues import (
    md1b_loss_bound,
    md1b_queue,
    mm1b_loss_bound,
    mm1b_loss_probability,
    transparent_admissible_load,
    transparent_buffer_packets,
)

router = APIRouter(prefix="/queues", tags=["queues"])


@router.post(
    "/mm1b",
    summary="M/M/1/B loss",
    description="p = ρ^B(1−ρ)/(1−ρ^(B+1)) (000 eq. 3.3), its geometric bound ρ^B, and with a "
    "target ε the transparent-regime sizing B = ⌈ln ε/ln ρ⌉ and load ε^(1/B) (003 §4.2).",
)
async def mm1b(body: MM1BRequest) -> MM1BResponse:
    below_one = body.load < 1.0
    transparent = admissible = None
    if body.max_loss is not None:
        admissible = float(transparent_admissible_load(body.buffer_packets, body.max_loss))
        if below_one:
            transparent = int(transparent_buffer_packets(body.load, body.max_loss))
    return MM1BResponse(
        loss_probability=float(mm1b_loss_probability(body.load, body.buffer_packets)),
        loss_bound=float(mm1b_loss_bound(body.load, body.buffer_packets)) if below_one else None,
        transparent_buffer_packets=transparent,
        admissible_load=admissible,
    )


@router.post(
    "/md1b",
    summary="M/D/1/B loss, occupancy and delay",
    description="Exact M/D/1/B (fixed packet size) by the embedded Markov chain of M/G/1/K at "
    "departures, and the LCFS-PR bound ρ^B (000 App. A Lemma 6).",
)
def md1b(body: MD1BRequest) -> MD1BResponse:
    result = md1b_queue(body.load, body.buffer_packets)
    bound = None
    if body.load < 1.0:
        bound = float(md1b_loss_bound(body.load, body.buffer_packets))
    return MD1BResponse(
        loss_probability=float(result.loss_probability),
        mean_queue_packets=float(result.mean_queue_packets),
        mean_delay_slots=float(result.mean_delay_slots),
        loss_bound=bound,
    )
