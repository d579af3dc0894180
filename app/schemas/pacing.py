"""Schemas of the paced-traffic drop bound (000 Thm 2, App. B)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from app.schemas.common import (
    MAX_CAPACITY_BPS,
    MAX_FLOWS,
    MIN_CAPACITY_BPS,
    CapacityBps,
    MaxWindowPackets,
    PacketBytes,
    RequestModel,
    ResponseModel,
    RttS,
    Unit,
)


class PacingRequest(RequestModel):
    """N paced flows behind access links slower than the bottleneck, with a buffer of B."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "flows": 1000,
                    "max_window_packets": 64,
                    "capacity_bps": "10 Gbit/s",
                    "rtt_s": "100 ms",
                    "access_bps": "10 Mbit/s",
                    "packet_bytes": "1000 B",
                    "buffer_packets": 15,
                }
            ]
        }
    )

    flows: int = Field(ge=1, le=MAX_FLOWS, description="Number of paced flows N, a count.")
    max_window_packets: MaxWindowPackets
    capacity_bps: CapacityBps
    rtt_s: RttS
    access_bps: Annotated[
        float,
        Field(
            ge=MIN_CAPACITY_BPS,
            le=MAX_CAPACITY_BPS,
            description="Access-link rate of each flow, in bit/s (or e.g. '10 Mbit/s'); the "
            "slowdown S = capacity_bps / access_bps spaces a flow's packets.",
        ),
        Unit("rate"),
    ]
    packet_bytes: PacketBytes = 1500.0
    buffer_packets: float = Field(
        ge=0.0, le=1e9, description="Buffer B, in packets (the one in transmission included)."
    )


class PacingResponse(ResponseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "drop_probability_bound": 2.5e-7,
                    "utilization_bound": 0.9995,
                    "load": 0.512,
                    "slowdown": 1000.0,
                }
            ]
        }
    )

    drop_probability_bound: float = Field(
        ge=0.0, le=1.0, description="Upper bound on a packet's drop probability, dimensionless."
    )
    utilization_bound: float = Field(
        ge=0.0,
        le=1.0,
        description="θ ≥ 1 − p·W²/2, dimensionless: throughput over ρ·C (000 App. A).",
    )
    load: float = Field(ge=0.0, description="ρ = N·W/(C·RTT), dimensionless.")
    slowdown: float = Field(gt=0.0, description="S = C / access rate, dimensionless.")
