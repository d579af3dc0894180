"""The regime of a port's traffic: transparent, elastic, overload, or unknown and why."""

from __future__ import annotations

from models.recommend.context import MAX_TRANSPARENT_SATURATION, Context
from models.recommend.result import RegimeInfo
from models.regimes import classify_regime


def regime_of(ctx: Context) -> RegimeInfo:
    """The regime of the port's traffic, from the load or N_b (003 §4, 004 Fig. 4).

    Without either the regime is ``unknown`` and ``deciding_inputs`` names what would decide
    it; with a load, :func:`models.regimes.classify_regime` decides.
    """
    sc = ctx.scenario
    rho_w = ctx.window_limited_load
    load = sc.load
    if load is None and rho_w is not None and rho_w < 1.0:
        load = rho_w
    if load is None and ctx.bottlenecked_flows_given:
        return RegimeInfo(
            regime="elastic",
            reason=(
                f"N_b = {ctx.bottlenecked_flows} flows are bottlenecked here (given): "
                "congestion control shares the capacity among them (002 §III.C, 003 §3.3)"
            ),
            sizing_rule="size for the flows bottlenecked here (BSCL, 004 Fig. 4)",
            warning=None,
            source="bottlenecked_flows",
            traffic_model="",
            deciding_inputs=(),
        )
    if load is None:
        deciding = ["load"]
        if sc.peak_rate_bps is None and sc.access_bps is None:
            deciding.append("peak_rate_bps")
        if sc.max_window_packets is None:
            deciding.append("max_window_packets")
        reason = (
            "the inputs do not decide it: without the offered load the link may be transparent "
            "(peak rates summing below C with high probability, 003 §4), elastic (flows "
            "bottlenecked here) or overloaded"
        )
        if rho_w is not None:
            reason += f"; at their largest windows the flows could offer {rho_w:.3g}× C"
        return RegimeInfo(
            regime="unknown",
            reason=reason + "; give " + " or ".join(deciding) + " to decide it",
            sizing_rule=(
                "sized for long-lived flows congested here (the regime needing the most buffer "
                "short of overload); the utilization rules apply, the loss constraint needs N_b"
            ),
            warning=None,
            source="unknown",
            traffic_model="",
            deciding_inputs=tuple(deciding),
        )
    assessment = classify_regime(
        load,
        peak_rate_fraction=ctx.peak_rate_fraction,
        max_loss=ctx.targets.max_loss,
        max_saturation_probability=MAX_TRANSPARENT_SATURATION,
    )
    sat = assessment.saturation_probability
    return RegimeInfo(
        regime=str(assessment.regime),
        reason=str(assessment.reason),
        sizing_rule=str(assessment.sizing_rule),
        warning=None if assessment.warning is None else str(assessment.warning),
        source="models.regimes",
        traffic_model="",
        deciding_inputs=(),
        saturation_probability=None if sat is None else float(sat),
    )
