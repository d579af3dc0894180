"""Schemas of the packet-level queueing models: M/M/1/B and M/D/1/B."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.schemas.common import RequestModel, ResponseModel

MAX_QUEUE_LOAD = 100.0
MAX_MM1B_BUFFER_PACKETS = 1_000_000
# The exact M/D/1/B solution costs O(B²); this keeps one request well under a second.
MAX_MD1B_BUFFER_PACKETS = 10_000

_LOAD_DESCRIPTION = (
    "Offered load ρ, dimensionless: packet arrival rate times mean transmission time. Loads "
    "of 1 or more are allowed (the buffer is finite)."
)
_BUFFER_DESCRIPTION = (
    "Buffer B, in packets: the most packets the port holds, the one in transmission included "
    "(K of M/M/1/K)."
)


class MM1BRequest(RequestModel):
    """Poisson arrivals, exponential packet sizes, a drop-tail port of B packets."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"load": 0.75, "buffer_packets": 20},
                {"load": 0.8, "buffer_packets": 20, "max_loss": 0.01},
            ]
        }
    )

    load: float = Field(gt=0.0, le=MAX_QUEUE_LOAD, description=_LOAD_DESCRIPTION)
    buffer_packets: int = Field(ge=1, le=MAX_MM1B_BUFFER_PACKETS, description=_BUFFER_DESCRIPTION)
    max_loss: float | None = Field(
        default=None,
        gt=0.0,
        lt=1.0,
        description="Target loss probability ε, dimensionless, in (0, 1); optional. When given "
        "with a load below 1, the transparent-regime sizing ρ^B ≤ ε is also returned.",
    )


class MM1BResponse(ResponseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "loss_probability": 0.000793,
                    "loss_bound": 0.00317,
                    "transparent_buffer_packets": None,
                    "admissible_load": None,
                }
            ]
        }
    )

    loss_probability: float = Field(
        ge=0.0,
        le=1.0,
        description="p = ρ^B(1−ρ)/(1−ρ^(B+1)), dimensionless (000 eq. 3.3).",
    )
    loss_bound: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="ρ^B, dimensionless: P(an infinite M/M/1 queue holds ≥ B), the geometric "
        "bound on the loss (002 §IV.A, 003 §4.2); null for ρ ≥ 1.",
    )
    transparent_buffer_packets: int | None = Field(
        default=None,
        ge=1,
        description="⌈ln ε / ln ρ⌉, in packets: the smallest B with ρ^B ≤ ε at this load (003 "
        "§4.2); null unless max_loss is given and ρ < 1.",
    )
    admissible_load: float | None = Field(
        default=None,
        gt=0.0,
        le=1.0,
        description="ε^(1/B), dimensionless: the largest load this buffer carries with ρ^B ≤ ε; "
        "null unless max_loss is given.",
    )


class MD1BRequest(RequestModel):
    """Poisson arrivals, fixed packet size, a drop-tail port of B packets."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"load": 0.8, "buffer_packets": 20}]})

    load: float = Field(gt=0.0, le=MAX_QUEUE_LOAD, description=_LOAD_DESCRIPTION)
    buffer_packets: int = Field(ge=1, le=MAX_MD1B_BUFFER_PACKETS, description=_BUFFER_DESCRIPTION)


class MD1BResponse(ResponseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "loss_probability": 0.00017,
                    "mean_queue_packets": 2.4,
                    "mean_delay_slots": 3.0,
                    "loss_bound": 0.0115,
                }
            ]
        }
    )

    loss_probability: float = Field(
        ge=0.0, le=1.0, description="Exact loss probability of M/D/1/B, dimensionless."
    )
    mean_queue_packets: float = Field(
        ge=0.0, description="Time-average packets in the port, transmission included."
    )
    mean_delay_slots: float = Field(
        ge=0.0,
        description="Mean time an accepted packet spends in the port, in packet transmission "
        "times (waiting plus its own transmission).",
    )
    loss_bound: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="ρ^B, dimensionless: the LCFS-PR bound on the loss (000 App. A Lemma 6); "
        "null for ρ ≥ 1.",
    )
