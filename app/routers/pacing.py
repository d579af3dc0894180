"""``/v1/pacing``: drop and utilization bounds for paced traffic (000 Thm 2, App. B)."""

from __future__ import annotations

from fastapi import APIRouter

from app.schemas.pacing import PacingRequest, PacingResponse
from models.pacing import paced_drop_probability_bound, paced_utilization_bound
from models.tiny_buffers import tiny_buffers_load

router = APIRouter(prefix="/pacing", tags=["pacing"])


@router.post(
    "/bound",
    summary="Paced traffic: drop and utilization bounds",
    description="Union bound over interval lengths with the Chernoff bound, in the three "
    "regimes of Lemmas 7-9 (000 Thm 2, App. B), for N flows paced by access links S times "
    "slower than the bottleneck; θ ≥ 1 − p·W²/2. Needs ρ = N·W/(C·RTT) < 1.",
)
def pacing_bound(body: PacingRequest) -> PacingResponse:
    args = (
        body.flows,
        body.max_window_packets,
        body.capacity_bps,
        body.rtt_s,
        body.access_bps,
        body.packet_bytes,
        body.buffer_packets,
    )
    return PacingResponse(
        drop_probability_bound=float(paced_drop_probability_bound(*args)),
        utilization_bound=float(paced_utilization_bound(*args)),
        load=float(
            tiny_buffers_load(
                body.flows,
                body.max_window_packets,
                body.capacity_bps,
                body.rtt_s,
                body.packet_bytes,
            )
        ),
        slowdown=body.capacity_bps / body.access_bps,
    )
