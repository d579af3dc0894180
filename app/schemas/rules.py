"""Schemas of the sizing rules: rule of thumb (BDP), sqrt(N), tiny buffers, BSCL."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from app.schemas.common import (
    MAX_FLOWS,
    MAX_PACKET_BYTES,
    MAX_QUANTITY_STRINGS,
    MAX_RTT_LIST,
    MAX_RTT_S,
    MIN_PACKET_BYTES,
    BufferSize,
    CapacityBps,
    Flows,
    Load,
    MaxWindowPackets,
    PacketBytes,
    RequestModel,
    ResponseModel,
    RttS,
    StringItems,
    Unit,
    exactly_one_of,
)

RttList = Annotated[
    list[RttS],
    Field(
        min_length=1,
        max_length=MAX_RTT_LIST,
        description="Round-trip times of the flows, in seconds (or e.g. '80 ms'); their "
        "harmonic mean is the effective RTT (004 eqs. 11-12).",
    ),
    StringItems(MAX_QUANTITY_STRINGS),
]


def _one_rtt(rtt: float | None, rtts: list[float] | None, single: str, many: str) -> None:
    if (rtt is None) == (rtts is None):
        raise ValueError(f"give exactly one of {single} or {many}")


class BdpRequest(RequestModel):
    """A link for the rule of thumb B = C·RTT, generalized to B = C·RTT·(1−β)/β."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "packet_bytes": "1000 B"},
                {"capacity_bps": 40e9, "rtts_s": [0.2, 0.25, 0.3], "md_beta": 0.7},
            ],
            **exactly_one_of("rtt_s", "rtts_s"),
        }
    )

    capacity_bps: CapacityBps
    rtt_s: RttS | None = None
    rtts_s: RttList | None = None
    packet_bytes: PacketBytes = 1500.0
    md_beta: float = Field(
        default=0.5,
        ge=0.05,
        le=0.95,
        description="Multiplicative-decrease factor β of the congestion control, dimensionless: "
        "the window becomes β·W after a loss (Reno 0.5, CUBIC 0.7, RFC 9438).",
    )

    @model_validator(mode="after")
    def _exactly_one_rtt(self) -> Self:
        _one_rtt(self.rtt_s, self.rtts_s, "rtt_s", "rtts_s")
        return self


class BdpResponse(BufferSize):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "buffer_packets": 125000.0,
                    "buffer_bytes": 125000000.0,
                    "buffer_s": 0.1,
                    "effective_rtt_s": 0.1,
                }
            ]
        }
    )

    effective_rtt_s: float = Field(
        gt=0.0, description="RTT used, in seconds: rtt_s, or the harmonic mean of rtts_s."
    )


class SqrtNRequest(RequestModel):
    """A link shared by N desynchronized long-lived flows: B = C·RTT/√N."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "capacity_bps": "10 Gbit/s",
                    "rtt_s": "100 ms",
                    "flows": 1000,
                    "packet_bytes": "1000 B",
                }
            ]
        }
    )

    capacity_bps: CapacityBps
    rtt_s: RttS
    flows: Flows
    packet_bytes: PacketBytes = 1500.0


class SqrtNResponse(BdpResponse):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "buffer_packets": 3952.8,
                    "buffer_bytes": 3952847.1,
                    "buffer_s": 0.00316,
                    "effective_rtt_s": 0.1,
                    "utilization_lower_bound": 0.99,
                }
            ]
        }
    )

    utilization_lower_bound: float = Field(
        ge=0.0,
        le=1.0,
        description="Lower bound on the link utilization with this buffer, dimensionless "
        "(Appenzeller et al. 2004, Gaussian window sum).",
    )


class TinyRequest(RequestModel):
    """Tiny buffers: B ≥ log_{1/ρ}(W²/(2(1−θ))) for paced or Poisson-like traffic."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"max_window_packets": 64, "load": 0.5, "min_utilization": 0.9},
                {
                    "max_window_packets": 64,
                    "load": 0.5,
                    "min_utilization": 0.9,
                    "packet_bytes": "1500 B",
                    "capacity_bps": "10 Gbit/s",
                },
            ]
        }
    )

    max_window_packets: MaxWindowPackets
    load: Load = Field(
        description="ρ = N·W/(C·RTT), dimensionless: the load if every flow sent its maximum "
        "window each RTT; must be below 1."
    )
    min_utilization: float = Field(
        gt=0.0,
        lt=1.0,
        description="θ, dimensionless: throughput wanted as a fraction of ρ·C, in (0, 1).",
    )
    packet_bytes: PacketBytes = 1500.0
    capacity_bps: CapacityBps | None = Field(
        default=None,
        description="Link capacity in bit/s (or e.g. '10 Gbit/s'); optional, only used to "
        "express the buffer in seconds.",
    )


class TinyResponse(ResponseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "buffer_packets": 15,
                    "buffer_packets_exact": 14.29,
                    "buffer_bytes": 22500.0,
                    "buffer_s": None,
                }
            ]
        }
    )

    buffer_packets: int = Field(ge=0, description="Buffer, in packets, rounded up.")
    buffer_packets_exact: float = Field(
        ge=0.0, description="The bound before rounding, in packets."
    )
    buffer_bytes: float = Field(ge=0.0, description="buffer_packets × packet_bytes, in bytes.")
    buffer_s: float | None = Field(
        default=None,
        ge=0.0,
        description="Queueing time of a full buffer at capacity_bps, in seconds (null when "
        "capacity_bps is not given).",
    )


class BsclRequest(RequestModel):
    """BSCL: buffer for a congested link, B = max{B_ρ, B_p} (004 Fig. 4)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "capacity_bps": "100 Mbit/s",
                    "bottlenecked_share": 0.9,
                    "rtts_s": ["60 ms", "120 ms", "200 ms"],
                    "bottlenecked_flows": 50,
                    "packet_bytes": "1500 B",
                    "max_loss": 0.01,
                    "max_queueing_delay_s": "200 ms",
                }
            ],
            **exactly_one_of("effective_rtt_s", "rtts_s"),
        }
    )

    capacity_bps: CapacityBps
    bottlenecked_share: float = Field(
        default=1.0,
        gt=0.0,
        le=1.0,
        description="C_e/C, dimensionless: share of the capacity used by the flows "
        "bottlenecked here (0.9 for 10% other traffic).",
    )
    rtts_s: RttList | None = None
    effective_rtt_s: RttS | None = Field(
        default=None,
        description="Effective RTT T_e of the bottlenecked flows, in seconds (or e.g. "
        "'100 ms'); give this or rtts_s.",
    )
    bottlenecked_flows: int = Field(
        ge=1,
        le=MAX_FLOWS,
        description="N_b, a count: long-lived TCP flows whose bottleneck is this link.",
    )
    packet_bytes: Annotated[
        float,
        Field(
            ge=MIN_PACKET_BYTES,
            le=MAX_PACKET_BYTES,
            description="Maximum segment size M, in bytes (or e.g. '1500 B').",
        ),
        Unit("size"),
    ] = 1500.0
    max_loss: float = Field(
        default=0.01,
        gt=0.0,
        lt=1.0,
        description="p̂, dimensionless: the loss rate not to exceed (004 assumes 1%).",
    )
    sync_factor: float = Field(
        default=0.55,
        gt=0.0,
        le=100.0,
        description="Loss-synchronization factor α, dimensionless: mean loss-burst length "
        "over N_b (004 eq. 17; 0.4-0.7 in its simulations).",
    )
    max_queueing_delay_s: (
        Annotated[
            float,
            Field(
                gt=0.0,
                le=MAX_RTT_S,
                description="Queueing-delay limit d̂, in seconds (or e.g. '50 ms'); optional.",
            ),
            Unit("time"),
        ]
        | None
    ) = None

    @model_validator(mode="after")
    def _exactly_one_rtt(self) -> Self:
        _one_rtt(self.effective_rtt_s, self.rtts_s, "effective_rtt_s", "rtts_s")
        return self


class BsclResponse(BufferSize):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "buffer_packets": 333.4,
                    "buffer_bytes": 500116.0,
                    "buffer_s": 0.04,
                    "b_rho_bytes": 296780.2,
                    "b_p_bytes": 500116.0,
                    "governing_constraint": "loss",
                    "crossover_flows": 37.7,
                    "delay_feasible": True,
                    "min_feasible_delay_s": 0.04,
                    "effective_rtt_s": 0.1,
                    "loss_sync_q": 0.42,
                    "kp_packets": 8.7,
                    "few_flows_correction": False,
                }
            ]
        }
    )

    b_rho_bytes: float = Field(
        description="B_ρ, the utilization term (004 eq. 16), in bytes; may be negative."
    )
    b_p_bytes: float = Field(
        description="B_p, the loss-rate term (004 eqs. 21, 23), in bytes; may be negative."
    )
    governing_constraint: Literal["utilization", "loss"] = Field(
        description="The term that sets the buffer."
    )
    crossover_flows: float = Field(
        ge=1.0,
        description="Ñ_b, a count: the N_b at which B_ρ = B_p (1 when the loss term governs for "
        "every N_b).",
    )
    delay_feasible: bool | None = Field(
        default=None,
        description="Whether B ≤ C·d̂ (004 eq. 24); null without max_queueing_delay_s.",
    )
    min_feasible_delay_s: float = Field(
        ge=0.0, description="B/C, the smallest queueing-delay limit this buffer meets, in seconds."
    )
    effective_rtt_s: float = Field(gt=0.0, description="T_e used, in seconds.")
    loss_sync_q: float = Field(
        ge=0.0, le=1.0, description="q(N_b), dimensionless: share of flows hit per loss burst."
    )
    kp_packets: float = Field(gt=0.0, description="K_p = 0.87/√p̂, in packets per flow.")
    few_flows_correction: bool = Field(
        description="True when N_b < 5 and B_ρ was replaced by C·T_e (004 §VII)."
    )
