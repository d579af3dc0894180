"""Results of simulator runs: one run (:class:`RunResult`) and replications with CIs."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from models.provenance import software_versions
from validation.simulator.scenario import Scenario

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Scalar measures that replications average and give confidence intervals for.
SCALAR_MEASURES = (
    "utilization",
    "goodput_bps",
    "loss_rate",
    "queue_delay_mean_s",
    "queue_delay_std_s",
    "queue_delay_p99_s",
    "mean_queue_packets",
    "jain_index",
    "timeouts",
    "bottleneck_packets",
    "marks",
    "mark_rate",
    "aqm_drops",
    "overflow_drops",
    "wall_s",
)


@dataclass
class PacketTrace:
    """Departures and drops at the bottleneck over the whole run (warm-up included), in time order.

    Attributes
    ----------
    time_s : for a departure, the end of its transmission on the bottleneck (the moment its
        last bit leaves, which is when the next packet's transmission can start); for a drop,
        the moment the packet arrived at the full buffer, s.
    flow : the flow slot the packet belongs to, 0 .. flows - 1 for TCP data packets (with
        closed-loop users or Poisson flows a slot carries one transfer after another). Poisson
        background packets (``background_load``) have ``flow == scenario.flows``; in open-loop
        mode every packet has ``flow == 0`` (``scenario.tcp_flows``, the number of TCP slots).
    size_bytes : bytes on the wire, header included (``packet_bytes + header_bytes`` for TCP
        data packets; exponential open-loop sizes rounded to whole bytes).
    dropped : True for a drop, False for a departure.
    """

    time_s: FloatArray
    flow: IntArray
    size_bytes: IntArray
    dropped: npt.NDArray[np.bool_]
    transfer: IntArray | None = None

    def flow_keys(self) -> list[str]:
        """Each row's flow as a capture would name it: the slot, and ``slot.k`` for the slot's
        k-th later transfer (a closed-loop user's or a Poisson group's next flow is a new
        connection, a new 5-tuple, in a real trace)."""
        flows = self.flow.tolist()
        if self.transfer is None:
            return [str(f) for f in flows]
        return [
            str(f) if k == 0 else f"{f}.{k}"
            for f, k in zip(flows, self.transfer.tolist(), strict=True)
        ]

    def to_dict(self) -> dict[str, list[Any]]:
        """Columns as lists (``transfer`` too when the run recorded it)."""
        out = {
            "time_s": self.time_s.tolist(),
            "flow": self.flow.tolist(),
            "size_bytes": self.size_bytes.tolist(),
            "dropped": self.dropped.tolist(),
        }
        if self.transfer is not None:
            out["transfer"] = self.transfer.tolist()
        return out


def transfer_numbers(flow: IntArray, epoch: IntArray, tcp_flows: int) -> IntArray:
    """Each trace row's transfer number within its slot (0, 1, ...; 0 for background rows).

    ``epoch`` is the slot's transfer counter modulo ``EPOCHS`` when the row was written; every
    transfer sends at least one packet through the bottleneck, so a change of it between two
    rows of a slot is one new transfer (the modulus never hides one).
    """
    out = np.zeros(flow.size, dtype=np.int64)
    tcp = np.flatnonzero(flow < tcp_flows)
    if tcp.size == 0:
        return out
    order = tcp[np.argsort(flow[tcp], kind="stable")]
    f, e = flow[order], epoch[order]
    new = np.zeros(order.size, dtype=np.int64)
    new[1:] = (f[1:] == f[:-1]) & (e[1:] != e[:-1])
    count = np.cumsum(new)
    first = np.ones(order.size, dtype=np.bool_)
    first[1:] = f[1:] != f[:-1]
    base = np.maximum.accumulate(np.where(first, count, 0))
    out[order] = count - base
    return out


@dataclass
class SampledTrace:
    """Queue occupancy and the traced flows' cwnd, sampled every ``sample_interval_s``."""

    time_s: FloatArray
    queue_packets: IntArray
    cwnd_packets: FloatArray  # shape (samples, traced flows)

    def to_dict(self) -> dict[str, list[Any]]:
        """Columns as lists."""
        return {
            "time_s": self.time_s.tolist(),
            "queue_packets": self.queue_packets.tolist(),
            "cwnd_packets": self.cwnd_packets.tolist(),
        }


@dataclass
class GroupResult:
    """Measures of one flow group after the warm-up (see :class:`FlowGroup`).

    Attributes
    ----------
    name : the group's name.
    flows : its flow slots.
    traffic : its traffic kind.
    goodput_bps : payload its flows delivered in order to their receivers, bit/s.
    throughput_bps : its bits that left the bottleneck (headers and retransmissions
        included), bit/s.
    utilization_share : throughput_bps / capacity_bps: its share of the bottleneck; the
        shares of all groups and the background add up to the utilization.
    loss_rate : fraction of its bottleneck arrivals dropped (dimensionless).
    bottleneck_arrivals : its packets that reached the bottleneck.
    timeouts : its retransmission timeouts.
    flows_completed : its transfers acknowledged in full.
    jain_index : Jain's fairness index of its flows' goodputs (dimensionless).
    marks : its packets the port marked CE (ECN).
    mark_rate : fraction of its bottleneck arrivals marked CE (dimensionless).
    aqm_drops : its packets the AQM (CoDel, PIE, DualQ) dropped.
    overflow_drops : its packets dropped because the buffer was full.
    """

    name: str
    flows: int
    traffic: str
    goodput_bps: float
    throughput_bps: float
    utilization_share: float
    loss_rate: float
    bottleneck_arrivals: int
    timeouts: int
    flows_completed: int
    jain_index: float
    marks: int = 0
    mark_rate: float = 0.0
    aqm_drops: int = 0
    overflow_drops: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of every measure."""
        safe: dict[str, Any] = _json_safe(asdict(self))
        return safe


#: Scalar measures of a group that replications average and give confidence intervals for.
GROUP_MEASURES = (
    "goodput_bps",
    "throughput_bps",
    "utilization_share",
    "loss_rate",
    "timeouts",
    "flows_completed",
    "jain_index",
    "marks",
    "mark_rate",
    "aqm_drops",
    "overflow_drops",
)


def jain(values: FloatArray) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²) of ``values`` (NaN if all are zero or none)."""
    if values.size and np.sum(values**2) > 0:
        return float(np.sum(values) ** 2 / (values.size * np.sum(values**2)))
    return float("nan")


@dataclass
class RunResult:
    """Measures of one run after the warm-up, with the seed and scenario that produced it.

    Attributes
    ----------
    utilization : busy fraction of the bottleneck (dimensionless).
    goodput_bps : payload delivered in order to the receivers, bit/s.
    loss_rate : fraction of bottleneck arrivals dropped (dimensionless), by the AQM or the full
        buffer.
    aqm_drops : packets the AQM (CoDel and DualQ at dequeue, PIE at enqueue) dropped after the
        warm-up.
    overflow_drops : packets dropped after the warm-up because the buffer was full.
    queue_delay_mean_s, queue_delay_std_s, queue_delay_p99_s : waiting time in the buffer
        before transmission starts, of the packets that left the bottleneck, s.
    mean_queue_packets : time-average occupancy, the packet in transmission included.
    bottleneck_packets : packets that arrived at the bottleneck over the whole run.
    timeouts : retransmission timeouts after the warm-up.
    jain_index : Jain's fairness index of the per-flow goodputs (dimensionless).
    per_flow_throughput_bps : goodput of each flow slot, bit/s.
    queue_distribution : time fraction with k packets at the bottleneck, k = 0, 1, ...
    loss_burst_lengths : counts of runs of consecutive drops of length 1, 2, ... (the last
        entry counts longer runs too).
    interval_throughput_bps : bottleneck departures per interval of ``interval_s``, bit/s.
    packets_sent, packets_delivered, packets_dropped, packets_in_flight : TCP data packets
        over the whole run; sent = delivered + dropped + in flight at the end.
    marks : packets the port marked CE (ECN) after the warm-up.
    mark_rate : fraction of bottleneck arrivals marked CE (dimensionless).
    groups : the measures of each flow group (one group when the scenario has no groups).
    software_versions : the versions of bufsize, numpy, scipy and numba that computed it.
    """

    buffer_packets: int
    seed: int
    scenario: Scenario
    utilization: float
    goodput_bps: float
    loss_rate: float
    queue_delay_mean_s: float
    queue_delay_std_s: float
    queue_delay_p99_s: float
    mean_queue_packets: float
    bottleneck_packets: int
    timeouts: int
    jain_index: float
    per_flow_throughput_bps: FloatArray
    queue_distribution: FloatArray
    loss_burst_lengths: IntArray
    interval_throughput_bps: FloatArray
    packets_sent: int
    packets_delivered: int
    packets_dropped: int
    packets_in_flight: int
    flows_completed: int
    flows_blocked: int
    marks: int = 0
    mark_rate: float = 0.0
    aqm_drops: int = 0
    overflow_drops: int = 0
    groups: list[GroupResult] = field(default_factory=list)
    wall_s: float = 0.0
    samples: SampledTrace | None = None
    packet_trace: PacketTrace | None = None
    engine: str = "compiled"
    software_versions: dict[str, str] = field(default_factory=software_versions)

    @property
    def goodput_fraction(self) -> float:
        """Goodput as a fraction of the bottleneck capacity (dimensionless)."""
        return self.goodput_bps / self.scenario.capacity_bps

    def to_dict(self, *, traces: bool = True) -> dict[str, Any]:
        """JSON-able dict of every measure, the seed and the scenario."""
        out: dict[str, Any] = {
            "buffer_packets": self.buffer_packets,
            "seed": self.seed,
            "engine": self.engine,
            "utilization": self.utilization,
            "goodput_bps": self.goodput_bps,
            "loss_rate": self.loss_rate,
            "queue_delay_mean_s": self.queue_delay_mean_s,
            "queue_delay_std_s": self.queue_delay_std_s,
            "queue_delay_p99_s": self.queue_delay_p99_s,
            "mean_queue_packets": self.mean_queue_packets,
            "bottleneck_packets": self.bottleneck_packets,
            "timeouts": self.timeouts,
            "jain_index": self.jain_index,
            "per_flow_throughput_bps": self.per_flow_throughput_bps.tolist(),
            "queue_distribution": self.queue_distribution.tolist(),
            "loss_burst_lengths": self.loss_burst_lengths.tolist(),
            "interval_throughput_bps": self.interval_throughput_bps.tolist(),
            "packets_sent": self.packets_sent,
            "packets_delivered": self.packets_delivered,
            "packets_dropped": self.packets_dropped,
            "packets_in_flight": self.packets_in_flight,
            "flows_completed": self.flows_completed,
            "flows_blocked": self.flows_blocked,
            "marks": self.marks,
            "mark_rate": self.mark_rate,
            "aqm_drops": self.aqm_drops,
            "overflow_drops": self.overflow_drops,
            "groups": [group.to_dict() for group in self.groups],
            "wall_s": self.wall_s,
            "scenario": self.scenario.to_dict(),
            "software_versions": dict(self.software_versions),
        }
        if traces:
            out["samples"] = None if self.samples is None else self.samples.to_dict()
            out["packet_trace"] = None if self.packet_trace is None else self.packet_trace.to_dict()
        safe: dict[str, Any] = _json_safe(out)
        return safe


@dataclass
class Estimate:
    """Mean of a measure over replications and the half-width of its 99% CI."""

    mean: float
    ci99_half_width: float

    @property
    def low(self) -> float:
        """Lower end of the 99% confidence interval."""
        return self.mean - self.ci99_half_width

    @property
    def high(self) -> float:
        """Upper end of the 99% confidence interval."""
        return self.mean + self.ci99_half_width


@dataclass
class ReplicatedResult:
    """Independent replications of one scenario and buffer, with 99% confidence intervals."""

    buffer_packets: int
    seed: int
    scenario: Scenario
    runs: list[RunResult]
    estimates: dict[str, Estimate] = field(default_factory=dict)
    #: Per flow group (in the scenario's order): each of GROUP_MEASURES' mean and 99% CI.
    group_estimates: list[dict[str, Estimate]] = field(default_factory=list)
    software_versions: dict[str, str] = field(default_factory=software_versions)

    def __getitem__(self, measure: str) -> Estimate:
        return self.estimates[measure]

    def to_dict(self, *, traces: bool = False) -> dict[str, Any]:
        """JSON-able dict: each measure's mean and CI half-width, the runs, seed and scenario."""
        out: dict[str, Any] = {
            "buffer_packets": self.buffer_packets,
            "seed": self.seed,
            "replications": len(self.runs),
            "scenario": self.scenario.to_dict(),
            "software_versions": dict(self.software_versions),
        }
        for name, est in self.estimates.items():
            out[name] = est.mean
            out[f"{name}_ci99"] = est.ci99_half_width
        groups = []
        for run_group, estimates in zip(self.runs[0].groups, self.group_estimates, strict=True):
            row: dict[str, Any] = {
                "name": run_group.name,
                "flows": run_group.flows,
                "traffic": run_group.traffic,
            }
            for name, est in estimates.items():
                row[name] = est.mean
                row[f"{name}_ci99"] = est.ci99_half_width
            groups.append(row)
        out["groups"] = groups
        out["runs"] = [run.to_dict(traces=traces) for run in self.runs]
        safe: dict[str, Any] = _json_safe(out)
        return safe


def confidence_interval(values: Any, level: float = 0.99) -> Estimate:
    """Student-t confidence interval of the mean of independent replications.

    Parameters
    ----------
    values : array_like
        One value per replication.
    level : float
        Confidence level (dimensionless), 0.99 by default.

    Returns
    -------
    Estimate
        The mean and the half-width ``t_{(1+level)/2, n-1} · s / √n`` (NaN for one run).
    """
    data = np.asarray(values, dtype=np.float64)
    mean = float(np.mean(data))
    if data.size < 2:
        return Estimate(mean, math.nan)
    from scipy import stats  # on first use: importing it is most of a short run's start-up

    sem = float(np.std(data, ddof=1)) / math.sqrt(data.size)
    return Estimate(mean, float(stats.t.ppf(0.5 + level / 2.0, data.size - 1)) * sem)


def summarize(
    scenario: Scenario, buffer_packets: int, seed: int, runs: list[RunResult]
) -> ReplicatedResult:
    """Gather runs into a :class:`ReplicatedResult` with a CI for each scalar measure."""
    estimates = {
        name: confidence_interval([float(getattr(run, name)) for run in runs])
        for name in SCALAR_MEASURES
    }
    group_estimates = [
        {
            name: confidence_interval([float(getattr(run.groups[k], name)) for run in runs])
            for name in GROUP_MEASURES
        }
        for k in range(len(runs[0].groups))
    ]
    return ReplicatedResult(buffer_packets, seed, scenario, runs, estimates, group_estimates)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value
