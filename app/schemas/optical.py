"""Schemas of the optical delay-line FIFO (000 §5.2)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from app.schemas.common import (
    MAX_CAPACITY_BPS,
    MIN_CAPACITY_BPS,
    PacketBytes,
    RequestModel,
    ResponseModel,
    Unit,
)

MAX_OPTICAL_BUFFER_PACKETS = 1 << 30


class OpticalFifoRequest(RequestModel):
    """An optical FIFO of at least ``buffer_packets`` packets built from fibre delay lines."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"buffer_packets": 63, "tradeoff_k": 1},
                {
                    "buffer_packets": 63,
                    "tradeoff_k": 4,
                    "packet_bytes": "1500 B",
                    "capacity_bps": "40 Gbit/s",
                },
            ]
        }
    )

    buffer_packets: int = Field(
        ge=1,
        le=MAX_OPTICAL_BUFFER_PACKETS,
        description="Packets the FIFO must hold; its capacity is N−1 with N the next power of two.",
    )
    tradeoff_k: int = Field(
        default=1,
        ge=1,
        le=MAX_OPTICAL_BUFFER_PACKETS,
        description="Trade-off K = 2^k of Thm 6, a power of two with K ≤ N/2, a count: larger K "
        "uses more delay lines and less fibre.",
        json_schema_extra={
            "enum": [2**k for k in range(MAX_OPTICAL_BUFFER_PACKETS.bit_length())],
        },
    )
    packet_bytes: PacketBytes = 1500.0
    capacity_bps: Annotated[
        float,
        Field(
            ge=MIN_CAPACITY_BPS,
            le=MAX_CAPACITY_BPS,
            description="Line rate, in bit/s (or e.g. '10 Gbit/s'): sets the packet time and "
            "hence the fibre length.",
        ),
        Unit("rate"),
    ] = 10e9


class OpticalDesignOut(ResponseModel):
    """The delay-line design, field for field :class:`models.optical.OpticalFifoDesign`."""

    n: int = Field(ge=1, description="log2 N, a count; the FIFO holds N−1 = 2^n − 1 packets.")
    fifo_capacity_packets: int = Field(ge=1, description="N − 1, the FIFO's capacity in packets.")
    tradeoff_k: int = Field(ge=1, description="K used, a count.")
    delay_lines: int = Field(ge=1, description="Delay lines, FIFO and waiting line together.")
    switches: int = Field(ge=1, description="2x2 optical switches.")
    line_lengths_packets: list[int] = Field(description="Length of each delay line, in packets.")
    fifo_line_lengths_packets: list[int] = Field(
        description="Lengths of the lines that hold the queued packets (they add up to N − 1)."
    )
    waiting_line_lengths_packets: list[int] = Field(
        description="Lengths of the lines of the waiting line (000 Thm 5), in packets."
    )
    max_line_length_packets: int = Field(ge=1, description="Longest line, N/(2K), in packets.")
    total_length_packets: int = Field(ge=0, description="Sum of the line lengths, in packets.")
    packet_time_s: float = Field(gt=0.0, description="One packet time at the line rate, in s.")
    total_fiber_m: float = Field(ge=0.0, description="Fibre needed, in metres.")
    linear_delay_lines: int = Field(
        ge=1, description="Delay lines of the linear design holding the same buffer."
    )
    linear_switches: int = Field(ge=1, description="Switches of the linear design.")


class OpticalFifoResponse(OpticalDesignOut):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "n": 6,
                    "fifo_capacity_packets": 63,
                    "fifo_capacity_bytes": 94500.0,
                    "fifo_capacity_s": 7.56e-5,
                    "tradeoff_k": 1,
                    "delay_lines": 11,
                    "switches": 12,
                    "line_lengths_packets": [1, 2, 4, 8, 16, 32, 1, 2, 4, 8, 16],
                    "fifo_line_lengths_packets": [1, 2, 4, 8, 16, 32],
                    "waiting_line_lengths_packets": [1, 2, 4, 8, 16],
                    "max_line_length_packets": 32,
                    "total_length_packets": 94,
                    "total_length_bytes": 141000.0,
                    "total_length_s": 1.128e-4,
                    "packet_time_s": 1.2e-6,
                    "total_fiber_m": 23011.2,
                    "linear_delay_lines": 63,
                    "linear_switches": 63,
                }
            ]
        }
    )

    fifo_capacity_bytes: float = Field(ge=0.0, description="The FIFO's capacity, in bytes.")
    fifo_capacity_s: float = Field(
        ge=0.0, description="The FIFO's capacity, in seconds at the line rate."
    )
    total_length_bytes: float = Field(ge=0.0, description="Sum of the line lengths, in bytes.")
    total_length_s: float = Field(
        ge=0.0, description="Sum of the line lengths, in seconds of delay at the line rate."
    )
