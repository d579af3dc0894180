"""Running the simulator: one run (:func:`simulate`) and replications (:func:`replicate`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.errors import ParameterError
from validation.simulator import core as C
from validation.simulator.measures import RawCounters, to_result
from validation.simulator.parameters import (
    BURST_BINS,
    SIZE_CODES,
    TRAFFIC_CODES,
    RunParameters,
    make_parameters,
)
from validation.simulator.results import (
    PacketTrace,
    ReplicatedResult,
    RunResult,
    SampledTrace,
    summarize,
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


def _pow2_at_least(n: int) -> int:
    return 1 << max(int(n) - 1, 1).bit_length()


def initial_heap_entries(flows: int) -> int:
    """Initial capacity of the event heap: about two packet events and two timers a flow."""
    return _pow2_at_least(4 * flows + 2 * C.HEAP_MARGIN)


def initial_list_nodes(flows: int, window_slots: int) -> int:
    """Initial capacity of the per-flow event lists (they grow when an event could fill them)."""
    return _pow2_at_least(4 * window_slots + 64 + 2 * flows)


class _State:
    """The arrays of one compiled run and the chunked driver around ``core.run_chunk``."""

    def __init__(self, p: RunParameters, trace: bool) -> None:
        sc = p.scenario
        self.p = p
        self.trace = trace
        n = p.flows
        rows = max(n, 1)
        window = _pow2_at_least(sc.max_window_packets + 1)
        self.ff = np.zeros((rows, C.NF))
        self.fi = np.zeros((rows, C.NI), dtype=np.int64)
        for lists in (C.I_LISTS, C.I_LISTS + 3):  # each flow's event lists start empty
            self.fi[:, lists + C.L_HEAD] = -1
            self.fi[:, lists + C.L_TAIL] = -1
        self.rg = np.zeros((rows, window), dtype=np.uint8)
        self.ff[:n, C.F_RTT] = p.rtt_s
        g = np.zeros(C.NG)
        g[C.G_C] = sc.capacity_bps
        g[C.G_WARM] = sc.warmup_s
        g[C.G_END] = sc.duration_s
        g[C.G_ACC_TX] = p.access_tx_s
        g[C.G_WIRE_BYTES] = p.wire_bits / 8.0
        g[C.G_LIMIT_BYTES] = p.limit_bytes
        g[C.G_OPEN_RATE] = p.open_rate_per_s
        g[C.G_DELACK_TO] = sc.delayed_ack_timeout_s
        g[C.G_MIN_RTO] = sc.min_rto_s
        g[C.G_INIT_RTO] = sc.initial_rto_s
        g[C.G_INTERVAL] = sc.interval_s
        g[C.G_SAMPLE_INT] = sc.sample_interval_s
        g[C.G_DELAY_BIN] = p.delay_bin_s
        g[C.G_FLOW_RATE] = sc.flow_arrival_rate_per_s
        g[C.G_FLOW_MEAN] = sc.flow_size_packets
        g[C.G_PARETO] = sc.pareto_shape
        g[C.G_INIT_CWND] = float(sc.initial_window_packets)
        gi = np.zeros(C.NGI, dtype=np.int64)
        gi[C.GI_N] = n
        gi[C.GI_B] = p.buffer_packets
        gi[C.GI_WMAX] = sc.max_window_packets
        gi[C.GI_WMASK] = window - 1
        gi[C.GI_SACK] = int(sc.recovery == "sack")
        gi[C.GI_DACK] = sc.delayed_ack
        gi[C.GI_PACING] = int(sc.pacing)
        gi[C.GI_TRAFFIC] = TRAFFIC_CODES.get(sc.traffic, 0)
        gi[C.GI_SIZEDIST] = SIZE_CODES[sc.flow_size_distribution]
        gi[C.GI_OPEN_PERIODIC] = int(p.open_periodic)
        gi[C.GI_OPEN_EXP] = int(p.open_exponential)
        gi[C.GI_FQ] = int(sc.discipline == "fq")
        gi[C.GI_BYTEMODE] = int(sc.byte_mode)
        gi[C.GI_TRACE] = int(trace)
        gi[C.GI_OCC_BINS] = p.occupancy_bins
        gi[C.GI_DELAY_BINS] = p.delay_bins
        gi[C.GI_INTERVALS] = p.intervals
        qcap = _pow2_at_least(4 * p.buffer_packets + 1024 if sc.byte_mode else p.buffer_packets + 1)
        gi[C.GI_QMASK] = qcap - 1
        self.qf = np.zeros((qcap, C.QF))
        if sc.discipline == "fq":
            fqcap = _pow2_at_least(qcap + 1)
            if (n + 1) * fqcap > MAX_FQ_SLOTS:
                raise ParameterError(
                    "buffer_packets",
                    f"such that (flows + 1) x buffer slots <= {MAX_FQ_SLOTS:,}",
                    "fair queueing needs (flows + 1) x buffer packet slots; "
                    f"{(n + 1) * fqcap:,} is more than {MAX_FQ_SLOTS:,}: lower flows or buffer",
                )
            self.fqq = np.zeros((n + 1, fqcap, 4))
        else:
            fqcap = 1
            self.fqq = np.zeros((1, 1, 4))
        gi[C.GI_FQMASK] = fqcap - 1
        self.fqi = np.zeros((n + 1, 3), dtype=np.int64)
        self.fqf = np.zeros((n + 1, 2))
        self.fqa = np.zeros(n + 1, dtype=np.int64)
        self.g = g
        self.gi = gi
        # The heap holds each flow's next arrival and next delivery and a few timers per flow;
        # the flows' other scheduled packets wait in lists of nodes. Both start small and
        # double when the next event could overflow them, so memory follows what the run needs.
        heap_cap = initial_heap_entries(n)
        self.ht = np.zeros(heap_cap)
        self.hk = np.zeros(heap_cap, dtype=np.int64)
        self.hp = np.zeros(heap_cap, dtype=np.int64)
        self.nt = np.zeros(0)
        self.nx = np.zeros((0, 3), dtype=np.int64)
        gi[C.GI_FREE] = -1
        self._grow_nodes(initial_list_nodes(n, window))
        self.rand = p.generator.random(RANDOM_BLOCK)
        self.occ = np.zeros(p.occupancy_bins)
        self.dhist = np.zeros(p.delay_bins)
        self.bhist = np.zeros(BURST_BINS, dtype=np.int64)
        self.ibits = np.zeros(p.intervals)
        self.deliv = np.zeros(max(n, 1), dtype=np.int64)
        tcap = max(TRACE_BLOCK, 4 * (qcap + 16)) if trace else 1
        self.trt = np.zeros(tcap)
        self.tri = np.zeros((tcap, 3), dtype=np.int64)
        traced = min(sc.traced_flows, n)
        gi[C.GI_TRACED] = traced
        scap = SAMPLE_BLOCK if trace else 1
        self.st = np.zeros(scap)
        self.sq = np.zeros(scap, dtype=np.int64)
        self.scw = np.zeros((scap, traced))
        self.trace_parts: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]] = []
        self.sample_parts: list[tuple[Any, Any, Any]] = []
        C.init_events(self.ff, g, gi, self.ht, self.hk, self.hp, self.rand, p.start_s.copy())

    def _refill(self) -> None:
        pos = int(self.gi[C.GI_RPOS])
        self.rand = np.concatenate((self.rand[pos:], self.p.generator.random(RANDOM_BLOCK)))
        self.gi[C.GI_RPOS] = 0

    def _grow_heap(self) -> None:
        cap = 2 * self.ht.size
        for name in ("ht", "hk", "hp"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=old.dtype)
            new[: old.size] = old
            setattr(self, name, new)

    def _grow_nodes(self, cap: int | None = None) -> None:
        old = self.nt.size
        cap = 2 * old if cap is None else cap
        nt = np.zeros(cap)
        nx = np.zeros((cap, 3), dtype=np.int64)
        nt[:old] = self.nt
        nx[:old] = self.nx
        nx[old : cap - 1, C.N_NEXT] = np.arange(old + 1, cap)  # chain the new nodes ...
        nx[cap - 1, C.N_NEXT] = self.gi[C.GI_FREE]  # ... in front of the free list
        self.gi[C.GI_FREE] = old
        self.gi[C.GI_NFREE] += cap - old
        self.nt, self.nx = nt, nx

    def _flush_trace(self) -> None:
        k = int(self.gi[C.GI_TRN])
        self.trace_parts.append((self.trt[:k].copy(), self.tri[:k].copy()))
        self.gi[C.GI_TRN] = 0

    def _flush_samples(self) -> None:
        k = int(self.gi[C.GI_SN])
        self.sample_parts.append((self.st[:k].copy(), self.sq[:k].copy(), self.scw[:k].copy()))
        self.gi[C.GI_SN] = 0

    def run(self, progress: ProgressCallback | None) -> RawCounters:
        end = self.p.scenario.duration_s
        t_done = 0.0
        chunk_s = end / 200.0
        last_report = time.perf_counter()
        while True:
            wall0 = time.perf_counter()
            t_stop = min(t_done + chunk_s, end)
            status = C.run_chunk(
                t_stop, self.ff, self.fi, self.rg, self.g, self.gi, self.ht, self.hk, self.hp,
                self.nt, self.nx, self.rand, self.qf, self.fqq, self.fqi, self.fqf, self.fqa,
                self.occ, self.dhist, self.bhist, self.ibits, self.deliv, self.trt, self.tri,
                self.st, self.sq, self.scw,
            )  # fmt: skip
            if status == C.S_NEED_RANDOM:
                self._refill()
            elif status == C.S_HEAP_FULL:
                self._grow_heap()
            elif status == C.S_NODES_FULL:
                self._grow_nodes()
            elif status == C.S_TRACE_FULL:
                self._flush_trace()
            elif status == C.S_SAMPLES_FULL:
                self._flush_samples()
            elif status == C.S_STOPPED:
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
        C.finish(
            self.g, self.gi, self.fi, self.qf, self.fqi, self.occ, self.dhist, self.ibits,
            self.trt, self.tri,
        )  # fmt: skip
        if progress is not None:
            progress(1.0)
        return self._raw()

    def _raw(self) -> RawCounters:
        gi, g, n = self.gi, self.g, self.p.flows
        raw = RawCounters(
            busy_s=float(g[C.G_BUSY]),
            arrivals=int(gi[C.GI_ARR]),
            drops=int(gi[C.GI_DROPS]),
            arrivals_total=int(gi[C.GI_ARR_TOTAL]),
            timeouts=int(gi[C.GI_TIMEOUTS]),
            delay_count=int(gi[C.GI_DCOUNT]),
            delay_sum_s=float(g[C.G_DSUM]),
            delay_sumsq_s2=float(g[C.G_DSUMSQ]),
            delay_hist=self.dhist,
            occupancy_s=self.occ,
            burst_hist=self.bhist,
            interval_bits=self.ibits,
            delivered_payload_packets=self.deliv[:n].copy(),
            sent=int(gi[C.GI_SENT]),
            delivered=int(gi[C.GI_DELIVERED]),
            dropped_tcp=int(gi[C.GI_DROPPED_TCP]),
            in_flight=int(gi[C.GI_IN_FLIGHT]),
            flows_completed=int(gi[C.GI_COMPLETED]),
            flows_blocked=int(gi[C.GI_BLOCKED]),
        )
        if self.trace:
            self._flush_trace()
            self._flush_samples()
            times = np.concatenate([part[0] for part in self.trace_parts])
            ints = np.concatenate([part[1] for part in self.trace_parts])
            raw.packet_trace = PacketTrace(
                time_s=times,
                flow=ints[:, 0].copy(),
                size_bytes=ints[:, 1].copy(),
                dropped=ints[:, 2].astype(np.bool_),
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
