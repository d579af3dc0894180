"""Checking a recommendation by simulation: the recommended size and its neighbours.

:func:`verify` simulates the recommended buffer, half of it and double it on the user's link,
scaled to a simulable size by :func:`scale_link`, with replications, and puts the engine's
predicted utilization, loss and queueing delay beside the simulated ones, judges each target
at each size, and says how the prediction fared.

Verdicts
--------
Each target is judged at each size from the replications' values with one-sided 99 % bounds
of their mean (Student's t, :func:`one_sided_bound`): utilization (as a fraction of what the
traffic can carry, as the engine's target is) is **met** when its lower bound is at least the
target, loss when its upper bound is at most the target (whether or not the engine predicted
a loss), the p99 queueing delay when its upper bound is at most the delay target. A target is
**missed** when the bound on the other side breaks it (the upper bound of utilization below
the target, the lower bound of loss or delay above it), and **undecided** when the target lies
between the two bounds. A size's verdict is its worst target outcome (missed, then undecided,
then met); the verification's headline is the recommended size's, so it can never pass a
missed target. While a size is undecided, extra batches of replications are run for it (each
as large as the first, seeds :func:`batch_seed`) up to ``max_replications`` runs per size; a
size still straddling then stays undecided.

Separately, the prediction's fate at each size: **within** the simulation's interval (the
tolerances of :func:`prediction_fate`), **conservative** (the simulation did better than
predicted) or **optimistic** (it did worse).

The scaling rule (documented in the README)
-------------------------------------------
The link's packet rate is brought down to at most :data:`MAX_SIMULATED_PPS` by a factor
``k <= 1`` applied to the capacity C and to the number of flows N together, as 000 §3.4 does
for Fig. 3.4 ("we also increase the bottleneck link capacity ... to keep the peak load at about
80%"): each flow keeps its rate C/N, its RTTs, its window (so its share of the BDP, C·RTT/N),
its access rate and the packet size; the offered load is unchanged. The buffer is scaled as
the governing rule scales with C and N at fixed per-flow rate: by ``k`` for the rules
proportional to C or to N (rule of thumb, its β form, BSCL, FPQ), by ``√k`` for sqrt(N)
(B ∝ C/√N), and not at all for the rules that do not depend on C or N (tiny buffers,
paced-traffic bound, transparent ρ^B). The queueing delay of a full buffer is then the same
in seconds for the proportional rules.

A scaling is refused as unfaithful ("not reproducible here", with the reason) when fewer than
:data:`MIN_SCALED_FLOWS` flows would remain out of more, when a scaled buffer would fall below
one packet, or when the flows are paced by access links slower than the port and ``k < 1``
(the spacing C/access between a flow's packets, which that rule rests on, would shrink by k).

An access rate not given
------------------------
The port queues only where the senders' packets can arrive faster than it sends them. An access
rate the user gave is simulated as given. One not given is an assumption, stated in the result
(:class:`Access`): the result depends on it, so every size is simulated at both ends of the
plausible range: with access links :data:`ACCESS_FAST_FACTOR` times the simulated port (bursty
senders on fast links, the case the rules that ignore the access rate size for), and again at
the slow end, the port's own rate (with two flows or more their bursts still meet and queue;
one flow gets twice the port's rate, since behind a link as fast as the port it would never
queue). Paced senders too: their spacing does not come from the access link, but a slow one
still spaces their bursts further. The sizes at the slow end are reported as ``slow_sizes``
(labels :func:`slow_label`), each with its verdict; the headline is the worse of the
recommended size's two verdicts, and the reason says which end governs.

What the check could not represent
----------------------------------
``not_represented`` lists, in plain words, what of the user's link the simulation did not
represent (:func:`validation.limitations.not_represented`: the measurement's length in RTTs,
the scaling and what it changes, traffic and senders not modelled as given).

A given size
------------
``size=(rule, buffer_packets)`` checks that buffer instead of the engine's recommended one
(``rec`` may then be None): ``bufsize trace --verify`` checks the BSCL size it reports this
way, with the rule ``"bscl"``. The rule name picks the buffer's scaling exponent
(:data:`BUFFER_EXPONENT`); everything else (scaling, sizes half/double, predictions, verdicts)
is the same path, and the size keeps the label ``"recommended"`` in the result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, cast

import numpy as np

from models.choices import CongestionControl
from models.recommend import LinkScenario, Prediction, Recommendation, Targets, predict
from models.recommend import traffic_model as engine_traffic_model
from models.recommend.context import resolve_targets
from models.recommend.performance import TrafficModel
from models.recommend.rules import DCTCP_K_DIVISOR
from models.rule_of_thumb import bdp_packets, harmonic_mean_rtt_s
from validation.limitations import not_represented
from validation.simulator import Scenario, confidence_interval, replication_seeds
from validation.simulator.core.dualq import TARGET_S as PI2_TARGET_S
from validation.simulator.core.dualq import TUPDATE_S as PI2_TUPDATE_S
from validation.simulator.core.pie import QDELAY_REF_S, T_UPDATE_S
from validation.simulator.results import Estimate
from validation.simulator.scenario import CC_KINDS
from validation.sweeps import Task, run_tasks

#: Largest bottleneck packet rate a verification simulates, packets/s.
MAX_SIMULATED_PPS = 50_000.0
#: Fewest flows a scaled scenario may keep (when the link has at least that many).
MIN_SCALED_FLOWS = 20
#: Simulated seconds after the warm-up, and the warm-up (at least this, or 20 RTTs).
MEASURE_S = 20.0
WARMUP_S = 10.0
#: Utilization is judged to agree within this many points of capacity (or the 99% CI).
UTILIZATION_TOLERANCE = 0.03
#: Loss is judged to agree within this factor (or when both are below LOSS_FLOOR).
LOSS_FACTOR = 3.0
LOSS_FLOOR = 1e-4
#: How the governing rule's buffer scales with C and N at fixed per-flow rate: B ∝ k^exponent.
BUFFER_EXPONENT = {
    "rule_of_thumb": 1.0,
    "md_beta": 1.0,
    "bscl": 1.0,
    "fpq": 1.0,
    "sqrt_n": 0.5,
    "tiny_buffers": 0.0,
    "paced": 0.0,
    "transparent": 0.0,
}

#: When the access rate is not given: the senders' access links are assumed this many times
#: faster than the (scaled) port for every size, the fast end of the plausible range (module
#: docstring, "An access rate not given").
ACCESS_FAST_FACTOR = 10.0


def slow_label(label: str) -> str:
    """The label of size ``label`` simulated at the slow end of the access rates."""
    return f"{label}, slow access"


#: Confidence of the one-sided bounds a target is judged with.
BOUND_LEVEL = 0.99
#: Replications a verification may add, by default, to decide a target: up to this many times
#: the replications asked for in all (``max_replications``).
DEFAULT_BUDGET_FACTOR = 3

Outcome = Literal["met", "missed", "undecided"]
#: Worst first: the order in which outcomes govern a headline.
OUTCOME_ORDER: tuple[Outcome, ...] = ("missed", "undecided", "met")
Fate = Literal["within", "conservative", "optimistic"]
Verdict = Literal["met", "missed", "undecided", "not reproducible here"]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Scaling:
    """How the user's link was brought to a simulable size."""

    factor: float
    capacity_bps: float
    flows: int
    bottlenecked_flows: int
    buffer_exponent: float
    faithful: bool
    reason: str


@dataclass(frozen=True)
class Access:
    """The senders' access rate the check simulates, and why (module docstring).

    ``access_bps`` is simulated at every size; ``slow_access_bps``, when not None, also at every
    size (the other end of the range, for an access rate the user did not give).
    """

    given: bool
    access_bps: float
    slow_access_bps: float | None
    reason: str


@dataclass(frozen=True)
class TargetOutcome:
    """One target judged at one size from the replications (module docstring, "Verdicts").

    ``bound`` is the one-sided 99 % bound on the side that could break the target (lower for
    utilization, upper for loss and delay), ``other`` the bound on the other side.
    """

    name: str
    target: float
    estimate: float
    bound: float
    other: float
    outcome: Outcome


@dataclass
class SizeCheck:
    """Predicted and simulated performance at one buffer size of the user's link.

    ``verdict`` is the worst of ``targets``' outcomes; ``prediction`` how the engine's
    prediction fared against the simulation (``prediction_fates`` per measure).
    """

    label: str
    buffer_packets: int
    simulated_buffer_packets: int
    #: The senders' access rate this size was simulated with (scaled link), bit/s.
    access_bps: float
    predicted: Prediction
    replications: int
    utilization: float
    utilization_ci99: float
    loss_rate: float
    loss_rate_ci99: float
    queue_delay_mean_s: float
    queue_delay_p99_s: float
    targets: list[TargetOutcome]
    verdict: Outcome
    prediction: Fate
    prediction_fates: dict[str, Fate]
    reason: str
    meets_targets: bool


@dataclass
class Verification:
    """The outcome: the scaling, one :class:`SizeCheck` per size, and the overall verdict."""

    rule: str
    scaling: Scaling
    scenario: dict[str, Any]
    replications: int
    seed: int
    max_replications: int = 0
    access: Access | None = None
    sizes: list[SizeCheck] = field(default_factory=list)
    #: The same sizes at the slow end of the access rates (access not given), else empty.
    slow_sizes: list[SizeCheck] = field(default_factory=list)
    verdict: Verdict = "not reproducible here"
    reason: str = ""
    #: What of the link the simulation could not represent (:func:`not_represented`).
    not_represented: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (NaN -> None)."""
        out: dict[str, Any] = clean(asdict(self))
        return out

    def undecided(self) -> list[str]:
        """Labels of the sizes with a target left undecided."""
        return [c.label for c in [*self.sizes, *self.slow_sizes] if c.verdict == "undecided"]

    def slow(self, label: str) -> SizeCheck | None:
        """Size ``label`` at the slow end of the access rates, or None (not simulated there)."""
        return next((c for c in self.slow_sizes if c.label == slow_label(label)), None)


def clean(value: Any) -> Any:
    """A JSON-able copy of a dataclass dict: NaN and infinities become None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


def recommended_size(
    rec: Recommendation | None, size: tuple[str, int] | None = None
) -> tuple[str, int]:
    """The rule and buffer to check: ``size`` when given, else the engine's recommended one.

    This is the one place that reads those fields of a recommendation.

    Raises
    ------
    ValueError
        If neither a recommendation nor a size is given, or the size is below one packet.
    """
    if size is not None:
        rule, packets = size
        if int(packets) < 1:
            raise ValueError(f"the buffer to verify must be >= 1 packet, got {packets}")
        return rule, int(packets)
    if rec is None:
        raise ValueError("verify needs a recommendation or a size (rule, buffer_packets)")
    return rec.recommended.rule, int(rec.recommended.buffer_packets)


def sized_senders(link: LinkScenario, rec: Recommendation | None) -> LinkScenario:
    """The link with the congestion control its size was found for.

    One the user gave is kept. One not given is an unknown the engine sizes for Reno and for
    CUBIC (:func:`models.recommend.recommend`); the check simulates the candidate the
    recommendation's size is for (``rec.inputs.congestion_control``; Reno, the rules' own
    senders, when a size is checked without a recommendation) and says so.
    """
    if link.congestion_control is not None:
        return link
    used = rec.inputs.congestion_control if rec is not None else "reno"
    return link.with_congestion_control(cast(CongestionControl, used))


def simulated_congestion_control(link: LinkScenario) -> tuple[str | None, str]:
    """The simulator's congestion control for the link's, or None and why not.

    The recommendation's congestion control is simulated as given (never silently as Reno):
    it must be one the simulator's flow groups accept (:data:`CC_KINDS`); DCTCP runs with the
    port marking ECN at K = C·T_e/7 (:func:`dctcp_marking_threshold_packets`).
    """
    cc = link.congestion_control
    if cc not in CC_KINDS:
        return None, (
            f"congestion control {cc!r} is not simulated yet (the simulator runs "
            f"{', '.join(CC_KINDS)})"
        )
    return cc, ""


def simulated_port(link: LinkScenario) -> tuple[str | None, str]:
    """The simulator's ``aqm`` for the link's, or None and why not: the recommendation is
    checked on the port the user described (CoDel, PIE or DualQ below the buffer), never
    silently on a drop-tail one."""
    times = (link.aqm_target, link.aqm_interval)
    given = " and ".join(f"{t * 1e3:g} ms" for t in times if t is not None)
    if link.aqm == "pie" and times != (QDELAY_REF_S, T_UPDATE_S):
        return None, (
            "PIE is simulated with RFC 8033's QDELAY_REF and T_UPDATE (15 ms each) only, not "
            f"the target and interval given ({given})"
        )
    if link.aqm == "dualq" and times != (PI2_TARGET_S, PI2_TUPDATE_S):
        return None, (
            "DualQ is simulated with Linux's PI2 target and Tupdate (15 ms and 16 ms) only, "
            f"not the target and interval given ({given})"
        )
    if link.aqm == "dualq" and link.congestion_control == "dctcp" and _background(link) > 0.0:
        return None, (
            "DualQ is simulated for one class of traffic: DCTCP senders (its L4S queue) "
            "beside other traffic are not"
        )
    return link.aqm, ""


def _background(link: LinkScenario) -> float:
    """The load the link carries beside its bottlenecked flows (0 when all are)."""
    share = link.bottlenecked_share
    return 0.0 if share is None or link.bottlenecked_flows is None else 1.0 - share


def simulated_senders_and_port(link: LinkScenario) -> str:
    """Why the link's congestion control or AQM cannot be simulated ("" when both can)."""
    checks = (simulated_congestion_control(link), simulated_port(link))
    return "; ".join(why for _, why in checks if why)


def dctcp_marking_threshold_packets(link: LinkScenario, factor: float) -> int:
    """K = C·T_e/7 (Alizadeh et al. SIGCOMM 2010 §3.4, the engine's DCTCP rule) on the link
    scaled by ``factor`` (K ∝ C at fixed RTT), whole packets, at least 1."""
    t_e = harmonic_mean_rtt_s(list(link.rtts_s))
    bdp = float(bdp_packets(link.capacity_bps * factor, t_e, link.packet_bytes))
    return max(1, math.ceil(bdp / DCTCP_K_DIVISOR * (1.0 - 1e-12)))


def scale_link(link: LinkScenario, rule: str) -> Scaling:
    """The factor k and the scaled capacity and flow counts (module docstring)."""
    pps = link.capacity_bps / (8.0 * link.packet_bytes)
    factor = min(1.0, MAX_SIMULATED_PPS / pps)
    flows = max(round(link.flows * factor), 1)
    nb = link.bottlenecked_flows if link.bottlenecked_flows is not None else link.flows
    bottlenecked = max(round(nb * factor), 1)
    exponent = BUFFER_EXPONENT.get(rule, 1.0)
    reasons = []
    if flows < min(link.flows, MIN_SCALED_FLOWS):
        reasons.append(
            f"scaling C and N by {factor:.3g} leaves {flows} of {link.flows} flows, fewer than "
            f"{MIN_SCALED_FLOWS}: the multiplexing the rules rest on would change"
        )
    slow_access = link.access_bps is not None and link.access_bps < link.capacity_bps
    if factor < 1.0 and slow_access and exponent == 0.0:
        reasons.append(
            "the flows are spaced by access links slower than the port; scaling C by "
            f"{factor:.3g} would shrink that spacing, which the {rule} rule rests on"
        )
    return Scaling(
        factor=factor,
        capacity_bps=link.capacity_bps * factor,
        flows=flows,
        bottlenecked_flows=min(bottlenecked, flows),
        buffer_exponent=exponent,
        faithful=not reasons,
        reason="; ".join(reasons)
        or (
            "kept per-flow rate, RTTs, window, access rate and packet size; C and N scaled by "
            f"{factor:.3g}, buffers by {factor:.3g}^{exponent:g}"
        ),
    )


def access_assumption(link: LinkScenario, scaling: Scaling) -> Access:
    """The access rate to simulate: the user's, or an assumption stated with its reason."""
    if link.access_bps is not None:
        return Access(
            True, link.access_bps, None, f"access links at {_rate(link.access_bps)} (given)"
        )
    port = scaling.capacity_bps
    fast = ACCESS_FAST_FACTOR * port
    flows = scaling.bottlenecked_flows if link.bottlenecked_share else scaling.flows
    slow = port if flows >= 2 else 2.0 * port
    why_slow = (
        "the port's own rate (the flows' bursts can still meet and queue)"
        if flows >= 2
        else "twice the port's rate (one flow behind a link as fast as the port never queues)"
    )
    return Access(
        False,
        fast,
        slow,
        f"access rate not given: every size simulated at both ends of the plausible range, with "
        f"access links {ACCESS_FAST_FACTOR:g} x the simulated port ({_rate(fast)}, bursty senders "
        f"on fast links, which the rules that ignore the access rate size for) and at the slow "
        f"end, {why_slow}: {_rate(slow)}"
        + (
            "; the senders pace, so a slow access link only spaces them further"
            if link.paced
            else ""
        )
        + "; the headline is the worse of the two",
    )


def _rate(bps: float) -> str:
    return f"{bps / 1e9:.4g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:.4g} Mb/s"


def simulated_scenario(
    link: LinkScenario, scaling: Scaling, *, budget_s: float, access_bps: float | None = None
) -> Scenario:
    """The simulator's scenario for the scaled link.

    The N_b bottlenecked flows (all N when not given) are persistent TCP flows; the rest of the
    traffic, when the user gives the bottlenecked share, is Poisson background at the
    remaining share of the capacity. RTTs: the user's list as a uniform range, or one RTT
    spread ± 10% so that flows do not synchronize artificially. Access links: ``access_bps``,
    else :func:`access_assumption`'s.
    """
    rtts = link.rtts_s
    low, high = min(rtts), max(rtts)
    rtt_s = (low + high) / 2.0
    jitter = (high - low) / 2.0 if high > low else 0.1 * rtt_s
    window = link.max_window_packets if link.max_window_packets is not None else 65_536
    background = _background(link)
    warmup = max(WARMUP_S, 20.0 * high)
    wire = max(round(link.packet_bytes), 2)
    initial_window = max(round(link.initial_window_packets), 1)
    header = min(Scenario.header_bytes, wire - 1)
    cc, why_not = simulated_congestion_control(link)
    if cc is None:
        raise ValueError(f"cannot simulate this link: {why_not}")
    aqm, why_not = simulated_port(link)
    if aqm is None:
        raise ValueError(f"cannot simulate this link: {why_not}")
    marking: dict[str, Any] = {"aqm": aqm}
    if aqm == "codel":
        marking["codel_target_s"] = link.aqm_target
        marking["codel_interval_s"] = link.aqm_interval
    if cc == "dctcp" and aqm != "dualq":  # DualQ's L4S queue marks by its own step
        marking["ecn_threshold_packets"] = dctcp_marking_threshold_packets(link, scaling.factor)
    return Scenario(
        capacity_bps=scaling.capacity_bps,
        flows=scaling.bottlenecked_flows if background > 0.0 else scaling.flows,
        rtt_s=rtt_s,
        rtt_jitter_s=min(jitter, 0.9 * rtt_s),
        access_bps=(
            access_bps if access_bps is not None else access_assumption(link, scaling).access_bps
        ),
        max_window_packets=int(min(max(window, 1), 65_536)),
        # The engine's packet is the whole packet on the wire: the simulated one is too, its
        # TCP/IP headers (the simulator's default) taken out of it, not added to it.
        packet_bytes=wire - header,
        header_bytes=header,
        pacing=link.paced,
        initial_window_packets=initial_window,
        background_load=background,
        start_spread_s=min(5.0, warmup / 2.0),
        duration_s=warmup + budget_s,
        warmup_s=warmup,
        congestion_control=cast(CongestionControl, cc),  # one of CC_KINDS, checked above
        **marking,
    )


def one_sided_bound(values: Sequence[float], *, upper: bool, level: float = BOUND_LEVEL) -> float:
    """The one-sided ``level`` bound of the mean of independent replications (Student's t).

    ``mean + t_{level, n-1}·s/√n`` when ``upper``, ``mean − t_{level, n-1}·s/√n`` otherwise; NaN
    for fewer than two runs (no bound can be claimed from one run).
    """
    data = np.asarray(values, dtype=np.float64)
    if data.size < 2:
        return math.nan
    from scipy import stats  # on first use, as validation.simulator.confidence_interval does

    half = float(stats.t.ppf(level, data.size - 1)) * float(np.std(data, ddof=1))
    half /= math.sqrt(data.size)
    mean = float(np.mean(data))
    return mean + half if upper else mean - half


def judge_target(
    name: str, target: float, values: Sequence[float], *, at_least: bool
) -> TargetOutcome:
    """Met, missed or undecided for one target from the replications' values (module docstring).

    ``at_least``: the target is a floor (utilization), else a ceiling (loss, delay). Met when the
    one-sided 99 % bound on the side that could break the target keeps it; missed when the
    bound on the other side breaks it; undecided when the target lies between the two.
    """
    estimate = float(np.mean(values))
    low = one_sided_bound(values, upper=False)
    high = one_sided_bound(values, upper=True)
    bound, other = (low, high) if at_least else (high, low)
    outcome: Outcome
    if not math.isfinite(bound):
        outcome = "undecided"
    elif (bound >= target) if at_least else (bound <= target):
        outcome = "met"
    elif (other < target) if at_least else (other > target):
        outcome = "missed"
    else:
        outcome = "undecided"
    return TargetOutcome(name, target, estimate, bound, other, outcome)


def worst(outcomes: Sequence[Outcome]) -> Outcome:
    """The worst of some target outcomes: missed, then undecided, then met."""
    return min(outcomes, key=OUTCOME_ORDER.index, default="met")


def _fate(gap: float, within: bool, *, better_when_positive: bool) -> Fate:
    if within:
        return "within"
    return "conservative" if (gap > 0) == better_when_positive else "optimistic"


def prediction_fate(
    predicted: Prediction,
    util: Estimate,
    loss: Estimate,
    p99_high_s: float,
    *,
    slack_s: float,
) -> tuple[dict[str, Fate], str]:
    """How each prediction fared: within the simulation's interval, conservative (the simulation
    did better) or optimistic (it did worse), and a sentence for those that were not within.

    Utilization is within when the simulated mean is within :data:`UTILIZATION_TOLERANCE` (or
    its 99 % interval) of the prediction; loss within a factor :data:`LOSS_FACTOR` (or both below
    :data:`LOSS_FLOOR`), each not judged when the engine did not predict it; the predicted delay is
    the full buffer's, a bound, so it can only be within or optimistic (the p99's upper bound
    above it, by more than ``slack_s`` for rounding the scaled buffer).
    """
    fates: dict[str, Fate] = {}
    notes = []
    ci = util.ci99_half_width if math.isfinite(util.ci99_half_width) else 0.0
    u = predicted.utilization  # None: the engine does not predict it for these senders here
    if u is not None:
        gap = util.mean - u
        fates["utilization"] = _fate(
            gap, abs(gap) <= max(UTILIZATION_TOLERANCE, ci), better_when_positive=True
        )
        if fates["utilization"] != "within":
            notes.append(
                f"utilization {util.mean:.1%} vs predicted {u:.1%} "
                f"({'above' if gap > 0 else 'below'} by {abs(gap):.1%})"
            )
    p = predicted.loss_probability  # None: the inputs do not decide the loss (N_b unknown)
    if p is not None:
        loss_ci = loss.ci99_half_width if math.isfinite(loss.ci99_half_width) else 0.0
        lo, hi = loss.mean - loss_ci, loss.mean + loss_ci
        small = loss.mean <= LOSS_FLOOR and p <= LOSS_FLOOR
        within = small or (lo <= p * LOSS_FACTOR and hi >= p / LOSS_FACTOR)
        fates["loss"] = _fate(loss.mean - p, within, better_when_positive=False)
        if not within:
            notes.append(
                f"loss {loss.mean:.2g} vs predicted {p:.2g} (more than a factor {LOSS_FACTOR:g} "
                f"{'below' if loss.mean < p else 'above'})"
            )
    delay_within = not p99_high_s > predicted.queueing_delay_s + slack_s
    fates["delay"] = "within" if delay_within else "optimistic"
    if not delay_within:
        notes.append(
            f"p99 queueing delay up to {p99_high_s * 1e3:.3g} ms, above the predicted bound "
            f"{predicted.queueing_delay_s * 1e3:.3g} ms"
        )
    return fates, "; ".join(notes)


def overall_fate(fates: dict[str, Fate]) -> Fate:
    """Optimistic if any prediction was, else conservative if any was, else within."""
    values = set(fates.values())
    for fate in ("optimistic", "conservative"):
        if fate in values:
            return cast(Fate, fate)
    return "within"


def batch_seed(seed: int, batch: int) -> int:
    """The seed of a verification's ``batch`` of replications: ``seed`` for the first batch, an
    independent one drawn from ``SeedSequence([seed, batch])`` (63 bits) for each extra batch,
    so that the command line and the service run the same extra replications."""
    if batch == 0:
        return seed
    state = np.random.SeedSequence([seed, batch]).generate_state(1, np.uint64)
    return int(state[0]) >> 1


@dataclass
class Plan:
    """What a verification simulates: the sizes, their scaled buffers, the scenario, the seeds.

    ``scenario`` is None when the link cannot be scaled faithfully (``verification`` then
    already holds the answer). The first batch runs ``replications`` per size; each extra
    batch (sizes left undecided only) runs up to ``replications`` more, up to
    ``max_replications`` per size in all.
    """

    link: LinkScenario
    targets: Targets
    rule: str
    sizes: dict[str, int]
    simulated: dict[str, int]
    scaling: Scaling
    scenario: Scenario | None
    replications: int
    seed: int
    max_replications: int = 0
    #: Why the link is not simulated although it scales (e.g. its congestion control is not
    #: simulated yet); empty otherwise.
    not_simulated: str = ""
    access: Access | None = None
    #: The scenario of the sizes in ``slow_labels`` (the slow end of the access rates).
    slow_scenario: Scenario | None = None
    slow_labels: frozenset[str] = frozenset()
    #: False when the user did not give the congestion control (``link`` then names the
    #: candidate the size was found for, :func:`sized_senders`).
    congestion_control_given: bool = True
    #: What the simulation cannot represent (:func:`not_represented`).
    not_represented: tuple[str, ...] = ()

    def scenario_of(self, label: str) -> Scenario:
        """The scenario a size is simulated in."""
        chosen = self.slow_scenario if label in self.slow_labels else self.scenario
        assert chosen is not None
        return chosen

    def groups(self, labels: Sequence[str]) -> list[tuple[Scenario, list[str]]]:
        """``labels`` grouped by the scenario they run in (one simulation job each)."""
        out: list[tuple[Scenario, list[str]]] = []
        for label in labels:
            scenario = self.scenario_of(label)
            same = next((g for s, g in out if s is scenario), None)
            if same is None:
                out.append((scenario, [label]))
            else:
                same.append(label)
        return out

    def batch_replications(self, batch: int) -> int:
        """Runs per size in ``batch`` (0 when the budget is spent)."""
        if batch == 0:
            return self.replications
        done = self.replications * batch
        return max(0, min(self.replications, self.max_replications - done))

    def tasks(self, labels: Sequence[str] | None = None, batch: int = 0) -> list[Task]:
        """One task per (size, replication) of ``batch``, sizes in ``labels``' order (default
        all: half, recommended, double)."""
        assert self.scenario is not None
        seeds = replication_seeds(batch_seed(self.seed, batch), self.batch_replications(batch))
        chosen = list(self.sizes) if labels is None else list(labels)
        return [Task(self.scenario_of(k), self.simulated[k], s) for k in chosen for s in seeds]

    def fast_access_only(self) -> Plan:
        """This plan without the sizes simulated at the slow end of the access rates (for a
        check whose senders reach the port at one speed, as the kernel testbed's)."""
        sizes = {k: v for k, v in self.sizes.items() if k not in self.slow_labels}
        simulated = {k: v for k, v in self.simulated.items() if k not in self.slow_labels}
        return replace(
            self, sizes=sizes, simulated=simulated, slow_scenario=None, slow_labels=frozenset()
        )

    def unfaithful(self) -> Verification:
        """The answer when the link cannot be scaled faithfully."""
        return Verification(
            rule=self.rule,
            scaling=self.scaling,
            scenario={},
            replications=self.replications,
            seed=self.seed,
            max_replications=self.max_replications,
            access=self.access,
            reason=self.not_simulated or f"cannot be scaled faithfully: {self.scaling.reason}",
            not_represented=list(self.not_represented),
        )


def plan(
    link: LinkScenario,
    rec: Recommendation | None,
    targets: Targets | None = None,
    *,
    replications: int = 5,
    seed: int = 1,
    size: tuple[str, int] | None = None,
    max_replications: int | None = None,
) -> Plan:
    """The sizes to simulate (recommended, half, double) on the scaled link.

    ``size`` (rule, buffer_packets), when given, is checked instead of ``rec``'s
    recommendation (module docstring, "A given size"). ``max_replications`` (default
    :data:`DEFAULT_BUDGET_FACTOR` × ``replications``) caps the runs per size when extra
    batches are needed to decide a target.
    """
    rule, size_packets = recommended_size(rec, size)
    given = link.congestion_control is not None
    sizes = {
        "half": max(size_packets // 2, 1),
        "recommended": size_packets,
        "double": 2 * size_packets,
    }
    return plan_sizes(
        sized_senders(link, rec),
        targets,
        rule,
        sizes,
        slow_of={slow_label(label): label for label in sizes},
        replications=replications,
        seed=seed,
        max_replications=max_replications,
        congestion_control_given=given,
    )


def plan_sizes(
    link: LinkScenario,
    targets: Targets | None,
    rule: str,
    sizes: dict[str, int],
    *,
    slow_of: dict[str, str],
    replications: int,
    seed: int,
    max_replications: int | None,
    congestion_control_given: bool = True,
) -> Plan:
    """A plan for the given sizes (label -> packets) of ``rule``'s scaled link.

    ``slow_of`` names the sizes also simulated at the slow end of the access rates when the
    access rate is not given (slow label -> the label of the size it repeats);
    ``congestion_control_given``: whether the user gave the senders' (``link`` then names
    the candidate simulated).
    """
    targets = targets if targets is not None else Targets()
    budget = DEFAULT_BUDGET_FACTOR * replications if max_replications is None else max_replications
    if budget < replications:
        raise ValueError(f"max_replications must be >= replications ({replications}), got {budget}")
    sizes = dict(sizes)
    scaling = scale_link(link, rule)
    scale_buffer = scaling.factor**scaling.buffer_exponent
    simulated = {k: round(v * scale_buffer) for k, v in sizes.items()}
    smallest = min(sizes, key=lambda k: sizes[k])
    if simulated[smallest] < 1 and scaling.faithful:
        what = "half the recommended buffer" if smallest == "half" else f"{sizes[smallest]} packets"
        reason = f"{what} scaled by {scale_buffer:.3g} is below one packet"
        scaling = Scaling(**{**asdict(scaling), "faithful": False, "reason": reason})
    scenario = slow = None
    access = access_assumption(link, scaling)
    not_simulated = simulated_senders_and_port(link)
    pps = scaling.capacity_bps / (8.0 * link.packet_bytes)
    budget_s = max(min(MEASURE_S, 2_000_000 / pps), 5.0)
    if scaling.faithful and not not_simulated:
        scenario = simulated_scenario(
            link, scaling, budget_s=budget_s, access_bps=access.access_bps
        )
        if access.slow_access_bps is not None:
            slow = simulated_scenario(
                link, scaling, budget_s=budget_s, access_bps=access.slow_access_bps
            )
            for label, base in slow_of.items():
                sizes[label] = sizes[base]
                simulated[label] = simulated[base]
    return Plan(
        link,
        targets,
        rule,
        sizes,
        simulated,
        scaling,
        scenario,
        replications,
        seed,
        max_replications=budget,
        not_simulated=f"not simulated: {not_simulated}" if not_simulated else "",
        access=access,
        slow_scenario=slow,
        slow_labels=frozenset(slow_of) if slow is not None else frozenset(),
        congestion_control_given=congestion_control_given,
        not_represented=tuple(
            not_represented(
                link, scaling, budget_s, congestion_control_given=congestion_control_given
            )
        ),
    )


def check_size(
    p: Plan, label: str, size_runs: list[dict[str, float]], model: TrafficModel
) -> SizeCheck:
    """Predicted and simulated figures at one size, its targets judged (module docstring)."""
    link, targets, scaling = p.link, p.targets, p.scaling
    wanted = resolve_targets(targets, model.rtt_s)  # the defaults filled in, as the engine does
    packets = p.sizes[label]
    access_bps = p.scenario_of(label).access_bps
    util = confidence_interval([r["utilization"] for r in size_runs])
    loss = confidence_interval([r["loss_rate"] for r in size_runs])
    delay = sum(r["queue_delay_mean_s"] for r in size_runs) / len(size_runs)
    # A simulated queue of q packets waits q/C' = q/(k·C); the user's queue holds q/k^e packets
    # (the buffer scaled by k^e), which wait q/(k^e·C): a factor k^(1 - e).
    to_user = scaling.factor ** (1.0 - scaling.buffer_exponent)
    p99s = [r["queue_delay_p99_s"] * to_user for r in size_runs]
    predicted = predict(model, targets, packets)
    # Utilization is judged as a fraction of what the traffic can carry (Targets).
    carried = [min(1.0, r["utilization"] / model.max_utilization) for r in size_runs]
    judged = [
        judge_target("utilization", wanted.min_utilization, carried, at_least=True),
        judge_target("loss", wanted.max_loss, [r["loss_rate"] for r in size_runs], at_least=False),
        judge_target("delay", wanted.max_queueing_delay_s, p99s, at_least=False),
    ]
    p99_high = one_sided_bound(p99s, upper=True)
    fates, notes = prediction_fate(
        predicted,
        util,
        loss,
        p99_high if math.isfinite(p99_high) else max(p99s),
        slack_s=2.0 * 8.0 * link.packet_bytes / link.capacity_bps,  # rounding: 2 packets
    )
    verdict = worst([t.outcome for t in judged])
    return SizeCheck(
        label=label,
        buffer_packets=packets,
        simulated_buffer_packets=p.simulated[label],
        access_bps=access_bps,
        predicted=predicted,
        replications=len(size_runs),
        utilization=util.mean,
        utilization_ci99=util.ci99_half_width,
        loss_rate=loss.mean,
        loss_rate_ci99=loss.ci99_half_width,
        queue_delay_mean_s=delay * to_user,
        queue_delay_p99_s=float(np.mean(p99s)),
        targets=judged,
        verdict=verdict,
        prediction=overall_fate(fates),
        prediction_fates=fates,
        reason=_size_reason(judged, notes),
        meets_targets=verdict == "met",
    )


def _target_text(t: TargetOutcome) -> str:
    if t.name == "delay":
        return (
            f"p99 delay {t.estimate * 1e3:.3g} ms (99 % bound {t.bound * 1e3:.3g} ms) vs "
            f"{t.target * 1e3:.3g} ms: {t.outcome}"
        )
    fmt = ".1%" if t.name == "utilization" else ".2g"
    side = "lower" if t.name == "utilization" else "upper"
    return (
        f"{t.name} {t.estimate:{fmt}} ({side} 99 % bound {t.bound:{fmt}}) vs {t.target:{fmt}}: "
        f"{t.outcome}"
    )


def _size_reason(judged: list[TargetOutcome], notes: str) -> str:
    text = "; ".join(_target_text(t) for t in judged if t.outcome != "met") or "every target met"
    return f"{text}. Prediction: {notes}" if notes else text


def assemble(
    p: Plan, runs: dict[str, list[dict[str, float]]], where: str = "in simulation"
) -> Verification:
    """Predicted vs simulated at each size, from each size's runs (measures of RunResult);
    ``where`` the runs were made, as the verdict says it (the kernel testbed's own words)."""
    assert p.scenario is not None
    outcome = Verification(
        rule=p.rule,
        scaling=p.scaling,
        scenario=p.scenario.to_dict(),
        replications=p.replications,
        seed=p.seed,
        max_replications=p.max_replications,
        access=p.access,
        not_represented=list(p.not_represented),
    )
    model = engine_traffic_model(p.link, p.targets)
    checks = [check_size(p, label, runs[label], model) for label in p.sizes]
    outcome.sizes = [c for c in checks if c.label not in p.slow_labels]
    outcome.slow_sizes = [c for c in checks if c.label in p.slow_labels]
    main = next(c for c in outcome.sizes if c.label == "recommended")
    slow = outcome.slow("recommended")
    outcome.verdict = worst([main.verdict, *([slow.verdict] if slow is not None else [])])
    headline = {
        "met": "every target met",
        "missed": "a target missed",
        "undecided": "a target undecided (its 99 % bounds straddle it)",
    }[outcome.verdict]
    ends = ""
    if slow is not None:
        governs = (
            "both ends agree"
            if slow.verdict == main.verdict
            else f"the {'slow' if outcome.verdict == slow.verdict else 'fast'} end governs"
        )
        ends = (
            f" (fast access: {main.verdict}, slow access: {slow.verdict}; {governs})"
            f": with fast access ({main.replications} runs): {main.reason}. With slow access "
            f"({slow.replications} runs): {slow.reason}."
        )
    else:
        ends = f" ({main.replications} runs): {main.reason}."
    access = f" Senders' access: {p.access.reason}." if p.access is not None else ""
    fared: str = main.prediction
    if slow is not None and slow.prediction != main.prediction:
        fared = f"{main.prediction} with fast access, {slow.prediction} with slow access"
    outcome.reason = (
        f"at the recommended {main.buffer_packets} packets, {headline} {where}{ends} The "
        f"prediction was {fared} there. Scaling: {p.scaling.reason}. Senders: "
        f"{senders_text(p.link, p.congestion_control_given)}.{access}"
    )
    # What the check could not represent is its own list (``not_represented``), which the CLI
    # and the form show once, apart: not repeated here.
    return outcome


def senders_text(link: LinkScenario, given: bool) -> str:
    """Which congestion control a check simulated on ``link`` (:func:`sized_senders`'s), and
    why that one; ``given``: whether the user gave it."""
    cc = link.congestion_control
    if given:
        return f"{cc}, the recommendation's congestion control"
    return (
        f"{cc}, the candidate the recommended size is for (the congestion control was not "
        "given: the engine sized for Reno and for CUBIC; the other was not simulated)"
    )


#: Runs one batch: the plan, the labels of the sizes to run and the batch's number; returns the
#: runs' measures in the order of :meth:`Plan.tasks` (size by size, seed by seed).
BatchRunner = Callable[[Plan, list[str], int], list[dict[str, float]]]


def run_batches(p: Plan, run: BatchRunner) -> Verification:
    """The first batch for every size, then extra batches for the undecided sizes until each is
    decided or has ``max_replications`` runs."""
    labels = list(p.sizes)
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
    batch = 0
    while labels and p.batch_replications(batch) > 0:
        n = p.batch_replications(batch)
        results = run(p, labels, batch)
        for i, label in enumerate(labels):
            runs[label].extend(results[i * n : (i + 1) * n])
        outcome = assemble(p, runs)
        labels = outcome.undecided()
        batch += 1
    return outcome


def local_runner(
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    pool: Executor | None = None,
) -> BatchRunner:
    """A :data:`BatchRunner` on the sweep executor (process pool, or Dask when configured;
    ``pool``, an executor kept open across batches, when given); ``progress`` counts the runs of
    every batch so far, an extra batch adding to the total."""
    done = [0]

    def run(p: Plan, labels: list[str], batch: int) -> list[dict[str, float]]:
        tasks = p.tasks(labels, batch)

        def report(finished: int, total: int) -> None:
            if progress is not None:
                progress(done[0] + finished, done[0] + total)

        out = run_tasks(tasks, scheduler=scheduler, workers=workers, progress=report, pool=pool)
        done[0] += len(tasks)
        return out

    return run


def verify(
    link: LinkScenario,
    rec: Recommendation | None,
    targets: Targets | None = None,
    *,
    replications: int = 5,
    seed: int = 1,
    size: tuple[str, int] | None = None,
    max_replications: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
) -> Verification:
    """Simulate the recommended size, half and double it, judge the targets at each and compare
    with the predictions.

    Parameters
    ----------
    link : LinkScenario
        The user's link, as given to :func:`models.recommend.recommend`.
    rec : Recommendation or None
        The engine's answer for ``link`` and ``targets``; None when ``size`` is given.
    targets : Targets, optional
        The targets the recommendation was made for (defaults as the engine's).
    replications, seed : independent runs per size in the first batch, and their seed.
    size : (str, int), optional
        A rule name and a buffer, packets, to check instead of ``rec``'s recommended size
        (module docstring, "A given size").
    max_replications : int, optional
        Most runs per size when extra batches decide a straddling target (module docstring).
    workers, scheduler, progress : see :func:`validation.sweeps.run_tasks`.
    """
    p = plan(
        link,
        rec,
        targets,
        replications=replications,
        seed=seed,
        size=size,
        max_replications=max_replications,
    )
    if p.scenario is None:
        return p.unfaithful()
    return run_batches(p, local_runner(workers=workers, scheduler=scheduler, progress=progress))
