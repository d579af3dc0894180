"""From trace estimates to a BSCL buffer (004 Fig. 4), and to the link its check simulates.

The check itself is the recommendation checker's (:func:`validation.verify.verify`, given the
BSCL size with ``size=("bscl", packets)``): :func:`link_from_estimates` only says what link
and targets the trace's estimates describe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.bscl import bscl_buffer
from models.recommend import LinkScenario, Targets
from validation.traces.estimate import Interval, TraceEstimates


@dataclass
class TraceSizing:
    """The BSCL buffer the estimates give, and its smallest and largest over their intervals."""

    buffer_packets: float
    buffer_bytes: float
    governing_constraint: str
    loss_sync_q: float
    buffer_packets_low: float
    buffer_packets_high: float
    inputs: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "buffer_packets": self.buffer_packets,
            "buffer_bytes": self.buffer_bytes,
            "governing_constraint": self.governing_constraint,
            "loss_sync_q": self.loss_sync_q,
            "buffer_packets_range": [self.buffer_packets_low, self.buffer_packets_high],
            "inputs": self.inputs,
        }


def size_from_estimates(
    est: TraceEstimates, max_loss: float = 0.01, *, use_median_burst: bool = False
) -> TraceSizing:
    """BSCL (004 Fig. 4, eqs. 13-26) with N_b, C_e/C, T_e, M and L̄ measured on the trace.

    The measured mean loss burst L̄ is used in q (004 §VI: "If a loss-event trace is
    available, then the average or median size of a loss burst should be used directly");
    without bursts α = 0.55. The range is BSCL's smallest and largest value over the 95 %
    intervals of N_b, T_e, C_e/C and L̄ taken together (:func:`_range`): what the trace
    allows the buffer to be, which is wider than an interval of the buffer itself. 004 §VII
    says which end to watch: an N_b underestimated by 20 % "does violate the loss rate
    constraint by up to 0.5%", while an overestimate only buys more buffer.

    Raises
    ------
    ValueError
        If the trace gave no LBP flow or no RTT (BSCL needs N_b >= 1 and T_e).
    """
    n_b = est.bottlenecked_flows.value
    te = est.effective_rtt_s.value
    if not n_b >= 1 or not math.isfinite(te):
        raise ValueError(
            "the trace shows no flow bottlenecked at this link (N_b = 0) or no RTT sample: "
            "BSCL needs both"
        )
    bursts = est.loss_burst_median_packets if use_median_burst else est.loss_burst_mean_packets
    burst = bursts.value if math.isfinite(bursts.value) and bursts.value > 0 else None
    fraction = min(max(est.bottlenecked_share.value, 1e-6), 1.0)
    mss = est.packet_bytes if math.isfinite(est.packet_bytes) else 1500.0

    result = bscl_buffer(
        est.capacity_bps,
        fraction,
        n_b,
        mss,
        max_loss,
        effective_rtt_s=te,
        loss_burst_packets=burst,
    )
    low, high = _range(est, fraction, None if burst is None else bursts, mss, max_loss)
    return TraceSizing(
        buffer_packets=float(result.buffer_packets),
        buffer_bytes=float(result.buffer_bytes),
        governing_constraint=str(result.governing_constraint),
        loss_sync_q=float(result.loss_sync_q),
        buffer_packets_low=low,
        buffer_packets_high=high,
        inputs={
            "capacity_bps": est.capacity_bps,
            "bottlenecked_share": fraction,
            "bottlenecked_flows": n_b,
            "effective_rtt_s": te,
            "packet_bytes": mss,
            "max_loss": max_loss,
            "loss_burst_packets": burst if burst is not None else float("nan"),
        },
    )


#: Points of each interval at which BSCL is evaluated for the range: T_e gets more, because
#: the buffer is max{B_ρ, B_p} and the two terms move in opposite directions with T_e (eqs.
#: 16, 21), so its smallest value can lie inside the interval, where they cross.
RANGE_POINTS = 9
RANGE_POINTS_RTT = 65
#: A T_e interval's low end may be 0 (LBP flows without an RTT sample); BSCL needs T_e > 0.
MIN_RANGE_RTT_S = 1e-6


def _span(low: float, high: float, value: float, points: int, floor: float) -> np.ndarray:
    """``points`` values from ``low`` to ``high`` (at least ``floor``) and the value itself;
    the value alone when an end is unknown."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return np.array([value])
    return np.unique(np.append(np.linspace(max(low, floor), max(high, floor), points), value))


def _range(
    est: TraceEstimates,
    fraction: float,
    bursts: Interval | None,
    mss: float,
    max_loss: float,
) -> tuple[float, float]:
    """BSCL's smallest and largest buffer (packets) over the box of the estimates' intervals
    (``bursts``: the loss burst's, None when BSCL takes α instead)."""
    flows = est.bottlenecked_flows
    rtt = est.effective_rtt_s
    share = est.bottlenecked_share
    n_b = _span(flows.low, flows.high, flows.value, RANGE_POINTS, 1.0)
    te = _span(rtt.low, rtt.high, rtt.value, RANGE_POINTS_RTT, MIN_RANGE_RTT_S)
    ce = np.clip(_span(share.low, share.high, fraction, RANGE_POINTS, 1e-6), 1e-6, 1.0)
    grids: list[np.ndarray] = [n_b, te, ce]
    if bursts is not None:
        grids.append(_span(bursts.low, bursts.high, bursts.value, RANGE_POINTS, 1e-9))
    mesh = np.meshgrid(*grids, indexing="ij")
    packets = np.asarray(
        bscl_buffer(
            est.capacity_bps,
            mesh[2],
            mesh[0],
            mss,
            max_loss,
            effective_rtt_s=mesh[1],
            loss_burst_packets=mesh[3] if len(mesh) > 3 else None,
        ).buffer_packets
    )
    return float(packets.min()), float(packets.max())


def link_from_estimates(
    est: TraceEstimates, max_loss: float = 0.01
) -> tuple[LinkScenario, Targets]:
    """The link and targets the trace's estimates describe, for the engine and its check.

    The link has the trace's capacity C, its N flows, ``bottlenecked_flows`` = N_b (rounded,
    at least 1), ``bottlenecked_share`` = C_e/C, one RTT T_e (the harmonic mean of the LBP
    flows' RTTs, 004 eq. 11, which is what BSCL sizes for; :func:`validation.verify.verify`
    spreads one RTT by ± 10 %, whereas a list would be spread uniformly between its extremes,
    whose centre is not that harmonic mean) and the LBP flows' packet size. The congestion
    control is Reno: BSCL's model halves the window on a loss (004 §III), and a trace does not
    say what the senders run. The targets: the loss target p̂ only (the others take the
    engine's defaults).

    Raises
    ------
    ValueError
        If the trace gave no LBP flow or no RTT (as :func:`size_from_estimates`).
    """
    n_b = est.bottlenecked_flows.value
    te = est.effective_rtt_s.value
    if not n_b >= 1 or not math.isfinite(te) or te <= 0:
        raise ValueError(
            "the trace shows no flow bottlenecked at this link (N_b = 0) or no RTT sample: "
            "the check needs both"
        )
    bottlenecked = max(round(n_b), 1)
    link = LinkScenario(
        capacity_bps=est.capacity_bps,
        rtts_s=(te,),
        flows=max(est.flows, bottlenecked),
        packet_bytes=est.packet_bytes if math.isfinite(est.packet_bytes) else 1500.0,
        bottlenecked_flows=bottlenecked,
        bottlenecked_share=min(max(est.bottlenecked_share.value, 1e-6), 1.0),
        congestion_control="reno",
    )
    return link, Targets(max_loss=max_loss)
