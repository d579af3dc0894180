"""The recommended size: the governing rule's size, raised or capped by the targets, and the
trade-off when they conflict."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models.recommend.context import OPTICAL_MAX_PACKETS, Context
from models.recommend.performance import TrafficModel
from models.recommend.predictions import SEARCH_MAX_PACKETS, checks, predict, smallest
from models.recommend.result import RecommendedSize, RuleResult, TradeOff
from models.recommend.rules import BSCL, DCTCP
from models.recommend.wording import describe, ms


@dataclass(frozen=True)
class _Bounds:
    """What bounds the size: the targets' smallest size, the caps and what the user requires."""

    need: int | None  # smallest size meeting the utilization and loss targets (None: none does)
    delay_user: bool  # the user gave the delay target
    delay_cap: int  # largest size within the delay target, packets
    optical_cap: int | None  # an all-optical buffer's limit, packets
    required: int  # the size the targets the user gave require, packets
    required_by: str  # which targets those are ('' when none)


def recommended_size(
    ctx: Context, model: TrafficModel, governing: RuleResult, reason: str
) -> tuple[RecommendedSize, TradeOff | None]:
    """The size to configure, the reason in sentences, and the trade-off when targets conflict.

    The governing rule's size, raised to the smallest size the model predicts meets the
    utilization and loss targets, then capped by the delay target (one RTT when not given,
    004 §V) and an all-optical buffer's limit (000 §3.1).
    """
    t = ctx.targets
    rule_b = governing.buffer_packets
    assert rule_b is not None
    bounds = _bounds(ctx, model, governing)
    parts = [reason + ".", f"{governing.name} gives {rule_b:,} packets ({governing.equation})."]
    trade_off: TradeOff | None
    if bounds.need is None:
        chosen, trade_off = _unattainable(ctx, model, rule_b, bounds)
        parts.append("The targets cannot all be met at any size: see the trade-off.")
    else:
        chosen, trade_off = _capped(ctx, model, rule_b, bounds.need, bounds, parts)
    predicted = predict(model, t, chosen)
    if bounds.delay_user and not predicted.meets_delay and trade_off is None:
        # A delay bound below one packet's transmission time: no buffer meets it.
        trade_off = _conflict(
            ctx,
            model,
            chosen,
            bounds.delay_cap,
            "delay",
            bounds.required_by or "holding one packet",
        )
        parts.append("Your delay bound is below one packet time at line rate: see the trade-off.")
    parts.append("Predicted at " + describe(predicted) + ".")
    parts.extend(_closing_notes(ctx, governing))
    recommended = RecommendedSize(
        rule=governing.rule,
        buffer_packets=int(chosen),
        buffer_bytes=chosen * ctx.scenario.packet_bytes,
        buffer_s=chosen * ctx.packet_time_s,
        reason=" ".join(parts),
        predicted=predicted,
        minimum_meeting_targets_packets=bounds.need,
        targets_met=checks(predicted, t),
    )
    return recommended, trade_off


def _bounds(ctx: Context, model: TrafficModel, governing: RuleResult) -> _Bounds:
    delay_user = ctx.targets.user("max_queueing_delay_s")
    delay_cap = ctx.max_delay_packets
    if not delay_user:
        # The default delay target is one RTT: C·T_e rounded up to whole packets, the rule of
        # thumb's own size.
        delay_cap = max(delay_cap, math.ceil(ctx.bdp_packets * (1.0 - 1e-12)))
    required, required_by = _user_required(ctx, model, governing)
    return _Bounds(
        need=smallest(model, ctx.targets),
        delay_user=delay_user,
        delay_cap=delay_cap,
        optical_cap=OPTICAL_MAX_PACKETS if ctx.scenario.medium == "optical" else None,
        required=required,
        required_by=required_by,
    )


def _unattainable(
    ctx: Context, model: TrafficModel, rule_b: int, bounds: _Bounds
) -> tuple[int, TradeOff]:
    """No size meets the utilization and loss targets: the rule's size within the caps."""
    t = ctx.targets
    top = predict(model, t, SEARCH_MAX_PACKETS)
    missing = []
    if top.meets_utilization is False and top.normalized_utilization is not None:
        missing.append(
            f"utilization {t.min_utilization:.0%} ({t.source('min_utilization')}; at most "
            f"{top.normalized_utilization:.1%} at any size)"
        )
    if top.meets_loss is False:
        missing.append(
            f"loss {t.max_loss:.2g} ({t.source('max_loss')}; never below "
            f"{top.loss_probability:.2g} at any size)"
        )
    chosen = min(rule_b, bounds.delay_cap)
    if bounds.optical_cap is not None:
        chosen = min(chosen, bounds.optical_cap)
    trade_off = TradeOff(
        conflict="unattainable",
        explanation=(
            "No buffer size meets " + " and ".join(missing) + "; more buffer only adds "
            "delay. The link needs more capacity, less load or admission control "
            "(003 §6; 004 §V)."
        ),
        alternatives=(predict(model, t, chosen),),
    )
    return chosen, trade_off


def _capped(
    ctx: Context, model: TrafficModel, rule_b: int, need: int, bounds: _Bounds, parts: list[str]
) -> tuple[int, TradeOff | None]:
    """The larger of the rule's size and ``need``, capped by the delay and optical limits.

    Appends the sentences saying why to ``parts``.
    """
    t = ctx.targets
    delay_cap, required, required_by = bounds.delay_cap, bounds.required, bounds.required_by
    trade_off: TradeOff | None = None
    base = max(rule_b, need)
    if need > rule_b:
        parts.append(
            f"Raised to {need:,} packets, the smallest size at which the model predicts "
            f"utilization >= {t.min_utilization:.0%}"
            + (f" and loss <= {t.max_loss:.2g}" if model.loss_known else "")
            + (
                " (the senders' own model, which this port does not follow: not a prediction)"
                if model.utilization_unknown
                else ""
            )
            + "."
        )
    if not bounds.delay_user:
        chosen = min(base, max(delay_cap, required))
        if chosen < base:
            parts.append(
                f"Capped at {chosen:,} packets ({ms(chosen * ctx.packet_time_s)}, one RTT "
                "of queueing: the default delay target); the default targets alone would "
                f"take {base:,} packets ({ms(base * ctx.packet_time_s)}). Targets you did "
                "not give never push the buffer past the bandwidth-delay product; set "
                "max_loss or min_utilization to size for them."
            )
        if chosen > delay_cap:
            cost = chosen * ctx.packet_time_s
            parts.append(
                f"Above the bandwidth-delay product because your target ({required_by}) "
                f"requires it: {chosen:,} packets cost up to {ms(cost)} of queueing, "
                f"{cost / ctx.effective_rtt_s:.3g}× the RTT."
            )
    elif base <= delay_cap:
        chosen = base
    elif required <= delay_cap:
        chosen = delay_cap
        parts.append(
            f"Capped at {delay_cap:,} packets by your {ms(t.max_queueing_delay_s)} delay "
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
                f"{ms(t.max_queueing_delay_s)}): infeasible by "
                f"{ms(chosen * ctx.packet_time_s - t.max_queueing_delay_s)}; "
                f"{required_by} are kept first as in 004 §V: see the trade-off."
            )
    optical_cap = bounds.optical_cap
    if optical_cap is not None and chosen > optical_cap:
        if base > optical_cap:
            trade_off = _conflict(ctx, model, base, optical_cap, "optical", required_by)
        chosen = optical_cap
        parts.append(f"Capped at {optical_cap:,} packets by the optical limit: see the trade-off.")
    return chosen, trade_off


def _closing_notes(ctx: Context, governing: RuleResult) -> list[str]:
    """The governing rule's failing and unverified assumptions, default targets, the AQM."""
    t = ctx.targets
    parts = []
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
    if ctx.scenario.aqm != "none":
        parts.append(
            "This is the hard limit of the buffer; the AQM keeps the standing queue near its "
            "own target (see its rule), well below it."
        )
    return parts


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
        found = smallest(model, t, meet_utilization=user_u, meet_loss=user_l)
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
            f"Infeasible: your {ms(t.max_queueing_delay_s)} delay bound allows at most "
            f"{cap:,} packets, but {wanted} need {need:,}, so the smallest delay bound that "
            f"can be met is {ms(at_need.queueing_delay_s)} (004 eqs. 24-25), "
            f"{ms(at_need.queueing_delay_s - t.max_queueing_delay_s)} more than the target."
        )
    else:
        conflict = "optical buffer size vs utilization and loss"
        head = (
            f"An all-optical buffer holds about {OPTICAL_MAX_PACKETS} packets, but utilization "
            f">= {t.min_utilization:.0%} and loss <= {t.max_loss:.2g} need {need:,} (000 §3.1)."
        )
    explanation = (
        f"{head} Either keep the delay down with {describe(at_cap)}; or meet utilization and "
        f"loss with {describe(at_need)}. Other ways out: more capacity, fewer persistent "
        "flows (admission control), or paced senders (004 §V; 000 ch. 3)."
    )
    return TradeOff(
        conflict=conflict,
        explanation=explanation,
        alternatives=(at_cap, at_need),
        max_queueing_delay_s=t.max_queueing_delay_s,
        min_feasible_delay_s=at_need.queueing_delay_s,
    )
