"""The parameters of BSCL from a packet trace (004 §VI), each with an uncertainty.

:func:`estimate_trace` reads a trace once (:mod:`validation.traces.kernel` keeps the per-flow
state) and returns :class:`TraceEstimates`:

- **flow classes** (004 §VI): *size-limited* flows ended before ``MIN_ROUNDS`` rounds (or sent
  fewer than ``MIN_PACKETS`` packets). A long flow that loses packets at this link is **LBP**
  (bottlenecked here) unless its rate reductions ignore those losses: at least
  ``RBP_MIN_UNEXPLAINED`` reductions not preceded by a loss here, twice as many as those
  that are, and no more often after a loss than chance (p >= ``RBP_P_VALUE`` in the test
  below); such a flow, and a long flow that loses nothing here but reduces its rate at least
  ``MIN_REDUCTIONS`` times, is **RBP** (bottlenecked elsewhere: "If a rate reduction of flow
  X is not preceded in the recent past by a packet loss by that flow at the target link, we
  infer that the window reduction must have been a consequence of a packet loss in some other
  link. If that happens several times, the flow is bottlenecked elsewhere"). A long flow with
  no loss here and fewer reductions keeps a steady rate that something other than congestion
  sets: **window-limited** (a receiver window, or an upstream rate limit that drops nothing).
  A window-limited flow that loses here is counted LBP (004 §VI: "the possible
  mis-classification of window-limited flows as LBPs has no major impact"). Two signs of a
  flow limited by something other than this link come first: a flow whose departures
  (almost) never follow one of its own back to back (under ``PACED_MAX_SHARE``) is paced by
  a slower link before this one and is RBP (004 §VII's RBP flows sit behind slow access
  links); a flow whose second flight is no larger than its first, with no drop in them,
  stopped growing at a window of its own and is window-limited ("the key difference with
  LBP flows is that the latter keep increasing their window until a loss occurs", 004 §VI).
  Losses during the warm-up count ("loses packets at this link"): a few LBP flows on a large
  buffer may lose only when their slow start overflows it. But a flow that loses here is LBP
  only if its window may have kept growing between its losses after the warm-up (which 004
  §VII ignores): in its longest loss-free stretch it sent at least what a window growing by
  half a packet a round trip sends (:func:`_window_still`); a window-limited flow that lost
  in the crowd of starts, or now and then since, is not. Non-TCP flows
  of a capture, and long flows whose rate times RTT sample is under ``MIN_WINDOW_PACKETS``
  (no window-based flow keeps less in flight; a Poisson stream's first gap passes for a
  short "RTT"), are *unresponsive*. Flows that carried no payload (the acknowledgements of
  the other direction, pcap) are *no data* and count nowhere.
- **N_b**, the number of LBP flows, with a classification interval. "Reductions follow a loss
  here" is tested against chance: if a flow's reductions ignored its losses here, each would
  follow a loss with the probability that any tested round does (the share of its rounds
  that follow a loss); a one-sided binomial test of the explained count gives a p-value. The
  interval runs from the LBP flows that are sure (``SURE_DROPS`` drops here, or
  p < ``LBP_P_VALUE``) to the LBP flows plus the RBP flows with p < ``UNSURE_P_VALUE``.
- **per-flow RTTs**: BSCL's RTT excludes the queueing at this link (004 §III.A). With the link's
  drop events (CSV), the lag from a departure to the drop of the packet its acknowledgement
  released, on which the flow's drops agree (:mod:`validation.traces.drop_rtt`): a drop is timed
  at the packet's arrival, so no queueing here is in it. The flow's first-round spacing bounds
  that lag from above (it is the RTT plus this link's queue) and, less the full buffer's delay
  B/C, from below, which lets the drops of a single loss episode give it when they all agree on
  one lag within the bounds (a flow that starts into a standing queue and loses only in its slow
  start). Otherwise the handshake RTT where the capture saw it, or the first-round spacing (H.
  Jiang, C. Dovrolis, CCR 2002, [21] of 004 §VI); both include the queueing of one packet at this
  link at the flow's start: samples taken once the link is congested are reduced by the median
  excess over those taken before (:func:`_queue_corrected_rtts`); in a capture with too few
  samples for that, those with no loss just before them by half the full buffer's delay
  (:func:`_capture_queue_midpoint`). The queue varies around that
  median, so such an RTT is still off by up to the buffer's delay; where the flows classed RBP
  (004 §VI; behind the slower access links of 004 §VII) cover the sample's time, the wait at
  that time as their paced arrivals show it is taken off instead (a second reading of a trace
  with drop events, C and B given: :func:`_paced_queue_corrected`,
  :mod:`validation.traces.paced_queue`). A flow whose first flight
  lost packets has no first-round sample; where it restarted after a retransmission timeout
  from one segment (RFC 5681 §3.1), the same spacing taken in that slow start stands in for it
  (source ``restart``, :func:`validation.traces.kernel._restart_flights`), queue included
  and corrected alike. Each such sample also gives the flow's RTT a range: the sample less
  at most the full buffer's delay, or less the time the link had been busy when the
  sample's packet left where that is shorter (a trace with drop events); a correction that
  would leave the range stops at its end (:func:`_measured_ranges`).
- **T_e** = N_b / Σ 1/T_i over the LBP flows (004 eq. 12), with a 95 % percentile bootstrap
  interval over the flows (``BOOTSTRAP_REPS`` resamples, seed ``BOOTSTRAP_SEED``), widened to
  eq. 12 with every flow's RTT at either end of its range. LBP flows without an RTT sample
  are left out of the value, and the interval is widened to every value eq. 12 can take with
  their RTTs anywhere from 0 to their bound (:func:`_harmonic_interval`).
- **C_e**, the LBP flows' aggregate rate after the warm-up, and the link's total rate and
  loss rate, each with a 95 % batch-means interval (``BATCHES`` equal batches of time,
  Student t), which allows for the correlation of packets close in time. C_e's interval also
  takes the flows of N_b's interval: its low end counts the sure LBP flows' bytes, its high
  end the LBP and the unsure RBP flows' bytes.
- **loss bursts** (004 §III.C): successive losses at the link spaced by less than the effective
  RTT are one burst; the mean and median burst length L̄ with 95 % bootstrap intervals over the
  bursts, and α = L̄/N_b (eq. 17) with the interval [L̄_low/N_b,high, L̄_high/N_b,low].
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from validation.traces import kernel, paced_queue
from validation.traces.drop_rtt import DropRtt
from validation.traces.open import open_trace
from validation.traces.peak_rate import PeakRate
from validation.traces.records import BoolArray, FloatArray, IntArray, TraceReader

#: A trace longer than a day whose packets are on average more than a minute apart is refused:
#: its timestamps are not a link's traffic (the per-second rates would cost memory for a span
#: the packets do not fill).
SPAN_FLOOR_S = 86400.0
SPAN_PER_PACKET_S = 60.0
#: Rounds a flow must last to be more than size-limited.
MIN_ROUNDS = 10
#: Packets a flow must send to be more than size-limited.
MIN_PACKETS = 50
#: Reductions that make a flow LBP (explained) or RBP (unexplained).
MIN_REDUCTIONS = 2
#: One-sided p-value below which a flow's reductions follow its losses here more than chance.
LBP_P_VALUE = 0.01
#: An RBP flow with reductions correlated at this p-value may still be LBP (interval).
UNSURE_P_VALUE = 0.1
#: Unexplained reductions, and the p-value at or above which they ignore the losses here,
#: that make a flow that loses here RBP all the same.
RBP_MIN_UNEXPLAINED = 5
RBP_P_VALUE = 0.5
#: RTT samples needed before and after the first loss to estimate the queue in them.
MIN_GROUP = 5
#: The least mean window (rate x RTT, packets) of a window-based (TCP) flow.
MIN_WINDOW_PACKETS = 1.0
#: Share of a flow's departures (after the warm-up) that directly follow one of its own, below
#: which the flow is paced by a slower link before this one (RBP).
PACED_MAX_SHARE = 0.05
#: The longest a receiver holds an acknowledgement, s (:data:`kernel.ACK_DELAY_MAX_S`).
ACK_DELAY_MAX_S = kernel.ACK_DELAY_MAX_S
#: Drops here that make an LBP flow sure (without correlated reductions).
SURE_DROPS = 3
BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 20050313
BATCHES = 20
CLASSES = ("lbp", "rbp", "window_limited", "size_limited", "unresponsive", "no_data")

ProgressCallback = Callable[[float], None]
#: Called with what a reading after the first one is (its label) and the fraction of it done.
StageCallback = Callable[[str, float], None]


@dataclass
class Interval:
    """A point estimate and its 95 % interval [low, high]; ``method`` says how it was made."""

    value: float
    low: float
    high: float
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": _finite(self.value),
            "low": _finite(self.low),
            "high": _finite(self.high),
            "method": self.method,
        }


@dataclass
class FlowEstimate:
    """One flow: its key, class, RTT (and where it came from), packets and reductions."""

    key: str
    flow_class: str
    rtt_s: float
    rtt_source: str
    packets: int
    drops: int
    rate_bps: float
    explained_reductions: int
    unexplained_reductions: int
    lbp_probability: float
    #: The flow's RTT sample as measured, this link's queueing still in it ([21]'s technique:
    #: the handshake, the first round or the restart), and when it was taken (the second
    #: flight's first departure; the handshake's, the flow's first data packet), trace time, s;
    #: NaN when it has none (or only a first round that lost packets). ``rtt_s`` is this
    #: sample corrected, or from another source.
    rtt_sample_s: float = math.nan
    rtt_sample_at_s: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("rtt_s", "rtt_sample_s", "rtt_sample_at_s"):
            out[name] = _finite(out[name])
        return out


@dataclass
class TraceEstimates:
    """What a trace says about the link's traffic (004 §VI); SI units in the names.

    Attributes
    ----------
    kind : "csv", "pcap" or "pcapng".
    has_drops : the trace carries the link's drop events (CSV); otherwise losses are inferred
        from sequence holes (pcap).
    packets, flows : packets and flows read.
    start_s, end_s, warmup_s : the trace's span and the warm-up left out of rates and counts.
    capacity_bps : the link rate (given, or when not given the busiest second's rate, or the
        whole trace's for a trace shorter than a second, or the rate sustained through 100 ms
        where higher).
    capacity_source : "given" or "estimated".
    class_counts : flows per class.
    bottlenecked_flows : N_b.
    effective_rtt_s : T_e of the LBP flows.
    bottlenecked_capacity_bps : C_e; ``bottlenecked_share`` is C_e/C.
    link_rate_bps, loss_rate : all traffic's rate and the loss rate at the link after warm-up.
    loss_bursts : number of bursts; ``loss_burst_mean_packets``, ``loss_burst_median_packets``.
    sync_factor : α = L̄/N_b with the mean burst.
    packet_bytes : the LBP flows' largest packet (median over the flows), bytes on the wire.
    """

    kind: str
    has_drops: bool
    packets: int
    flows: int
    start_s: float
    end_s: float
    warmup_s: float
    capacity_bps: float
    capacity_source: str
    class_counts: dict[str, int]
    bottlenecked_flows: Interval
    effective_rtt_s: Interval
    bottlenecked_capacity_bps: Interval
    bottlenecked_share: Interval
    link_rate_bps: Interval
    loss_rate: Interval
    loss_bursts: int
    loss_burst_mean_packets: Interval
    loss_burst_median_packets: Interval
    sync_factor: Interval
    packet_bytes: float
    rtt_sources: dict[str, int]
    notes: list[str] = field(default_factory=list)
    flow_table: list[FlowEstimate] = field(default_factory=list)
    reordered_packets: int = 0

    def to_dict(self, *, flows: bool = False) -> dict[str, Any]:
        """JSON-able dict (the per-flow table only when ``flows``)."""
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            if name == "flow_table":
                continue
            if isinstance(value, Interval):
                out[name] = value.to_dict()
            elif isinstance(value, float):
                out[name] = _finite(value)
            else:
                out[name] = value
        if flows:
            out["flow_table"] = [f.to_dict() for f in self.flow_table]
        return out


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


class _Accumulator:
    """Per-flow state (grown as flows appear), per-second bins and the loss times."""

    def __init__(self, warmup_s: float) -> None:
        self.fs, self.fi = kernel.new_state(1024)
        self.warmup_s = warmup_s
        self.start_s = math.nan
        self.end_s = math.nan
        self.packets = 0
        self.loss_times: list[FloatArray] = []
        self.second_index: list[IntArray] = []  # seconds from the start that saw packets
        self.second_sums: list[FloatArray] = []  # their departed bytes
        self.first_loss_s = math.inf
        self.queue_full_s = 0.0
        self.drop_rtt_s = np.zeros(0)
        self.largest_bytes = 0
        self.peak = PeakRate()  # the highest rate over windows of 100 ms

    def grow(self, flows: int) -> None:
        rows = self.fs.shape[0]
        if flows <= rows:
            return
        new = max(flows, 2 * rows)
        fs, fi = kernel.new_state(new)
        fs[:rows] = self.fs
        fi[:rows] = self.fi
        self.fs, self.fi = fs, fi


def estimate_trace(
    reader: TraceReader,
    *,
    capacity_bps: float | None = None,
    warmup_s: float = 0.0,
    buffer_bytes: float | None = None,
    progress: ProgressCallback | None = None,
    stage: StageCallback | None = None,
) -> TraceEstimates:
    """Read ``reader`` and estimate N_b, T_e, C_e, the loss bursts and α (004 §VI).

    Parameters
    ----------
    reader : TraceReader
        A CSV or pcap reader (:func:`validation.traces.open_trace`).
    capacity_bps : float, optional
        The link rate C, bit/s. When not given, the highest rate the trace carried over a
        window it measures (the busiest second, or the whole of a trace shorter than a second,
        or the rate sustained through 100 ms where higher: :func:`_carried_rate`; an
        underestimate for a link never saturated); where the trace's largest
        packet takes longer than ``kernel.GAP_MIN_S`` at that rate (below 12 Mbit/s for 1500
        bytes), the file is read a second time with it (the first-flight rule needs C).
    warmup_s : float
        Seconds from the first packet left out of rates, counts, reductions and loss bursts
        (004 §VII ignores the first 10 % of each run); RTTs are measured from the start.
    buffer_bytes : float, optional
        The link's buffer while the trace was taken, bytes. With it (and ``capacity_bps``)
        the RTT samples are corrected for the queueing delay at this link (a lower bound of
        it, from the time since the latest loss; see :mod:`validation.traces.kernel`); in a
        trace with the link's drop events, an LBP flow's spacing sample without a drop lag
        loses the wait the RBP flows' paced arrivals show at its time, which reads the file
        once more after the reading before it (:func:`_paced_queue_corrected`).
    progress : callable, optional
        Called with the fraction of the file read; it never goes back, so it stays at 1 while
        the file is read again.
    stage : callable, optional
        Called during each reading after the first with its label and the fraction of it
        done, from 0 to 1: "second reading at the estimated rate (… Mbit/s)" (no capacity
        given, a slow link), "second reading for this link's queue" (the RBP flows' paced
        arrivals), "third reading for this link's queue" when both run.

    Returns
    -------
    TraceEstimates

    Raises
    ------
    TraceFormatError
        If the file cannot be read (the message says what is wrong and where).
    ValueError
        If the trace has no packet after the warm-up.

    Notes
    -----
    The estimators and their intervals are described in the module docstring; the flow
    classification follows 004 §VI (temporal correlation of rate reductions with losses at
    the link), T_e is eq. 12, L̄ and α are §III.C eqs. 13 and 17.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III.C, §VI, §VII.
    .. [2] H. Jiang, C. Dovrolis, "Passive estimation of TCP round-trip times", ACM CCR 32(3),
       2002 (the first-round and handshake RTT estimates).
    """
    done = [0.0]

    def monotone(fraction: float) -> None:  # a second pass does not take progress back
        done[0] = max(done[0], fraction)
        if progress is not None:
            progress(done[0])

    est, largest_bytes = _estimate_pass(
        reader, capacity_bps, warmup_s, buffer_bytes, monotone, stage, "second"
    )
    if capacity_bps is not None or not est.capacity_bps > 0:
        return est
    tx_s = 8.0 * largest_bytes / est.capacity_bps
    if tx_s <= kernel.GAP_MIN_S:
        return est
    # The kernel closes a flow's first flight at a gap over GAP_MIN_S and four times the
    # longest inside it or one packet's transmission time at C (kernel.advance); without C,
    # back-to-back packets of a link this slow are more than GAP_MIN_S apart, every first
    # flight closes after its first packet, and the flows' RTT samples and classes are wrong.
    # Read the trace again with the capacity the first pass estimated.
    label = f"second reading at the estimated rate ({est.capacity_bps / 1e6:.4g} Mbit/s)"

    def second(fraction: float) -> None:
        monotone(fraction)
        if stage is not None:
            stage(label, fraction)

    second(0.0)
    again, _ = _estimate_pass(
        open_trace(reader.path), est.capacity_bps, warmup_s, buffer_bytes, second, stage, "third"
    )
    again.capacity_source = "estimated"
    again.notes.append(
        f"capacity estimated as the trace's highest rate ({est.capacity_bps / 1e6:.4g} Mbit/s), "
        f"and the trace read again with it: a {largest_bytes}-byte packet takes "
        f"{tx_s * 1e3:.3g} ms there, over the {kernel.GAP_MIN_S * 1e3:g} ms gap that ends a "
        "first flight without it; give the capacity when known"
    )
    return again


def _estimate_pass(
    reader: TraceReader,
    capacity_bps: float | None,
    warmup_s: float,
    buffer_bytes: float | None,
    progress: ProgressCallback,
    stage: StageCallback | None,
    next_reading: str,
) -> tuple[TraceEstimates, int]:
    """One reading of the trace (:func:`estimate_trace`); also its largest packet, bytes.
    ``stage`` follows the reading for this link's queue, if one follows this one, labelled
    with ``next_reading`` ("second", "third")."""
    acc = _Accumulator(warmup_s)
    queue_full_s = 0.0
    if buffer_bytes is not None and capacity_bps is not None:
        queue_full_s = 8.0 * float(buffer_bytes) / float(capacity_bps)
    link = kernel.new_link(capacity_bps)
    warm_abs = math.inf
    handshake = np.full(1024, np.nan)
    drop_rtt = DropRtt() if reader.has_drops else None
    for batch in reader.batches():
        if len(batch) == 0:
            continue
        if math.isnan(acc.start_s):
            acc.start_s = float(batch.time_s[0])
            warm_abs = acc.start_s + warmup_s
        acc.end_s = float(batch.time_s[-1])
        acc.packets += len(batch)
        acc.largest_bytes = max(acc.largest_bytes, int(batch.size_bytes.max()))
        flows = len(reader.flows)
        acc.grow(flows)
        if handshake.size < acc.fs.shape[0]:
            handshake = np.resize(handshake, acc.fs.shape[0])
            handshake[:] = np.nan
        for index, rtt in reader.flows.handshake_rtt_s.items():
            handshake[index] = rtt
        kernel.advance(
            acc.fs,
            acc.fi,
            handshake,
            batch.time_s,
            batch.flow,
            batch.size_bytes,
            batch.dropped,
            batch.loss_time_s,
            batch.loss_time_s if batch.hole_s is None else batch.hole_s,
            warm_abs,
            queue_full_s,
            link,
        )
        if drop_rtt is not None:
            drop_rtt.advance(flows, batch.time_s, batch.flow, batch.dropped)
        _bin(acc, batch.time_s, batch.size_bytes, batch.dropped, batch.loss_time_s, warm_abs)
        if progress is not None and reader.total_bytes > 0:
            progress(min(reader.bytes_read / reader.total_bytes, 1.0))
    if acc.packets == 0:
        raise ValueError(
            f"{reader.path}: no IPv4 or IPv6 packet that carries data (TCP packets without "
            "payload are read for the handshakes only): nothing to estimate from"
        )
    if not acc.end_s > warm_abs:
        span_s = acc.end_s - acc.start_s
        if span_s <= 0:
            what = f"{acc.packets:,} data packet(s) all have one time: rates need a span"
        else:
            what = f"{acc.packets:,} data packets span {span_s:.6g} s"
        raise ValueError(
            f"{reader.path}: no packet after the warm-up of {warmup_s:g} s: the trace's {what}"
        )
    acc.first_loss_s = float(link[1])
    acc.queue_full_s = queue_full_s
    if drop_rtt is not None:
        # The first-round spacing (or handshake RTT) as measured holds this link's queue:
        # the RTT is no longer than it. After a loss in the first flight it is no RTT sample
        # (a retransmission timeout or a delayed ACK may be in it) but still no shorter than
        # the RTT: the second flight left after an acknowledgement of a packet of the first
        # (one RTT at least) or a retransmission timeout (1 s before any RTT sample, at
        # least the smoothed RTT after: RFC 6298 §2).
        # The queueing in that sample is at most the full buffer's delay B/C, so the RTT is
        # no shorter than the sample less B/C, where the sample is a first round of two
        # packets or more with no drop in it (a lone first packet may wait for a delayed
        # ACK's timer, RFC 5681 §4.2; a drop puts a timeout in it). Where the buffer is not
        # given there is no such bound.
        # A flow whose first flight lost packets has, where its restart after the timeout
        # gave one, a clean sample of the same kind (kernel ``restart_raw_s``): it bounds the
        # lag from above and, less B/C, from below as a clean first round does.
        n = len(reader.flows)
        raw = acc.fs[:n, kernel.F["raw_rtt_s"]]
        restart = acc.fs[:n, kernel.F["restart_raw_s"]]
        clean = (acc.fi[:n, kernel.I["first_flight_drops"]] == 0) & (
            acc.fi[:n, kernel.I["flight1_packets"]] >= 2
        )
        restarted = ~clean & np.isfinite(restart)
        upper = np.where(restarted, np.fmin(raw, restart), raw)
        sample = np.where(restarted, restart, raw)
        least = np.where((clean | restarted) & (queue_full_s > 0), sample - queue_full_s, np.nan)
        acc.drop_rtt_s = drop_rtt.rtts(n, upper, least)
    summary = _summarize(reader, acc, warm_abs, capacity_bps, stage, next_reading)
    return summary, acc.largest_bytes


def _bin(
    acc: _Accumulator,
    time_s: FloatArray,
    size_bytes: IntArray,
    dropped: Any,
    loss_time_s: FloatArray,
    warm_abs: float,
) -> None:
    """Per-second departed bytes (for the link rate, C and the batches) and the loss times."""
    departed = ~dropped
    acc.peak.advance(time_s[departed], size_bytes[departed])
    # Only the seconds that saw packets are kept: memory and time grow with the packets,
    # never with the span of the timestamps.
    second = np.floor(time_s[departed] - acc.start_s).astype(np.int64)
    index, inverse = np.unique(second, return_inverse=True)
    acc.second_index.append(index)
    acc.second_sums.append(np.bincount(inverse, weights=size_bytes[departed]).astype(np.float64))
    if len(acc.second_index) > 64:
        _merge_bins(acc.second_index, acc.second_sums)
    losses = loss_time_s[np.isfinite(loss_time_s)]
    losses = losses[losses >= warm_abs]
    if losses.size:
        acc.loss_times.append(losses)


def _merge_bins(indices: list[IntArray], sums: list[FloatArray]) -> tuple[IntArray, FloatArray]:
    """The bins that saw packets and their bytes, merged in place into one pair of arrays."""
    if not indices:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    index, inverse = np.unique(np.concatenate(indices), return_inverse=True)
    weights = np.concatenate(sums)
    merged = np.bincount(inverse, weights=weights, minlength=index.size).astype(np.float64)
    indices[:], sums[:] = [index], [merged]
    return index, merged


def _carried_rate(acc: _Accumulator, per_second: FloatArray) -> tuple[float, str]:
    """The highest rate the trace carried over a window it measures, bit/s, and the window:
    the busiest whole second (for a trace shorter than a second the whole trace: its busiest
    "second" is all of it over one second, below what it carried), or the highest rate
    sustained through a window of 100 ms (:mod:`validation.traces.peak_rate`), whichever is
    higher. Each is a lower bound of the link's capacity."""
    span_s = acc.end_s - acc.start_s
    if 0 < span_s < 1.0:
        rate, window = float(per_second.sum()) * 8.0 / span_s, f"whole trace ({span_s:.3g} s)"
    else:
        rate, window = (float(per_second.max()) * 8.0 if per_second.size else 0.0), "second"
    if acc.peak.rate_bps > rate:
        rate = acc.peak.rate_bps
        window = f"{acc.peak.window_s * 1e3:g} ms (the rate sustained through each quarter)"
    return rate, window


def _per_second(acc: _Accumulator, packets: int, path: str) -> FloatArray:
    """Departed bytes in each second of the span; refused when the span is absurd for the
    packets (so that the span never sets the memory: at most ``SPAN_FLOOR_S`` seconds or
    ``SPAN_PER_PACKET_S`` a packet)."""
    span_s = acc.end_s - acc.start_s
    if span_s > max(SPAN_FLOOR_S, SPAN_PER_PACKET_S * packets):
        raise ValueError(
            f"{path}: the trace's {packets:,} packets span {_duration(span_s)}: more than "
            f"{SPAN_FLOOR_S / 3600:g} hours with more than {SPAN_PER_PACKET_S:g} s between "
            "packets on average; its timestamps are not those of a link's traffic (a clock "
            "reset, a wrong timestamp resolution, or "
            "captures of different years merged); estimates need a capture of a link under "
            "load, minutes to hours long"
        )
    index, sums = _merge_bins(acc.second_index, acc.second_sums)
    dense = np.zeros(int(span_s) + 1)
    dense[index] = sums
    return dense


def _duration(seconds: float) -> str:
    """``seconds`` in the largest unit that reads well."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400.0), ("hours", 3600.0)):
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit} ({seconds:.4g} s)"
    return f"{seconds:.4g} s"


@dataclass
class _Classes:
    """Each flow's class (004 §VI) and the tests behind it, one entry per flow."""

    classes: np.ndarray  # class names (object array)
    lbp: BoolArray  # bottlenecked here
    rbp: BoolArray  # bottlenecked elsewhere
    sure_lbp: BoolArray  # LBP flows at N_b's interval's low end
    unsure_other: BoolArray  # RBP flows at N_b's interval's high end
    p_lbp: FloatArray  # 1 - the binomial test's p-value
    bottlenecked_flows: Interval  # N_b with its classification interval


@dataclass
class _Rtts:
    """Each flow's RTT after the queue corrections, where it came from, and its range."""

    rtt: FloatArray  # seconds (NaN: no sample)
    source: np.ndarray  # 'handshake', 'drops', 'first_round', 'restart' or 'none'
    raw: FloatArray  # the sample as measured, queueing included
    at: FloatArray  # when it was taken
    restarted: BoolArray  # the sample is the restart's after a timeout
    low: FloatArray  # range of the RTT, seconds
    high: FloatArray
    sampled: BoolArray  # has an RTT


def _summarize(
    reader: TraceReader,
    acc: _Accumulator,
    warm_abs: float,
    capacity_bps: float | None,
    stage: StageCallback | None,
    next_reading: str,
) -> TraceEstimates:
    I = kernel.I  # noqa: E741
    n = len(reader.flows)
    fs, fi = acc.fs[:n], acc.fi[:n]
    measured_s = acc.end_s - warm_abs
    notes: list[str] = list(reader.notes)
    cls = _classify(reader, fs, fi, acc, measured_s)
    rtts = _rtts(reader, fs, fi, acc, capacity_bps, cls, notes, stage, next_reading)
    te = _effective_rtt(fs, cls.lbp, rtts, notes)
    # Rates after the warm-up, and batch means over time.
    rate_all = _per_second(acc, acc.packets, reader.path)
    given = capacity_bps is not None
    if capacity_bps is None:
        capacity_bps, window = _carried_rate(acc, rate_all)
        notes.append(
            f"capacity estimated as the rate of the busiest {window} (the highest rate the "
            "trace carried over a window it measures); give it when known"
        )
    link_rate, lbp_rate = _rates(fs, acc, rate_all, warm_abs, measured_s, cls)
    fraction = Interval(
        lbp_rate.value / capacity_bps,
        lbp_rate.low / capacity_bps,
        lbp_rate.high / capacity_bps,
        lbp_rate.method,
    )
    drops = fi[:, I["drops_measured"]]
    loss_times = (
        np.sort(np.concatenate(acc.loss_times)) if acc.loss_times else np.zeros(0, dtype=float)
    )
    arrivals = int(fi[:, I["packets_measured"]].sum() + (drops.sum() if reader.has_drops else 0))
    loss_rate = _loss_rate(loss_times, arrivals, warm_abs, acc.end_s)
    bursts = _bursts(loss_times, te.value)
    mean_burst, median_burst = _burst_intervals(bursts)
    n_b, n_b_interval = int(cls.lbp.sum()), cls.bottlenecked_flows
    alpha = Interval(
        mean_burst.value / n_b if n_b else math.nan,
        mean_burst.low / n_b_interval.high if n_b_interval.high else math.nan,
        mean_burst.high / n_b_interval.low if n_b_interval.low else math.nan,
        "mean burst over N_b; bounds from the burst and N_b intervals",
    )
    if not reader.has_drops:
        notes.append(
            "no drop events in a capture: losses are inferred from sequence holes filled by "
            "retransmissions; losses before this link count as losses here"
        )
    return TraceEstimates(
        kind=reader.kind,
        has_drops=reader.has_drops,
        packets=acc.packets,
        flows=n,
        start_s=acc.start_s,
        end_s=acc.end_s,
        warmup_s=acc.warmup_s,
        capacity_bps=float(capacity_bps),
        capacity_source="given" if given else "estimated",
        class_counts={name: int((cls.classes == name).sum()) for name in CLASSES},
        bottlenecked_flows=n_b_interval,
        effective_rtt_s=te,
        bottlenecked_capacity_bps=lbp_rate,
        bottlenecked_share=fraction,
        link_rate_bps=link_rate,
        loss_rate=loss_rate,
        loss_bursts=int(bursts.size),
        loss_burst_mean_packets=mean_burst,
        loss_burst_median_packets=median_burst,
        sync_factor=alpha,
        packet_bytes=float(np.median(fi[cls.lbp, I["max_size_bytes"]])) if n_b else math.nan,
        rtt_sources={
            name: int((rtts.source[cls.lbp] == name).sum())
            for name in ("handshake", "drops", "first_round", "restart", "none")
        },
        notes=notes,
        reordered_packets=reader.reordered_packets,
        flow_table=_flow_table(reader, fs, fi, measured_s, cls, rtts),
    )


def _classify(
    reader: TraceReader, fs: FloatArray, fi: IntArray, acc: _Accumulator, measured_s: float
) -> _Classes:
    """Each flow's class: LBP, RBP, window-limited, size-limited, unresponsive, no data."""
    F, I = kernel.F, kernel.I  # noqa: E741
    n = fs.shape[0]
    expl = fi[:, I["explained"]]
    unexpl = fi[:, I["unexplained"]]
    # Chance share of explained reductions if reductions ignored the losses here: the share
    # of tested rounds that followed a loss. One-sided binomial test of the explained count.
    tested = fi[:, I["tested"]]
    chance = np.where(tested > 0, fi[:, I["covered"]] / np.maximum(tested, 1), 1.0)
    p_value = stats.binom.sf(expl - 1, expl + unexpl, np.clip(chance, 1e-12, 1.0))
    rounds = fi[:, I["rounds"]]
    packets = fi[:, I["packets"]]
    classes = np.full(n, "window_limited", dtype=object)
    short = (rounds < MIN_ROUNDS) | (packets < MIN_PACKETS)
    # Any loss here counts, the warm-up's too: a few LBP flows on a large buffer may lose only
    # when their slow start overflows it (004 §VII's N_b = 2 at B = C·T_avg).
    lossy = fi[:, I["drops_measured"]] > 0
    lossy |= np.isfinite(fs[:, F["last_loss_s"]])
    # A flow behind a slower link (004 §VII's RBP flows) reaches this link with its packets
    # spaced by that link's transmission time: they (almost) never leave back to back, whereas
    # a window-based flow from a fast access link sends bursts (slow start, and two packets
    # per delayed ACK) that do.
    departed = fi[:, I["packets_measured"]]
    paced = (departed >= MIN_PACKETS) & (
        fi[:, I["back_to_back"]] < PACED_MAX_SHARE * np.maximum(departed, 1)
    )
    # Reductions that ignore the flow's losses here: many, mostly unexplained, and no more
    # often after a loss than chance (p >= 0.5).
    uncorrelated = (unexpl >= RBP_MIN_UNEXPLAINED) & (unexpl >= 2 * expl) & (p_value >= RBP_P_VALUE)
    # "The key difference with LBP flows is that the latter keep increasing their window until
    # a loss occurs" (004 §VI): a flow whose second flight is no larger than its first, with
    # no loss in them, stopped growing at a window of its own (receiver window, [19]'s
    # window-limited flows; 004 §VII's are limited by the receiver window).
    n1, n2 = fi[:, I["flight1_packets"]], fi[:, I["flight2_packets"]]
    window_held = (n1 >= 1) & (n2 >= 1) & (n2 <= n1) & (fi[:, I["start_drops"]] == 0)
    # A flow that loses here is LBP only if its window may have kept growing between its losses
    # after the warm-up: "the key difference with LBP flows is that the latter keep increasing
    # their window until a loss occurs" (004 §VI). A window-limited flow that lost here in the
    # crowd of starts (the warm-up, which 004 §VII ignores), or now and then since, is not.
    still = _window_still(fs, fi, acc, paced)
    lbp = ~short & lossy & ~uncorrelated & ~paced & ~window_held & ~still
    rbp = ~short & ~lbp & ((unexpl >= MIN_REDUCTIONS) | paced)
    unresponsive = _unresponsive(reader, fs, fi, acc, measured_s, short)
    lbp &= ~unresponsive
    rbp &= ~unresponsive
    classes[short] = "size_limited"
    classes[unresponsive] = "unresponsive"
    classes[lbp] = "lbp"
    classes[rbp] = "rbp"
    for index in reader.flows.no_payload:
        classes[index] = "no_data"
        lbp[index] = rbp[index] = False
    sure_lbp = lbp & (
        fi[:, I["drops_measured"]] + (p_value < LBP_P_VALUE) * SURE_DROPS >= SURE_DROPS
    )
    unsure_other = rbp & (p_value < UNSURE_P_VALUE)
    n_b = int(lbp.sum())
    return _Classes(
        classes=classes,
        lbp=lbp,
        rbp=rbp,
        sure_lbp=sure_lbp,
        unsure_other=unsure_other,
        p_lbp=1.0 - p_value,
        bottlenecked_flows=Interval(
            float(n_b),
            float(sure_lbp.sum()),
            float(n_b + unsure_other.sum()),
            f"classification interval: LBP flows with {SURE_DROPS}+ drops here or reductions "
            f"correlated with them (p < {LBP_P_VALUE}) .. LBP flows plus RBP flows whose "
            f"reductions still follow losses here more than chance (p < {UNSURE_P_VALUE})",
        ),
    )


def _unresponsive(
    reader: TraceReader,
    fs: FloatArray,
    fi: IntArray,
    acc: _Accumulator,
    measured_s: float,
    short: BoolArray,
) -> BoolArray:
    """Flows that are not TCP (a capture says) or keep less than a packet in flight."""
    F, I = kernel.F, kernel.I  # noqa: E741
    # A capture shows which flows are TCP; the CSV format does not (its flows are all taken
    # for TCP: a Poisson or constant-rate stream there may be counted as LBP or RBP).
    unresponsive = np.zeros(fs.shape[0], dtype=np.bool_)
    for index in reader.flows.not_tcp:
        unresponsive[index] = True
    # A window-based flow keeps at least one packet in flight: rate x RTT >= 1 packet (the RTT
    # sample as measured, queueing included). A
    # stream whose "RTT sample" implies less (a Poisson or constant-rate stream, where the
    # first gap passes for a round trip) is not window-based.
    rate_pps = fi[:, I["packets_measured"]] / measured_s
    raw_rtt_s = fs[:, F["round_rtt_s"]] + fs[:, F["queue_at_rtt_s"]]  # before the correction
    if acc.drop_rtt_s.size:
        # The window is the rate times the RTT with the queue in it: at least the drop lag.
        raw_rtt_s = np.fmax(raw_rtt_s, acc.drop_rtt_s)
    if not reader.has_drops:
        # A capture names its TCP flows, so the test need not catch other streams there, and
        # it must not catch a TCP flow whose sample came from an idle link (a handshake at
        # its start) while its round trips then grew by this link's queue: its window is at
        # least its rate times its longest round trip, the sample plus the full buffer's
        # delay plus the longest a receiver holds an ACK (``_window_still``'s R + Q + D).
        raw_rtt_s = raw_rtt_s + acc.queue_full_s + kernel.ACK_DELAY_MAX_S
    with np.errstate(invalid="ignore"):
        unresponsive |= ~short & (rate_pps * raw_rtt_s < MIN_WINDOW_PACKETS)
    return unresponsive


def _rtts(
    reader: TraceReader,
    fs: FloatArray,
    fi: IntArray,
    acc: _Accumulator,
    capacity_bps: float | None,
    cls: _Classes,
    notes: list[str],
    stage: StageCallback | None,
    next_reading: str,
) -> _Rtts:
    """Each flow's RTT: its sample, the queue taken out, and its range (see the module)."""
    I = kernel.I  # noqa: E741
    n = fs.shape[0]
    lbp, rbp = cls.lbp, cls.rbp
    rtt, source, raw, at, restarted = _samples(reader, fs, fi, lbp, notes)
    rtt, queue_note = _queue_corrected_rtts(raw, at, rtt, lbp, acc)
    notes.append(queue_note)
    if not reader.has_drops:
        rtt = _capture_queue_midpoint(raw, at, rtt, lbp, acc, raw - rtt, notes)
    rtt = _paced_queue_corrected(
        reader, acc, capacity_bps, raw, at, rtt, lbp, rbp, notes, stage, next_reading
    )
    # A drop in the first flight: the second flight follows a retransmission (a timeout, or
    # the delayed acknowledgement of a lone packet), not the first flight's acknowledgements,
    # so its spacing is no RTT sample (H. Jiang, C. Dovrolis, CCR 2002, take the first two
    # flights of an intact slow start).
    broken = (fi[:, I["first_flight_drops"]] > 0) & (source == "first_round")
    with_drop_rtt = np.isfinite(acc.drop_rtt_s) if acc.drop_rtt_s.size else np.zeros(n, bool)
    kept = lbp & ~broken & (np.isfinite(rtt) | with_drop_rtt)
    if (broken & lbp).any() and kept.any():
        rtt = np.where(broken, np.nan, rtt)
        source[broken] = "none"
        notes.append(
            f"{int((broken & lbp).sum())} LBP flows lost packets of their first flight: their "
            "first-round spacing is no RTT sample"
        )
    elif (broken & lbp).any():
        notes.append(
            "every LBP flow's RTT is a first-round spacing after a loss in its first flight "
            "(no RTT sample proper): T_e is taken from them all the same and may be too long"
        )
    if acc.drop_rtt_s.size:
        from_drops = np.isfinite(acc.drop_rtt_s)
        rtt = np.where(from_drops, acc.drop_rtt_s, rtt)
        source[from_drops] = "drops"
        notes.append(
            f"{int((from_drops & lbp).sum())} of {int(lbp.sum())} LBP flows have their RTT "
            "from the lag on which their drops agree (no queueing at this link in it)"
        )
    sampled = np.isfinite(rtt) & (rtt > 0)
    low_rtt, high_rtt = _measured_ranges(reader, fs, fi, acc, rtt, raw, source)
    # A correction never takes out more queue than the sample's packet can have waited (the
    # busy-period bound in a trace with drop events): the RTT is at least the range's low end.
    rtt = np.fmax(rtt, np.where(sampled, low_rtt, np.nan))
    return _Rtts(rtt, source, raw, at, restarted, low_rtt, high_rtt, sampled)


def _samples(
    reader: TraceReader, fs: FloatArray, fi: IntArray, lbp: BoolArray, notes: list[str]
) -> tuple[FloatArray, np.ndarray, FloatArray, FloatArray, BoolArray]:
    """Each flow's RTT sample: the handshake, the first round or the restart's (and source).

    Returns the sample less the kernel's queue correction, its source, the sample as
    measured, when it was taken, and which flows have the restart's.
    """
    F, I = kernel.F, kernel.I  # noqa: E741
    n = fs.shape[0]
    handshake = reader.flows.handshake_rtt_s
    rtt = np.where(np.isfinite(fs[:, F["round_rtt_s"]]), fs[:, F["round_rtt_s"]], np.nan)
    source = np.where(np.isfinite(rtt), "first_round", "none").astype(object)
    for index in handshake:
        if np.isfinite(rtt[index]):
            source[index] = "handshake"
    # A drop in the first flight: the restart after the retransmission timeout gives the
    # sample instead, where it had a clean pair of flights (kernel ``restart_*``).
    raw, at = fs[:, F["raw_rtt_s"]].copy(), fs[:, F["rtt_sample_at_s"]].copy()
    # A flow with a handshake has two samples of its RTT, each the RTT plus a wait (this
    # link's queue; a timeout, where the handshake's ACK or the first flight was lost): the
    # handshake, taken as its first data packet left, and the first-round spacing the kernel
    # measures all the same (its sample columns). The shorter one holds less besides the RTT.
    # A first-round spacing no longer than two of the flow's own mean packet spacings, and
    # under a quarter of its handshake, is the spacing a slower link after this one put
    # between its packets (a flight cut after its first packet), not a round trip: the
    # handshake stays (a handshake is at most the RTT plus this link's queue or a timeout).
    spacing = (fs[:, F["last_s"]] - fs[:, F["first_s"]]) / np.maximum(fi[:, I["packets"]] - 1, 1)
    slower_link = 0
    for index, value in handshake.items():
        if index < n and source[index] == "handshake":
            paced = raw[index] <= 2.0 * spacing[index] and raw[index] < value / 4.0
            if raw[index] < value and not paced:
                source[index] = "first_round"
                rtt[index] = fs[index, F["first_round_rtt_s"]]
            else:
                slower_link += int(raw[index] < value)
                raw[index], at[index] = value, fs[index, F["first_s"]]
    if slower_link:
        notes.append(
            f"{slower_link} flows' first-round spacing was no longer than two of their own "
            "packet spacings and under a quarter of their handshake: the spacing of a slower "
            "link after this one, not a round trip; their handshake RTT is used"
        )
    restart = fs[:, F["restart_raw_s"]]
    restarted = (
        (fi[:, I["first_flight_drops"]] > 0) & np.isfinite(restart) & (source != "handshake")
    )
    if restarted.any():
        raw = np.where(restarted, restart, raw)
        at = np.where(restarted, fs[:, F["restart_at_s"]], at)
        corrected = kernel.less_queue(restart, fs[:, F["restart_queue_s"]])
        rtt = np.where(restarted, corrected, rtt)
        source[restarted] = "restart"
        if (restarted & lbp).any():
            notes.append(
                f"{int((restarted & lbp).sum())} LBP flows lost packets of their first flight: "
                "their RTT sample is the first clean pair of flights of the slow start that "
                "restarted them after the timeout"
            )
    return rtt, source, raw, at, restarted


def _effective_rtt(fs: FloatArray, lbp: BoolArray, rtts: _Rtts, notes: list[str]) -> Interval:
    """T_e over the LBP flows (004 eq. 12), its interval widened by the unsampled flows."""
    sampled = rtts.sampled
    lbp_rtts = rtts.rtt[lbp & sampled]
    # An LBP flow without an RTT sample still has its spacing as measured (a first round with
    # a loss in it), which is no shorter than its RTT (see estimate_trace); none: no bound.
    measured = fs[:, kernel.F["raw_rtt_s"]]
    unsampled = lbp & ~sampled
    upper = np.where(np.isfinite(measured) & (measured > 0), measured, np.inf)[unsampled]
    if unsampled.any():
        notes.append(
            f"{int(unsampled.sum())} LBP flows have no RTT sample; T_e uses the others, and "
            "its interval runs from 0 to T_e with them at their longest RTT"
        )
    return _harmonic_interval(lbp_rtts, upper, rtts.low[lbp & sampled], rtts.high[lbp & sampled])


def _rates(
    fs: FloatArray,
    acc: _Accumulator,
    rate_all: FloatArray,
    warm_abs: float,
    measured_s: float,
    cls: _Classes,
) -> tuple[Interval, Interval]:
    """The link's rate and the LBP flows' rate C_e, bits/s, with batch-means intervals."""
    flow_bytes = fs[:, kernel.F["bytes_measured"]]
    all_bytes = float(flow_bytes.sum())

    def share_of(flows: BoolArray) -> float:
        return float(flow_bytes[flows].sum()) / all_bytes if all_bytes > 0 else 0.0

    first_full = math.ceil(warm_abs - acc.start_s)
    link_rate = _batch_means(
        rate_all[first_full : int(acc.end_s - acc.start_s)] * 8.0, 8.0 * all_bytes / measured_s
    )
    # The ends take the flows of N_b's interval: the sure LBP flows' bytes at the link rate's
    # low end, the LBP flows' and the unsure RBP flows' at its high end.
    lbp_rate = Interval(
        share_of(cls.lbp) * link_rate.value,
        share_of(cls.sure_lbp) * link_rate.low,
        share_of(cls.lbp | cls.unsure_other) * link_rate.high,
        "LBP share of the bytes times the link rate's batch-means interval; the ends take "
        "the flows of N_b's interval (sure LBP flows .. LBP plus unsure RBP flows)",
    )
    return link_rate, lbp_rate


def _flow_table(
    reader: TraceReader,
    fs: FloatArray,
    fi: IntArray,
    measured_s: float,
    cls: _Classes,
    rtts: _Rtts,
) -> list[FlowEstimate]:
    """One row per flow: its class, RTT and source, counts and rate."""
    F, I = kernel.F, kernel.I  # noqa: E741
    # A first round that lost packets holds a retransmission, not one RTT: no sample (the
    # restart's stands in where there was one).
    clean_sample = (fi[:, I["first_flight_drops"]] == 0) | rtts.restarted
    return [
        FlowEstimate(
            key=reader.flows.keys[i],
            flow_class=str(cls.classes[i]),
            rtt_s=float(rtts.rtt[i]),
            rtt_source=str(rtts.source[i]),
            packets=int(fi[i, I["packets"]]),
            drops=int(fi[i, I["drops_measured"]]),
            rate_bps=8.0 * float(fs[i, F["bytes_measured"]]) / measured_s,
            explained_reductions=int(fi[i, I["explained"]]),
            unexplained_reductions=int(fi[i, I["unexplained"]]),
            lbp_probability=float(cls.p_lbp[i]),
            rtt_sample_s=float(rtts.raw[i]) if clean_sample[i] else math.nan,
            rtt_sample_at_s=float(rtts.at[i]) if clean_sample[i] else math.nan,
        )
        for i in range(fs.shape[0])
    ]


def _window_still(
    fs: np.ndarray, fi: np.ndarray, acc: _Accumulator, paced: np.ndarray
) -> np.ndarray:
    """Flows whose window cannot have grown through their longest loss-free stretch.

    "The key difference with LBP flows is that the latter keep increasing their window until
    a loss occurs" (004 §VI). In congestion avoidance a TCP window grows by "roughly 1
    full-sized segment per round-trip time" (RFC 5681 §3.1); with the per-ACK increase of its
    eq. 3 and an ACK for every second segment (RFC 5681 §4.2; ns-2's TCP as 004 ran it) by
    half a segment; in slow start, after a timeout, faster. A round trip lasts at most
    R + Q + D: R the flow's RTT sample as measured (the first-round spacing or handshake,
    this link's queue included, so no shorter than the RTT; where its first flight lost
    packets, the shorter restart sample or restart bound, each no shorter than the RTT either,
    :func:`kernel._restart_flights`; the drop lag where longer), Q the
    full buffer's delay, D = ``ACK_DELAY_MAX_S`` the longest a receiver holds an ACK (Linux's
    TCP_DELACK_MAX, include/net/tcp.h; ns-2's DelAck sink 100 ms). The stretches run from the
    warm-up's end (or the flow's first packet) to a loss here, from one loss to the next, and
    from the last loss to the flow's last packet; a sender may wait out one retransmission
    timeout in a stretch (later timeouts follow further losses), so each stretch's longest
    silence is left out of its length T. A growing window thus runs K = floor(T / (R + Q + D))
    rounds of windows W_0 + k/2 (k = 0 .. K-1): at least K(K - 1)/4 packets. A flow that sent
    fewer in its longest stretch kept its window there (a receiver window: [19] of 004 §VI's
    window-limited flows), or a slower link upstream held it: not LBP either way. The bound is
    one-sided: an over-long R, Q or D only weakens it. It needs the buffer (Q): without it no
    flow is found still.
    """
    F, I = kernel.F, kernel.I  # noqa: E741
    n = fs.shape[0]
    if not acc.queue_full_s > 0:
        return np.zeros(n, dtype=np.bool_)
    # The shortest of the flow's spacings that are no shorter than its RTT: the first round,
    # the restart's sample and the restart's bound (kernel ``_restart_flights``). The bound
    # holds for a flow whose packets reach this link as its sender sent them; behind a slower
    # link (``paced``) a packet sent with L may follow it one transmission time of that link
    # later, so there it is left out.
    rtt = np.fmin(fs[:, F["raw_rtt_s"]], fs[:, F["restart_raw_s"]])
    rtt = np.fmin(rtt, np.where(paced, np.nan, fs[:, F["restart_bound_s"]]))
    if acc.drop_rtt_s.size:
        rtt = np.fmax(rtt, acc.drop_rtt_s[:n])
    # The stretch still open at the flow's last packet, against the longest closed one.
    open_span = fs[:, F["last_s"]] - fs[:, F["stretch_start_s"]] - fs[:, F["stretch_silence_s"]]
    longest = fs[:, F["longest_stretch_s"]]
    span = np.where(open_span > longest, open_span, longest)
    sent = np.where(
        open_span > longest, fi[:, I["stretch_packets"]], fi[:, I["longest_stretch_packets"]]
    )
    with np.errstate(invalid="ignore"):
        rounds = np.floor(span / (rtt + acc.queue_full_s + ACK_DELAY_MAX_S))
        least = rounds * (rounds - 1.0) / 4.0
        still: np.ndarray = np.isfinite(least) & (rounds >= 2) & (sent < least)
    return still


def _sides(
    raw: FloatArray, at: FloatArray, lbp: np.ndarray, acc: _Accumulator
) -> tuple[np.ndarray, np.ndarray]:
    """The LBP flows' samples taken before the link's first loss, and those taken after."""
    usable = lbp & np.isfinite(raw) & np.isfinite(at)
    return usable & (at < acc.first_loss_s), usable & (at >= acc.first_loss_s)


def _capture_queue_midpoint(
    raw: FloatArray,
    at: FloatArray,
    rtt: FloatArray,
    lbp: np.ndarray,
    acc: _Accumulator,
    taken_off: FloatArray,
    notes: list[str],
) -> FloatArray:
    """A capture's samples taken once the link was congested, less half the full buffer's
    delay where nothing else told their queue.

    A sample (handshake or first round) holds this link's wait of one packet, between 0 and
    Q = B/C. With too few samples on either side of the link's first loss for
    :func:`_queue_corrected_rtts`' median, the kernel takes off Q where a loss (a hole, in a
    capture) came within Q before the sample, and nothing otherwise; a capture has no drop
    events to read the queue from (:func:`_paced_queue_corrected`). After the first loss a
    link loaded by LBP flows keeps a standing queue that swings between its losses (004
    §III's sawtooth), so "nothing" is the end of the sample's range [raw - Q, raw] least
    likely to hold: the middle of it, Q/2 off, is taken instead; the RTT's range stays the
    whole of it (:func:`_measured_ranges`).
    """
    before, after = _sides(raw, at, lbp, acc)
    if not acc.queue_full_s > 0 or (before.sum() >= MIN_GROUP and after.sum() >= MIN_GROUP):
        return rtt
    untold = np.isfinite(raw) & np.isfinite(at) & (at >= acc.first_loss_s) & ~(taken_off > 0)
    if not (untold & lbp).any():
        return rtt
    out = rtt.copy()
    out[untold] = kernel.less_queue(raw[untold], 0.5 * acc.queue_full_s)
    notes.append(
        f"{int((untold & lbp).sum())} LBP flows' RTT samples, taken once the link was "
        "congested but with no loss just before them, have half the full buffer's delay "
        f"({0.5e3 * acc.queue_full_s:.3g} ms) taken off: a capture does not show the queue"
    )
    return out


def _queue_corrected_rtts(
    raw: FloatArray, at: FloatArray, rtt: FloatArray, lbp: np.ndarray, acc: _Accumulator
) -> tuple[FloatArray, str]:
    """RTT samples less the typical queueing delay at this link once it is congested.

    A sample (handshake or first round) taken before the link's first loss saw a queue that
    had not yet overflowed; one taken after saw the congested queue, whose delay is common to
    all flows. Flows start at times unrelated to their RTTs, so the LBP flows' samples after
    the first loss exceed those before by that delay in the median: the correction is the
    difference of the two medians, between 0 and the full buffer's delay when the buffer is
    given. It needs ``MIN_GROUP`` samples on each side; otherwise the kernel's correction
    (the full buffer's delay after a recent loss, when the buffer is given) stays. ``raw``
    and ``at`` are the samples as measured and their times (a restart's where the first
    flight lost packets), ``rtt`` the kernel's corrected ones.
    """
    before, after = _sides(raw, at, lbp, acc)
    if before.sum() < MIN_GROUP or after.sum() < MIN_GROUP:
        return rtt, (
            f"RTT samples: {int(before.sum())} LBP samples before the link's first loss and "
            f"{int(after.sum())} after; fewer than {MIN_GROUP} on a side, so the queueing "
            "delay in them is "
            + ("estimated from the buffer given" if acc.queue_full_s > 0 else "not removed")
        )
    queue_s = float(np.median(raw[after]) - np.median(raw[before]))
    queue_s = max(queue_s, 0.0)
    if acc.queue_full_s > 0:
        queue_s = min(queue_s, acc.queue_full_s)
    congested = np.isfinite(raw) & np.isfinite(at) & (at >= acc.first_loss_s)
    clean = np.isfinite(raw) & np.isfinite(at) & (at < acc.first_loss_s)
    out = rtt.copy()
    out[clean] = raw[clean]
    out[congested] = kernel.less_queue(raw[congested], queue_s)
    return out, (
        f"RTT samples taken after the link's first loss ({int(after.sum())} LBP flows) are "
        f"reduced by {queue_s * 1e3:.3g} ms, the median queueing delay they show over the "
        f"{int(before.sum())} taken before"
    )


def _paced_queue_corrected(
    reader: TraceReader,
    acc: _Accumulator,
    capacity_bps: float | None,
    raw: FloatArray,
    at: FloatArray,
    rtt: FloatArray,
    lbp: np.ndarray,
    rbp: np.ndarray,
    notes: list[str],
    stage: StageCallback | None,
    ordinal: str,
) -> FloatArray:
    """The LBP flows' spacing samples less this link's wait at their time, read from the RBP
    flows' paced arrivals (:mod:`validation.traces.paced_queue`), where that wait is known.

    A spacing sample (first round or restart: H. Jiang, C. Dovrolis, CCR 2002, [21] of 004
    §VI) holds the wait here of its second flight's first packet, which BSCL's RTT excludes
    (004 §III.A); :func:`_queue_corrected_rtts` takes off the median wait of the samples
    after the link's first loss, so a flow that started into a long queue keeps the rest of
    it. Flows bottlenecked at a slower link before this one (004 §VI's RBP flows, behind the
    slow access links of 004 §VII) reach it once a packet transmission time of that link
    apart while that link is backlogged; their departures and the link's drops and idle
    instants give each one's period and anchor, and so the wait at any time within their
    backlogged stretches. The median over the RBP flows that cover a sample's time replaces
    the correction there. It needs the link's drop events, C and B (the bounds), so the
    trace is read a second time, following only the RBP flows, when some LBP flow's RTT may
    come from a spacing sample (no drop lag); ``stage``, when given, follows that reading
    with the label "``ordinal`` reading for this link's queue".
    """
    n = raw.size
    ask = lbp & np.isfinite(raw) & np.isfinite(at)
    if acc.drop_rtt_s.size:
        ask &= ~np.isfinite(acc.drop_rtt_s[:n])
    if not (
        reader.has_drops
        and capacity_bps is not None
        and capacity_bps > 0
        and acc.queue_full_s > 0
        and rbp.any()
        and ask.any()
    ):
        return rtt
    followed = rbp.copy()
    if followed.sum() > paced_queue.MAX_FOLLOWED:
        # Memory grows with samples x followed flows: follow the RBP flows that sent most.
        sent = np.where(rbp, acc.fi[:n, kernel.I["packets"]], -1)
        followed[:] = False
        followed[np.argsort(-sent, kind="stable")[: paced_queue.MAX_FOLLOWED]] = True
    label = f"{ordinal} reading for this link's queue"
    per_flow = paced_queue.paced_waits(
        open_trace(reader.path),
        followed,
        at[ask],
        float(capacity_bps),
        acc.queue_full_s,
        progress=None if stage is None else lambda fraction: stage(label, fraction),
    )
    wait = paced_queue.median_wait(per_flow)
    known = np.isfinite(wait)
    out = rtt.copy()
    index = np.flatnonzero(ask)[known]
    out[index] = kernel.less_queue(raw[index], wait[known])
    notes.append(
        f"{int(known.sum())} of {int(ask.sum())} LBP spacing samples without a drop lag are "
        f"reduced by this link's wait at their time as {int(followed.sum())} RBP flows' "
        "paced arrivals show it (their median)"
    )
    return out


def _measured_ranges(
    reader: TraceReader,
    fs: np.ndarray,
    fi: np.ndarray,
    acc: _Accumulator,
    rtt: FloatArray,
    raw: FloatArray,
    source: np.ndarray,
) -> tuple[FloatArray, FloatArray]:
    """Each flow's RTT range [low, high] as its measurement allows it, s.

    BSCL's RTT excludes the queueing at this link (004 §III.A). A drop lag has none in it
    (the dropped packet is timed at its arrival): its range is the lag. A first-round spacing
    (H. Jiang, C. Dovrolis, CCR 2002), a restart's spacing (kernel ``_restart_flights``) or a
    handshake RTT is the RTT plus the queueing delay here of one packet, anywhere from 0 to
    the full buffer's delay Q = B/C whatever the correction made of it (the queue before the
    link's first loss was building: not 0 either): the range is [sample - Q, sample], as
    measured (``raw``; the handshake's for its flows), and [0, sample] where the buffer is
    not given. In a trace with the link's drop events the wait is also no longer than the
    link had been busy when the sample's packet left (kernel ``queue_max_s``: a FIFO link
    idle at some instant holds no packet from before it); that bound replaces Q where
    shorter (a sample taken before the link was congested has almost no queue in it). A
    first flight of one packet may also wait a delayed ACK, up to ``ACK_DELAY_MAX_S`` (RFC
    5681 §4.2: an ACK for every second segment, and within 500 ms; a second packet in the
    flight triggers the ACK at once). A first-round spacing after a loss in the first
    flight, kept when no LBP flow has better, may hold a timeout: [0, sample]. Flows without
    an RTT get NaN.
    """
    F, I = kernel.F, kernel.I  # noqa: E741
    n = rtt.size
    measured = raw  # the handshake's for its flows (:func:`_samples` puts it there)
    queue = np.full(n, acc.queue_full_s if acc.queue_full_s > 0 else math.inf)
    if reader.has_drops:
        # The sample's packet waited no longer than the link had been busy when it left
        # (kernel ``_busy_queue_max``). Only with the link's own times (a log with drop
        # events): a capture's timestamps may jitter by more than a packet's transmission.
        most = np.where(
            source == "restart", fs[:, F["restart_queue_max_s"]], fs[:, F["queue_max_s"]]
        )
        queue = np.where(source == "handshake", queue, np.fmin(queue, most))
    lone = (source == "first_round") & (fi[:, I["flight1_packets"]] == 1)
    slack = queue + np.where(lone, ACK_DELAY_MAX_S, 0.0)
    broken = (source == "first_round") & (fi[:, I["first_flight_drops"]] > 0)
    with np.errstate(invalid="ignore"):
        low = np.where(broken, 0.0, np.maximum(measured - slack, 0.0))
    from_drops = source == "drops"
    low = np.where(from_drops, rtt, low)
    high = np.where(from_drops, rtt, np.fmax(measured, rtt))
    return low, high


def _harmonic_interval(
    rtts: FloatArray,
    unsampled_upper_s: FloatArray | None = None,
    low_s: FloatArray | None = None,
    high_s: FloatArray | None = None,
) -> Interval:
    """T_e = N / Σ 1/T_i over the sampled LBP flows (004 eq. 12) and its 95 % interval.

    The interval is a percentile bootstrap over the sampled flows, widened to every value
    eq. 12 takes with each sampled flow's RTT anywhere in its measured range
    [``low_s``, ``high_s``] (:func:`_measured_ranges`): eq. 12 grows with each T_i, so its
    least is N / Σ 1/low_i (0 when a low_i is 0) and its most N / Σ 1/high_i. The bootstrap
    says how the flows spread, the ranges how far each measurement may be off (a sample that
    holds this link's queue). ``unsampled_upper_s``
    holds, for each LBP flow without an RTT sample, the longest RTT it can have (``inf``:
    unbounded). Its RTT is then anywhere in (0, upper], and eq. 12 over all the flows
    ranges over (0, N_b / (Σ_sampled 1/T_i + Σ_unsampled 1/upper_j)]: a single T_i near 0
    sends N / Σ 1/T_i to 0, an unbounded one adds 0 to the sum (the harmonic mean stays
    finite). The interval is widened to hold that range: its low end is 0, its high end at
    least that bound. The point value stays the sampled flows' eq. 12 (the missing RTTs
    taken to be like the others), which the interval no longer pretends to pin down.
    """
    method = f"95 % percentile bootstrap over the LBP flows ({BOOTSTRAP_REPS} resamples)"
    if rtts.size == 0:
        return Interval(math.nan, math.nan, math.nan, method)
    value = rtts.size / float(np.sum(1.0 / rtts))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, rtts.size, size=(BOOTSTRAP_REPS, rtts.size))
    resampled = rtts.size / np.sum(1.0 / rtts[picks], axis=1)
    low, high = np.percentile(resampled, [2.5, 97.5]).tolist()
    highs = rtts if high_s is None else high_s
    if low_s is not None and high_s is not None:
        with np.errstate(divide="ignore"):
            least = rtts.size / float(np.sum(1.0 / low_s))
        most = rtts.size / float(np.sum(1.0 / high_s))
        if least < low or most > high:
            method += ", widened to eq. 12 with each flow's RTT at the ends of its measured range"
        low, high = min(low, least), max(high, most)
    if unsampled_upper_s is not None and unsampled_upper_s.size:
        flows = rtts.size + unsampled_upper_s.size
        longest = flows / float(np.sum(1.0 / highs) + np.sum(1.0 / unsampled_upper_s))
        low, high = 0.0, max(high, longest)
        method += (
            f", widened for {unsampled_upper_s.size} LBP flows without an RTT sample: from 0 "
            "to eq. 12 with each at its longest RTT"
        )
    return Interval(value, float(low), float(high), method)


def _batch_means(per_second: FloatArray, value: float) -> Interval:
    method = f"95 % batch-means interval ({BATCHES} batches of time, Student t)"
    if per_second.size < BATCHES:
        return Interval(value, math.nan, math.nan, method + ": too short for batches")
    batches = np.array([b.mean() for b in np.array_split(per_second, BATCHES)])
    half = float(stats.t.ppf(0.975, BATCHES - 1) * batches.std(ddof=1) / math.sqrt(BATCHES))
    return Interval(value, value - half, value + half, method)


def _loss_rate(loss_times: FloatArray, arrivals: int, start: float, end: float) -> Interval:
    method = f"95 % batch-means interval ({BATCHES} batches of time, Student t)"
    value = loss_times.size / arrivals if arrivals else math.nan
    if loss_times.size == 0 or arrivals == 0:
        return Interval(value, value, value, method)
    edges = np.linspace(start, end, BATCHES + 1)
    per_batch = np.histogram(loss_times, bins=edges)[0] / (arrivals / BATCHES)
    half = float(stats.t.ppf(0.975, BATCHES - 1) * per_batch.std(ddof=1) / math.sqrt(BATCHES))
    return Interval(value, max(value - half, 0.0), value + half, method)


def _bursts(loss_times: FloatArray, effective_rtt_s: float) -> IntArray:
    """Lengths of the runs of losses spaced by less than T_e (004 §III.C)."""
    if loss_times.size == 0:
        return np.zeros(0, dtype=np.int64)
    spacing = effective_rtt_s if math.isfinite(effective_rtt_s) else 0.0
    breaks = np.flatnonzero(np.diff(loss_times) >= spacing) + 1
    edges = np.concatenate([[0], breaks, [loss_times.size]])
    return np.diff(edges).astype(np.int64)


def _burst_intervals(bursts: IntArray) -> tuple[Interval, Interval]:
    method = f"95 % percentile bootstrap over the bursts ({BOOTSTRAP_REPS} resamples)"
    if bursts.size == 0:
        nan = Interval(math.nan, math.nan, math.nan, method)
        return nan, nan
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    # Resample from the histogram of burst lengths: memory grows with the longest burst only.
    lengths, counts = np.unique(bursts, return_counts=True)
    draws = rng.multinomial(bursts.size, counts / bursts.size, size=BOOTSTRAP_REPS)
    means = draws @ lengths / bursts.size
    cumulative = np.cumsum(draws, axis=1)
    medians = lengths[np.argmax(cumulative >= (bursts.size + 1) / 2.0, axis=1)]
    mean_low, mean_high = np.percentile(means, [2.5, 97.5]).tolist()
    median_low, median_high = np.percentile(medians, [2.5, 97.5]).tolist()
    mean = Interval(float(bursts.mean()), mean_low, mean_high, method)
    median = Interval(float(np.median(bursts)), median_low, median_high, method)
    return mean, median
