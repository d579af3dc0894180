"""Running the simulator: one run (:func:`simulate`) and replications (:func:`replicate`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.errors import ParameterError
from validation.simulator import core
from validation.simulator.core.dualq import TUPDATE_S
from validation.simulator.core.pie import MAX_BURST_S, T_UPDATE_S
from validation.simulator.layout import (
    AQM_CODES,
    CA_INCREASE_CODES,
    CC_CODES,
    FLOW_FLOATS,
    FLOW_INTS,
    GROUP_FLOATS,
    GROUP_INTS,
    RATE_SLOT,
    SIZE_CODES,
    TRAFFIC_CODES,
    Arrays,
    EventList,
    FlowCount,
    FlowDue,
    FlowFloat,
    FlowInt,
    FqFloat,
    FqInt,
    FqPacket,
    GlobalFloat,
    GlobalInt,
    GroupFloat,
    GroupInt,
    NodeField,
    QueueField,
    Status,
    TraceInt,
    ecn_mode,
)
from validation.simulator.measures import RawCounters, to_result
from validation.simulator.parameters import BURST_BINS, RunParameters, make_parameters
from validation.simulator.results import (
    PacketTrace,
    ReplicatedResult,
    RunResult,
    SampledTrace,
    summarize,
    transfer_numbers,
)
from validation.simulator.scenario import Scenario

ProgressCallback = Callable[[float], None]


def simulate(
    scenario: Scenario,
    buffer_packets: int,
    seed: int,
    *,
    trace: bool = False,
    progress: ProgressCallback | None = None,
) -> RunResult:
    """Simulate ``scenario`` with a bottleneck buffer of ``buffer_packets`` packets.

    Parameters
    ----------
    scenario : Scenario
        The network and traffic; validated before anything runs.
    buffer_packets : int
        Most packets the bottleneck holds, the one in transmission included.
    seed : int
        Seed of the run's ``numpy.random.Generator``; the same seed gives the same result.
    trace : bool
        Also record the packet trace (departures and drops) and the sampled cwnd/queue trace.
    progress : callable, optional
        Called with the fraction of simulated time done, at least every ~0.5 s of wall time;
        an exception it raises stops the run and propagates (cancellation).

    Returns
    -------
    RunResult
    """
    start = time.perf_counter()
    params = make_parameters(scenario, buffer_packets, seed)
    state = _State(params, trace)
    raw = state.run(progress)
    return to_result(params, raw, time.perf_counter() - start, "compiled")


#: Uniform random numbers handed to the core at a time.
RANDOM_BLOCK = 1 << 16
#: Rows of the packet trace buffer handed to the core at a time (at least).
TRACE_BLOCK = 1 << 16
#: Rows of the sampled trace buffer.
SAMPLE_BLOCK = 1 << 12
#: Most packet slots the fair-queueing buffers may take.
MAX_FQ_SLOTS = 1 << 25
#: Wall time between progress reports and chunk boundaries, s.
CHUNK_WALL_S = 0.2


#: ``ECN_THRESHOLD_PACKETS`` when the threshold is in bytes or not set: never reached.
NO_THRESHOLD_PACKETS = 1 << 62


def _pow2_at_least(n: int) -> int:
    return 1 << max(int(n) - 1, 1).bit_length()


def initial_heap_entries(flows: int) -> int:
    """Initial capacity of the event heap: about two packet events and two timers a flow."""
    return _pow2_at_least(4 * flows + 2 * core.HEAP_MARGIN)


def initial_list_nodes(flows: int, window_slots: int) -> int:
    """Initial capacity of the per-flow event lists (they grow when an event could fill them)."""
    return _pow2_at_least(4 * window_slots + 64 + 2 * flows)


def _globals(p: RunParameters, trace: bool, window_slots: int, queue_slots: int) -> Any:
    """The run's parameters in ``g`` (GlobalFloat) and ``gi`` (GlobalInt); state at zero."""
    sc = p.scenario
    g = np.zeros(len(GlobalFloat))
    g[GlobalFloat.CAPACITY_BPS] = sc.capacity_bps
    g[GlobalFloat.WARMUP_S] = sc.warmup_s
    g[GlobalFloat.END_S] = sc.duration_s
    g[GlobalFloat.WIRE_BYTES] = p.wire_bits / 8.0
    g[GlobalFloat.LIMIT_BYTES] = p.limit_bytes
    g[GlobalFloat.OPEN_RATE_PER_S] = p.open_rate_per_s
    g[GlobalFloat.INTERVAL_S] = sc.interval_s
    g[GlobalFloat.SAMPLE_INTERVAL_S] = sc.sample_interval_s
    g[GlobalFloat.DELAY_BIN_S] = p.delay_bin_s
    g[GlobalFloat.CODEL_TARGET_S] = sc.codel_target_s
    g[GlobalFloat.CODEL_INTERVAL_S] = sc.codel_interval_s
    g[GlobalFloat.PIE_BURST_ALLOWANCE_S] = MAX_BURST_S
    g[GlobalFloat.PIE_NEXT_UPDATE_S] = T_UPDATE_S
    g[GlobalFloat.DUALQ_NEXT_UPDATE_S] = TUPDATE_S
    gi = np.zeros(len(GlobalInt), dtype=np.int64)
    gi[GlobalInt.FLOWS] = p.flows
    gi[GlobalInt.GROUPS] = len(p.groups)
    gi[GlobalInt.BUFFER_PACKETS] = p.buffer_packets
    gi[GlobalInt.WINDOW_MASK] = window_slots - 1
    gi[GlobalInt.OPEN_PERIODIC] = int(p.open_periodic)
    gi[GlobalInt.OPEN_EXPONENTIAL] = int(p.open_exponential)
    gi[GlobalInt.FAIR_QUEUEING] = int(sc.discipline == "fq")
    gi[GlobalInt.BYTE_MODE] = int(sc.byte_mode)
    gi[GlobalInt.TRACE] = int(trace)
    gi[GlobalInt.TRACED_FLOWS] = min(sc.traced_flows, p.flows)
    gi[GlobalInt.OCCUPANCY_BINS] = p.occupancy_bins
    gi[GlobalInt.DELAY_BINS] = p.delay_bins
    gi[GlobalInt.INTERVALS] = p.intervals
    gi[GlobalInt.QUEUE_MASK] = queue_slots - 1
    gi[GlobalInt.FREE_NODE] = -1
    # ECN marking at the port (core/ecn.py): a threshold in packets or in bytes, or none
    packets, bytes_ = sc.ecn_threshold_packets, sc.ecn_threshold_bytes
    gi[GlobalInt.ECN_MARKING] = int(packets is not None or bytes_ is not None)
    gi[GlobalInt.ECN_THRESHOLD_PACKETS] = NO_THRESHOLD_PACKETS if packets is None else packets
    g[GlobalFloat.ECN_THRESHOLD_BYTES] = np.inf if bytes_ is None else float(bytes_)
    gi[GlobalInt.AQM] = AQM_CODES[sc.aqm]
    gi[GlobalInt.DUALQ_SCALABLE] = int(sc.dualq_scalable)
    return g, gi


def _flows_and_groups(p: RunParameters) -> tuple[Any, Any, Any, Any]:
    """``ff``, ``fi`` (each flow's row: its group's parameters), ``gf`` and ``gg``."""
    rows = max(p.flows, 1)
    groups = p.groups
    ff = np.zeros((rows, FLOW_FLOATS))
    fi = np.zeros((rows, FLOW_INTS), dtype=np.int64)
    for lists in (FlowInt.DELIVER_LIST, FlowInt.ARRIVAL_LIST):  # the event lists start empty
        fi[:, lists + EventList.HEAD] = -1
        fi[:, lists + EventList.TAIL] = -1
    gf = np.zeros((max(len(groups), 1), GROUP_FLOATS))
    gg = np.zeros((max(len(groups), 1), GROUP_INTS), dtype=np.int64)
    for k, group in enumerate(groups):
        rows_k = slice(int(p.first_flow[k]), int(p.first_flow[k + 1]))
        ff[rows_k, FlowFloat.ACCESS_TX_S] = p.access_tx_s[k]
        ff[rows_k, FlowFloat.DELACK_TIMEOUT_S] = group.delayed_ack_timeout_s
        ff[rows_k, FlowFloat.MIN_RTO_S] = group.min_rto_s
        ff[rows_k, FlowFloat.INITIAL_RTO_S] = group.initial_rto_s
        ff[rows_k, FlowFloat.INITIAL_CWND_PACKETS] = float(group.initial_window_packets)
        fi[rows_k, FlowInt.GROUP] = k
        fi[rows_k, FlowInt.MAX_WINDOW_PACKETS] = group.max_window_packets
        fi[rows_k, FlowInt.SACK] = int(group.recovery == "sack")
        fi[rows_k, FlowInt.DELAYED_ACK] = group.delayed_ack
        fi[rows_k, FlowInt.PACING] = int(
            group.pacing or group.congestion_control == "bbr"
        )  # BBR always paces
        fi[rows_k, FlowInt.CC] = CC_CODES[group.congestion_control]
        fi[rows_k, FlowInt.ECN_MODE] = ecn_mode(group.congestion_control, group.ecn)
        fi[rows_k, FlowInt.CA_INCREASE] = CA_INCREASE_CODES[group.ca_increase]
        gf[k, GroupFloat.FLOW_RATE_PER_S] = group.flow_arrival_rate_per_s
        gf[k, GroupFloat.FLOW_MEAN_PACKETS] = group.flow_size_packets
        gf[k, GroupFloat.PARETO_SHAPE] = group.pareto_shape
        gg[k, GroupInt.TRAFFIC] = TRAFFIC_CODES[group.traffic]
        gg[k, GroupInt.SIZE_DISTRIBUTION] = SIZE_CODES[group.flow_size_distribution]
        gg[k, GroupInt.FIRST_FLOW] = p.first_flow[k]
        gg[k, GroupInt.FLOWS] = group.flows
    ff[: p.flows, FlowFloat.RTT_S] = p.rtt_s
    return ff, fi, gf, gg


def allocate(p: RunParameters, trace: bool) -> Arrays:
    """Every array of a compiled run, in the layouts of ``layout.py``, the flows not started."""
    sc = p.scenario
    n = p.flows
    rows = max(n, 1)
    window = _pow2_at_least(max((g.max_window_packets for g in p.groups), default=1) + 1)
    qcap = _pow2_at_least(4 * p.buffer_packets + 1024 if sc.byte_mode else p.buffer_packets + 1)
    g, gi = _globals(p, trace, window, qcap)
    ff, fi, gf, gg = _flows_and_groups(p)
    if sc.discipline == "fq":
        fqcap = _pow2_at_least(qcap + 1)
        if (n + 1) * fqcap > MAX_FQ_SLOTS:
            raise ParameterError(
                "buffer_packets",
                f"such that (flows + 1) x buffer slots <= {MAX_FQ_SLOTS:,}",
                "fair queueing needs (flows + 1) x buffer packet slots; "
                f"{(n + 1) * fqcap:,} is more than {MAX_FQ_SLOTS:,}: lower flows or buffer",
            )
        fqq = np.zeros((n + 1, fqcap, len(FqPacket)))
    else:
        fqcap = 1
        fqq = np.zeros((1, 1, len(FqPacket)))
    gi[GlobalInt.FQ_MASK] = fqcap - 1
    # The heap holds each flow's next arrival and next delivery and a few timers per flow;
    # the flows' other scheduled packets wait in lists of nodes. Both start small and double
    # when the next event could overflow them, so memory follows what the run needs.
    heap_cap = initial_heap_entries(n)
    tcap = max(TRACE_BLOCK, 4 * (qcap + 16)) if trace else 1
    scap = SAMPLE_BLOCK if trace else 1
    arrays = Arrays(
        ff=ff,
        fi=fi,
        gf=gf,
        gg=gg,
        fc=np.zeros((n + 1, len(FlowCount))),
        rg=np.zeros((rows, window), dtype=np.uint8),
        g=g,
        gi=gi,
        ht=np.zeros(heap_cap),
        hk=np.zeros(heap_cap, dtype=np.int64),
        hp=np.zeros(heap_cap, dtype=np.int64),
        rt=np.zeros(heap_cap),
        rk=np.zeros(heap_cap, dtype=np.int64),
        rp=np.zeros(heap_cap, dtype=np.int64),
        nt=np.zeros(0),
        nx=np.zeros((0, len(NodeField)), dtype=np.int64),
        rand=p.generator.random(RANDOM_BLOCK),
        qf=np.zeros((qcap, len(QueueField))),
        fqq=fqq,
        fqi=np.zeros((n + 1, len(FqInt)), dtype=np.int64),
        fqf=np.zeros((n + 1, len(FqFloat))),
        fqa=np.zeros(n + 1, dtype=np.int64),
        occ=np.zeros(p.occupancy_bins),
        dhist=np.zeros(p.delay_bins),
        bhist=np.zeros(BURST_BINS, dtype=np.int64),
        ibits=np.zeros(p.intervals),
        deliv=np.zeros(rows, dtype=np.int64),
        trt=np.zeros(tcap),
        tri=np.zeros((tcap, len(TraceInt)), dtype=np.int64),
        st=np.zeros(scap),
        sq=np.zeros(scap, dtype=np.int64),
        scw=np.zeros((scap, int(gi[GlobalInt.TRACED_FLOWS]))),
        rs=_rate_slots(p, rows, window),
        sx=np.zeros(_sack_slots(p, rows, window)),
        rq=np.zeros(_sack_slots(p, rows, window), dtype=np.int64),
        fd=np.zeros((rows, len(FlowDue))),
    )
    return _grow_nodes(arrays, initial_list_nodes(n, window))


def _rate_slots(p: RunParameters, rows: int, window: int) -> Any:
    """BBR's per-packet delivery-rate state (``RateSlot``); one slot when no group is BBR."""
    if any(group.congestion_control == "bbr" for group in p.groups):
        return np.zeros((rows, window, RATE_SLOT))
    return np.zeros((1, 1, RATE_SLOT))


def _sack_slots(p: RunParameters, rows: int, window: int) -> tuple[int, int]:
    """Shape of RACK's per-slot arrays (``sx``, ``rq``): one slot when no group uses SACK."""
    if any(group.recovery == "sack" for group in p.groups):
        return rows, window
    return 1, 1


def _grow_nodes(a: Arrays, cap: int | None = None) -> Arrays:
    old = a.nt.size
    cap = 2 * old if cap is None else cap
    nt = np.zeros(cap)
    nx = np.zeros((cap, len(NodeField)), dtype=np.int64)
    nt[:old] = a.nt
    nx[:old] = a.nx
    nx[old : cap - 1, NodeField.NEXT] = np.arange(old + 1, cap)  # chain the new nodes ...
    nx[cap - 1, NodeField.NEXT] = a.gi[GlobalInt.FREE_NODE]  # ... in front of the free list
    a.gi[GlobalInt.FREE_NODE] = old
    a.gi[GlobalInt.FREE_NODES] += cap - old
    return a._replace(nt=nt, nx=nx)


def _grow_heap(a: Arrays) -> Arrays:
    cap = 2 * a.ht.size
    grown = {}
    for name in ("ht", "hk", "hp", "rt", "rk", "rp"):
        old = getattr(a, name)
        new = np.zeros(cap, dtype=old.dtype)
        new[: old.size] = old
        grown[name] = new
    return a._replace(**grown)


class _State:
    """The arrays of one compiled run and the chunked driver around ``core.run_chunk``."""

    def __init__(self, p: RunParameters, trace: bool) -> None:
        self.p = p
        self.trace = trace
        self.a = allocate(p, trace)
        self.trace_parts: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]] = []
        self.sample_parts: list[tuple[Any, Any, Any]] = []
        core.init_events(self.a, p.start_s.copy())

    def _refill(self) -> None:
        a = self.a
        pos = int(a.gi[GlobalInt.RANDOM_POSITION])
        rand = np.concatenate((a.rand[pos:], self.p.generator.random(RANDOM_BLOCK)))
        a.gi[GlobalInt.RANDOM_POSITION] = 0
        self.a = a._replace(rand=rand)

    def _flush_trace(self) -> None:
        a = self.a
        k = int(a.gi[GlobalInt.TRACE_ROWS])
        self.trace_parts.append((a.trt[:k].copy(), a.tri[:k].copy()))
        a.gi[GlobalInt.TRACE_ROWS] = 0

    def _flush_samples(self) -> None:
        a = self.a
        k = int(a.gi[GlobalInt.SAMPLE_ROWS])
        self.sample_parts.append((a.st[:k].copy(), a.sq[:k].copy(), a.scw[:k].copy()))
        a.gi[GlobalInt.SAMPLE_ROWS] = 0

    def run(self, progress: ProgressCallback | None) -> RawCounters:
        end = self.p.scenario.duration_s
        t_done = 0.0
        chunk_s = end / 200.0
        last_report = time.perf_counter()
        while True:
            wall0 = time.perf_counter()
            t_stop = min(t_done + chunk_s, end)
            status = core.run_chunk(t_stop, self.a)
            if status == Status.NEED_RANDOM:
                self._refill()
            elif status == Status.HEAP_FULL:
                self.a = _grow_heap(self.a)
            elif status == Status.NODES_FULL:
                self.a = _grow_nodes(self.a)
            elif status == Status.TRACE_FULL:
                self._flush_trace()
            elif status == Status.SAMPLES_FULL:
                self._flush_samples()
            elif status == Status.STOPPED:
                wall = time.perf_counter() - wall0
                t_done = t_stop
                if wall > 0:
                    chunk_s = min(max(chunk_s * CHUNK_WALL_S / wall, chunk_s / 4), chunk_s * 4)
            else:
                break
            now = time.perf_counter()
            if progress is not None and now - last_report >= CHUNK_WALL_S:
                last_report = now
                progress(min(t_done / end, 1.0))
        core.finish(self.a)
        if progress is not None:
            progress(1.0)
        return self._raw()

    def _raw(self) -> RawCounters:
        a, n = self.a, self.p.flows
        gi, g = a.gi, a.g
        raw = RawCounters(
            busy_s=float(g[GlobalFloat.BUSY_S]),
            arrivals=int(gi[GlobalInt.ARRIVALS]),
            drops=int(gi[GlobalInt.DROPS]),
            aqm_drops=int(gi[GlobalInt.AQM_DROPS]),
            arrivals_total=int(gi[GlobalInt.ARRIVALS_TOTAL]),
            timeouts=int(gi[GlobalInt.TIMEOUTS]),
            delay_count=int(gi[GlobalInt.DELAY_COUNT]),
            delay_sum_s=float(g[GlobalFloat.DELAY_SUM_S]),
            delay_sumsq_s2=float(g[GlobalFloat.DELAY_SUMSQ_S2]),
            delay_hist=a.dhist,
            occupancy_s=a.occ,
            burst_hist=a.bhist,
            interval_bits=a.ibits,
            delivered_payload_packets=a.deliv[:n].copy(),
            sent=int(gi[GlobalInt.SENT]),
            delivered=int(gi[GlobalInt.DELIVERED]),
            dropped_tcp=int(gi[GlobalInt.DROPPED_TCP]),
            in_flight=int(gi[GlobalInt.IN_FLIGHT]),
            flows_completed=int(gi[GlobalInt.COMPLETED]),
            flows_blocked=int(gi[GlobalInt.BLOCKED]),
            per_flow=a.fc.copy(),
            marks=int(gi[GlobalInt.MARKS]),
        )
        if self.trace:
            self._flush_trace()
            self._flush_samples()
            times = np.concatenate([part[0] for part in self.trace_parts])
            ints = np.concatenate([part[1] for part in self.trace_parts])
            raw.packet_trace = PacketTrace(
                time_s=times,
                flow=ints[:, TraceInt.FLOW].copy(),
                size_bytes=ints[:, TraceInt.BYTES].copy(),
                dropped=ints[:, TraceInt.DROPPED].astype(np.bool_),
                transfer=transfer_numbers(
                    ints[:, TraceInt.FLOW], ints[:, TraceInt.EPOCH], int(gi[GlobalInt.FLOWS])
                ),
            )
            raw.samples = SampledTrace(
                time_s=np.concatenate([part[0] for part in self.sample_parts]),
                queue_packets=np.concatenate([part[1] for part in self.sample_parts]),
                cwnd_packets=np.concatenate([part[2] for part in self.sample_parts]),
            )
        return raw


def replication_seeds(seed: int, replications: int) -> list[int]:
    """The seeds of ``replications`` independent runs of ``seed``, as :func:`replicate` uses them.

    Each is drawn from one child of ``numpy.random.SeedSequence(seed).spawn(replications)``,
    so replication ``k`` is ``simulate(scenario, buffer_packets, replication_seeds(seed, n)[k])``
    for any ``n > k``.

    Parameters
    ----------
    seed : int
        Seed of the replications (>= 0).
    replications : int
        Number of runs (>= 1).

    Returns
    -------
    list of int
        One non-negative 63-bit seed per run.
    """
    checks.integer_at_least("seed", seed, 0)
    checks.integer_at_least("replications", replications, 1)
    children = np.random.SeedSequence(seed).spawn(replications)
    return [int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for child in children]


def replicate(
    scenario: Scenario,
    buffer_packets: int,
    replications: int,
    seed: int,
    progress: ProgressCallback | None = None,
    *,
    trace: bool = False,
) -> ReplicatedResult:
    """Independent replications seeded by ``SeedSequence(seed).spawn(replications)``.

    Parameters
    ----------
    scenario : Scenario
        The network and traffic; validated before anything runs.
    buffer_packets : int
        Most packets the bottleneck holds, the one in transmission included.
    replications : int
        Number of independent runs (>= 1); run ``k`` has seed ``replication_seeds(seed, n)[k]``.
    seed : int
        Seed of the replications.
    progress : callable, optional
        Called with the fraction of all runs done (see :func:`simulate`).
    trace : bool
        Also record each run's packet trace and sampled trace (``runs[k].packet_trace``,
        ``runs[k].samples``; each run carries its own ``seed``).

    Returns
    -------
    ReplicatedResult
        Each scalar measure's mean and 99% confidence-interval half-width, and the runs.
    """
    scenario.validate(buffer_packets)
    runs: list[RunResult] = []
    for index, run_seed in enumerate(replication_seeds(seed, replications)):

        def scaled(fraction: float, index: int = index) -> None:
            if progress is not None:
                progress((index + fraction) / replications)

        runs.append(simulate(scenario, buffer_packets, run_seed, trace=trace, progress=scaled))
    return summarize(scenario, buffer_packets, seed, runs)
