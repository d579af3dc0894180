"""What a check by simulation could not represent of the user's link, in plain words.

A check (:mod:`validation.verify`) simulates a scaled copy of the link with long-lived TCP
flows. Its verdict holds for what it simulated; :func:`not_represented` lists where that
differs from the link the user described, so that a verdict is never read as covering what
was not simulated:

- the measurement's length in round trips (a long-RTT link, e.g. a GEO satellite at 600 ms,
  gets only a few dozen RTTs in the measured seconds);
- the scaling of the capacity and of the number of flows (000 §3.4's rule: per-flow rate,
  RTTs and windows kept), and what it changes (the number of flows that multiplex);
- the congestion control, when not given (one candidate simulated);
- traffic and senders the simulator does not model as given: non-bottlenecked traffic
  (Poisson background), a given offered load (flow arrivals and short transfers), incast
  bursts, a switch fabric's input queues, an optical buffer, a per-flow peak rate, a list of
  RTTs (a uniform spread), windows above the simulator's largest.
"""

from __future__ import annotations

from typing import Protocol

from models.recommend import LinkScenario

#: Fewer round trips than this in the measured seconds are listed as a limitation: a Reno or
#: CUBIC flow's sawtooth lasts tens of RTTs, so a few dozen RTTs hold only a few cycles.
MIN_MEASURED_RTTS = 100
#: Largest congestion window the simulator's flows take, packets.
MAX_SIMULATED_WINDOW = 65_536


class ScalingLike(Protocol):
    """The fields of :class:`validation.verify.Scaling` read here."""

    @property
    def factor(self) -> float: ...
    @property
    def capacity_bps(self) -> float: ...
    @property
    def flows(self) -> int: ...
    @property
    def buffer_exponent(self) -> float: ...


def _rate(bps: float) -> str:
    return f"{bps / 1e9:.4g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:.4g} Mb/s"


def _measurement(link: LinkScenario, measure_s: float) -> list[str]:
    longest = max(link.rtts_s)
    trips = measure_s / longest
    if trips >= MIN_MEASURED_RTTS:
        return []
    return [
        f"the measurement spans {measure_s:g} s, only {trips:.0f} round trips of the longest "
        f"flow ({longest * 1e3:g} ms), fewer than {MIN_MEASURED_RTTS}: slow effects (a Reno or "
        "CUBIC sawtooth lasting tens of RTTs, recovery from timeouts) are seen a few times at "
        "most, so the intervals may understate how much the figures vary over a longer period"
    ]


def _scaling(link: LinkScenario, scaling: ScalingLike) -> list[str]:
    if scaling.factor >= 1.0:
        return []
    delays = (
        ""
        if scaling.buffer_exponent == 1.0
        else f"; queueing delays are converted back to the user's link (x {scaling.factor:.3g}"
        f"^{1.0 - scaling.buffer_exponent:g})"
    )
    return [
        f"the link was scaled down by {scaling.factor:.3g} to be simulated "
        f"({_rate(link.capacity_bps)} with {link.flows:,} flows became "
        f"{_rate(scaling.capacity_bps)} with {scaling.flows:,}): {scaling.flows:,} simulated "
        f"flows stand for {link.flows:,}, each keeping its rate, RTTs and window, and buffers "
        f"were scaled by {scaling.factor:.3g}^{scaling.buffer_exponent:g}, but what depends on "
        "the number of flows itself (how much the sum of their windows varies, how far they "
        f"fall into step) is that of {scaling.flows:,} flows" + delays
    ]


def _senders(link: LinkScenario, congestion_control_given: bool) -> list[str]:
    out = []
    if not congestion_control_given:
        out.append(
            f"the congestion control was not given: only {link.congestion_control} (the "
            "candidate the size is for) was simulated, not every sender the link may carry"
        )
    if link.peak_rate_bps is not None:
        out.append(
            f"the largest rate of one flow given ({_rate(link.peak_rate_bps)}) is not simulated "
            "as such: a simulated flow is limited by its access link and window only"
        )
    if link.max_window_packets is not None and link.max_window_packets > MAX_SIMULATED_WINDOW:
        out.append(
            f"windows of {link.max_window_packets:,.0f} packets are capped at "
            f"{MAX_SIMULATED_WINDOW:,} in simulation"
        )
    return out


def _traffic(link: LinkScenario) -> list[str]:
    out = []
    if link.load is not None:
        out.append(
            f"the offered load ρ = {link.load:g} is not simulated: the flows run as persistent "
            "TCP flows, not as flows arriving at random and ending (003's flow-level model)"
        )
    share = link.bottlenecked_share
    if share is not None and link.bottlenecked_flows is not None and share < 1.0:
        out.append(
            f"the {1.0 - share:.0%} of the capacity not carried by the bottlenecked flows is "
            "simulated as Poisson packet arrivals, not as real flows: real traffic at high load "
            "can be burstier than Poisson"
        )
    if len(set(link.rtts_s)) > 2:
        out.append(
            f"the {len(link.rtts_s)} RTTs given are simulated as a uniform range "
            f"{min(link.rtts_s) * 1e3:g}-{max(link.rtts_s) * 1e3:g} ms, not as that exact mix"
        )
    if link.incast_senders is not None:
        out.append(
            f"the synchronized fan-in burst of the {link.incast_senders:,} incast senders is "
            "not simulated: the check covers the long-lived flows only"
        )
    if link.input_queued:
        out.append("the switch's input queues (CIOQ) are not simulated: an output queue is")
    if link.medium == "optical":
        out.append("the optical buffer's delay lines are not simulated: an electronic FIFO is")
    if link.aqm == "dualq":
        queue = "L4S" if link.congestion_control == "dctcp" else "Classic"
        out.append(
            f"DualQ is simulated with one class of traffic, the link's senders in its {queue} "
            "queue: the other queue, the scheduler between the two and the coupling of "
            "Classic and L4S flows are not"
        )
    return out


def not_represented(
    link: LinkScenario,
    scaling: ScalingLike,
    measure_s: float,
    *,
    congestion_control_given: bool,
) -> list[str]:
    """What a check of ``link``, measured for ``measure_s`` seconds on ``scaling``'s link, could
    not represent, one plain sentence each (module docstring); empty when nothing."""
    return [
        *_measurement(link, measure_s),
        *_scaling(link, scaling),
        *_senders(link, congestion_control_given),
        *_traffic(link),
    ]
