"""The recommendation engine: every rule side by side, the regime, one recommended size."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from models.bscl import bscl_buffer
from models.cioq import cioq_advice
from models.optical import optical_fifo_design
from models.provenance import software_versions
from models.recommend.context import (
    DESYNCHRONIZED_FLOWS,
    FEW_FLOWS,
    MAX_TRANSPARENT_SATURATION,
    OPTICAL_MAX_PACKETS,
    Context,
    TargetValues,
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
    Target,
    TargetCheck,
    TradeOff,
    WhatIf,
)
from models.recommend.rules import (
    AQM_TARGET_S,
    BBR,
    BBR_CWND_GAIN,
    BSCL,
    DCTCP,
    MD_BETA,
    PACED,
    RULE_OF_THUMB,
    SQRT_N,
    TINY,
    TRANSPARENT,
    all_rules,
    paced_or_slow,
)
from models.recommend.scenario import LinkScenario, Targets
from models.recommend.search import FALSE, TRUE, Sizes, Verdicts, smallest_integer_batched
from models.regimes import classify_regime

#: Points on each curve, log-spaced from 1 packet to beyond the BDP and every rule's size.
CURVE_POINTS = 160

#: Largest buffer the engine searches when looking for the smallest size meeting the targets.
SEARCH_MAX_PACKETS = 1 << 40

#: Fewest packets of bandwidth-delay product per long-lived flow for the loss models to hold:
#: below it a flow's window is a packet or two, a loss cannot raise the three duplicate ACKs of
#: fast retransmit (RFC 5681 §3.2), and flows recover by retransmission timeouts.
MIN_BDP_PER_FLOW_PACKETS = 2.0

#: Relative slack when comparing a prediction with a target (floating-point rounding only).
_TOLERANCE = 1e-9


def recommend(scenario: LinkScenario, targets: Targets | None = None) -> Recommendation:
    """Size the buffer of a port: every rule, the regime, one recommendation and the curves.

    Parameters
    ----------
    scenario : LinkScenario
        The port and its traffic (SI units).
    targets : Targets, optional
        Minimum utilization, maximum loss and maximum queueing delay; a target not given takes
        its documented default and is marked ``source: default`` in the result.

    Returns
    -------
    Recommendation
        Each rule's buffer in packets, bytes and seconds with its assumptions marked holds,
        fails or unknown, the predicted utilization, loss and delay at that size and which
        targets it meets (and whether the user gave them); the regime and the inputs that
        would decide it; the recommended size, the rule that governs it and why; what the
        answer would be if the user confirmed an assumption or gave a missing input
        (``what_if``); a trade-off when no size meets every target; curves for plotting.

    Raises
    ------
    models.errors.ParameterError
        If a scenario or target value is out of range (raised when they are built).

    Notes
    -----
    The engine picks one traffic model (:mod:`models.recommend.performance`):

    1. window-limited flows (ρ = N·W/(C·RTT) < 1): the tiny-buffers theorem governs, and
       the paced-traffic bound (000 Thm 2) where pacing or slow access links make it apply;
    2. a transparent regime (load < 1, small peak rates, the peak rates summing below C with
       high probability; :func:`models.regimes.classify_regime`): ρ^B <= ε governs;
    3. otherwise long-lived flows congest the port: fewer than 5 of them, the single-flow rule
       (C·T_e·(1−β)/β); N_b given, BSCL; DCTCP, its marking threshold plus the incast burst;
       BBR with few flows, its probing queue; many flows, sqrt(N).

    Unknowns stay unknown: without N_b the loss of long-lived flows is not predicted (N_b = N
    is never assumed for the loss constraint); the BSCL size for the worst case, all N flows
    bottlenecked here, is shown in ``what_if``. Without a load the regime is ``unknown`` and
    ``deciding_inputs`` names what would decide it.

    Targets the user did not give never push the buffer past C·T_e: the default delay target
    is one effective RTT. A size above it is recommended only when a target the user gave
    requires it, and the reason says which and what it costs in queueing delay. A delay bound
    the user gave caps the size; when it is below what the user's utilization and loss
    targets (or BSCL's size, 004 eq. 25) need, the result is ``feasible: false`` with both
    delays, and ``targets.priority`` chooses the side (004 §V keeps utilization and loss).

    Assumptions:

    - those of the governing rule, listed in the result with their status;
    - the utilization and loss predictions are the models' bounds or approximations, not
      simulations; check them with the simulator.

    References
    ----------
    .. [1] Y. Ganjali, PhD thesis (seed ``000_9b46cc70677d86b3.txt``), ch. 2-3, §5.1, App. A-B.
    .. [2] J. Augé, J. Roberts (seeds ``002_e29b74a3ab8ed403.txt``, ``003_04878e78c5c6bb91.txt``).
    .. [3] A. Dhamdhere, H. Jiang, C. Dovrolis (seed ``004_cb0749363e88d206.txt``), §II, §V.
    .. [4] M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.4 eq. (13)
       (K > C·RTT/7; read); RFC 8257 §3.1 (switch marking; "Section 3.4 of [DCTCP10] suggests
       threshold marking with a threshold of K > (RTT * C)/7") and §3.5 ("A DCTCP sender MUST
       react to loss episodes in the same way as conventional TCP"), both read.
    .. [5] N. Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5),
       2016; IETF draft-cardwell-iccrg-bbr-congestion-control-00 §4.3.4.1 (pacing_gain 5/4
       for one RTprop, cwnd_gain 2 in ProbeBW; both read).
    .. [6] B. Spang, S. Arslan, N. McKeown, "Updating the theory of buffer sizing",
       Performance Evaluation 2021, doi:10.1016/j.peva.2021.102232. Checked against the
       abstract only (the full text could not be opened; searched again for this revision):
       "For the single flow case, we
       generalize the BDP rule to account for ... Cubic and BBR ... buffers can be made
       60-75% smaller for newer algorithms", and the square-root-of-n rule "holds under a
       broader set of assumptions ..., including for these new congestion control
       algorithms", but not "for unfair flows and certain settings with ECN". That its
       single-flow rule is B = C·T·(1−β)/β is our reading, not checked against the paper.
    """
    targets = targets if targets is not None else Targets()
    ctx = derive(scenario, targets)
    regime = _regime(ctx)
    model, governing_id, why = _choose(ctx, regime)
    regime = replace(regime, traffic_model=model.kind)
    classified = regime.regime if regime.source == "models.regimes" else None
    rules = _with_predictions(all_rules(ctx, classified), model, ctx)
    governing = next(r for r in rules if r.rule == governing_id)
    paced = next((r for r in rules if r.rule == PACED), None)
    if (
        governing.rule == TINY
        and paced is not None
        and paced.buffer_packets is not None
        and governing.buffer_packets is not None
        and paced.buffer_packets < governing.buffer_packets
        and paced.assumptions[1].status == "holds"
    ):
        # Paced senders or slow access links: 000 Thm 2's bound is the tighter of the two.
        governing = paced
        why += (
            f"; the paced-traffic bound needs only {paced.buffer_packets:,} packets against "
            f"the Poisson bound's {next(r for r in rules if r.rule == TINY).buffer_packets:,}"
        )
    assert governing.buffer_packets is not None
    recommended, trade_off = _size(ctx, model, governing, why)
    optical = None
    if scenario.medium == "optical":
        optical = optical_fifo_design(
            recommended.buffer_packets,
            packet_bytes=scenario.packet_bytes,
            capacity_bps=scenario.capacity_bps,
        )
    cioq = None
    if scenario.input_queued and scenario.ports is not None:
        cioq = cioq_advice(
            recommended.buffer_packets,
            scenario.ports,
            scenario.speedup if scenario.speedup is not None else 2.0,
        )
    warnings = _warnings(ctx, regime, governing, recommended.buffer_packets)
    if _low_bdp_per_flow(ctx, regime) is not None and recommended.predicted is not None:
        recommended = replace(
            recommended,
            reason=recommended.reason
            + " The predicted loss is outside the loss model's range here: the flows have "
            "fewer than two packets of BDP each and recover by timeouts (see warnings).",
        )
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
            slowdown=ctx.slowdown,
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
        targets=tuple(
            Target(name=name, value=getattr(ctx.targets, name), source=ctx.targets.source(name))
            for name in ("min_utilization", "max_loss", "max_queueing_delay_s")
        ),
        what_if=_what_if(ctx, regime, model, rules, governing),
        cioq=cioq,
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
            slowdown=ctx.slowdown,
        )
        spacing = paced_or_slow(ctx)
        if spacing.status != "holds":
            # 000 §3.4: "When we run simulations without using Paced TCP, we can not obtain
            # reasonable link utilizations with log-sized buffers, even in the over-provisioned
            # case" (ch. 3 overview); Fig. 3.2: unpaced Reno with 20 flows (peak load 0.52)
            # needs "50 packets of buffering to reach the maximum utilization", paced TCP
            # "less than 10". Unknown spacing is not assumed: the size falls back to the
            # sqrt(N) rule, above what unpaced Reno needed there (C·T/√20 = 280 packets).
            why = (
                f"The {sc.flows} flows are window-limited (W = {w:g} packets, ρ = N·W/(C·RTT) "
                f"= {rho_w:.3g}), but the tiny-buffers theorem (000 Thm 1-2) also needs paced "
                f"senders or access links much slower than the port, and {spacing.reason}. "
                "Without that spacing, line-rate bursts overflow log-sized buffers: 000 §3.4 "
                "could not obtain reasonable utilization with them for unpaced TCP, even "
                "over-provisioned. So the size is not the tiny-buffers one but the sqrt(N) "
                "rule's (000 §2.2.2, derived for unpaced long-lived TCP flows; conservative "
                "here, as these flows cannot fill the port); what_if shows the tiny size if "
                "you confirm pacing or give the access rate"
            )
            return model, SQRT_N, why
        why = (
            f"The {sc.flows} flows are window-limited: at their largest window "
            f"(W = {w:g} packets) they offer ρ = N·W/(C·RTT) = {rho_w:.3g} of the port, so none "
            "is bottlenecked here and the tiny-buffers theorem (000 Thm 1) applies"
        )
        if ctx.slowdown is not None:
            why += (
                f"; with slowdown S = {ctx.slowdown:.3g} the paced-traffic bound (000 Thm 2, "
                "App. B) is used where it is the better of the two"
            )
        return model, TINY, why
    if regime.regime == "transparent" and sc.load is not None and sc.load < 1.0:
        model = TrafficModel(
            kind="open_loop",
            capacity_bps=sc.capacity_bps,
            packet_bytes=sc.packet_bytes,
            max_utilization=sc.load,
            load=sc.load,
            rtt_s=ctx.effective_rtt_s,
        )
        why = (
            f"Transparent regime at load ρ = {sc.load:.3g}: the flows' peak rates are small "
            "against the capacity and add up to it only "
            f"{_share(regime.saturation_probability or 0.0)} of the time, so the buffer only "
            "absorbs packet-scale coincidences and ρ^B <= ε sizes it (003 §4.2)"
        )
        return model, TRANSPARENT, why
    n = ctx.bottlenecked_flows
    label = ctx.label
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
        loss_known=ctx.bottlenecked_flows_given,
    )
    if sc.congestion_control == "dctcp":
        why = (
            "DCTCP senders with ECN marking at this port: the marking threshold K > C·RTT/7 "
            "keeps the link busy with a small standing queue (Alizadeh et al. SIGCOMM 2010 "
            "§3.4; RFC 8257 §3.1), and the buffer above K absorbs synchronized fan-in bursts"
        )
        return model, DCTCP, why
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
                "(B = C·RTT·(1−β)/β; RFC 9438 §4.6; Spang, Arslan, McKeown 2021)"
            )
        return model, rule, why
    if ctx.bottlenecked_flows_given:
        why = (
            f"N_b = {n} flows are bottlenecked here: BSCL sizes for both full utilization with "
            "partial loss synchronization and the loss target (004 Fig. 4); the sqrt(N) rule "
            "ignores the loss rate (004 §I)"
        )
        return model, BSCL, why
    if sc.congestion_control == "bbr" and n < DESYNCHRONIZED_FLOWS:
        why = (
            f"N = {n} BBR flows: BBR paces at its bottleneck-bandwidth estimate and its "
            "ProbeBW phase sends 1.25× that rate for one round trip, a queue of 0.25·C·T_e "
            "(Cardwell et al. 2016); N_b is not given, so the loss constraint is not sized"
        )
        return model, BBR, why
    if n >= DESYNCHRONIZED_FLOWS:
        why = (
            f"N = {n} long-lived flows (>= {DESYNCHRONIZED_FLOWS}) desynchronize, so the "
            "aggregate window varies like √N and the sqrt(N) rule applies (000 §2.2.2; for "
            "CUBIC and BBR too, Spang, Arslan, McKeown 2021). N_b is not given: the flows are "
            "counted as long-lived for utilization only, and the loss constraint is shown as "
            "the worst case (what_if), not applied"
        )
        return model, SQRT_N, why
    rule = RULE_OF_THUMB if sc.congestion_control == "reno" else MD_BETA
    why = (
        f"N = {n} flows and N_b not given: too many to be sure of synchronized losses, too "
        "few to rely on desynchronization (004 §I), so the single-flow rule, which needs no "
        "synchronization assumption, sizes for utilization; give N_b for BSCL (004 Fig. 4)"
    )
    return model, rule, why


# --- predictions ------------------------------------------------------------------------------


def predict(
    model: TrafficModel, targets: Targets | TargetValues, buffer_packets: float
) -> Prediction:
    """The model's utilization, loss and delay at one buffer size, checked against targets."""
    return _predict_many(model, _values(model, targets), [float(buffer_packets)])[0]


def _values(model: TrafficModel, targets: Targets | TargetValues) -> TargetValues:
    if isinstance(targets, TargetValues):
        return targets
    from models.recommend.context import resolve_targets

    return resolve_targets(targets, model.rtt_s)


def _predict_many(
    model: TrafficModel, targets: TargetValues, sizes: Sequence[float]
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
    out = []
    for i, size in enumerate(sizes):
        loss_i = float(loss[i])
        known = math.isfinite(loss_i)
        out.append(
            Prediction(
                buffer_packets=float(size),
                utilization=float(u[i]),
                normalized_utilization=float(nu[i]),
                loss_probability=loss_i if known else None,
                queueing_delay_s=float(delay[i]),
                meets_utilization=float(nu[i]) >= targets.min_utilization * (1.0 - _TOLERANCE),
                meets_loss=(loss_i <= targets.max_loss * (1.0 + _TOLERANCE)) if known else None,
                meets_delay=float(delay[i]) <= d_max * (1.0 + _TOLERANCE),
            )
        )
    return out


def _checks(p: Prediction | None, t: TargetValues) -> tuple[TargetCheck, ...]:
    """Which targets a prediction meets, each with its source."""
    if p is None:
        return ()
    return (
        TargetCheck("min_utilization", t.source("min_utilization"), p.meets_utilization),
        TargetCheck("max_loss", t.source("max_loss"), p.meets_loss),
        TargetCheck("max_queueing_delay_s", t.source("max_queueing_delay_s"), p.meets_delay),
    )


def _with_predictions(
    rules: Sequence[RuleResult], model: TrafficModel, ctx: Context
) -> tuple[RuleResult, ...]:
    """Every rule with the model's prediction at its size (one model evaluation for all)."""
    sized = [r for r in rules if r.buffer_packets is not None]
    predictions = iter(
        _predict_many(model, ctx.targets, [float(r.buffer_packets or 0) for r in sized])
    )
    out = []
    for r in rules:
        if r.buffer_packets is None:
            out.append(r)
            continue
        p = next(predictions)
        out.append(replace(r, predicted=p, targets_met=_checks(p, ctx.targets)))
    return tuple(out)


def _throughput_verdicts(
    model: TrafficModel, targets: TargetValues, utilization: bool = True, loss: bool = True
) -> Callable[[Sizes], Verdicts]:
    """Whether the utilization and (when decided) loss targets are met, at many sizes."""

    def decide(sizes: Sizes) -> Verdicts:
        ok = np.ones(sizes.shape, dtype=bool)
        if utilization:
            u = model.utilization(sizes)
            nu = np.minimum(1.0, u / model.max_utilization)
            ok &= nu >= targets.min_utilization * (1.0 - _TOLERANCE)
        if loss and model.loss_known:
            ok &= model.loss_probability(sizes) <= targets.max_loss * (1.0 + _TOLERANCE)
        out: Verdicts = np.where(ok, TRUE, FALSE).astype(np.int8)
        return out

    return decide


def _smallest(
    model: TrafficModel, t: TargetValues, utilization: bool = True, loss: bool = True
) -> int | None:
    # The traffic models cost about the same for one size or a hundred: one batch for all
    # the doubling steps, six bisection steps per batch.
    return smallest_integer_batched(
        _throughput_verdicts(model, t, utilization, loss),
        SEARCH_MAX_PACKETS,
        depth=6,
        doublings=64,
    )


# --- the recommended size ---------------------------------------------------------------------


def _describe(p: Prediction) -> str:
    loss = "unknown (N_b not given)" if p.loss_probability is None else f"{p.loss_probability:.2g}"
    return (
        f"{p.buffer_packets:,.0f} packets: utilization {p.utilization:.1%} of C "
        f"({p.normalized_utilization:.1%} of what the traffic can carry), loss "
        f"{loss}, queueing delay up to {p.queueing_delay_s * 1e3:.3g} ms"
    )


def _share(probability: float) -> str:
    """A probability as a percentage, in scientific notation when below 0.01%."""
    return f"{probability:.2%}" if probability >= 1e-4 else f"{probability * 100:.1e}%"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def _user_required(ctx: Context, model: TrafficModel, governing: RuleResult) -> tuple[int, str]:
    """The size the targets the user gave require, and which they are ('' when none).

    The model's smallest size meeting the user's utilization and loss targets; when BSCL
    governs (the user gave N_b), also BSCL's own size when its utilization term governs or
    the user gave the loss target its loss term is sized for (004 eq. 25).
    """
    t = ctx.targets
    user_u, user_l = t.user("min_utilization"), t.user("max_loss")
    required, names = 0, []
    if user_u or (user_l and model.loss_known):
        found = _smallest(model, t, utilization=user_u, loss=user_l)
        if found is not None:
            required = found
        if user_u:
            names.append(f"utilization >= {t.min_utilization:.0%}")
        if user_l and model.loss_known:
            names.append(f"loss <= {t.max_loss:.2g}")
    sc = ctx.scenario
    if governing.rule == DCTCP and sc.incast_senders is not None:
        assert governing.buffer_packets is not None
        if governing.buffer_packets > required:
            required = governing.buffer_packets
            names.append(
                f"absorbing the fan-in burst you gave ({sc.incast_senders} senders × "
                f"{sc.initial_window_packets:g} packets) above DCTCP's marking threshold"
            )
    if governing.rule == BSCL and governing.buffer_packets is not None:
        loss_term = "loss governs" in (governing.note or "")
        if not loss_term or user_l:
            if governing.buffer_packets > required:
                required = governing.buffer_packets
                names.append(f"BSCL's size for {t.max_loss:.2g} loss at ~100% utilization")
    return required, " and ".join(names)


def _size(
    ctx: Context, model: TrafficModel, governing: RuleResult, why: str
) -> tuple[RecommendedSize, TradeOff | None]:
    t = ctx.targets
    sc = ctx.scenario
    rule_b = governing.buffer_packets
    assert rule_b is not None
    need = _smallest(model, t)
    delay_user = t.user("max_queueing_delay_s")
    delay_cap = ctx.max_delay_packets
    if not delay_user:
        # The default delay target is one RTT: C·T_e rounded up to whole packets, the rule of
        # thumb's own size.
        delay_cap = max(delay_cap, math.ceil(ctx.bdp_packets * (1.0 - 1e-12)))
    optical_cap = OPTICAL_MAX_PACKETS if sc.medium == "optical" else None
    parts = [why + "."]
    parts.append(f"{governing.name} gives {rule_b:,} packets ({governing.equation}).")
    trade_off: TradeOff | None = None
    required, required_by = _user_required(ctx, model, governing)

    if need is None:
        chosen = min(rule_b, delay_cap) if not delay_user else rule_b
        top = predict(model, t, SEARCH_MAX_PACKETS)
        missing = []
        if not top.meets_utilization:
            missing.append(
                f"utilization {t.min_utilization:.0%} ({t.source('min_utilization')}; at most "
                f"{top.normalized_utilization:.1%} at any size)"
            )
        if top.meets_loss is False:
            missing.append(
                f"loss {t.max_loss:.2g} ({t.source('max_loss')}; never below "
                f"{top.loss_probability:.2g} at any size)"
            )
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
        base = max(rule_b, need)
        if need > rule_b:
            parts.append(
                f"Raised to {need:,} packets, the smallest size at which the model predicts "
                f"utilization >= {t.min_utilization:.0%}"
                + (f" and loss <= {t.max_loss:.2g}" if model.loss_known else "")
                + "."
            )
        if not delay_user:
            ceiling = max(delay_cap, required)
            chosen = min(base, ceiling)
            if chosen < base:
                parts.append(
                    f"Capped at {chosen:,} packets ({_ms(chosen * ctx.packet_time_s)}, one RTT "
                    "of queueing: the default delay target); the default targets alone would "
                    f"take {base:,} packets ({_ms(base * ctx.packet_time_s)}). Targets you did "
                    "not give never push the buffer past the bandwidth-delay product; set "
                    "max_loss or min_utilization to size for them."
                )
            if chosen > delay_cap:
                cost = chosen * ctx.packet_time_s
                parts.append(
                    f"Above the bandwidth-delay product because your target ({required_by}) "
                    f"requires it: {chosen:,} packets cost up to {_ms(cost)} of queueing, "
                    f"{cost / ctx.effective_rtt_s:.3g}× the RTT."
                )
        elif base <= delay_cap:
            chosen = base
        elif required <= delay_cap:
            chosen = delay_cap
            parts.append(
                f"Capped at {delay_cap:,} packets by your {_ms(t.max_queueing_delay_s)} delay "
                f"bound; the defaults alone would take {base:,} packets."
            )
        else:
            trade_off = _conflict(ctx, model, required, delay_cap, "delay", required_by)
            if t.priority == "delay":
                chosen = delay_cap
                parts.append(
                    f"Capped at {delay_cap:,} packets by your delay bound, below the "
                    f"{required:,} that {required_by} need: infeasible, see the trade-off."
                )
            else:
                chosen = max(required, min(base, delay_cap))
                parts.append(
                    f"This exceeds your delay bound ({delay_cap:,} packets, "
                    f"{_ms(t.max_queueing_delay_s)}): infeasible by "
                    f"{_ms(chosen * ctx.packet_time_s - t.max_queueing_delay_s)}; "
                    f"{required_by} are kept first as in 004 §V: see the trade-off."
                )
        if optical_cap is not None and chosen > optical_cap:
            if base > optical_cap:
                trade_off = _conflict(ctx, model, base, optical_cap, "optical", required_by)
            chosen = optical_cap
            parts.append(
                f"Capped at {optical_cap:,} packets by the optical limit: see the trade-off."
            )
    predicted = predict(model, t, chosen)
    if delay_user and not predicted.meets_delay and trade_off is None:
        # A delay bound below one packet's transmission time: no buffer meets it.
        trade_off = _conflict(
            ctx, model, chosen, delay_cap, "delay", required_by or "holding one packet"
        )
        parts.append("Your delay bound is below one packet time at line rate: see the trade-off.")
    parts.append("Predicted at " + _describe(predicted) + ".")
    unknown = [a.text for a in governing.assumptions if a.status == "unknown"]
    failing = [a.text for a in governing.assumptions if a.status == "fails"]
    if failing:
        parts.append("Assumptions that fail: " + "; ".join(failing) + ".")
    if unknown:
        parts.append("Not verified from the inputs: " + "; ".join(unknown) + ".")
    defaults = [n for n in ("min_utilization", "max_loss", "max_queueing_delay_s") if not t.user(n)]
    if defaults:
        parts.append(
            "Default targets (not given): "
            + ", ".join(f"{n} = {getattr(t, n):.3g}" for n in defaults)
            + "."
        )
    if sc.aqm != "none":
        parts.append(
            "This is the hard limit of the buffer; the AQM keeps the standing queue near its "
            "own target (see its rule), well below it."
        )
    recommended = RecommendedSize(
        rule=governing.rule,
        buffer_packets=int(chosen),
        buffer_bytes=chosen * sc.packet_bytes,
        buffer_s=chosen * ctx.packet_time_s,
        reason=" ".join(parts),
        predicted=predicted,
        minimum_meeting_targets_packets=need,
        targets_met=_checks(predicted, t),
    )
    return recommended, trade_off


def _conflict(
    ctx: Context, model: TrafficModel, need: int, cap: int, label: str, required_by: str
) -> TradeOff:
    t = ctx.targets
    at_need = predict(model, t, need)
    at_cap = predict(model, t, cap)
    wanted = required_by or f"utilization >= {t.min_utilization:.0%}"
    if label == "delay":
        conflict = "utilization and loss vs delay"
        head = (
            f"Infeasible: your {_ms(t.max_queueing_delay_s)} delay bound allows at most "
            f"{cap:,} packets, but {wanted} need {need:,}, so the smallest delay bound that "
            f"can be met is {_ms(at_need.queueing_delay_s)} (004 eqs. 24-25), "
            f"{_ms(at_need.queueing_delay_s - t.max_queueing_delay_s)} more than the target."
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
    return TradeOff(
        conflict=conflict,
        explanation=explanation,
        alternatives=(at_cap, at_need),
        max_queueing_delay_s=t.max_queueing_delay_s,
        min_feasible_delay_s=at_need.queueing_delay_s,
    )


def _what_if(
    ctx: Context,
    regime: RegimeInfo,
    model: TrafficModel,
    rules: Sequence[RuleResult],
    governing: RuleResult,
) -> tuple[WhatIf, ...]:
    """How the answer changes if the user confirms the worst case or gives a missing input."""
    sc = ctx.scenario
    t = ctx.targets
    out: list[WhatIf] = []
    tiny = next((r for r in rules if r.rule == TINY), None)
    if (
        model.kind == "window_limited"
        and governing.rule != TINY
        and tiny is not None
        and tiny.buffer_packets is not None
        and tiny.buffer_s is not None
    ):
        spacing = paced_or_slow(ctx)
        needed = ctx.slow_access_needed
        slow = "" if needed is None else f" (at least {needed:.3g}× slower than the port)"
        out.append(
            WhatIf(
                input="paced" if spacing.status == "unknown" else "access_bps",
                assumption="senders pace their packets or their access links are much slower "
                "than the port",
                rule=TINY,
                buffer_packets=tiny.buffer_packets,
                buffer_s=tiny.buffer_s,
                explanation=(
                    f"If the senders pace, or their access links are slow enough{slow}, the "
                    f"tiny-buffers theorem needs only {tiny.buffer_packets:,} packets "
                    f"({_ms(tiny.buffer_s)} of queueing) for θ = {t.min_utilization:g} of the "
                    "window-limited peak (000 §3.3 Thm 1; the paced bound, Thm 2 and App. B, "
                    "may need fewer): set paced or give access_bps. Without it, unpaced "
                    f"line-rate bursts do not reach that utilization ({spacing.reason}; "
                    "000 §3.4)."
                ),
            )
        )
    if model.kind == "congested_tcp" and not ctx.bottlenecked_flows_given:
        worst = bscl_buffer(
            sc.capacity_bps,
            ctx.bottlenecked_share,
            sc.flows,
            sc.packet_bytes,
            t.max_loss,
            effective_rtt_s=ctx.effective_rtt_s,
        )
        packets = max(1, math.ceil(float(worst.buffer_packets) * (1.0 - 1e-12)))
        seconds = packets * ctx.packet_time_s
        out.append(
            WhatIf(
                input="bottlenecked_flows",
                assumption=f"all N = {sc.flows:,} flows are long-lived and bottlenecked here",
                rule=BSCL,
                buffer_packets=packets,
                buffer_s=seconds,
                explanation=(
                    f"If all N = {sc.flows:,} flows are bottlenecked here, BSCL needs "
                    f"{packets:,} packets ({_ms(seconds)} of queueing, "
                    f"{seconds / ctx.effective_rtt_s:.3g}× the RTT) for loss <= "
                    f"{t.max_loss:.2g} ({worst.governing_constraint} term governs; 004 Fig. "
                    "4). N_b decides whether the loss target constrains the buffer: give "
                    "bottlenecked_flows (and max_loss) to size for it; 004 §VI estimates it "
                    "from a packet trace."
                ),
            )
        )
    need_w = ctx.bdp_packets / sc.flows
    # Only where a window cap is plausible: at least two packets per flow fit in C·RTT.
    if model.kind == "congested_tcp" and sc.max_window_packets is None and need_w >= 2.0:
        slow = (
            ""
            if ctx.slowdown is None
            else (
                f" With access links {ctx.slowdown:.3g}× slower than the port the paced-traffic "
                "bound (000 Thm 2) applies too."
            )
        )
        out.append(
            WhatIf(
                input="max_window_packets",
                assumption=f"the flows' windows are capped below C·RTT/N = {need_w:.3g} packets",
                rule=TINY,
                buffer_packets=None,
                buffer_s=None,
                explanation=(
                    f"If every flow's window is capped below {need_w:.3g} packets "
                    "(N·W_max < C·RTT), no flow is bottlenecked here and the tiny-buffers "
                    "theorem needs only O(log W_max) packets, a few dozen (000 §3.3 Thm 1)." + slow
                ),
            )
        )
    if regime.regime == "unknown":
        out.append(
            WhatIf(
                input="load",
                assumption="the offered load and the flows' peak rate are known",
                rule=TRANSPARENT,
                buffer_packets=None,
                buffer_s=None,
                explanation=(
                    "With the load and a peak rate well below C the link may be transparent "
                    "(peak rates summing below C with high probability, 003 §4): then ρ^B <= ε "
                    "sizes the buffer, e.g. 20 packets keep loss below 1% up to 79% load "
                    "(003 §4.2)."
                ),
            )
        )
    return tuple(out)


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
        loss_probability=tuple(
            None if math.isnan(x) else x for x in model.loss_probability(grid).tolist()
        ),
        queueing_delay_s=tuple(model.queueing_delay_s(grid).tolist()),
    )


def _low_bdp_per_flow(ctx: Context, regime: RegimeInfo) -> float | None:
    """The BDP per long-lived flow, packets, when below :data:`MIN_BDP_PER_FLOW_PACKETS`."""
    per_flow = ctx.bdp_packets / max(ctx.bottlenecked_flows, 1)
    if regime.traffic_model == "congested_tcp" and per_flow < MIN_BDP_PER_FLOW_PACKETS:
        return per_flow
    return None


def _warnings(
    ctx: Context, regime: RegimeInfo, governing: RuleResult, buffer_packets: int
) -> tuple[str, ...]:
    out: list[str] = []
    aqm = ctx.scenario.aqm
    if aqm != "none":
        target = AQM_TARGET_S[aqm] / ctx.packet_time_s
        if buffer_packets <= target:
            out.append(
                f"The {aqm} target queue ({AQM_TARGET_S[aqm] * 1e3:g} ms = {target:.3g} packets) "
                f"is not below the buffer ({buffer_packets:,} packets): the hard limit drops "
                "before the AQM acts, so the tail drop, not the AQM, controls the queue. Raise "
                "the limit above the AQM target or lower the target."
            )
    if regime.warning:
        out.append(regime.warning)
    if regime.regime == "overload":
        out.append(
            "Overload: the offered load exceeds the capacity; flows accumulate and no buffer "
            "restores their throughput (003 §6)."
        )
    sc = ctx.scenario
    if sc.input_queued and sc.ports is None:
        out.append(
            "Input-queued switch: give ports (and speedup) for the VOQ buffers of the CIOQ "
            "advice (000 §5.1)."
        )
    per_flow = _low_bdp_per_flow(ctx, regime)
    if per_flow is not None:
        out.append(
            f"Low BDP per flow: {ctx.label} = {ctx.bottlenecked_flows:,} long-lived flows share "
            f"a bandwidth-delay product of {ctx.bdp_packets:,.0f} packets, {per_flow:.2g} each "
            f"(< {MIN_BDP_PER_FLOW_PACKETS:g}). Their windows are a packet or two: a loss cannot "
            "raise the three duplicate ACKs of fast retransmit (RFC 5681 §3.2), so flows "
            "recover by timeouts, not fast retransmit. The loss models (004 eqs. 18-22, the "
            "Mathis law) assume fast-retransmit dynamics: here they are outside their range and "
            "their loss prediction is not backed; check the size by simulation (--verify)."
        )
    n = ctx.bottlenecked_flows
    if sc.congestion_control == "bbr" and n >= 2:
        below = (
            f"the {buffer_packets:,} packets recommended are below it, so expect sustained loss"
            if buffer_packets < ctx.bdp_packets
            else "a buffer of a BDP or more has not removed the loss in simulation either"
        )
        out.append(
            f"BBR senders (v1, as simulated) are paced and not governed by loss: each keeps up "
            f"to cwnd_gain = {BBR_CWND_GAIN:g} times its estimated BDP in flight (Cardwell et al. "
            f"2016), so {ctx.label} = {n:,} flows together can hold about one BDP "
            f"({ctx.bdp_packets:,.0f} packets) in the queue, and they do not slow down for the "
            f"drops; {below} (this simulator, 100 BBR flows at 400 Mbit/s and 60 ms: 4.9 % loss "
            "even at 8,000 packets, 4 BDP; benchmarks/results/search_vs_rules.md). The loss-based "
            "predictions here (utilization and loss for Reno or CUBIC) do not describe these "
            "senders; check the size by simulation (--verify, --search)."
        )
    if governing.rule == TINY and not sc.paced and sc.access_bps is None:
        out.append(
            "Tiny buffers assume paced senders or slow access links; give the access rate or "
            "pacing to check it (000 §3.4-3.5)."
        )
    return tuple(out)
