"""Quantities derived once from the scenario and shared by the rules and the traffic models."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models.bscl import FEW_FLOWS_THRESHOLD, loss_synchronization
from models.recommend.scenario import (
    DEFAULT_MAX_LOSS,
    DEFAULT_MIN_UTILIZATION,
    LinkScenario,
    Targets,
    TargetSource,
)
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


#: Largest saturation probability (the flows' peak rates add up to the capacity) at which a
#: link still counts as transparent. 003 §4: "the sum of flow peak rates is, with high
#: probability, less than link capacity"; §6 item 3: "the link is rarely saturated". 5% is our
#: reading of "rarely" (the 003 §5.2 example, peak 0.08 of the residual capacity at ρ_b = 0.5,
#: is saturated 0.005% of the time).
MAX_TRANSPARENT_SATURATION = 0.05


@dataclass(frozen=True)
class TargetValues:
    """The targets with their defaults filled in, and where each came from."""

    min_utilization: float
    max_loss: float
    max_queueing_delay_s: float
    priority: str
    sources: dict[str, TargetSource]

    def source(self, name: str) -> TargetSource:
        """``"user"`` or ``"default"`` for one target."""
        return self.sources[name]

    def user(self, name: str) -> bool:
        """Whether the user gave this target."""
        return self.sources[name] == "user"


def resolve_targets(targets: Targets, effective_rtt_s: float) -> TargetValues:
    """Fill each target the user left out with its documented default."""
    sources: dict[str, TargetSource] = {
        "min_utilization": "default" if targets.min_utilization is None else "user",
        "max_loss": "default" if targets.max_loss is None else "user",
        "max_queueing_delay_s": "default" if targets.max_queueing_delay_s is None else "user",
    }
    return TargetValues(
        min_utilization=(
            DEFAULT_MIN_UTILIZATION
            if targets.min_utilization is None
            else float(targets.min_utilization)
        ),
        max_loss=DEFAULT_MAX_LOSS if targets.max_loss is None else float(targets.max_loss),
        max_queueing_delay_s=(
            effective_rtt_s
            if targets.max_queueing_delay_s is None
            else float(targets.max_queueing_delay_s)
        ),
        priority=targets.priority,
        sources=sources,
    )


@dataclass(frozen=True)
class Context:
    """The scenario, the targets and what follows from them (internal to the engine).

    ``bottlenecked_flows`` is N_b when the user gave it, else N: the count the
    congestion-limited rules use, labelled so (``bottlenecked_flows_given``). The loss
    constraint is applied only when N_b is given; with N_b unknown it is shown as the worst
    case (all N flows bottlenecked here) beside the recommendation.
    """

    scenario: LinkScenario
    targets: TargetValues
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
    #: False when the user did not give the congestion control: ``scenario`` then holds one
    #: of the candidates it is sized for, and the rules mark it unknown, not holding.
    congestion_control_given: bool = True

    @property
    def slow_access_needed(self) -> float | None:
        """Slowdown S above which senders count as slow (None without a window cap)."""
        w = self.scenario.max_window_packets
        if w is None:
            return None
        return SLOWDOWN_PER_LOG2_W * max(1.0, math.log2(w))

    @property
    def max_delay_packets(self) -> int:
        """Largest whole buffer meeting the delay target (at least 1)."""
        d = self.targets.max_queueing_delay_s
        return max(1, math.floor(d / self.packet_time_s * (1.0 + 1e-12)))

    @property
    def label(self) -> str:
        """``"N_b"`` when the user gave N_b, else ``"N"``."""
        return "N_b" if self.bottlenecked_flows_given else "N"


def slowdown(scenario: LinkScenario, bdp_packets: float) -> float | None:
    """S, the fewest packet slots between two packets of one flow (000 §3.4, App. B).

    ``C/access`` when the access rate is known; when hosts pace, ``M/W_max`` with
    ``M = C·RTT`` slots per RTT (a paced window of W_max packets is spread over the RTT); the
    larger of the two when both apply. None when neither is known.
    """
    candidates = []
    if scenario.access_bps is not None:
        candidates.append(scenario.capacity_bps / scenario.access_bps)
    if scenario.paced and scenario.max_window_packets is not None:
        candidates.append(bdp_packets / scenario.max_window_packets)
    return max(candidates) if candidates else None


def derive(
    scenario: LinkScenario, targets: Targets, *, congestion_control_given: bool = True
) -> Context:
    """Compute the effective RTT, BDP, window-limited load, N_b, q, rate ratios and targets.

    ``scenario`` names its congestion control (a candidate for one not given, with
    ``congestion_control_given`` False).
    """
    if scenario.congestion_control is None:
        raise ValueError("derive needs a congestion control: size each candidate for one not given")
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
    return Context(
        scenario=scenario,
        targets=resolve_targets(targets, t_e),
        effective_rtt_s=t_e,
        bdp_packets=bdp,
        packet_time_s=packet_time,
        window_limited_load=rho_w,
        bottlenecked_flows=n_b,
        bottlenecked_flows_given=given,
        bottlenecked_share=share,
        loss_sync_q=q,
        peak_rate_fraction=peak_fraction,
        slowdown=slowdown(scenario, bdp),
        congestion_control_given=congestion_control_given,
    )
