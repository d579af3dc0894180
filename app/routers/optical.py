"""``/v1/optical``: all-optical FIFO buffers from fibre delay lines (000 §5.2)."""

from __future__ import annotations

from fastapi import APIRouter

from app.schemas.optical import OpticalDesignOut, OpticalFifoRequest, OpticalFifoResponse
from models.optical import optical_fifo_design

router = APIRouter(prefix="/optical", tags=["optical"])


@router.post(
    "/fifo",
    summary="Optical delay-line FIFO",
    description="Delay lines, switches and fibre of the O(log N) optical FIFO that emulates a "
    "FIFO of N−1 packets (000 §5.2, Algorithm A, Thms 4-6); N is rounded up to a power of two.",
)
async def optical_fifo(body: OpticalFifoRequest) -> OpticalFifoResponse:
    design = optical_fifo_design(
        body.buffer_packets, body.tradeoff_k, body.packet_bytes, body.capacity_bps
    )
    design_fields = OpticalDesignOut.model_validate(design, from_attributes=True).model_dump()
    return OpticalFifoResponse(
        **design_fields,
        fifo_capacity_bytes=design.fifo_capacity_packets * body.packet_bytes,
        fifo_capacity_s=design.fifo_capacity_packets * design.packet_time_s,
        total_length_bytes=design.total_length_packets * body.packet_bytes,
        total_length_s=design.total_length_packets * design.packet_time_s,
    )
