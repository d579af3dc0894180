"""From trace estimates to a BSCL buffer (004 Fig. 4), and a simulation check of that size."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from models.bscl import bscl_buffer
from validation.simulator import Scenario, simulate
from validation.traces.estimate import TraceEstimates

#: TCP/IP header bytes assumed inside the trace's packet size when the check simulates it.
HEADER_BYTES = 52


@dataclass
class TraceSizing:
    """The BSCL buffer the estimates give, and at the ends of the N_b interval."""

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
    without bursts α = 0.55. The range re-evaluates BSCL at the ends of the N_b interval.

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
    burst = (
        est.loss_burst_median_packets if use_median_burst else est.loss_burst_mean_packets
    ).value
    fraction = min(max(est.bottlenecked_share.value, 1e-6), 1.0)
    mss = est.packet_bytes if math.isfinite(est.packet_bytes) else 1500.0

    def at(flows: float) -> Any:
        return bscl_buffer(
            est.capacity_bps,
            fraction,
            flows,
            mss,
            max_loss,
            effective_rtt_s=te,
            loss_burst_packets=burst if math.isfinite(burst) and burst > 0 else None,
        )

    result = at(n_b)
    low = at(max(est.bottlenecked_flows.low, 1.0))
    high = at(max(est.bottlenecked_flows.high, 1.0))
    return TraceSizing(
        buffer_packets=float(result.buffer_packets),
        buffer_bytes=float(result.buffer_bytes),
        governing_constraint=str(result.governing_constraint),
        loss_sync_q=float(result.loss_sync_q),
        buffer_packets_low=float(min(low.buffer_packets, high.buffer_packets)),
        buffer_packets_high=float(max(low.buffer_packets, high.buffer_packets)),
        inputs={
            "capacity_bps": est.capacity_bps,
            "bottlenecked_share": fraction,
            "bottlenecked_flows": n_b,
            "effective_rtt_s": te,
            "packet_bytes": mss,
            "max_loss": max_loss,
            "loss_burst_packets": burst if math.isfinite(burst) else float("nan"),
        },
    )


def verify_size(
    est: TraceEstimates,
    buffer_packets: int,
    *,
    seed: int = 1,
    duration_s: float = 60.0,
    warmup_s: float = 10.0,
) -> dict[str, Any]:
    """Simulate the estimated link at ``buffer_packets``: N_b persistent flows with RTT T_e
    and Poisson background for the non-LBP share (1 - C_e/C); loss and utilization.

    This is the trace command's own check until the recommendation checker of the validation
    harness can take a trace's estimates; it simulates the link at full scale.
    """
    mss = int(est.packet_bytes) if math.isfinite(est.packet_bytes) else 1500
    scenario = Scenario(
        capacity_bps=est.capacity_bps,
        flows=int(est.bottlenecked_flows.value),
        rtt_s=est.effective_rtt_s.value,
        packet_bytes=max(mss - HEADER_BYTES, 1),
        header_bytes=HEADER_BYTES,
        max_window_packets=10_000,
        delayed_ack=2,
        initial_window_packets=10,
        start_spread_s=warmup_s,
        background_load=min(max(1.0 - est.bottlenecked_share.value, 0.0), 0.9),
        duration_s=duration_s,
        warmup_s=warmup_s,
    )
    run = simulate(scenario, max(int(buffer_packets), 1), seed)
    return {
        "buffer_packets": max(int(buffer_packets), 1),
        "seed": seed,
        "loss_rate": run.loss_rate,
        "utilization": run.utilization,
        "queue_delay_mean_s": run.queue_delay_mean_s,
        "scenario": scenario.to_dict(),
    }
