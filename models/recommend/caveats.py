"""The warnings a recommendation carries: AQM limit, overload, low BDP per flow, BBR, DCTCP
behind DualQ, BSCL against this simulator, pacing."""

from __future__ import annotations

import math

from models.mathis import MATHIS_CONSTANT
from models.recommend.context import Context
from models.recommend.result import RegimeInfo, RuleResult
from models.recommend.rules import (
    BBR_CWND_GAIN,
    BSCL,
    DUALQ_L4S_STEP_S,
    TINY,
    dctcp_k_above_l4s_step_s,
)
from models.recommend.simulated_loss import fitted_loss, fitted_window

#: Fewest packets of bandwidth-delay product per long-lived flow for the loss models to hold:
#: below it a flow's window is a packet or two, a loss cannot raise the three duplicate ACKs of
#: fast retransmit (RFC 5681 §3.2), and flows recover by retransmission timeouts.
MIN_BDP_PER_FLOW_PACKETS = 2.0


def low_bdp_per_flow(ctx: Context, regime: RegimeInfo) -> float | None:
    """The BDP per long-lived flow, packets, when below :data:`MIN_BDP_PER_FLOW_PACKETS`."""
    per_flow = ctx.bdp_packets / max(ctx.bottlenecked_flows, 1)
    if regime.traffic_model == "congested_tcp" and per_flow < MIN_BDP_PER_FLOW_PACKETS:
        return per_flow
    return None


def warnings_for(
    ctx: Context, regime: RegimeInfo, governing: RuleResult, buffer_packets: int
) -> tuple[str, ...]:
    """The warnings of a recommendation, in the order the result lists them."""
    out: list[str] = []
    aqm, target_s = ctx.scenario.aqm, ctx.scenario.aqm_target
    if target_s is not None:
        target = target_s / ctx.packet_time_s
        if buffer_packets <= target:
            out.append(
                f"The {aqm} target queue ({target_s * 1e3:g} ms = {target:.3g} packets) "
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
    per_flow = low_bdp_per_flow(ctx, regime)
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
        out.append(
            f"BBR senders (v1, as simulated) are paced and not governed by loss: they keep the "
            f"port busy with a small buffer, but their loss does not fall with the buffer as "
            f"loss-based senders' does. In this simulator 4 to 100 BBR flows kept 99-100 % "
            f"utilization at the BBR rule's 0.25·C·T_e and lost 11.7-16.3 % there, still "
            f"7.5-15.7 % at one BDP ({ctx.bdp_packets:,.0f} packets here) and 3.5-12.6 % at two "
            "(studies/results/sim_loss_at_rule_sizes.md, 3 runs each, seed 1): no buffer up to "
            "a BDP meets a 1 % loss target for these senders, so their loss is not predicted "
            "here. Published measurements of BBR v1 agree: each flow keeps up to cwnd_gain = "
            f"{BBR_CWND_GAIN:g} times its estimated BDP in flight (Cardwell et al. 2016), so "
            "with several flows about one BDP queues and a smaller buffer drops the rest "
            "(Hock, Bless, Zitterbart, ICNP 2017: 'massive packet loss'). Where loss matters, it "
            "is the senders (BBR v2 and later respond to loss, draft-ietf-ccwg-bbr) or an AQM "
            "that bound it, not the buffer; check the size by simulation (--verify, --search)."
        )
    l4s = dctcp_in_l4s_queue_note(ctx)
    if l4s:
        out.append(l4s)
    fitted = simulated_loss_note(ctx, governing)
    if fitted:
        out.append(fitted)
    if governing.rule == TINY and not sc.paced and sc.access_bps is None:
        out.append(
            "Tiny buffers assume paced senders or slow access links; give the access rate or "
            "pacing to check it (000 §3.4-3.5)."
        )
    return tuple(out)


def dctcp_in_l4s_queue_note(ctx: Context) -> str:
    """DCTCP senders behind DualQ: its L4S queue marks them above 1 ms of sojourn time (Linux
    sch_dualpi2.c's default step; RFC 9332 Appendix A.1's ramp has its middle there), far
    below the K = C·T_e/7 DCTCP needs to keep the port busy (Alizadeh et
    al. 2010 §3.4) once T_e is more than a few ms ("" otherwise)."""
    k_s = dctcp_k_above_l4s_step_s(ctx)
    if k_s is None:
        return ""
    return (
        f"DCTCP behind DualQ: its L4S queue marks every packet once the queueing delay passes "
        f"{DUALQ_L4S_STEP_S * 1e3:g} ms (Linux sch_dualpi2.c's step), while DCTCP needs a marking "
        f"threshold K = C·T_e/7 = {k_s * 1e3:.3g} ms to keep the port busy (Alizadeh et al. "
        "2010 §3.4): its windows are cut before the pipe is full, and no buffer size changes "
        "that. In this simulator (DualQ as Linux runs it) 4 DCTCP flows at 20 Mb/s, 40 ms kept "
        "33 % ± 3 % utilization with fast access links, 55 % ± 18 % at the port's own rate "
        "(recommend --verify, 5 runs, seed 1), 8 flows 41.4-42.5 % "
        "(tests/validation/test_sim_dualq.py). Linux's sch_dualpi2.c: DCTCP 'can only be used "
        "with DualPI2 in a datacenter context'; over a wide area the L4S queue is for senders "
        "that meet RFC 9331's Prague requirements."
    )


#: The fitted law's size, simulated (studies/results/sim_loss_at_rule_sizes.md, last section).
FITTED_SIZE_CHECK = (
    "simulated where the fit was made (N_b = 3,000 Reno flows, 1 Gbit/s, 180 ms, 90 %), at "
    "37,870 packets, a little above this size, the loss was still 1.17 % ± 0.33 % (seed 1, "
    "3 runs): above the target on average and not shown to meet it; the law, fitted across "
    "N_b, does not hold at a fixed N_b. There the simulator's senders met 1 % only far above "
    "it: 72,000 packets (0.82 % ± 0.11 %, 6 runs: met; the search's own 6 runs there 0.79 % "
    "± 0.22 %, met, and 65,998 packets missed, 1.60 % ± 0.26 %) and 144,000 (0.82 % ± 0.09 %, "
    "met), 0.9 to 1.7 s of queueing at 1 Gbit/s"
)


def simulated_loss_note(ctx: Context, governing: RuleResult) -> str:
    """This simulator's loss at BSCL's size where it breaks the loss target that 004's law
    says BSCL meets ("" elsewhere), and the size the law fitted to it needs
    (:mod:`models.recommend.simulated_loss`)."""
    sc = ctx.scenario
    size = governing.buffer_packets
    if governing.rule != BSCL or not ctx.bottlenecked_flows_given or size is None:
        return ""
    n_b = ctx.bottlenecked_flows
    p_e = ctx.bottlenecked_share * ctx.bdp_packets
    window = (p_e + size) / n_b
    target = ctx.targets.max_loss
    fitted = fitted_loss(sc.congestion_control, window)
    if fitted is None or fitted <= target * (1.0 + 1e-9):
        return ""
    mathis = min(1.0, (MATHIS_CONSTANT / window) ** 2)
    w_needed = fitted_window(sc.congestion_control, target)
    if w_needed is None:
        needed = (
            "the window that would meet it lies outside the fit's range: find the size by "
            "simulation (--search)"
        )
    else:
        b = max(1, math.ceil(w_needed * n_b - p_e))
        needed = (
            f"the fitted law puts {target:.2g} loss at {b:,} packets ({w_needed:.3g} packets "
            f"per flow; {b * ctx.packet_time_s * 1e3:,.0f} ms of queueing), but that is not a "
            f"size shown to meet it: {FITTED_SIZE_CHECK}; find the size by simulation "
            "(--search) before relying on it"
        )
    return (
        f"Simulated loss above the target at BSCL's size: BSCL's loss term is 004's Mathis law "
        f"(0.87/√p), calibrated on ns-2 Reno, which predicts {mathis:.2%} at its {size:,} "
        f"packets ({window:.3g} packets per flow). This simulator's {sc.congestion_control} "
        f"senders lose more at that window: {fitted:.2%} by the law fitted to them "
        "(studies/results/sim_loss_at_rule_sizes.md: N_b = 300 to 3,000 on 1 Gbit/s, 180 ms, "
        f"90 %, windows 8.7-56 packets per flow), above the {target:.2g} target; {needed}."
    )
