"""BBR v1 in the reference implementation: the model of ``core/bbr.py`` (its docstring says
what is followed and what is simplified) on plain Python objects, with the same arithmetic in
the same order so that the core and the reference give the same sample path.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from validation.simulator.core.bbr import (
    ACK_EPOCH_RESET_PACKETS,
    CWND_GAIN,
    CYCLE_LENGTH,
    CYCLE_RAND,
    DRAIN_GAIN,
    EXTRA_ACKED_MAX_S,
    EXTRA_ACKED_WIN_ROUNDS,
    FULL_BW_GROWTH,
    FULL_BW_ROUNDS,
    HIGH_GAIN,
    INIT_CWND_PACKETS,
    MAX_QUANTUM_PACKETS,
    MIN_CWND_PACKETS,
    MIN_RTT_WINDOW_S,
    MIN_TSO_RATE_BYTES_PER_S,
    PACING_GAINS,
    PACING_MARGIN,
    PROBE_RTT_S,
    QUANTUM_SHIFT_PER_S,
)
from validation.simulator.layout import BBR_BW_ROUNDS, BbrCaState, BbrMode


@dataclass
class SentPacket:
    """What a sent packet remembers for the delivery rate (Linux ``tcp_rate_skb_sent``)."""

    delivered: int
    delivered_time: float
    first_tx: float
    sent: float
    app_limited: bool


@dataclass
class Bbr:
    """One transfer's BBR state (the fields of ``FlowFloat.BBR_*`` and ``FlowInt.BBR_*``)."""

    min_rtt: float
    min_rtt_stamp: float
    pacing_rate: float
    delivered_time: float
    first_tx: float
    mode: int = BbrMode.STARTUP
    pacing_gain: float = HIGH_GAIN
    cwnd_gain: float = HIGH_GAIN
    cycle_index: int = 0
    cycle_stamp: float = 0.0
    delivered: int = 0
    next_round_delivered: int = 0
    rounds: int = 0
    full_bw: float = 0.0
    full_bw_count: int = 0
    full_bw_reached: bool = False
    prev_ca_state: int = BbrCaState.OPEN
    packet_conservation: bool = False
    probe_rtt_done: float = -1.0
    probe_rtt_round_done: bool = False
    prior_cwnd: float = 0.0
    app_limited: int = 0
    losses: int = 0
    max_bw: float = 0.0
    bw_round: list[float] = field(default_factory=lambda: [0.0] * BBR_BW_ROUNDS)
    packets: dict[int, SentPacket] = field(default_factory=dict)
    # this ACK's sample
    rs_acked: int = 0
    rs_prior_delivered: int = -1
    rs_app_limited: bool = False
    rs_bw: float = -1.0
    rs_rtt: float = -1.0
    rs_prior_in_flight: int = 0
    # ACK aggregation
    ack_epoch: float = 0.0
    ack_epoch_acked: float = 0.0
    extra_acked: list[float] = field(default_factory=lambda: [0.0, 0.0])
    extra_acked_win_rtts: int = 0
    extra_acked_win_idx: int = 0


def start(t: float, rtt: float, cwnd: float) -> Bbr:
    """A new transfer (``bbr_start``)."""
    return Bbr(
        min_rtt=rtt,
        min_rtt_stamp=t,
        pacing_rate=HIGH_GAIN * (cwnd / rtt) * PACING_MARGIN,
        delivered_time=t,
        first_tx=t,
        ack_epoch=t,
    )


def on_send(bb: Bbr, t: float, seg: int, outstanding: int) -> None:
    """``bbr_on_send``."""
    if outstanding == 0:
        bb.first_tx = t
        bb.delivered_time = t
    app_limited = bb.app_limited != 0
    bb.packets[seg] = SentPacket(bb.delivered, bb.delivered_time, bb.first_tx, t, app_limited)


def ack_sample(
    bb: Bbr,
    t: float,
    newly: list[int],
    rexmitted: Callable[[int], bool],
    in_flight: int,
) -> None:
    """``bbr_ack_sample``: ``newly`` are the packets this ACK newly delivers, in the core's order
    (the SACKed one first, then the cumulatively ACKed ones not SACKed before)."""
    bb.rs_prior_in_flight = in_flight
    bb.rs_prior_delivered = -1
    bb.rs_app_limited = False
    bb.rs_bw = -1.0
    bb.rs_rtt = -1.0
    chosen = -1
    for k, seq in enumerate(newly):
        p = bb.packets[seq]
        if k > 0 and p.sent < bb.first_tx:
            continue
        chosen = seq
        bb.first_tx = p.sent
    bb.rs_acked = len(newly)
    if not newly:
        return
    bb.delivered += len(newly)
    if bb.app_limited != 0 and bb.delivered > bb.app_limited:
        bb.app_limited = 0
    bb.delivered_time = t
    p = bb.packets[chosen]
    bb.rs_prior_delivered = p.delivered
    bb.rs_app_limited = p.app_limited
    if not rexmitted(chosen):
        bb.rs_rtt = t - p.sent
    interval = max(p.sent - p.first_tx, t - p.delivered_time)
    if interval >= bb.min_rtt and interval > 0.0:
        bb.rs_bw = (bb.delivered - p.delivered) / interval


def lost(bb: Bbr, count: int) -> None:
    """Packets newly deemed lost (``bbr_lost``)."""
    bb.losses += count


def save_cwnd(bb: Bbr, cwnd: float) -> None:
    """``bbr_save_cwnd``."""
    if bb.prev_ca_state < BbrCaState.RECOVERY and bb.mode != BbrMode.PROBE_RTT:
        bb.prior_cwnd = cwnd
    else:
        bb.prior_cwnd = max(bb.prior_cwnd, cwnd)


def on_timeout(bb: Bbr, cwnd: float) -> None:
    """``bbr_on_timeout``."""
    save_cwnd(bb, cwnd)
    bb.prev_ca_state = BbrCaState.LOSS
    bb.full_bw = 0.0


def _inflight(bb: Bbr, bw: float, gain: float, wire_bytes: float, extra: float = 0.0) -> float:
    cwnd = float(math.ceil(bw * bb.min_rtt * gain)) + extra
    rate = bb.pacing_rate
    least = 1.0 if rate * wire_bytes < MIN_TSO_RATE_BYTES_PER_S else 2.0
    quantum = min(max(float(math.floor(rate / QUANTUM_SHIFT_PER_S)), least), MAX_QUANTUM_PACKETS)
    cwnd += 3.0 * quantum
    if cwnd % 2.0 != 0.0:
        cwnd += 1.0
    if bb.mode == BbrMode.PROBE_BW and bb.cycle_index == 0:
        cwnd += 2.0
    return cwnd


def _update_ack_aggregation(bb: Bbr, bw: float, cwnd: float, round_start: bool) -> None:
    """``_update_ack_aggregation``."""
    if round_start:
        rounds = min(bb.extra_acked_win_rtts + 1, 0x1F)
        if rounds >= EXTRA_ACKED_WIN_ROUNDS:
            rounds = 0
            bb.extra_acked_win_idx = 1 - bb.extra_acked_win_idx
            bb.extra_acked[bb.extra_acked_win_idx] = 0.0
        bb.extra_acked_win_rtts = rounds
    expected = float(math.floor(bw * (bb.delivered_time - bb.ack_epoch)))
    acked = float(bb.rs_acked)
    if bb.ack_epoch_acked <= expected or bb.ack_epoch_acked + acked >= ACK_EPOCH_RESET_PACKETS:
        bb.ack_epoch_acked = 0.0
        bb.ack_epoch = bb.delivered_time
        expected = 0.0
    bb.ack_epoch_acked += acked
    extra = min(bb.ack_epoch_acked - expected, cwnd)
    if extra > bb.extra_acked[bb.extra_acked_win_idx]:
        bb.extra_acked[bb.extra_acked_win_idx] = extra


def _aggregation_cwnd(bb: Bbr, bw: float) -> float:
    """``_aggregation_cwnd``."""
    if not bb.full_bw_reached:
        return 0.0
    return min(max(bb.extra_acked), float(math.floor(bw * EXTRA_ACKED_MAX_S)))


def _advance_cycle(bb: Bbr) -> None:
    bb.cycle_index = (bb.cycle_index + 1) % CYCLE_LENGTH
    bb.cycle_stamp = bb.delivered_time


def _reset_mode(bb: Bbr, uniform: Callable[[], float]) -> None:
    if not bb.full_bw_reached:
        bb.mode = BbrMode.STARTUP
        return
    bb.mode = BbrMode.PROBE_BW
    bb.cycle_index = CYCLE_LENGTH - 1 - int(uniform() * CYCLE_RAND)
    _advance_cycle(bb)


def on_ack(
    bb: Bbr,
    t: float,
    cwnd: float,
    in_flight: int,
    state: int,
    wire_bytes: float,
    uniform: Callable[[], float],
) -> float:
    """``bbr_on_ack``: update the model and the state, the pacing rate; return the new cwnd.
    ``state`` is the :class:`BbrCaState` after the sender processed the ACK."""
    bw_sample = bb.rs_bw
    app_limited = bb.rs_app_limited
    losses = bb.losses
    bb.losses = 0
    round_start = False
    if bw_sample >= 0.0:
        if bb.rs_prior_delivered >= bb.next_round_delivered:
            bb.next_round_delivered = bb.delivered
            bb.rounds += 1
            bb.packet_conservation = False
            round_start = True
            bb.bw_round[bb.rounds % BBR_BW_ROUNDS] = 0.0
            top = 0.0
            for value in bb.bw_round:
                top = max(top, value)
            bb.max_bw = top
        if not app_limited or bw_sample >= bb.max_bw:
            k = bb.rounds % BBR_BW_ROUNDS
            if bw_sample > bb.bw_round[k]:
                bb.bw_round[k] = bw_sample
            if bw_sample > bb.max_bw:
                bb.max_bw = bw_sample
    bw = bb.max_bw
    if bw_sample >= 0.0 and bb.rs_acked > 0:
        _update_ack_aggregation(bb, bw, cwnd, round_start)
    min_rtt = bb.min_rtt
    if bb.mode == BbrMode.PROBE_BW:
        gain = bb.pacing_gain
        full = bb.delivered_time - bb.cycle_stamp > min_rtt
        prior = float(bb.rs_prior_in_flight)
        if gain == 1.0:
            advance = full
        elif gain > 1.0:
            advance = full and (losses > 0 or prior >= _inflight(bb, bw, gain, wire_bytes))
        else:
            advance = full or prior <= _inflight(bb, bw, 1.0, wire_bytes)
        if advance:
            _advance_cycle(bb)
    if not bb.full_bw_reached and round_start and not app_limited:
        if bw >= bb.full_bw * FULL_BW_GROWTH:
            bb.full_bw = bw
            bb.full_bw_count = 0
        else:
            bb.full_bw_count += 1
            if bb.full_bw_count >= FULL_BW_ROUNDS:
                bb.full_bw_reached = True
    if bb.mode == BbrMode.STARTUP and bb.full_bw_reached:
        bb.mode = BbrMode.DRAIN
    if bb.mode == BbrMode.DRAIN and in_flight <= _inflight(bb, bw, 1.0, wire_bytes):
        _reset_mode(bb, uniform)
    expired = t > bb.min_rtt_stamp + MIN_RTT_WINDOW_S
    rtt = bb.rs_rtt
    if rtt >= 0.0 and (rtt < min_rtt or expired):
        bb.min_rtt = rtt
        bb.min_rtt_stamp = t
    if expired and bb.mode != BbrMode.PROBE_RTT:
        bb.mode = BbrMode.PROBE_RTT
        save_cwnd(bb, cwnd)
        bb.probe_rtt_done = -1.0
    if bb.mode == BbrMode.PROBE_RTT:
        mark = bb.delivered + in_flight
        bb.app_limited = mark if mark != 0 else 1
        if bb.probe_rtt_done < 0.0 and in_flight <= MIN_CWND_PACKETS:
            bb.probe_rtt_done = t + PROBE_RTT_S
            bb.probe_rtt_round_done = False
            bb.next_round_delivered = bb.delivered
        elif bb.probe_rtt_done >= 0.0:
            if round_start:
                bb.probe_rtt_round_done = True
            if bb.probe_rtt_round_done and t > bb.probe_rtt_done:
                bb.min_rtt_stamp = t
                cwnd = max(cwnd, bb.prior_cwnd)
                _reset_mode(bb, uniform)
    mode = bb.mode
    if mode == BbrMode.STARTUP:
        pacing_gain, cwnd_gain = HIGH_GAIN, HIGH_GAIN
    elif mode == BbrMode.DRAIN:
        pacing_gain, cwnd_gain = DRAIN_GAIN, HIGH_GAIN
    elif mode == BbrMode.PROBE_BW:
        pacing_gain, cwnd_gain = float(PACING_GAINS[bb.cycle_index]), CWND_GAIN
    else:
        pacing_gain, cwnd_gain = 1.0, 1.0
    bb.pacing_gain = pacing_gain
    bb.cwnd_gain = cwnd_gain
    rate = pacing_gain * bw * PACING_MARGIN
    if bb.full_bw_reached or rate > bb.pacing_rate:
        bb.pacing_rate = rate
    acked = bb.rs_acked
    if acked > 0:
        prev = bb.prev_ca_state
        if losses > 0:
            cwnd = max(cwnd - losses, 1.0)
        if state == BbrCaState.RECOVERY and prev != BbrCaState.RECOVERY:
            bb.packet_conservation = True
            bb.next_round_delivered = bb.delivered
            cwnd = float(in_flight + acked)
        elif prev >= BbrCaState.RECOVERY and state < BbrCaState.RECOVERY:
            cwnd = max(cwnd, bb.prior_cwnd)
            bb.packet_conservation = False
        bb.prev_ca_state = state
        if bb.packet_conservation:
            cwnd = max(cwnd, float(in_flight + acked))
        else:
            target = _inflight(bb, bw, cwnd_gain, wire_bytes, _aggregation_cwnd(bb, bw))
            if bb.full_bw_reached:
                cwnd = min(cwnd + acked, target)
            elif cwnd < target or bb.delivered < INIT_CWND_PACKETS:
                cwnd = cwnd + acked
            cwnd = max(cwnd, MIN_CWND_PACKETS)
    if mode == BbrMode.PROBE_RTT:
        cwnd = min(cwnd, MIN_CWND_PACKETS)
    return cwnd
