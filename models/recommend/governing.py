"""The traffic model and the rule that governs the size, with the reason, for one regime."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from models.recommend.context import DESYNCHRONIZED_FLOWS, FEW_FLOWS, Context
from models.recommend.performance import TrafficModel
from models.recommend.result import RegimeInfo, RuleResult
from models.recommend.rules import (
    BBR,
    BSCL,
    DCTCP,
    HIGH_LOAD,
    HIGH_LOAD_MEASURED,
    MD_BETA,
    PACED,
    RULE_OF_THUMB,
    SQRT_N,
    TINY,
    TRANSPARENT,
    dctcp_k_above_l4s_step_s,
    paced_or_slow,
)
from models.recommend.wording import percent


def choose(ctx: Context, regime: RegimeInfo) -> tuple[TrafficModel, str, str]:
    """The traffic model, the identifier of the rule that governs, and why (in that order).

    Window-limited flows: tiny buffers (000 Thm 1), or sqrt(N) when the senders' spacing is
    not known (000 §3.4); transparent: ρ^B <= ε (003 §4.2); congested TCP: DCTCP's threshold,
    the single-flow rule for few flows (000 §2.1), BSCL with N_b (004 Fig. 4), BBR's probing
    queue, or sqrt(N) for many flows (000 §2.2.2).
    """
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
            f"{percent(regime.saturation_probability or 0.0)} of the time, so the buffer only "
            "absorbs packet-scale coincidences and ρ^B <= ε sizes it (003 §4.2)"
        )
        if sc.load >= HIGH_LOAD_MEASURED:
            why += (
                f". But at ρ = {sc.load:.3g}, at or above {HIGH_LOAD_MEASURED:g}, the measurement "
                "of a link of this kind governs: Level 3's OC-48 backbone links, whose flows "
                "met 003 §4.1's condition for Poisson-like arrivals (peak rates far below C), "
                "dropped packets with 1 ms of buffer above 90 % load, where ρ^B <= ε asks for "
                "less (000 §4.1.2): real arrivals at such loads are burstier than Poisson, and a "
                "30-s average load hides periods above the capacity. So the size is the buffer "
                "that link needed"
            )
            return model, HIGH_LOAD, why
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
        k_s = dctcp_k_above_l4s_step_s(ctx)
        if k_s is not None:
            # DualQ's L4S step marks them far below K: no model here gives their utilization.
            model = replace(model, utilization_unknown=True)
            why += (
                f". Behind DualQ they are marked above 1 ms of queueing, below the K = "
                f"{k_s * 1e3:.3g} ms they need, so their utilization is not predicted: this "
                "simulator gives far less than 100 % there (see the warnings)"
            )
        return model, DCTCP, why
    if sc.congestion_control == "bbr":
        # Not governed by loss: no loss-based rule sizes for it, and no loss is predicted.
        model = replace(model, loss_known=False, bbr=True)
        why = (
            f"{label} = {n:,} BBR flow(s) (v1, as simulated): BBR paces at its "
            "bottleneck-bandwidth estimate and does not slow down for losses, so the "
            "loss-based rules (the single-flow rule and its β, sqrt(N), BSCL) do not describe "
            "it; its ProbeBW phase sends 1.25× that rate for one round trip, a queue of "
            "0.25·C·T_e (Cardwell et al. 2016), which keeps the port busy. Its utilization is "
            "this simulator's, not a model's: the lowest mean of four links (4 to 100 flows) at "
            "the largest measured buffer at or below the size, 98.7-99.4 % from 0.1 to "
            "2 BDP, none claimed below 0.1 BDP (studies/results/sim_loss_at_rule_sizes.md). "
            "Its loss is not predicted: see the warnings"
        )
        return model, BBR, why
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


def governing_rule(rules: Sequence[RuleResult], rule: str, reason: str) -> tuple[RuleResult, str]:
    """The governing rule's result and reason; the paced bound when it is the tighter one."""
    governing = next(r for r in rules if r.rule == rule)
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
        reason += (
            f"; the paced-traffic bound needs only {paced.buffer_packets:,} packets against "
            f"the Poisson bound's {next(r for r in rules if r.rule == TINY).buffer_packets:,}"
        )
    return governing, reason
