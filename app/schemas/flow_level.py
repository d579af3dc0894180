"""Schemas of the flow-level processor-sharing model and the regime classification."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from app.schemas.common import RequestModel, ResponseModel, not_both

MIN_PEAK_RATE_FRACTION = 1e-9
MAX_PHI_TABLE = 10_000
MAX_FLOW_LOAD = 100.0

PhiValue = Annotated[float, Field(gt=0.0, le=1.0)]


class PsRequest(RequestModel):
    """A link shared by randomly arriving flows (processor sharing, 003 §3; 002 §III)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"load": 0.5, "tail_flows": 4},
                {"load": 0.85, "peak_rate_fraction": 0.1, "max_loss": 0.01},
                {"load": 0.6, "phi": [0.7, 0.85, 0.93, 0.97]},
            ],
            **not_both("peak_rate_fraction", "phi"),
        }
    )

    load: float = Field(
        gt=0.0,
        le=MAX_FLOW_LOAD,
        description="Flow-level load ρ, dimensionless: flow arrival rate × mean flow size / C. "
        "ρ ≥ 1 is overload; with a phi table ρ must be below its last value.",
    )
    peak_rate_fraction: float | None = Field(
        default=None,
        ge=MIN_PEAK_RATE_FRACTION,
        le=1.0,
        description="p/C, dimensionless: the flows' peak rate (e.g. their access rate) over the "
        "link capacity; gives φ(i) = min(i·p/C, 1). 1 means not peak-rate limited.",
    )
    phi: list[PhiValue] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PHI_TABLE,
        description="Table φ(1), ..., φ(n), dimensionless in (0, 1]: the share of the residual "
        "capacity C(1 − ρ_b) served with i flows in progress, 003's unit (measured by "
        "simulation, 003 §5.1); of C itself when background_load is 0; φ(n) beyond n.",
    )
    tail_flows: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000_000,
        description="n, a count: also return P(more than n flows in progress); optional.",
    )
    background_load: float = Field(
        default=0.0,
        ge=0.0,
        lt=1.0,
        description="ρ_b, dimensionless: part of the load from low-rate flows that are never "
        "bottlenecked here (002 §III.C), at most load. The other flows share the residual "
        "capacity C(1 − ρ_b) at load (ρ − ρ_b)/(1 − ρ_b) (003 §5.1).",
    )
    max_loss: float = Field(
        default=0.01,
        gt=0.0,
        lt=1.0,
        description="Target loss ε, dimensionless, for the transparent-regime buffer ρ^B < ε.",
    )

    @model_validator(mode="after")
    def _one_profile(self) -> Self:
        if self.peak_rate_fraction is not None and self.phi is not None:
            raise ValueError("give at most one of peak_rate_fraction and phi")
        if self.background_load > self.load:
            raise ValueError(
                f"background_load must be <= load = {self.load:g}, got {self.background_load:g}"
            )
        return self


class PsResponse(ResponseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "gamma": 0.5,
                    "mean_flows": 1.0,
                    "tail_probability": 0.03125,
                    "regime": "elastic",
                    "regime_reason": "peak rate unknown (treated as unlimited) ...",
                    "sizing_rule": "Size for the bottlenecked flows ...",
                    "warning": "A small buffer (tens of packets) overflows ...",
                    "saturation_probability": 0.5,
                    "transparent_buffer_packets": None,
                }
            ]
        }
    )

    gamma: float = Field(
        ge=0.0,
        le=1.0,
        description="γ, dimensionless: mean throughput of a flow outside the background, as a "
        "fraction of C (003 eq. 1 on the residual capacity, times 1 − ρ_b); 0 in overload, "
        "where flow throughput tends to zero.",
    )
    mean_flows: float | None = Field(
        default=None,
        ge=0.0,
        description="Mean number of flows in progress outside the background, a count; null "
        "in overload (unbounded).",
    )
    tail_probability: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="P(more than tail_flows flows in progress); null without tail_flows; 1 in "
        "overload.",
    )
    regime: Literal["transparent", "elastic", "overload"] = Field(
        description="Bandwidth-sharing regime (002 §III.C; 003 §3.3, §6)."
    )
    regime_reason: str = Field(description="Why the link is in this regime.")
    sizing_rule: str = Field(description="The buffer-sizing rule that applies in this regime.")
    warning: str | None = Field(default=None, description="What can go wrong with that rule here.")
    saturation_probability: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Probability that the flows' peak rates add up to the capacity left by the "
        "background load, dimensionless.",
    )
    transparent_buffer_packets: int | None = Field(
        default=None,
        ge=1,
        description="Transparent regime only: ⌈ln ε / ln ρ⌉, in packets (003 §4.2).",
    )
