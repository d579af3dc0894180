"""``/v1/optical``: all-optical FIFO buffers from fibre delay lines (000 §5.2)."""

from __future__ import annotations

from fastapi import APIRouter

from app.schemas.optical import OpticalFifoRequest, OpticalFifoResponse
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
        body.buffer_packets, body.tradeoff_k, body.packet_bytes, body.line_rate_bps
    )
    packet_bytes = body.packet_bytes
    return OpticalFifoResponse(
        n=design.n,
        fifo_capacity_packets=design.fifo_capacity_packets,
        fifo_capacity_bytes=design.fifo_capacity_packets * packet_bytes,
        fifo_capacity_seconds=design.fifo_capacity_packets * design.packet_time_s,
        tradeoff_k=design.tradeoff_k,
        delay_lines=design.delay_lines,
        switches=design.switches,
        line_lengths_packets=list(design.line_lengths_packets),
        total_length_packets=design.total_length_packets,
        total_length_bytes=design.total_length_packets * packet_bytes,
        total_length_seconds=design.total_length_packets * design.packet_time_s,
        packet_time_s=design.packet_time_s,
        total_fiber_m=design.total_fiber_m,
        linear_delay_lines=design.linear_delay_lines,
        linear_switches=design.linear_switches,
    )
