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
    "transparent / elastic / overload regime with its sizing rule (002 §III.C; 003 §3.3, §6).",
)
def processor_sharing(body: PsRequest) -> PsResponse:
    peak, phi = body.peak_rate_fraction, body.phi
    overload = body.load >= 1.0
    gamma, mean_flows, tail = 0.0, None, None
    if not overload:
        # γ ≤ 1 exactly; the model's log-space sums can overshoot by ~1e-14 at tiny loads.
        gamma = min(float(ps_throughput_ratio(body.load, peak_rate_fraction=peak, phi=phi)), 1.0)
        mean_flows = float(ps_mean_flows(body.load, peak_rate_fraction=peak, phi=phi))
    if body.tail_flows is not None:
        tail = 1.0
        if not overload:
            tail = ps_tail_probability(body.load, body.tail_flows, peak_rate_fraction=peak, phi=phi)
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
