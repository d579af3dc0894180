"""The recommendation engine: every rule side by side, the regime, one recommended size."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from models.optical import optical_fifo_design
from models.provenance import software_versions
from models.recommend.context import (
    DESYNCHRONIZED_FLOWS,
    FEW_FLOWS,
    OPTICAL_MAX_PACKETS,
    Context,
    derive,
)
from models.recommend.performance import TrafficModel
from models.recommend.result import (
    Curves,
    DerivedInputs,
    Prediction,
    Recommendation,
    RecommendedSize,
    RegimeInfo,
    RuleResult,
    TradeOff,
)
from models.recommend.rules import (
    BSCL,
    MD_BETA,
    RULE_OF_THUMB,
    SQRT_N,
    TINY,
    TRANSPARENT,
    all_rules,
)
from models.recommend.scenario import LinkScenario, Targets
from models.recommend.search import FALSE, TRUE, Sizes, Verdicts, smallest_integer_batched
from models.regimes import classify_regime

#: Points on each curve, log-spaced from 1 packet to beyond the BDP and every rule's size.
CURVE_POINTS = 160

#: Largest buffer the engine searches when looking for the smallest size meeting the targets.
SEARCH_MAX_PACKETS = 1 << 40

#: Relative slack when comparing a prediction with a target (floating-point rounding only).
_TOLERANCE = 1e-9


def recommend(scenario: LinkScenario, targets: Targets | None = None) -> Recommendation:
    """Size the buffer of a port: every rule, the regime, one recommendation and the curves.

    Parameters
    ----------
    scenario : LinkScenario
        The port and its traffic (SI units).
    targets : Targets, optional
        Minimum utilization, maximum loss and maximum queueing delay; defaults of
        :class:`Targets` when omitted.

    Returns
    -------
    Recommendation
        Each rule's buffer in packets, bytes and seconds with its assumptions marked holds,
        fails or unknown and the predicted utilization, loss and delay at that size; the regime;
        the recommended size, the rule that governs it and why; a trade-off when no size meets
        every target; curves for plotting. ``to_dict()`` gives JSON-ready values.

    Raises
    ------
    models.errors.ParameterError
        If a scenario or target value is out of range (raised when they are built).

    Notes
    -----
    The engine picks one traffic model (:mod:`models.recommend.performance`):

    1. window-limited flows (ρ = N·W/(C·RTT) < 1): the tiny-buffers theorem governs;
    2. a transparent regime (load < 1, small peak rates; :func:`models.regimes.classify_regime`):
       ρ^B <= ε governs;
    3. otherwise long-lived flows congest the port: fewer than 5 of them, the rule of thumb
       (with β for CUBIC); N_b given, BSCL; N_b unknown and N >= 100, sqrt(N); else BSCL with
       N_b = N.

    The governing rule's size is rounded up to whole packets and raised to the smallest size at
    which the model predicts the utilization and loss targets are met. The delay bound (and the
    optical limit) caps it; when the cap is below what utilization and loss need, the engine
    reports the trade-off and, as 004 §V does, keeps utilization and loss unless
    ``targets.priority`` is ``"delay"``. The optical limit always caps.

    Assumptions:

    - those of the governing rule, listed in the result with their status;
    - the utilization and loss predictions are the models' bounds or approximations, not
      simulations; check them with the simulator.

    References
    ----------
    .. [1] Y. Ganjali, PhD thesis (seed ``000_9b46cc70677d86b3.txt``), ch. 2-3, App. A-B.
    .. [2] J. Augé, J. Roberts (seeds ``002_e29b74a3ab8ed403.txt``, ``003_04878e78c5c6bb91.txt``).
    .. [3] A. Dhamdhere, H. Jiang, C. Dovrolis (seed ``004_cb0749363e88d206.txt``), §II, §V.
    """
    targets = targets if targets is not None else Targets()
    ctx = derive(scenario, targets)
    regime = _regime(ctx)
    model, governing_id, why = _choose(ctx, regime)
    regime = replace(regime, traffic_model=model.kind)
    classified = regime.regime if regime.source == "models.regimes" else None
    rules = _with_predictions(all_rules(ctx, classified), model, ctx)
    governing = next(r for r in rules if r.rule == governing_id)
    assert governing.buffer_packets is not None
    recommended, trade_off = _size(ctx, model, governing, why)
    optical = None
    if scenario.medium == "optical":
        optical = optical_fifo_design(
            recommended.buffer_packets,
            packet_bytes=scenario.packet_bytes,
            capacity_bps=scenario.capacity_bps,
        )
    warnings = _warnings(ctx, regime, governing)
    return Recommendation(
        inputs=DerivedInputs(
            effective_rtt_s=ctx.effective_rtt_s,
            bdp_packets=ctx.bdp_packets,
            packet_time_s=ctx.packet_time_s,
            md_beta=scenario.md_beta,
            window_limited_load=ctx.window_limited_load,
            bottlenecked_flows_used=ctx.bottlenecked_flows,
            bottlenecked_flows_given=ctx.bottlenecked_flows_given,
            bottlenecked_share=ctx.bottlenecked_share,
            loss_sync_q=ctx.loss_sync_q,
            peak_rate_fraction=ctx.peak_rate_fraction,
        ),
        rules=rules,
        regime=regime,
        recommended=recommended,
        feasible=trade_off is None,
        trade_off=trade_off,
        curves=_curves(ctx, model, rules, recommended.buffer_packets),
        optical=optical,
        warnings=warnings,
        software_versions=dict(software_versions()),
    )


# --- regime and model choice ------------------------------------------------------------------


def traffic_model(scenario: LinkScenario, targets: Targets | None = None) -> TrafficModel:
    """The traffic model the engine predicts this scenario's utilization, loss and delay with."""
    ctx = derive(scenario, targets if targets is not None else Targets())
    return _choose(ctx, _regime(ctx))[0]


def _regime(ctx: Context) -> RegimeInfo:
    sc = ctx.scenario
    rho_w = ctx.window_limited_load
    load = sc.load
    if load is None and rho_w is not None and rho_w < 1.0:
        load = rho_w
    if load is None:
        reason = (
            "no load given: long-lived flows are taken to saturate the port"
            if rho_w is None
            else f"no load given; at their largest windows the flows offer {rho_w:.3g}× C"
        )
        return RegimeInfo(
            regime="elastic",
            reason=reason,
            sizing_rule="size for the flows bottlenecked here (rule of thumb, sqrt(N), BSCL)",
            warning=None,
            source="assumed",
            traffic_model="",
        )
    assessment = classify_regime(
        load, peak_rate_fraction=ctx.peak_rate_fraction, max_loss=ctx.targets.max_loss
    )
    return RegimeInfo(
        regime=str(assessment.regime),
        reason=str(assessment.reason),
        sizing_rule=str(assessment.sizing_rule),
        warning=None if assessment.warning is None else str(assessment.warning),
        source="models.regimes",
        traffic_model="",
    )


def _choose(ctx: Context, regime: RegimeInfo) -> tuple[TrafficModel, str, str]:
    sc = ctx.scenario
    rho_w = ctx.window_limited_load
    w = sc.max_window_packets
    if rho_w is not None and rho_w < 1.0 and w is not None:
        model = TrafficModel(
            kind="window_limited",
            capacity_bps=sc.capacity_bps,
            packet_bytes=sc.packet_bytes,
            max_utilization=rho_w,
            load=rho_w,
            max_window_packets=w,
            flows=sc.flows,
            rtt_s=ctx.effective_rtt_s,
        )
        why = (
            f"The {sc.flows} flows are window-limited: at their largest window "
            f"(W = {w:g} packets) they offer ρ = N·W/(C·RTT) = {rho_w:.3g} of the port, so none "
            "is bottlenecked here and the tiny-buffers theorem (000 Thm 1) applies"
        )
        return model, TINY, why
    if regime.regime == "transparent" and sc.load is not None and sc.load < 1.0:
        model = TrafficModel(
            kind="open_loop",
            capacity_bps=sc.capacity_bps,
            packet_bytes=sc.packet_bytes,
            max_utilization=sc.load,
            load=sc.load,
        )
        why = (
            f"Transparent regime at load ρ = {sc.load:.3g}: the flows' peak rates are small "
            "against the capacity, so the buffer only absorbs packet-scale coincidences and "
            "ρ^B <= ε sizes it (003 §4.2)"
        )
        return model, TRANSPARENT, why
    n = ctx.bottlenecked_flows
    label = "N_b" if ctx.bottlenecked_flows_given else "N"
    model = TrafficModel(
        kind="congested_tcp",
        capacity_bps=sc.capacity_bps,
        packet_bytes=sc.packet_bytes,
        max_utilization=1.0,
        flows=sc.flows,
        rtt_s=ctx.effective_rtt_s,
        bdp_packets=ctx.bdp_packets,
        bottlenecked_share=ctx.bottlenecked_share,
        bottlenecked_flows=n,
        md_beta=sc.md_beta,
        loss_sync_q=ctx.loss_sync_q,
        desynchronized=n >= DESYNCHRONIZED_FLOWS,
    )
    if n < FEW_FLOWS:
        rule = RULE_OF_THUMB if sc.congestion_control == "reno" else MD_BETA
        why = (
            f"Only {label} = {n} long-lived flow(s) (< {FEW_FLOWS}): their losses are "
            "synchronized and the aggregate window behaves as a single flow's, so the "
            "single-flow rule applies (000 §2.1; 004 §VII)"
        )
        if rule == MD_BETA:
            why += (
                f", with {sc.congestion_control}'s decrease β = {sc.md_beta:g} "
                "(RFC 9438: B = C·RTT·(1−β)/β)"
            )
        return model, rule, why
    if ctx.bottlenecked_flows_given:
        why = (
            f"N_b = {n} flows are bottlenecked here: BSCL sizes for both full utilization with "
            "partial loss synchronization and the loss target (004 Fig. 4); the sqrt(N) rule "
            "ignores the loss rate (004 §I)"
        )
        return model, BSCL, why
    if n >= DESYNCHRONIZED_FLOWS:
        why = (
            f"N = {n} long-lived flows (>= {DESYNCHRONIZED_FLOWS}) desynchronize, so the "
            "aggregate window varies like √N and the sqrt(N) rule applies (000 §2.2.2)"
        )
        return model, SQRT_N, why
    why = (
        f"N = {n} flows: too many for the single-flow rule, too few to ignore loss "
        "synchronization (004 §I); BSCL models partial synchronization (with N_b = N)"
    )
    return model, BSCL, why


# --- predictions ------------------------------------------------------------------------------


def predict(model: TrafficModel, targets: Targets, buffer_packets: float) -> Prediction:
    """The model's utilization, loss and delay at one buffer size, checked against targets."""
    return _predict_many(model, targets, [float(buffer_packets)])[0]


def _predict_many(
    model: TrafficModel, targets: Targets, sizes: Sequence[float]
) -> list[Prediction]:
    """:func:`predict` at several sizes with one evaluation of the model (same numbers).

    The model's functions are elementwise, so each size gets exactly the value a call for it
    alone would give.
    """
    b = np.asarray(sizes, dtype=np.float64)
    u = model.utilization(b)
    nu = np.minimum(1.0, u / model.max_utilization)  # model.normalized_utilization(b)
    loss = model.loss_probability(b)
    delay = model.queueing_delay_s(b)
    d_max = targets.max_queueing_delay_s
    return [
        Prediction(
            buffer_packets=float(size),
            utilization=float(u[i]),
            normalized_utilization=float(nu[i]),
            loss_probability=float(loss[i]),
            queueing_delay_s=float(delay[i]),
            meets_utilization=float(nu[i]) >= targets.min_utilization * (1.0 - _TOLERANCE),
            meets_loss=float(loss[i]) <= targets.max_loss * (1.0 + _TOLERANCE),
            meets_delay=d_max is None or float(delay[i]) <= d_max * (1.0 + _TOLERANCE),
        )
        for i, size in enumerate(sizes)
    ]


def _with_predictions(
    rules: Sequence[RuleResult], model: TrafficModel, ctx: Context
) -> tuple[RuleResult, ...]:
    """Every rule with the model's prediction at its size (one model evaluation for all)."""
    sized = [r for r in rules if r.buffer_packets is not None]
    predictions = iter(
        _predict_many(model, ctx.targets, [float(r.buffer_packets or 0) for r in sized])
    )
    return tuple(
        r if r.buffer_packets is None else replace(r, predicted=next(predictions)) for r in rules
    )


def _throughput_verdicts(model: TrafficModel, targets: Targets) -> Callable[[Sizes], Verdicts]:
    """Whether utilization and loss targets are met, at many sizes at once (never open)."""

    def decide(sizes: Sizes) -> Verdicts:
        u = model.utilization(sizes)
        nu = np.minimum(1.0, u / model.max_utilization)
        loss = model.loss_probability(sizes)
        ok = (nu >= targets.min_utilization * (1.0 - _TOLERANCE)) & (
            loss <= targets.max_loss * (1.0 + _TOLERANCE)
        )
        out: Verdicts = np.where(ok, TRUE, FALSE).astype(np.int8)
        return out

    return decide


# --- the recommended size ---------------------------------------------------------------------


def _describe(p: Prediction) -> str:
    return (
        f"{p.buffer_packets:,.0f} packets: utilization {p.utilization:.1%} of C "
        f"({p.normalized_utilization:.1%} of what the traffic can carry), loss "
        f"{p.loss_probability:.2g}, queueing delay up to {p.queueing_delay_s * 1e3:.3g} ms"
    )


def _size(
    ctx: Context, model: TrafficModel, governing: RuleResult, why: str
) -> tuple[RecommendedSize, TradeOff | None]:
    t = ctx.targets
    sc = ctx.scenario
    rule_b = governing.buffer_packets
    assert rule_b is not None
    # The traffic models cost about the same for one size or a hundred: one batch for all
    # the doubling steps, six bisection steps per batch.
    need = smallest_integer_batched(
        _throughput_verdicts(model, t), SEARCH_MAX_PACKETS, depth=6, doublings=64
    )
    delay_cap = ctx.max_delay_packets
    optical_cap = OPTICAL_MAX_PACKETS if sc.medium == "optical" else None
    parts = [why + "."]
    parts.append(f"{governing.name} gives {rule_b:,} packets ({governing.equation}).")
    trade_off: TradeOff | None = None

    if need is None:
        chosen = rule_b
        top = predict(model, t, SEARCH_MAX_PACKETS)
        missing = []
        if not top.meets_utilization:
            missing.append(
                f"utilization {t.min_utilization:.0%} (at most "
                f"{top.normalized_utilization:.1%} at any size)"
            )
        if not top.meets_loss:
            missing.append(
                f"loss {t.max_loss:.2g} (never below {top.loss_probability:.2g} at any size)"
            )
        if delay_cap is not None:
            chosen = min(chosen, delay_cap)
        if optical_cap is not None:
            chosen = min(chosen, optical_cap)
        trade_off = TradeOff(
            conflict="unattainable",
            explanation=(
                "No buffer size meets " + " and ".join(missing) + "; more buffer only adds "
                "delay. The link needs more capacity, less load or admission control "
                "(003 §6; 004 §V)."
            ),
            alternatives=(predict(model, t, chosen),),
        )
        parts.append("The targets cannot all be met at any size: see the trade-off.")
    else:
        chosen = max(rule_b, need)
        if need > rule_b:
            parts.append(
                f"Raised to {need:,} packets, the smallest size at which the model predicts "
                f"utilization >= {t.min_utilization:.0%} and loss <= {t.max_loss:.2g}."
            )
        caps = [(c, label) for c, label in ((delay_cap, "delay"), (optical_cap, "optical")) if c]
        for cap, label in caps:
            if chosen <= cap:
                continue
            if need <= cap:
                chosen = cap
                what = (
                    f"the {(t.max_queueing_delay_s or 0.0) * 1e3:.3g} ms delay bound"
                    if label == "delay"
                    else f"the {OPTICAL_MAX_PACKETS}-packet optical limit"
                )
                parts.append(
                    f"Capped at {cap:,} packets by {what}; the model still predicts the "
                    "utilization and loss targets are met there."
                )
                continue
            trade_off = _conflict(ctx, model, need, cap, label)
            if label == "optical" or t.priority == "delay":
                chosen = cap
                parts.append(
                    f"Capped at {cap:,} packets by the {label} limit, below the {need:,} "
                    "that utilization and loss need: see the trade-off."
                )
            else:
                chosen = need
                parts.append(
                    f"This exceeds the delay bound ({cap:,} packets); utilization and loss are "
                    "kept first as in 004 §V: see the trade-off."
                )
    predicted = predict(model, t, chosen)
    parts.append("Predicted at " + _describe(predicted) + ".")
    unknown = [a.text for a in governing.assumptions if a.status == "unknown"]
    failing = [a.text for a in governing.assumptions if a.status == "fails"]
    if failing:
        parts.append("Assumptions that fail: " + "; ".join(failing) + ".")
    if unknown:
        parts.append("Not verified from the inputs: " + "; ".join(unknown) + ".")
    recommended = RecommendedSize(
        rule=governing.rule,
        buffer_packets=int(chosen),
        buffer_bytes=chosen * sc.packet_bytes,
        buffer_s=chosen * ctx.packet_time_s,
        reason=" ".join(parts),
        predicted=predicted,
        minimum_meeting_targets_packets=need,
    )
    return recommended, trade_off


def _conflict(ctx: Context, model: TrafficModel, need: int, cap: int, label: str) -> TradeOff:
    t = ctx.targets
    at_need = predict(model, t, need)
    at_cap = predict(model, t, cap)
    if label == "delay":
        conflict = "utilization and loss vs delay"
        head = (
            f"The {(t.max_queueing_delay_s or 0.0) * 1e3:.3g} ms delay bound allows at most "
            f"{cap:,} packets, but utilization >= {t.min_utilization:.0%} and loss <= "
            f"{t.max_loss:.2g} need {need:,} (004 §V eq. 25: the smallest delay bound that "
            f"can be met is {at_need.queueing_delay_s * 1e3:.3g} ms)."
        )
    else:
        conflict = "optical buffer size vs utilization and loss"
        head = (
            f"An all-optical buffer holds about {OPTICAL_MAX_PACKETS} packets, but utilization "
            f">= {t.min_utilization:.0%} and loss <= {t.max_loss:.2g} need {need:,} (000 §3.1)."
        )
    explanation = (
        f"{head} Either keep the delay down with {_describe(at_cap)}; or meet utilization and "
        f"loss with {_describe(at_need)}. Other ways out: more capacity, fewer persistent "
        "flows (admission control), or paced senders (004 §V; 000 ch. 3)."
    )
    return TradeOff(conflict=conflict, explanation=explanation, alternatives=(at_cap, at_need))


# --- curves and warnings ----------------------------------------------------------------------


def _curves(
    ctx: Context, model: TrafficModel, rules: tuple[RuleResult, ...], recommended: int
) -> Curves:
    sizes = [r.buffer_packets for r in rules if r.buffer_packets is not None]
    top = max([2.0 * ctx.bdp_packets, 2.0 * recommended, 10.0, *(2.0 * s for s in sizes)])
    grid = np.unique(np.logspace(0.0, math.log10(top), CURVE_POINTS))
    utilization = model.utilization(grid)
    return Curves(
        buffer_packets=tuple(grid.tolist()),
        utilization=tuple(utilization.tolist()),
        normalized_utilization=tuple(np.minimum(1.0, utilization / model.max_utilization).tolist()),
        loss_probability=tuple(model.loss_probability(grid).tolist()),
        queueing_delay_s=tuple(model.queueing_delay_s(grid).tolist()),
    )


def _warnings(ctx: Context, regime: RegimeInfo, governing: RuleResult) -> tuple[str, ...]:
    out: list[str] = []
    if regime.warning:
        out.append(regime.warning)
    if regime.regime == "overload":
        out.append(
            "Overload: the offered load exceeds the capacity; flows accumulate and no buffer "
            "restores their throughput (003 §6)."
        )
    sc = ctx.scenario
    if governing.rule == TINY and not sc.paced and sc.access_bps is None:
        out.append(
            "Tiny buffers assume paced senders or slow access links; give the access rate or "
            "pacing to check it (000 §3.4-3.5)."
        )
    return tuple(out)
