"""Every sizing rule applied to the scenario, each with its assumptions checked.

A rule's assumption is ``holds`` when the scenario shows it true, ``fails`` when the scenario
shows it false and ``unknown`` when the scenario does not say. Thresholds are in
:mod:`models.recommend.context` with the sentence of the paper they come from.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from models.bscl import BSCLResult, bscl_buffer
from models.mathis import fpq_buffer_packets
from models.pacing import paced_drop_bound_bracket, paced_utilization_bound
from models.queues import transparent_buffer_packets
from models.recommend.context import (
    DESYNCHRONIZED_FLOWS,
    FEW_FLOWS,
    LBP_SHARE_MIN,
    OPTICAL_MAX_PACKETS,
    Context,
)
from models.recommend.result import Assumption, RuleResult, Status
from models.recommend.search import FALSE, OPEN, TRUE, Sizes, Verdicts, smallest_integer_batched
from models.rule_of_thumb import bdp_buffer_packets, md_beta_buffer_packets
from models.sqrt_n import sqrt_n_buffer_packets
from models.tcp_queue import TcpQueueFixedPoint, tcp_mm1b_fixed_point, tcp_mm1b_load_reaches
from models.tiny_buffers import tiny_buffer_packets

HOLDS: Status = "holds"
FAILS: Status = "fails"
UNKNOWN: Status = "unknown"

# Rule identifiers (stable: the API, CLI and tests use them).
RULE_OF_THUMB = "rule_of_thumb"
MD_BETA = "md_beta"
SQRT_N = "sqrt_n"
TINY = "tiny_buffers"
PACED = "paced"
TRANSPARENT = "transparent"
BSCL = "bscl"
FPQ = "fpq"
DCTCP = "dctcp"
TCP_QUEUE = "tcp_mm1b"
INCAST = "incast"
BBR = "bbr"
AQM = "aqm"
AQM_LIMIT = "aqm_limit"
HIGH_LOAD = "measured_high_load"

#: 000 §4.1.2 (Level 3's OC-48 backbone links, about 10,000 flows of cable and DSL users): "almost
#: all the drops occur when the load is above 90%" with a 1 ms buffer (Fig. 4.4); at loads that
#: "frequently exceeds 95%", 2.5 ms of buffer lost "less than 0.02% for the majority of samples
#: ... close to 0.09%" at most (Fig. 4.3), and 5 ms "did not see a single packet drop" (Fig. 4.2)
#: (validation/datasets/level3.csv). Above this load the measurement, not ρ^B, governs a
#: transparent link.
HIGH_LOAD_MEASURED = 0.9
#: The buffer, in seconds of the link's rate, that kept loss at or below the measured figure.
LEVEL3_BUFFER_S = ((0.0009, 0.0025), (0.0, 0.005))

#: Why an assumption on the senders is unknown when their congestion control is not given.
_NOT_GIVEN = "congestion control not given (sized for Reno and for CUBIC)"

#: DCTCP's marking threshold must exceed C·RTT/7 for full throughput (Alizadeh et al.,
#: "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.4 "Guidelines for choosing parameters",
#: "Marking Threshold", eq. (13): K > (C × RTT)/7, "C is in packets/second, RTT is in seconds,
#: and K is in packets"; read in a text conversion of the ACM open-access PDF).
DCTCP_K_DIVISOR = 7.0

#: BBR's ProbeBW gain cycle sends at 1.25× the estimated bottleneck bandwidth for one round
#: trip (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016,
#: appendix: "an eight-phase cycle with the following pacing_gain values: 5/4, 3/4, 1, ...";
#: IETF draft-cardwell-iccrg-bbr-congestion-control-00 §4.3.4.1, phase 0 "a pacing_gain of
#: 5/4"): a queue of 0.25·C·T_e builds unless the buffer drops it. Its cwnd_gain of 2
#: (draft-00 §4.3.4.1: "the cwnd_gain stays constant at two") caps in-flight data at 2·C·T_e,
#: so it never queues more than one BDP. Both read (the article in a text copy of its CACM
#: 60(2) reprint, the draft in a transcription of its datatracker text).
BBR_PROBE_GAIN = 1.25
BBR_CWND_GAIN = 2.0

#: AQM targets: the scenario's (``LinkScenario.aqm_target``), by default the RFCs' (CoDel 5 ms,
#: PIE 15 ms, DualQ's Classic queue 15 ms; see models/recommend/scenario.py, AQM_TARGET_S). The
#: DualQ Coupled AQM's L4S queue marks every packet whose sojourn time passes 1 ms: Linux's
#: sch_dualpi2.c default ("q->step_thresh = 1 * NSEC_PER_MSEC; q->step_in_packets = false;",
#: dualpi2_reset_default; read in the kernel source), the native AQM a Linux box runs. RFC 9332
#: Appendix A.1's example pseudocode uses a ramp instead (minTh = 800 µs over range = 400 µs,
#: confirmed through quotations of the RFC only), whose middle is that 1 ms. The buffer limit
#: is sized apart from both. RFC 8289 and RFC 8033 are read in their text.
AQM_REFERENCE = {
    "codel": "RFC 8289 §4.2-4.3 (TARGET 5 ms, INTERVAL 100 ms)",
    "pie": "RFC 8033 §4.2 (QDELAY_REF 15 ms)",
    "dualq": "RFC 9332 Appendix A.1 (Classic target 15 ms); Linux sch_dualpi2.c (L4S step at 1 ms)",
}
DUALQ_L4S_STEP_S = 0.001


def dctcp_k_above_l4s_step_s(ctx: Context) -> float | None:
    """DCTCP senders behind DualQ: the marking threshold K = T_e/7 they need (Alizadeh et al.
    2010 §3.4), in seconds of queueing, when it is above the L4S step that marks them (a
    wide-area link, where no model here predicts their utilization); None otherwise."""
    sc = ctx.scenario
    k_s = ctx.effective_rtt_s / DCTCP_K_DIVISOR
    if sc.aqm != "dualq" or sc.congestion_control != "dctcp" or k_s <= DUALQ_L4S_STEP_S:
        return None
    return k_s


#: Largest buffer the paced-traffic rule searches, packets (the bound is for log-sized buffers).
_PACED_SEARCH_MAX = 1 << 16

#: Bisection steps per batch of the paced search: its bounds cost in proportion to the sizes.
_PACED_SEARCH_DEPTH = 4

#: Largest buffer the TCP + M/M/1/B fixed-point rule searches, packets.
_TCP_QUEUE_SEARCH_MAX = 1 << 20

#: Relative margin on the cheap bounds of the paced drop probability within which the full
#: bound decides a search step (the bounds are computed differently, so rounding differs).
_PACED_BRACKET_MARGIN = 1e-9


def _overall(assumptions: tuple[Assumption, ...]) -> Status:
    statuses = {a.status for a in assumptions}
    if FAILS in statuses:
        return FAILS
    if UNKNOWN in statuses:
        return UNKNOWN
    return HOLDS


def _rule(
    ctx: Context,
    rule: str,
    name: str,
    equation: str,
    reference: str,
    exact_packets: float | None,
    assumptions: list[Assumption],
    note: str | None = None,
) -> RuleResult:
    packets: int | None = None
    bytes_: float | None = None
    seconds: float | None = None
    if exact_packets is not None:
        exact_packets = max(0.0, float(exact_packets))
        # Round up to whole packets; the tolerance keeps 125000.00000000001 at 125000.
        packets = max(1, math.ceil(exact_packets * (1.0 - 1e-12)))
        bytes_ = packets * ctx.scenario.packet_bytes
        seconds = packets * ctx.packet_time_s
        if ctx.scenario.medium == "optical":
            assumptions.append(_optical(packets))
    items = tuple(assumptions)
    return RuleResult(
        rule=rule,
        name=name,
        equation=equation,
        reference=reference,
        buffer_packets=packets,
        buffer_packets_exact=exact_packets,
        buffer_bytes=bytes_,
        buffer_s=seconds,
        assumptions=items,
        status=_overall(items),
        predicted=None,
        note=note,
    )


# --- assumptions shared by several rules ------------------------------------------------------


def _optical(packets: int) -> Assumption:
    text = f"buildable as an all-optical buffer (at most about {OPTICAL_MAX_PACKETS} packets)"
    if packets <= OPTICAL_MAX_PACKETS:
        return Assumption(text, HOLDS, f"{packets} packets fit in integrated optical buffers")
    return Assumption(
        text,
        FAILS,
        f"{packets} packets: larger all-optical buffers remain infeasible (000 §3.1, note 2)",
    )


def congestion_limited(ctx: Context) -> Assumption:
    """The flows are limited by congestion at this port, not by their maximum window."""
    text = "flows are limited by congestion at this port, not by their maximum window"
    rho = ctx.window_limited_load
    if rho is None:
        return Assumption(text, UNKNOWN, "maximum window not given")
    if rho >= 1.0:
        return Assumption(text, HOLDS, f"N·W/(C·RTT) = {rho:.3g} >= 1: the windows can fill it")
    return Assumption(
        text,
        FAILS,
        f"N·W/(C·RTT) = {rho:.3g} < 1: even at their largest windows the flows cannot fill "
        "the port, so no flow is bottlenecked here",
    )


def _few_or_synchronized(ctx: Context) -> Assumption:
    n = ctx.bottlenecked_flows
    label = "N_b" if ctx.bottlenecked_flows_given else "N"
    text = "a single long-lived flow or flows whose losses are synchronized"
    if n < FEW_FLOWS:
        return Assumption(text, HOLDS, f"{label} = {n} < {FEW_FLOWS}: losses nearly synchronized")
    if n >= DESYNCHRONIZED_FLOWS:
        return Assumption(
            text,
            FAILS,
            f"{label} = {n}: many flows desynchronize and need less (000 §2.2.2, 004 §III.C)",
        )
    return Assumption(
        text, UNKNOWN, f"{label} = {n}: partial synchronization likely (004 §III.C, Fig. 1)"
    )


def _reno(ctx: Context) -> Assumption:
    text = "senders halve their window on a loss (Reno, β = 0.5)"
    cc = ctx.scenario.congestion_control
    if not ctx.congestion_control_given:
        return Assumption(text, UNKNOWN, _NOT_GIVEN)
    if cc == "reno":
        return Assumption(text, HOLDS, "congestion control is Reno")
    if cc == "bbr":
        return Assumption(
            text, FAILS, "BBR is not governed by loss (paced; its own rule, bbr, sizes it)"
        )
    return Assumption(
        text,
        FAILS,
        f"{cc} keeps β = {ctx.scenario.md_beta:g} of its window, so it needs "
        f"(1−β)/β = {(1 - ctx.scenario.md_beta) / ctx.scenario.md_beta:.2f} of this",
    )


def _many_desynchronized(ctx: Context) -> Assumption:
    n = ctx.bottlenecked_flows
    label = "N_b" if ctx.bottlenecked_flows_given else "N"
    text = f"many (>= {DESYNCHRONIZED_FLOWS}) long-lived, desynchronized flows"
    if n >= DESYNCHRONIZED_FLOWS:
        return Assumption(text, HOLDS, f"{label} = {n}")
    if n < FEW_FLOWS:
        return Assumption(text, FAILS, f"{label} = {n}: so few flows synchronize")
    return Assumption(
        text,
        UNKNOWN,
        f"{label} = {n}: partial loss synchronization still matters below a few tens of "
        "flows (004 §I)",
    )


def _all_flows_bottlenecked(ctx: Context) -> Assumption:
    text = "every counted flow is long-lived and bottlenecked here"
    if ctx.bottlenecked_flows_given:
        return Assumption(text, HOLDS, f"counting the N_b = {ctx.bottlenecked_flows} given")
    return Assumption(
        text, UNKNOWN, f"N_b not given: all N = {ctx.scenario.flows} flows counted as long-lived"
    )


def paced_or_slow(ctx: Context) -> Assumption:
    """Whether the flows are paced or spaced by slow access links (000 §3.4, Thm 2).

    The tiny-buffers and paced-traffic bounds rest on it: "if flows can send at the same rate
    as the bottleneck link, then there is no pacing of traffic whatsoever and our simulations
    indicate that constant throughput is not achievable with log-sized buffers" (000 §3.4).
    """
    text = "senders are paced or their access links are much slower than the port"
    sc = ctx.scenario
    if sc.paced:
        detail = "senders pace their packets"
        if ctx.slowdown is not None:
            detail += f" (S = {ctx.slowdown:.3g} slots between a flow's packets)"
        return Assumption(text, HOLDS, detail)
    needed = ctx.slow_access_needed
    if ctx.slowdown is not None and needed is None:
        return Assumption(
            text,
            UNKNOWN,
            f"the port is {ctx.slowdown:.3g}× the access rate; whether that is slow enough "
            "(c_S·log W_max, 000 Thm 2) needs the maximum window",
        )
    if ctx.slowdown is None or needed is None:
        return Assumption(
            text,
            UNKNOWN,
            "neither pacing nor the access rate given; line-rate bursts from fast hosts break "
            "the bound (000 §3.4, Thm 2)",
        )
    if ctx.slowdown >= needed:
        return Assumption(
            text, HOLDS, f"the port is {ctx.slowdown:.3g}× the access rate (>= {needed:.3g})"
        )
    return Assumption(
        text,
        FAILS,
        f"the port is only {ctx.slowdown:.3g}× the access rate (< {needed:.3g} = "
        f"{needed / math.log2(max(2.0, sc.max_window_packets or 2.0)):g}·log2 W)",
    )


def _window_limited(ctx: Context) -> Assumption:
    text = "flows are window-limited: ρ = N·W/(C·RTT) < 1"
    rho = ctx.window_limited_load
    if rho is None:
        return Assumption(text, UNKNOWN, "maximum window not given")
    if rho < 1.0:
        return Assumption(text, HOLDS, f"ρ = {rho:.3g}")
    return Assumption(text, FAILS, f"ρ = {rho:.3g} >= 1: the flows can congest the port")


# --- the rules --------------------------------------------------------------------------------


def rule_of_thumb(ctx: Context) -> RuleResult:
    """B = C·T_e (000 §2.1 eq. 2.1; harmonic-mean RTT, 004 eqs. 11-12)."""
    sc = ctx.scenario
    exact = float(bdp_buffer_packets(sc.capacity_bps, ctx.effective_rtt_s, sc.packet_bytes))
    return _rule(
        ctx,
        RULE_OF_THUMB,
        "Rule of thumb (bandwidth-delay product)",
        "B = C·T_e",
        "000 §2.1 eq. 2.1; 004 eqs. 11-12",
        exact,
        [_few_or_synchronized(ctx), _reno(ctx), congestion_limited(ctx)],
    )


def md_beta_rule(ctx: Context) -> RuleResult:
    """B = C·T_e·(1−β)/β (RFC 9438): the rule of thumb for a non-Reno decrease β."""
    sc = ctx.scenario
    exact = float(
        md_beta_buffer_packets(sc.capacity_bps, ctx.effective_rtt_s, sc.packet_bytes, sc.md_beta)
    )
    cc = Assumption(
        f"senders keep β = {sc.md_beta:g} of their window on a loss ({sc.congestion_control})",
        HOLDS if ctx.congestion_control_given else UNKNOWN,
        f"congestion control is {sc.congestion_control}"
        if ctx.congestion_control_given
        else _NOT_GIVEN,
    )
    return _rule(
        ctx,
        MD_BETA,
        f"Rule of thumb for {sc.congestion_control} (β = {sc.md_beta:g})",
        "B = C·T_e·(1−β)/β",
        "RFC 9438 §4.6; 000 §2.1",
        exact,
        [_few_or_synchronized(ctx), cc, congestion_limited(ctx)],
    )


def sqrt_n_rule(ctx: Context) -> RuleResult:
    """B = C·T_e/sqrt(N) (000 §2.2.2 eq. 2.2), N_b in place of N when given."""
    sc = ctx.scenario
    n = ctx.bottlenecked_flows
    exact = float(sqrt_n_buffer_packets(sc.capacity_bps, ctx.effective_rtt_s, n, sc.packet_bytes))
    label = "N_b" if ctx.bottlenecked_flows_given else "N"
    note = None
    if sc.congestion_control == "bbr":
        note = (
            "derived for loss-based senders (Reno); BBR is not governed by loss, and its own "
            "rule sizes it (studies/results/sim_loss_at_rule_sizes.md)"
        )
    elif sc.congestion_control != "reno":
        note = (
            f"derived for Reno; {sc.congestion_control}'s smaller decrease (β = {sc.md_beta:g}) "
            "makes the aggregate window vary less, so this is conservative for it"
        )
    return _rule(
        ctx,
        SQRT_N,
        f"sqrt({label}) rule (Stanford)",
        f"B = C·T_e/√{label}",
        "000 §2.2.2 eq. 2.2; Appenzeller et al. SIGCOMM 2004",
        exact,
        [_many_desynchronized(ctx), _all_flows_bottlenecked(ctx), congestion_limited(ctx)],
        note,
    )


def tiny_buffers_rule(ctx: Context) -> RuleResult:
    """B >= log_{1/ρ}(W²/(2(1−θ))) with θ the utilization target (000 Thm 1, eq. A.13)."""
    sc = ctx.scenario
    theta = ctx.targets.min_utilization
    rho = ctx.window_limited_load
    w = sc.max_window_packets
    window_known = Assumption(
        "flows' windows are capped at W_max",
        HOLDS if w is not None else UNKNOWN,
        f"W_max = {w:g} packets" if w is not None else "maximum window not given",
    )
    assumptions = [window_known, _window_limited(ctx), paced_or_slow(ctx)]
    exact = None
    note = f"θ = {theta:g} of the window-limited peak ρ·C (000 Thm 1)"
    if w is not None and rho is not None and rho < 1.0:
        exact = float(tiny_buffer_packets(w, rho, theta))
    elif w is None:
        note = "needs the maximum window (max_window_packets)"
    else:
        note = "needs ρ < 1; the flows can fill the port"
    return _rule(
        ctx,
        TINY,
        "Tiny buffers",
        "B = log_{1/ρ}(W²/(2(1−θ))), ρ = N·W/(C·RTT)",
        "000 §3.3 Thm 1, App. A eq. A.13",
        exact,
        assumptions,
        note,
    )


def paced_rule(ctx: Context) -> RuleResult | None:
    """Smallest B with the paced-traffic bound θ >= target (000 Thm 2, App. B).

    Only listed when the senders are paced or their access rate is known.
    """
    sc = ctx.scenario
    if not sc.paced and sc.access_bps is None:
        return None
    theta = ctx.targets.min_utilization
    rho = ctx.window_limited_load
    w = sc.max_window_packets
    assumptions = [_window_limited(ctx), paced_or_slow(ctx)]
    assumptions.append(
        Assumption(
            "flows start at independent random times (no a-priori synchronization)",
            UNKNOWN,
            "cannot be seen from the scenario; true of real traffic with jitter (000 Thm 2)",
        )
    )
    exact: float | None = None
    note = f"smallest B with θ >= {theta:g} by the Chernoff union bound"
    if w is None or rho is None or rho >= 1.0:
        note = "needs the maximum window and ρ < 1"
    else:
        # S = max(C/access, M/W_max) (000 §3.4, App. B), passed as the access rate C/S.
        access = sc.capacity_bps / max(1.0, ctx.slowdown or 1.0)

        def theta_at(b: int) -> float:
            return float(
                paced_utilization_bound(
                    sc.flows, w, sc.capacity_bps, ctx.effective_rtt_s, access, sc.packet_bytes, b
                )
            )

        found = smallest_integer_batched(
            _paced_verdicts(ctx, w, access, theta),
            _PACED_SEARCH_MAX,
            settle=lambda b: theta_at(b) >= theta,
            depth=_PACED_SEARCH_DEPTH,
        )
        if found is None:
            note = f"the bound stays below θ = {theta:g} up to {_PACED_SEARCH_MAX} packets"
        else:
            exact = float(found)
    return _rule(
        ctx,
        PACED,
        "Paced-traffic bound",
        "smallest B with 1 − p(B)·W²/2 >= θ, p by Chernoff over Lemmas 7-9, "
        "S = max(C/access, M/W_max)",
        "000 §3.4 Thm 2, App. B",
        exact,
        assumptions,
        note,
    )


def _paced_verdicts(
    ctx: Context, w: float, access_bps: float, theta: float
) -> Callable[[Sizes], Verdicts]:
    """Cheap verdicts on "paced utilization bound >= θ" at many sizes (open when too close).

    The bound is ``clip(1 − p·W²/2, 0, 1)`` (:func:`models.pacing.paced_utilization_bound`)
    with ``p`` between the bracket of :func:`models.pacing.paced_drop_bound_bracket`; a size
    is decided only when the whole bracket, widened by 1e-9, falls on one side of θ.
    """
    sc = ctx.scenario
    slowdown = sc.capacity_bps / access_bps
    margin = _PACED_BRACKET_MARGIN

    def decide(sizes: Sizes) -> Verdicts:
        low, high = paced_drop_bound_bracket(sc.flows, w, ctx.bdp_packets, slowdown, sizes)
        worst = np.clip(1.0 - np.minimum(1.0, high * (1.0 + margin)) * w**2 / 2.0, 0.0, 1.0)
        best = np.clip(1.0 - low * (1.0 - margin) * w**2 / 2.0, 0.0, 1.0)
        out: Verdicts = np.where(worst >= theta, TRUE, np.where(best < theta, FALSE, OPEN))
        return out.astype(np.int8)

    return decide


def transparent_rule(ctx: Context, regime: str | None) -> RuleResult:
    """B = ⌈ln ε / ln ρ⌉ so that ρ^B <= ε (003 §4.2; 002 §IV.A)."""
    sc = ctx.scenario
    eps = ctx.targets.max_loss
    load = sc.load if sc.load is not None else ctx.window_limited_load
    source = "given" if sc.load is not None else "window-limited ρ = N·W/(C·RTT)"
    load_known = Assumption(
        "the offered load ρ is known and below 1",
        UNKNOWN if load is None else (HOLDS if load < 1.0 else FAILS),
        "load not given" if load is None else f"ρ = {load:.3g} ({source})",
    )
    if regime is None:
        small_peaks = Assumption(
            "flows' peak rates are small against C (transparent regime)",
            UNKNOWN,
            "regime not known without a load",
        )
    else:
        small_peaks = Assumption(
            "flows' peak rates are small against C (transparent regime)",
            HOLDS if regime == "transparent" else FAILS,
            f"regime is {regime}",
        )
    poisson = Assumption(
        "packet arrivals are close to Poisson (no line-rate bursts)",
        HOLDS if sc.paced else UNKNOWN,
        "senders pace" if sc.paced else "not known whether senders pace",
    )
    exact = None
    note = None
    if load is not None and load < 1.0:
        exact = float(transparent_buffer_packets(load, eps))
    else:
        note = "needs a load below 1"
    return _rule(
        ctx,
        TRANSPARENT,
        "Transparent regime (ρ^B <= ε)",
        "B = ⌈ln ε / ln ρ⌉",
        "003 §4.2; 002 §IV.A; 000 eq. 3.3",
        exact,
        [load_known, small_peaks, poisson],
        note,
    )


def high_load_rule(ctx: Context, regime: str | None) -> RuleResult | None:
    """The buffer the Level 3 backbone needed above 90 % load (000 §4.1.2): listed for a
    transparent link whose load is at least :data:`HIGH_LOAD_MEASURED`.

    ρ^B <= ε (003 §4.2) assumes locally Poisson packet arrivals: 003 §4.1 finds it holds "for a
    peak rate less than .1C and ε > .001". The Level 3 links met that (DSL and cable users on
    OC-48), yet at loads above 90 % they dropped packets with 1 ms of buffer, where ρ^B <= ε
    asks for a fraction of a millisecond: the load, averaged over 30 s, hides shorter periods
    above the capacity, which no Poisson model of the average sees. The measured buffer
    governs there: 2.5 ms of the link's rate for a loss target of 0.09 % or more (the worst
    sample at 2.5 ms), 5 ms below it (no drop seen).
    """
    sc = ctx.scenario
    if regime != "transparent" or sc.load is None or sc.load < HIGH_LOAD_MEASURED:
        return None
    eps = ctx.targets.max_loss
    seconds = next(s for loss, s in LEVEL3_BUFFER_S if eps >= loss)
    note = (
        f"ρ = {sc.load:.3g} >= {HIGH_LOAD_MEASURED:g}: Level 3's OC-48 links dropped packets "
        "with 1 ms of buffer above 90 % load, lost at most 0.09 % with 2.5 ms and none with 5 ms "
        f"(000 §4.1.2 Figs. 4.2-4.4); {seconds * 1e3:g} ms for loss <= {eps:.2g}. Measured on "
        "2.5 Gb/s links with about 10,000 flows: at other rates the nearest evidence, not a law"
    )
    return _rule(
        ctx,
        HIGH_LOAD,
        "Measured at high load (Level 3 backbone)",
        "B = 2.5 ms × C (loss >= 0.09 %), 5 ms × C below",
        "000 §4.1.2 Figs. 4.2-4.4 (validation/datasets/level3.csv); 003 §4.1",
        seconds / ctx.packet_time_s,
        [
            Assumption(
                "traffic like a backbone's: many flows of slow access links",
                HOLDS,
                "transparent regime",
            )
        ],
        note,
    )


#: Answers kept by :func:`bscl_of` and :func:`_tcp_queue_search`. The engine asks for the same
#: ones several times per recommendation (each congestion-control candidate when it is not
#: given, and the what-ifs), and their arguments do not depend on the senders' decrease.
_KEPT_ANSWERS = 64


def bscl_of(ctx: Context, bottlenecked_flows: int) -> BSCLResult:
    """BSCL (:func:`models.bscl.bscl_buffer`) for the port with ``bottlenecked_flows`` LBP
    flows, the targets' loss and delay; the same arguments share one computation."""
    sc = ctx.scenario
    t = ctx.targets
    return _bscl(
        sc.capacity_bps,
        ctx.bottlenecked_share,
        bottlenecked_flows,
        sc.packet_bytes,
        t.max_loss,
        ctx.effective_rtt_s,
        t.max_queueing_delay_s,
    )


@lru_cache(maxsize=_KEPT_ANSWERS)
def _bscl(
    capacity_bps: float,
    bottlenecked_share: float,
    bottlenecked_flows: int,
    packet_bytes: float,
    max_loss: float,
    effective_rtt_s: float,
    max_queueing_delay_s: float,
) -> BSCLResult:
    return bscl_buffer(
        capacity_bps,
        bottlenecked_share,
        bottlenecked_flows,
        packet_bytes,
        max_loss,
        effective_rtt_s=effective_rtt_s,
        max_queueing_delay_s=max_queueing_delay_s,
    )


def bscl_rule(ctx: Context) -> RuleResult:
    """B = max{B_ρ, B_p} (004 Fig. 4, eq. 26), with N_b = N when N_b is not given."""
    sc = ctx.scenario
    t = ctx.targets
    result = bscl_of(ctx, ctx.bottlenecked_flows)
    share = sc.bottlenecked_share
    if share is None:
        share_assumption = Assumption(
            f"the N_b flows carry most (>= {LBP_SHARE_MIN:.0%}) of the traffic",
            UNKNOWN,
            "share not given; taken as 100%",
        )
    else:
        share_assumption = Assumption(
            f"the N_b flows carry most (>= {LBP_SHARE_MIN:.0%}) of the traffic",
            HOLDS if share >= LBP_SHARE_MIN else FAILS,
            f"share = {share:.0%}",
        )
    reno = sc.congestion_control == "reno" and ctx.congestion_control_given
    mathis = Assumption(
        "TCP Reno response (Mathis equation) with losses recovered by fast retransmit",
        HOLDS if reno else FAILS if sc.congestion_control == "bbr" else UNKNOWN,
        "Reno"
        if reno
        else _NOT_GIVEN
        if not ctx.congestion_control_given
        else "BBR is not governed by loss: its rate does not follow the Mathis law"
        if sc.congestion_control == "bbr"
        else f"{sc.congestion_control} loses less at the same window; B_p is conservative",
    )
    alpha = Assumption(
        "loss synchronization factor α = 0.55 (mean loss burst α·N_b)",
        UNKNOWN,
        "004's simulations; estimate α from a loss trace (004 §VI)",
    )
    n_b_known = Assumption(
        "N_b (flows bottlenecked here) is known",
        HOLDS if ctx.bottlenecked_flows_given else UNKNOWN,
        f"N_b = {ctx.bottlenecked_flows}"
        if ctx.bottlenecked_flows_given
        else f"not given; computed with N_b = N = {sc.flows}",
    )
    b_rho = float(result.b_rho_bytes) / sc.packet_bytes
    b_p = float(result.b_p_bytes) / sc.packet_bytes
    note = (
        f"B_ρ = {b_rho:.4g} pkts, B_p = {b_p:.4g} pkts, {result.governing_constraint} governs; "
        f"q = {float(result.loss_sync_q):.3g}, K_p = {float(result.kp_packets):.3g} pkts, "
        f"crossover Ñ_b = {float(result.crossover_flows):.3g}"
    )
    if bool(result.few_flows_correction):
        note += f"; N_b < {FEW_FLOWS}: B_ρ replaced by C·T_e"
    if not ctx.bottlenecked_flows_given:
        note += (
            f"; N_b not given: this is the worst case, all N = {sc.flows} flows bottlenecked "
            "here, not a recommendation"
        )
    if t.user("max_queueing_delay_s"):
        min_delay = float(result.min_feasible_delay_s)
        if bool(result.delay_feasible):
            note += (
                f"; delay feasible: B/C = {min_delay * 1e3:.3g} ms <= "
                f"{t.max_queueing_delay_s * 1e3:.3g} ms (004 eq. 24)"
            )
        else:
            note += (
                f"; delay infeasible: B/C = {min_delay * 1e3:.3g} ms > "
                f"{t.max_queueing_delay_s * 1e3:.3g} ms target, by "
                f"{(min_delay - t.max_queueing_delay_s) * 1e3:.3g} ms (004 eq. 25)"
            )
    return _rule(
        ctx,
        BSCL,
        "BSCL (congested links)",
        "B = max{B_ρ, B_p}",
        "004 Fig. 4, eqs. 13-26",
        float(result.buffer_packets),
        [n_b_known, congestion_limited(ctx), share_assumption, mathis, alpha],
        note,
    )


def fpq_rule(ctx: Context) -> RuleResult:
    """Flow-proportional queueing: 6 packets per bottlenecked flow (004 §IV, Morris)."""
    exact = float(fpq_buffer_packets(ctx.bottlenecked_flows))
    n_b_known = Assumption(
        "N_b (flows bottlenecked here) is known",
        HOLDS if ctx.bottlenecked_flows_given else UNKNOWN,
        f"N_b = {ctx.bottlenecked_flows}"
        if ctx.bottlenecked_flows_given
        else f"not given; computed with N_b = N = {ctx.scenario.flows}",
    )
    return _rule(
        ctx,
        FPQ,
        "Flow-proportional queueing (6 packets per flow)",
        "B = 6·N_b",
        "004 §IV (Morris's FPQ), eqs. 19-22",
        exact,
        [n_b_known, congestion_limited(ctx)],
        "keeps loss near 2% whatever the BDP; ignores the packets in flight (004 eq. 21)",
    )


def tcp_queue_rule(ctx: Context) -> RuleResult | None:
    """Smallest B at which the TCP + M/M/1/B fixed point carries θ of the traffic (000 §3.6).

    Listed when the maximum window is known: the fixed point needs W_max. It predicts the
    utilization and loss of window-limited flows and of many flows (000 §3.6 eqs. 3.2-3.3),
    a cross-check on the tiny-buffers and sqrt(N) sizes.
    """
    sc = ctx.scenario
    w = sc.max_window_packets
    if w is None:
        return None
    theta = ctx.targets.min_utilization

    found, fp = _tcp_queue_search(
        sc.flows, w, sc.capacity_bps, ctx.effective_rtt_s, sc.packet_bytes, theta
    )
    assumptions = [
        Assumption(
            "the queue behaves as M/M/1/B at the load the flows offer (Poisson arrivals)",
            HOLDS if sc.paced or (ctx.slowdown or 0.0) > 1.0 else UNKNOWN,
            "paced or slower access links smooth the arrivals"
            if sc.paced or (ctx.slowdown or 0.0) > 1.0
            else "bursty line-rate senders make the M/M/1/B loss optimistic (000 §3.4)",
        ),
        Assumption(
            "flows in congestion avoidance with equal RTTs (TCP equation, no timeouts)",
            UNKNOWN,
            "RTTs and timeouts are not known from the scenario",
        ),
    ]
    note = f"smallest B with the fixed point's utilization >= θ = {theta:g} of its peak"
    exact: float | None = None
    if found is None:
        note = f"the fixed point stays below θ = {theta:g} up to {_TCP_QUEUE_SEARCH_MAX} packets"
    else:
        assert fp is not None
        exact = float(found)
        note += (
            f"; there ρ = {fp.load:.3g} (peak {fp.peak_load:.3g}), loss {fp.loss_probability:.2g}"
            f", {'window' if fp.window_limited else 'loss'}-limited flows"
        )
    return _rule(
        ctx,
        TCP_QUEUE,
        "TCP + M/M/1/B fixed point",
        "R = min(W/τ, √(3/(2p))/τ), p = M/M/1/B loss at ρ = N·R/C",
        "000 §3.6 eqs. 3.2-3.3",
        exact,
        assumptions,
        note,
    )


@lru_cache(maxsize=_KEPT_ANSWERS)
def _tcp_queue_search(
    flows: int,
    max_window_packets: float,
    capacity_bps: float,
    effective_rtt_s: float,
    packet_bytes: float,
    theta: float,
) -> tuple[int | None, TcpQueueFixedPoint | None]:
    """The smallest B of :func:`tcp_queue_rule` (None above the search's end) and the fixed
    point there."""
    # The peak load N·W_max/(C·τ), computed as tcp_mm1b_fixed_point computes it.
    peak = (
        float(flows)
        * float(max_window_packets)
        / (capacity_bps / (8.0 * packet_bytes) * effective_rtt_s)
    )
    wanted = theta * min(1.0, peak) * (1.0 - 1e-9)

    def ok(b: int) -> bool:
        # fixed point's load >= wanted, decided by the sign of g at wanted (no root-finding)
        return tcp_mm1b_load_reaches(
            flows,
            max_window_packets,
            capacity_bps,
            effective_rtt_s,
            float(b),
            wanted,
            packet_bytes,
        )

    found = smallest_integer(ok, _TCP_QUEUE_SEARCH_MAX)
    if found is None:
        return None, None
    return found, tcp_mm1b_fixed_point(
        flows, max_window_packets, capacity_bps, effective_rtt_s, float(found), packet_bytes
    )


def dctcp_rule(ctx: Context) -> RuleResult | None:
    """DCTCP: ECN marking threshold K > C·RTT/7, buffer K plus the incast burst.

    Listed when the senders run DCTCP. 004's and 000's models assume drop-tail loss-based
    senders; DCTCP keeps the queue near K by ECN marks, so the buffer needs K of standing
    queue plus room for a synchronized fan-in burst (Alizadeh et al. SIGCOMM 2010 §3.4
    eq. (13) for K, §2.3.2 "Incast", both read; RFC 8257 §3.1, read: the switch sets CE when
    "its queue length is greater than the congestion threshold", and "Section 3.4 of [DCTCP10]
    suggests threshold marking with a threshold of K > (RTT * C)/7").
    """
    sc = ctx.scenario
    if sc.congestion_control != "dctcp":
        return None
    k = ctx.bdp_packets / DCTCP_K_DIVISOR
    burst = 0.0
    if sc.incast_senders is not None:
        burst = sc.incast_senders * sc.initial_window_packets
    ecn = Assumption(
        "the port marks ECN (CE) above K packets instead of dropping",
        UNKNOWN,
        f"configure the marking threshold K >= {math.ceil(k):,} packets "
        f"({ctx.bdp_packets / DCTCP_K_DIVISOR * ctx.packet_time_s * 1e6:.3g} µs)",
    )
    incast = Assumption(
        "the buffer absorbs synchronized fan-in (incast) bursts above K",
        HOLDS if sc.incast_senders is not None else UNKNOWN,
        f"burst = {sc.incast_senders} senders × {sc.initial_window_packets:g} packets"
        if sc.incast_senders is not None
        else "incast_senders not given: give the fan-in to size the burst headroom",
    )
    shared = Assumption(
        "the port's share of a shared switch buffer holds this much when the burst arrives",
        UNKNOWN,
        "a shared-buffer switch gives one port only its dynamic-threshold share of the pool; "
        "check it against this size",
    )
    note = f"K = C·RTT/7 = {k:.4g} packets is the ECN marking threshold (the standing queue)"
    if burst:
        note += f"; incast burst {burst:g} packets on top"
    return _rule(
        ctx,
        DCTCP,
        "DCTCP marking threshold plus incast burst",
        "B = C·RTT/7 + senders × IW",
        "Alizadeh et al. SIGCOMM 2010 §3.4, §2.3.2; RFC 8257 §3.1",
        k + burst,
        [ecn, incast, shared],
        note,
    )


def incast_rule(ctx: Context) -> RuleResult | None:
    """Synchronized fan-in burst: senders × initial window (listed when the fan-in is given)."""
    sc = ctx.scenario
    if sc.incast_senders is None:
        return None
    burst = sc.incast_senders * sc.initial_window_packets
    return _rule(
        ctx,
        INCAST,
        "Incast burst (synchronized fan-in)",
        "B = senders × IW",
        "Alizadeh et al. SIGCOMM 2010 §2.3.2 (partition/aggregate incast); RFC 6928 (IW 10)",
        burst,
        [
            Assumption(
                "the senders answer one request at once with their initial windows",
                HOLDS,
                f"{sc.incast_senders} senders × IW {sc.initial_window_packets:g} packets",
            )
        ],
        "a drop in this burst costs a retransmission timeout (200 ms min RTO) to the query",
    )


def bbr_rule(ctx: Context) -> RuleResult | None:
    """BBR: the queue of its 1.25× ProbeBW phase, 0.25·C·T_e (listed for BBR senders)."""
    sc = ctx.scenario
    if sc.congestion_control != "bbr":
        return None
    exact = (BBR_PROBE_GAIN - 1.0) * ctx.bdp_packets
    assumptions = [
        Assumption(
            "BBR's bandwidth and min-RTT estimates are accurate (a steady bottleneck)",
            UNKNOWN,
            "not visible from the scenario",
        ),
        Assumption(
            "the flows through the port all run BBR",
            UNKNOWN,
            "mixed with CUBIC, BBR takes more than its share in shallow buffers and CUBIC "
            "more in deep ones (Cao et al. IMC 2019, abstract: BBR is 'well suited for "
            "networks with shallow buffers', loss-based algorithms 'better suited for deep "
            "buffers'; Hock et al. ICNP 2017, abstract: 'unfairness, and massive packet "
            "loss'; Ware et al. IMC 2019 not read); the "
            "simulator's BBR v1 against one CUBIC flow, 20 Mb/s, 40 ms: BBR's share 0.95 at "
            "0.5 BDP, 0.60 at 2 BDP, 0.37 at 8 BDP (means of 8 seeds)",
        ),
        congestion_limited(ctx),
    ]
    note = (
        "in this simulator, 0.25·C·T_e kept 99-100 % utilization with 4 to 100 BBR flows, and "
        "their loss, 11.7-16.3 % there, did not fall below 7.5 % up to one BDP "
        "(studies/results/sim_loss_at_rule_sizes.md): BBR v1 ignores loss, and its cwnd cap of "
        "2·C·T_e lets about one BDP queue with several flows (Hock et al. ICNP 2017)"
    )
    return _rule(
        ctx,
        BBR,
        "BBR probing queue",
        "B = (1.25 − 1)·C·T_e",
        "Cardwell et al. ACM Queue 2016 (ProbeBW gain 1.25, cwnd_gain 2); IETF "
        "draft-cardwell-iccrg-bbr-congestion-control; Hock, Bless, Zitterbart ICNP 2017; "
        "this simulator (studies/results/sim_loss_at_rule_sizes.md)",
        exact,
        assumptions,
        note,
    )


def aqm_rule(ctx: Context) -> RuleResult | None:
    """The AQM's target delay as a standing queue, packets (listed when the port runs one).

    The AQM keeps the queue near its target; the buffer is the hard limit above it, sized by
    the other rules: below the AQM target the tail drop, not the AQM, would control the
    queue, and above it the buffer absorbs the bursts the AQM lets through.
    """
    sc = ctx.scenario
    target, interval = sc.aqm_target, sc.aqm_interval
    if target is None or interval is None:
        return None
    given = "given" if sc.aqm_target_s is not None else "the RFC's default"
    note = (
        f"standing queue {target * 1e3:g} ms ({given}) = {target / ctx.packet_time_s:.4g} "
        "packets; the buffer (hard limit) is sized separately and must stay above it"
    )
    if sc.aqm == "dualq":
        note += (
            f"; the L4S queue marks every packet that waited over {DUALQ_L4S_STEP_S * 1e3:g} ms "
            f"({DUALQ_L4S_STEP_S / ctx.packet_time_s:.3g} packets; Linux sch_dualpi2.c's step)"
        )
    if sc.aqm == "codel":
        note += (
            f"; INTERVAL {interval * 1e3:g} ms should be about the worst-case RTT of the flows "
            f"(effective RTT here {ctx.effective_rtt_s * 1e3:.3g} ms)"
        )
    return _rule(
        ctx,
        AQM,
        f"AQM target queue ({sc.aqm})",
        "B_AQM = target delay × C",
        AQM_REFERENCE[sc.aqm],
        target / ctx.packet_time_s,
        [
            Assumption(
                "the AQM drops or marks to keep the queueing delay near its target",
                HOLDS,
                f"aqm = {sc.aqm}",
            )
        ],
        note,
    )


#: PIE's burst allowance: no random drop for MAX_BURST = 150 ms once the queue first exceeds
#: its target (RFC 8033 §4.4, "initialized to MAX_BURST"; the simulator's PIE does the same).
PIE_MAX_BURST_S = 0.150

#: Each qdisc's default hard limit in Linux, packets: sch_codel.c DEFAULT_CODEL_LIMIT 1000,
#: include/net/pie.h pie_params_init "params->limit = 1000", sch_fq_codel.c fq_codel_init
#: "sch->limit = 10*1024", sch_dualpi2.c dualpi2_reset_default "q->sch->limit = 10000; /* Max
#: 125ms at 1Gbps */" (each read in the kernel source).
LINUX_AQM_LIMIT_PACKETS = {"codel": 1000, "fq_codel": 10240, "pie": 1000, "dualq": 10000}


def aqm_reaction_s(ctx: Context) -> float | None:
    """How long the AQM lets a growing queue go before its first drop, seconds (None without
    an AQM): CoDel, TARGET + INTERVAL (it drops only once the sojourn time has stayed above
    TARGET for INTERVAL, RFC 8289 §4.2-4.3); PIE, its burst allowance MAX_BURST plus one
    T_UPDATE (RFC 8033 §4.4); DualQ's Classic queue, its PI2 target plus one update period
    Tupdate (RFC 9332 App. A.1)."""
    sc = ctx.scenario
    target, interval = sc.aqm_target, sc.aqm_interval
    if target is None or interval is None:
        return None
    if sc.aqm == "pie":
        return PIE_MAX_BURST_S + interval
    return target + interval


def aqm_limit_rule(ctx: Context) -> RuleResult | None:
    """The hard limit an AQM needs at start-up: B = C·(R + T_e) (listed when the port runs one).

    A sender in slow start releases two packets per ACK, so the queue grows by about one packet
    per packet sent, C packets per second, until a drop reaches it: the AQM's reaction time R
    (:func:`aqm_reaction_s`) after the queue passes its target, plus one round trip for the
    drop to be noticed. A hard limit below C·(R + T_e) fills first, and tail drops, not the
    AQM, end the start-up (this simulator, 20 Mb/s, 40 ms, 4 CUBIC flows starting together,
    first 3 s, seeds 1-3 summed: CoDel, tail drops 171 against CoDel's 49 at 0.43 BDP, 31
    against 147 at C·(R + T_e) ≈ 3.6 BDP; DualQ's Classic queue as Linux runs it (decisions at
    dequeue from the head packet's sojourn time), 232 against 4 at 0.43 BDP, 128 against 295
    at C·(R + T_e) ≈ 1.8 BDP; tests/validation/test_aqm_limit.py). Senders
    whose windows are capped (``max_window_packets``) queue at most N·W_max − C·T_e, the
    limit's cap.
    """
    reaction = aqm_reaction_s(ctx)
    if reaction is None:
        return None
    sc = ctx.scenario
    exact = (reaction + ctx.effective_rtt_s) / ctx.packet_time_s
    w = sc.max_window_packets
    if w is not None:
        # Window-limited senders stop growing at W_max: they can queue N·W_max − C·T_e at most.
        exact = min(exact, max(0.0, sc.flows * w - ctx.bdp_packets))
    linux = LINUX_AQM_LIMIT_PACKETS[sc.aqm]
    note = (
        f"the {sc.aqm} reaction time R = {reaction * 1e3:g} ms plus one RTT "
        f"({ctx.effective_rtt_s * 1e3:.3g} ms) of slow-start growth at one packet per packet "
        f"sent; the queue itself stays near the AQM's target, this is reached only at start-up. "
        f"Linux's default limit for {sc.aqm} is {linux:,} packets"
        + (" (fq_codel: 10,240)" if sc.aqm == "codel" else "")
        + f" ({linux * ctx.packet_time_s * 1e3:,.3g} ms here)"
    )
    return _rule(
        ctx,
        AQM_LIMIT,
        f"AQM hard limit at start-up ({sc.aqm})",
        "B = C·(R_AQM + T_e)",
        {
            "codel": "RFC 8289 §4.2-4.3 (TARGET, INTERVAL); Linux sch_codel.c, sch_fq_codel.c",
            "pie": "RFC 8033 §4.4 (MAX_BURST 150 ms, T_UPDATE); Linux include/net/pie.h",
            "dualq": "RFC 9332 App. A.1 (PI2 target, Tupdate); Linux sch_dualpi2.c",
        }[sc.aqm],
        exact,
        [
            Assumption(
                "flows start in slow start (two packets per ACK) behind fast access links",
                UNKNOWN,
                "the senders' start-up is not visible from the scenario",
            )
        ],
        note,
    )


def all_rules(ctx: Context, regime: str | None) -> tuple[RuleResult, ...]:
    """Every rule, in the order the table shows them; the paced rule only when it applies."""
    rules: list[RuleResult | None] = [rule_of_thumb(ctx)]
    # The β form for loss-based senders with another decrease than Reno's (CUBIC); never for
    # BBR, which is not governed by loss (its own rule, bbr_rule, sizes it).
    if ctx.scenario.md_beta != 0.5 and ctx.scenario.congestion_control != "bbr":
        rules.append(md_beta_rule(ctx))
    rules += [
        sqrt_n_rule(ctx),
        tiny_buffers_rule(ctx),
        paced_rule(ctx),
        transparent_rule(ctx, regime),
        high_load_rule(ctx, regime),
        bscl_rule(ctx),
        fpq_rule(ctx),
        tcp_queue_rule(ctx),
        dctcp_rule(ctx),
        incast_rule(ctx),
        bbr_rule(ctx),
        aqm_rule(ctx),
        aqm_limit_rule(ctx),
    ]
    return tuple(r for r in rules if r is not None)


def smallest_integer(ok: Callable[[int], bool], upper: int) -> int | None:
    """Smallest integer b in [1, upper] with ``ok(b)`` for a monotone predicate, else None."""
    hi = 1
    while not ok(hi):
        if hi >= upper:
            return None
        hi = min(upper, hi * 2)
    lo = hi // 2  # ok(lo) is False (or lo == 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
