"""Quantities derived once from the scenario and shared by the rules and the traffic models."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models.bscl import FEW_FLOWS_THRESHOLD, loss_synchronization
from models.recommend.scenario import LinkScenario, Targets
from models.rule_of_thumb import bdp_packets, harmonic_mean_rtt_s
from models.tiny_buffers import tiny_buffers_load

#: Below this many long-lived flows, losses are (nearly) globally synchronized and the single-flow
#: rule applies: BSCL's own switch to B = C·T_e for N_b < 5 (004 §VII).
FEW_FLOWS = int(FEW_FLOWS_THRESHOLD)

#: From this many long-lived flows on, loss synchronization is taken to be negligible, as the
#: sqrt(N) rule needs. 004 §I: synchronization matters "especially for links that carry less
#: than a few tens of persistent TCP flows"; 000 §2.2.2: synchronization is "largely limited to
#: the cases with a small number of very heavy flows". 100 is our reading of "a few tens".
DESYNCHRONIZED_FLOWS = 100

#: BSCL is accurate "when most of the traffic (80-90%) at the given link belongs to the N_b
#: locally bottlenecked flows" (004 §I).
LBP_SHARE_MIN = 0.8

#: An all-optical buffer holds "a few dozen packets in an integrated opto-electronic chip";
#: "larger all-optical buffers remain infeasible" (000 §3.1 and its footnote 2; ch. 1: 20-50).
OPTICAL_MAX_PACKETS = 50

#: Senders count as slow when the port is at least ``SLOWDOWN_PER_LOG2_W · log2(W_max)`` times
#: faster than their access links. 000 Thm 2 asks for a factor ``c_S·log W_max`` with an
#: unstated constant and says it "is only a few dozen for present-day window sizes"; 4 makes
#: W_max = 64 need 24.
SLOWDOWN_PER_LOG2_W = 4.0


@dataclass(frozen=True)
class Context:
    """The scenario, the targets and what follows from them (internal to the engine)."""

    scenario: LinkScenario
    targets: Targets
    effective_rtt_s: float
    bdp_packets: float
    packet_time_s: float
    window_limited_load: float | None
    bottlenecked_flows: int
    bottlenecked_flows_given: bool
    bottlenecked_share: float
    loss_sync_q: float
    peak_rate_fraction: float | None
    slowdown: float | None

    @property
    def slow_access_needed(self) -> float | None:
        """Slowdown S above which senders count as slow (None without a window cap)."""
        w = self.scenario.max_window_packets
        if w is None:
            return None
        return SLOWDOWN_PER_LOG2_W * max(1.0, math.log2(w))

    @property
    def max_delay_packets(self) -> int | None:
        """Largest whole buffer meeting the delay bound (at least 1), or None without one."""
        d = self.targets.max_queueing_delay_s
        if d is None:
            return None
        return max(1, math.floor(d / self.packet_time_s * (1.0 + 1e-12)))


def derive(scenario: LinkScenario, targets: Targets) -> Context:
    """Compute the effective RTT, BDP, window-limited load, N_b, q and rate ratios."""
    t_e = harmonic_mean_rtt_s(list(scenario.rtts_s))
    bdp = float(bdp_packets(scenario.capacity_bps, t_e, scenario.packet_bytes))
    packet_time = 8.0 * scenario.packet_bytes / scenario.capacity_bps
    rho_w = None
    w = scenario.max_window_packets
    if w is not None:
        rho_w = float(
            tiny_buffers_load(scenario.flows, w, scenario.capacity_bps, t_e, scenario.packet_bytes)
        )
    given = scenario.bottlenecked_flows is not None
    n_b = scenario.bottlenecked_flows if scenario.bottlenecked_flows is not None else scenario.flows
    share = scenario.bottlenecked_share if scenario.bottlenecked_share is not None else 1.0
    q = 1.0 if n_b < FEW_FLOWS else float(loss_synchronization(n_b))
    peak = scenario.peak_rate_bps
    if peak is None:
        candidates = []
        if scenario.access_bps is not None:
            candidates.append(scenario.access_bps)
        if w is not None:
            candidates.append(w * 8.0 * scenario.packet_bytes / t_e)
        peak = min(candidates) if candidates else None
    peak_fraction = None if peak is None else min(1.0, peak / scenario.capacity_bps)
    slowdown = None
    if scenario.access_bps is not None:
        slowdown = scenario.capacity_bps / scenario.access_bps
    return Context(
        scenario=scenario,
        targets=targets,
        effective_rtt_s=t_e,
        bdp_packets=bdp,
        packet_time_s=packet_time,
        window_limited_load=rho_w,
        bottlenecked_flows=n_b,
        bottlenecked_flows_given=given,
        bottlenecked_share=share,
        loss_sync_q=q,
        peak_rate_fraction=peak_fraction,
        slowdown=slowdown,
    )
