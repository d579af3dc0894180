"""Raw counters of a run and their reduction to a :class:`RunResult`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from validation.simulator.layout import FlowCount
from validation.simulator.parameters import BURST_BINS, RunParameters
from validation.simulator.results import GroupResult, PacketTrace, RunResult, SampledTrace, jain

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class RawCounters:
    """What an implementation counts; everything but the totals is after the warm-up."""

    busy_s: float
    arrivals: int
    drops: int
    arrivals_total: int
    timeouts: int
    delay_count: int
    delay_sum_s: float
    delay_sumsq_s2: float
    delay_hist: FloatArray
    occupancy_s: FloatArray
    burst_hist: IntArray
    interval_bits: FloatArray
    delivered_payload_packets: IntArray  # per flow slot
    sent: int
    delivered: int
    dropped_tcp: int
    in_flight: int
    flows_completed: int
    flows_blocked: int
    per_flow: FloatArray  # (flows + 1, len(FlowCount)): each slot's counts, background last
    aqm_drops: int = 0  # of drops, those the AQM chose
    samples: SampledTrace | None = None
    packet_trace: PacketTrace | None = None
    marks: int = 0  # packets marked CE after the warm-up

    @classmethod
    def empty(cls, params: RunParameters) -> RawCounters:
        """All counters at zero for a run with ``params``."""
        return cls(
            busy_s=0.0,
            arrivals=0,
            drops=0,
            arrivals_total=0,
            timeouts=0,
            delay_count=0,
            delay_sum_s=0.0,
            delay_sumsq_s2=0.0,
            delay_hist=np.zeros(params.delay_bins),
            occupancy_s=np.zeros(params.occupancy_bins),
            burst_hist=np.zeros(BURST_BINS, dtype=np.int64),
            interval_bits=np.zeros(params.intervals),
            delivered_payload_packets=np.zeros(params.flows, dtype=np.int64),
            sent=0,
            delivered=0,
            dropped_tcp=0,
            in_flight=0,
            flows_completed=0,
            flows_blocked=0,
            per_flow=np.zeros((params.flows + 1, len(FlowCount))),
        )


def to_result(params: RunParameters, raw: RawCounters, wall_s: float, engine: str) -> RunResult:
    """Reduce raw counters to the measures of a :class:`RunResult`."""
    sc = params.scenario
    measured_s = sc.duration_s - sc.warmup_s
    per_flow = (raw.delivered_payload_packets * params.payload_bits / measured_s).astype(np.float64)
    goodput = float(np.sum(per_flow))
    if raw.delay_count > 0:
        mean = raw.delay_sum_s / raw.delay_count
        var = max(raw.delay_sumsq_s2 / raw.delay_count - mean * mean, 0.0)
        p99 = _histogram_quantile(raw.delay_hist, params.delay_bin_s, 0.99)
    else:
        mean = var = p99 = float("nan")
    occupancy = raw.occupancy_s / measured_s
    interval_s = np.full(params.intervals, sc.interval_s)
    interval_s[-1] = measured_s - sc.interval_s * (params.intervals - 1)
    return RunResult(
        buffer_packets=params.buffer_packets,
        seed=params.seed,
        scenario=sc,
        utilization=min(raw.busy_s / measured_s, 1.0),
        goodput_bps=goodput,
        loss_rate=raw.drops / raw.arrivals if raw.arrivals else 0.0,
        aqm_drops=int(raw.aqm_drops),
        overflow_drops=int(raw.drops - raw.aqm_drops),
        queue_delay_mean_s=float(mean),
        queue_delay_std_s=float(np.sqrt(var)),
        queue_delay_p99_s=float(p99),
        mean_queue_packets=float(np.dot(np.arange(occupancy.size), occupancy)),
        bottleneck_packets=int(raw.arrivals_total),
        timeouts=int(raw.timeouts),
        jain_index=jain(per_flow),
        per_flow_throughput_bps=per_flow.astype(np.float64),
        queue_distribution=occupancy,
        loss_burst_lengths=raw.burst_hist.copy(),
        interval_throughput_bps=raw.interval_bits / np.maximum(interval_s, 1e-300),
        packets_sent=int(raw.sent),
        packets_delivered=int(raw.delivered),
        packets_dropped=int(raw.dropped_tcp),
        packets_in_flight=int(raw.in_flight),
        flows_completed=int(raw.flows_completed),
        flows_blocked=int(raw.flows_blocked),
        marks=int(raw.marks),
        mark_rate=raw.marks / raw.arrivals if raw.arrivals else 0.0,
        groups=_groups(params, raw, per_flow, measured_s),
        wall_s=wall_s,
        samples=raw.samples,
        packet_trace=raw.packet_trace,
        engine=engine,
    )


def _groups(
    params: RunParameters, raw: RawCounters, per_flow_bps: FloatArray, measured_s: float
) -> list[GroupResult]:
    """Each group's measures: sums over its flow slots of what the slots counted."""
    capacity_bps = params.scenario.capacity_bps
    out = []
    for k, group in enumerate(params.groups):
        rows = slice(int(params.first_flow[k]), int(params.first_flow[k + 1]))
        counts = raw.per_flow[rows].sum(axis=0)
        goodput = per_flow_bps[rows]
        arrivals = float(counts[FlowCount.ARRIVALS])
        throughput_bps = 8.0 * float(counts[FlowCount.DEPARTED_BYTES]) / measured_s
        out.append(
            GroupResult(
                name=group.name,
                flows=int(group.flows),
                traffic=group.traffic,
                goodput_bps=float(np.sum(goodput)),
                throughput_bps=throughput_bps,
                utilization_share=throughput_bps / capacity_bps,
                loss_rate=float(counts[FlowCount.DROPS]) / arrivals if arrivals else 0.0,
                bottleneck_arrivals=int(arrivals),
                timeouts=int(counts[FlowCount.TIMEOUTS]),
                aqm_drops=int(counts[FlowCount.AQM_DROPS]),
                overflow_drops=int(counts[FlowCount.DROPS] - counts[FlowCount.AQM_DROPS]),
                flows_completed=int(counts[FlowCount.COMPLETED]),
                jain_index=jain(goodput),
                marks=int(counts[FlowCount.MARKS]),
                mark_rate=float(counts[FlowCount.MARKS]) / arrivals if arrivals else 0.0,
            )
        )
    return out


def _histogram_quantile(hist: FloatArray, bin_s: float, q: float) -> float:
    """Quantile of a histogram with bins [k·bin_s, (k+1)·bin_s), linear within a bin."""
    total = float(np.sum(hist))
    cum = np.cumsum(hist)
    k = int(np.searchsorted(cum, q * total))
    below = float(cum[k - 1]) if k > 0 else 0.0
    inside = float(hist[k])
    frac = (q * total - below) / inside if inside > 0 else 0.0
    return (k + frac) * bin_s
