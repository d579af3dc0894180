"""The recommendation engine: every rule side by side, the regime, one recommended size.

:func:`recommend` puts the steps together, each in its own module: the regime
(:mod:`~models.recommend.regime`), the traffic model and governing rule
(:mod:`~models.recommend.governing`), every rule's size (:mod:`~models.recommend.rules`) and
the model's predictions at it (:mod:`~models.recommend.predictions`), the recommended size
and trade-off (:mod:`~models.recommend.sizing`), the what-ifs (:mod:`~models.recommend.what_if`),
the warnings (:mod:`~models.recommend.caveats`) and the curves (:mod:`~models.recommend.curves`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from models.choices import CONGESTION_CONTROL_NAMES, CongestionControl
from models.cioq import cioq_advice
from models.optical import optical_fifo_design
from models.provenance import software_versions
from models.recommend.caveats import low_bdp_per_flow, simulated_loss_note, warnings_for
from models.recommend.context import Context, derive
from models.recommend.curves import plot_curves
from models.recommend.governing import choose, governing_rule
from models.recommend.performance import TrafficModel
from models.recommend.predictions import checks, predict, with_predictions
from models.recommend.regime import regime_of
from models.recommend.result import (
    DerivedInputs,
    Recommendation,
    RecommendedSize,
    RegimeInfo,
    RuleResult,
    Target,
    TradeOff,
    WhatIf,
)
from models.recommend.rules import AQM_LIMIT, all_rules, aqm_reaction_s
from models.recommend.scenario import UNKNOWN_CC_CANDIDATES, LinkScenario, Targets
from models.recommend.sizing import recommended_size
from models.recommend.what_if import what_ifs
from models.recommend.wording import ms


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
    if scenario.congestion_control is None:
        return _unknown_senders(scenario, targets)
    return _recommend(scenario, targets, congestion_control_given=True)


def _recommend(
    scenario: LinkScenario, targets: Targets, *, congestion_control_given: bool
) -> Recommendation:
    """:func:`recommend` for a scenario that names its congestion control (a candidate when
    ``congestion_control_given`` is False)."""
    return _answer(
        _size(derive(scenario, targets, congestion_control_given=congestion_control_given))
    )


@dataclass(frozen=True)
class _Sized:
    """One candidate's answer up to its recommended size and warnings: what
    :func:`_unknown_senders` compares candidates by, before the chosen one alone is given its
    curves and what-ifs (:func:`_answer`)."""

    ctx: Context
    regime: RegimeInfo
    model: TrafficModel
    #: Every rule's size, not yet with the model's prediction at it (:func:`_answer` adds them:
    #: a candidate that is not chosen never needs them).
    rules: tuple[RuleResult, ...]
    governing: RuleResult
    recommended: RecommendedSize
    trade_off: TradeOff | None
    warnings: tuple[str, ...]


def _size(ctx: Context) -> _Sized:
    """Every rule, the regime, the recommended size and the warnings for one scenario."""
    regime = regime_of(ctx)
    model, governing_id, why = choose(ctx, regime)
    regime = replace(regime, traffic_model=model.kind)
    classified = regime.regime if regime.source == "models.regimes" else None
    rules = all_rules(ctx, classified)
    governing, why = governing_rule(rules, governing_id, why)
    assert governing.buffer_packets is not None
    recommended, trade_off = recommended_size(ctx, model, governing, why)
    recommended = _above_aqm_start_up(ctx, model, rules, recommended)
    warnings = warnings_for(ctx, regime, governing, recommended.buffer_packets)
    if simulated_loss_note(ctx, governing):
        recommended = replace(
            recommended,
            reason=recommended.reason
            + " The loss predicted here is 004's law; this simulator's senders lose more at "
            "BSCL's size, above the loss target (see warnings).",
        )
    if low_bdp_per_flow(ctx, regime) is not None and recommended.predicted is not None:
        recommended = replace(
            recommended,
            reason=recommended.reason
            + " The predicted loss is outside the loss model's range here: the flows have "
            "fewer than two packets of BDP each and recover by timeouts (see warnings).",
        )
    return _Sized(ctx, regime, model, rules, governing, recommended, trade_off, warnings)


def _answer(sized: _Sized) -> Recommendation:
    """The whole recommendation of a sized scenario: its device-independent designs (optical,
    CIOQ), curves and what-ifs added."""
    ctx, recommended = sized.ctx, sized.recommended
    scenario = ctx.scenario
    rules = with_predictions(sized.rules, sized.model, ctx)
    governing = next(p for r, p in zip(sized.rules, rules, strict=True) if r is sized.governing)
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
            congestion_control=str(scenario.congestion_control),
            congestion_control_given=ctx.congestion_control_given,
        ),
        rules=rules,
        regime=sized.regime,
        recommended=recommended,
        feasible=sized.trade_off is None,
        trade_off=sized.trade_off,
        curves=plot_curves(ctx, sized.model, rules, recommended.buffer_packets),
        optical=optical,
        warnings=sized.warnings,
        software_versions=dict(software_versions()),
        targets=tuple(
            Target(name=name, value=getattr(ctx.targets, name), source=ctx.targets.source(name))
            for name in ("min_utilization", "max_loss", "max_queueing_delay_s")
        ),
        what_if=what_ifs(ctx, sized.regime, sized.model, rules, governing),
        cioq=cioq,
    )


def _above_aqm_start_up(
    ctx: Context, model: TrafficModel, rules: tuple[RuleResult, ...], size: RecommendedSize
) -> RecommendedSize:
    """The recommended size raised to the AQM's start-up limit (the aqm_limit rule) when it is
    below it: a lower hard limit lets tail drops, not the AQM, end the senders' start-up."""
    limit = next((r for r in rules if r.rule == AQM_LIMIT), None)
    if limit is None or limit.buffer_packets is None or size.buffer_packets >= limit.buffer_packets:
        return size
    b = limit.buffer_packets
    predicted = predict(model, ctx.targets, b)
    target = ctx.scenario.aqm_target or 0.0
    return replace(
        size,
        rule=AQM_LIMIT,
        buffer_packets=b,
        buffer_bytes=b * ctx.scenario.packet_bytes,
        buffer_s=b * ctx.packet_time_s,
        predicted=predicted,
        targets_met=checks(predicted, ctx.targets),
        reason=size.reason
        + f" Raised to {b:,} packets as the hard limit, from {size.buffer_packets:,}: the "
        f"{ctx.scenario.aqm} AQM holds the standing queue near its {target * 1e3:g} ms target, "
        f"but at start-up it first drops {ms(aqm_reaction_s(ctx) or 0.0)} after the queue "
        "passes that target, and a sender in slow start adds about a packet to the queue per "
        f"packet sent until the drop reaches it one RTT later: C·(R + T_e) = {b:,} packets. "
        "A lower limit lets tail drops take over from the AQM (see the aqm_limit rule); the "
        "queueing delay above is this limit's worst case, reached only then.",
    )


def _unknown_senders(scenario: LinkScenario, targets: Targets) -> Recommendation:
    """The answer when the congestion control is not given: sized for each candidate.

    Each of :data:`UNKNOWN_CC_CANDIDATES` (Reno, CUBIC) gets the whole engine; the larger
    recommended size is the answer (Reno's on a tie), since it meets the targets whichever of
    them the senders run: a buffer sized for CUBIC's gentler decrease (β = 0.7, RFC 9438 §4.6)
    leaves the port idle after Reno's halving (β = 0.5, 000 §2.1), while Reno's size only adds
    queueing delay for CUBIC. When the two differ, the other candidate's size is given in
    ``what_if`` and both in a warning; the senders' assumptions are marked unknown.
    """
    # Both candidates are sized; only the chosen one is given its curves and what-ifs.
    # What derive computes does not depend on the senders' decrease: derived once.
    first, *others = UNKNOWN_CC_CANDIDATES
    ctx = derive(scenario.with_congestion_control(first), targets, congestion_control_given=False)
    candidates = [
        _size(ctx),
        *(_size(replace(ctx, scenario=scenario.with_congestion_control(cc))) for cc in others),
    ]
    won = max(candidates, key=lambda r: r.recommended.buffer_packets)  # first (Reno) on a tie
    other = next(r for r in candidates if r is not won)
    chosen = _answer(won)
    sizes = {_cc(r): r.recommended.buffer_packets for r in candidates}
    names = {cc: CONGESTION_CONTROL_NAMES[cc] for cc in sizes}
    ask = "Give the senders' congestion control (--cc, congestion_control) to size for them."
    differ = len(set(sizes.values())) > 1
    if not differ:  # the senders' β does not change the answer
        note = (
            "Congestion control not given: sized for Reno and for CUBIC, which get the same "
            f"size here ({chosen.recommended.buffer_packets:,} packets). {ask}"
        )
    else:
        listed = "; ".join(f"{names[cc]} {b:,} packets" for cc, b in sizes.items())
        note = (
            f"Congestion control not given, so it is unknown: {listed}. The recommended size "
            f"is {names[_cc(won)]}'s, the larger, because it meets the "
            "targets whichever of the two the senders run: a buffer sized for CUBIC's gentler "
            "decrease (β = 0.7, RFC 9438 §4.6) leaves the port idle after a Reno sender halves "
            f"its window (β = 0.5, 000 §2.1), while the larger size only adds queueing delay "
            f"for CUBIC. {ask}"
        )
    alt = other.recommended
    name = names[_cc(other)]
    what_if = WhatIf(
        input="congestion_control",
        assumption=f"the senders run {name}",
        rule=alt.rule,
        buffer_packets=alt.buffer_packets,
        buffer_s=alt.buffer_s,
        explanation=(
            f"If the senders run {name}, the answer is {alt.buffer_packets:,} packets "
            f"({ms(alt.buffer_s)} of queueing; {alt.rule}); set congestion_control to size "
            "for them."
        ),
    )
    known = {r.rule for r in chosen.rules}
    # The other candidate's own rules (CUBIC's β rule), with its model's predictions.
    extra = tuple(r for r in other.rules if r.rule not in known)
    return replace(
        chosen,
        rules=chosen.rules + with_predictions(extra, other.model, other.ctx),
        recommended=replace(chosen.recommended, reason=chosen.recommended.reason + " " + note),
        warnings=(
            *((note,) if differ else ()),
            *chosen.warnings,
            # The other candidate's simulated loss, when it breaks the target too.
            *(
                w
                for w in other.warnings
                if w.startswith("Simulated loss") and w not in chosen.warnings
            ),
        ),
        what_if=(what_if, *chosen.what_if) if differ else chosen.what_if,
    )


def _cc(sized: _Sized) -> str:
    """The congestion control a candidate was sized for."""
    return str(sized.ctx.scenario.congestion_control)


def traffic_model(scenario: LinkScenario, targets: Targets | None = None) -> TrafficModel:
    """The traffic model the engine predicts this scenario's utilization, loss and delay with.

    A scenario whose congestion control is not given is modelled with the candidate its
    recommendation is sized for (:func:`recommend`).
    """
    targets = targets if targets is not None else Targets()
    given = scenario.congestion_control is not None
    if not given:
        used = recommend(scenario, targets).inputs.congestion_control
        scenario = scenario.with_congestion_control(cast(CongestionControl, used))
    ctx = derive(scenario, targets, congestion_control_given=given)
    return choose(ctx, regime_of(ctx))[0]
