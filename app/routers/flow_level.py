"""``/v1/flow-level``: processor sharing of randomly arriving flows, and the sharing regime."""

from __future__ import annotations

from fastapi import APIRouter

from app.schemas.flow_level import PsRequest, PsResponse
from models.processor_sharing import ps_mean_flows, ps_tail_probability, ps_throughput_ratio
from models.regimes import classify_regime

router = APIRouter(prefix="/flow-level", tags=["flow-level"])


@router.post(
    "/ps",
    summary="Processor-sharing throughput and regime",
    description="γ = Σρ^i/Φ(i) / Σ iρ^(i−1)/Φ(i) (003 eq. 1) with φ ≡ 1, peak-rate-limited "
    "flows φ(i) = min(i·p/C, 1), or a φ table; the mean number of flows in progress; and the "
    "transparent / elastic / overload regime with its sizing rule (002 §III.C; 003 §3.3, §6). "
    "With a background load ρ_b the bottlenecked flows share the residual capacity "
    "C(1 − ρ_b), 003's unit for φ (§5.1): they run at load (ρ − ρ_b)/(1 − ρ_b) with peak "
    "(p/C)/(1 − ρ_b), and γ is given back as a fraction of C.",
)
def processor_sharing(body: PsRequest) -> PsResponse:
    residual = 1.0 - body.background_load
    # 003 §5.1: "φ(i) expressed as a fraction of residual capacity C(1−ρ_b)": the PS model
    # runs on the residual capacity, at the bottlenecked flows' share of it.
    load = (body.load - body.background_load) / residual
    phi = body.phi
    peak = None
    if body.peak_rate_fraction is not None:
        peak = min(1.0, body.peak_rate_fraction / residual)
    overload = body.load >= 1.0
    gamma, mean_flows, tail = 0.0, None, None
    if not overload and load > 0.0:
        # γ ≤ 1 exactly; the model's log-space sums can overshoot by ~1e-14 at tiny loads.
        gamma_r = float(ps_throughput_ratio(load, peak_rate_fraction=peak, phi=phi))
        gamma = min(gamma_r * residual, 1.0)
        mean_flows = float(ps_mean_flows(load, peak_rate_fraction=peak, phi=phi))
    elif not overload:
        # No bottlenecked flows (ρ = ρ_b): a lone flow gets φ(1) of the residual capacity.
        first = 1.0 if phi is None else phi[0]
        gamma = min(1.0, (first if peak is None else min(first, peak)) * residual)
        mean_flows = 0.0
    if body.tail_flows is not None:
        tail = 1.0
        if not overload:
            tail = (
                ps_tail_probability(load, body.tail_flows, peak_rate_fraction=peak, phi=phi)
                if load > 0.0
                else 0.0
            )
    assessment = classify_regime(
        body.load,
        peak_rate_fraction=body.peak_rate_fraction,
        background_load=body.background_load,
        max_loss=body.max_loss,
    )
    return PsResponse(
        gamma=gamma,
        mean_flows=mean_flows,
        tail_probability=tail,
        regime=assessment.regime,
        regime_reason=assessment.reason,
        sizing_rule=assessment.sizing_rule,
        warning=assessment.warning,
        saturation_probability=assessment.saturation_probability,
        transparent_buffer_packets=assessment.buffer_packets,
    )
