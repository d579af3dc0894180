"""BBR congestion control, version 1 (Cardwell, Cheng, Gunn, Hassas Yeganeh and Jacobson,
"BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016, reprinted in CACM 60(2),
2017, doi 10.1145/3009824; the IETF draft draft-cardwell-iccrg-bbr-congestion-control-00,
July 2017, which specifies BBR v1). Both were read for the gains and constants below: the
article in a text copy of the CACM reprint, the draft in a Markdown transcription of its
datatracker text; section numbers are the draft's.

Where the draft leaves a detail to the implementation, Linux's ``net/ipv4/tcp_bbr.c`` (v6.6,
the BBR v1 of the kernel) and ``net/ipv4/tcp_rate.c`` are followed; the names in brackets are
its functions. Rates are in packets per second, windows in packets, times in seconds.

- Delivery rate, per ACK [tcp_rate_skb_sent, tcp_rate_skb_delivered, tcp_rate_gen]: each sent
  packet remembers the flow's delivered count and clocks (``rs``, :class:`RateSlot`); of the
  packets an ACK newly delivers (cumulatively ACKed and not SACKed before, or newly SACKed)
  the one sent last gives the sample ``(delivered - P.delivered) / max(send phase, ACK phase)``;
  a sample whose interval is below RTprop is discarded. Its RTT (``now - P.sent``, none if P
  was retransmitted) feeds RTprop.
- BtlBw [bbr_update_bw; draft-00 §4.1.1.2-4.1.1.5]: the max of the samples over the last 10
  packet-timed round trips (a round ends when a packet sent after the round began is
  delivered), kept exactly as the max of 10 per-round maxima (Linux approximates the same
  with Nichols' three-sample filter).
  App-limited samples (here only those of ProbeRTT) enter only if they raise it.
- RTprop [bbr_update_min_rtt]: min RTT over 10 s; the handshake's RTT is the first sample
  [bbr_init: ``tcp_min_rtt``, which the SYN's RTT set; bbr_init_pacing_rate_from_rtt: the
  SRTT, the same sample]: the propagation delay plus the wait the SYN would find at the
  bottleneck when the transfer starts (``port.queue_wait_s``; none with fair queueing, where a
  new flow's queue is served at once). A transfer that starts behind a standing queue thus takes
  an RTprop too large until a smaller sample comes (``studies/results/kernel_bbr_cwnd.md``:
  Linux's last-started of ten flows kept 175 ms for an 87.5 ms path). The handshake itself
  takes no time here: data leaves at the start. A sample refreshes RTprop when lower (Linux's
  ``<``; the draft's pseudocode, §4.1.2.3 ``packet.rtt <= BBR.RTprop``, followed by ns-3
  3.44, also takes an equal one).
- Startup: pacing_gain = cwnd_gain = 2/ln 2; the pipe is full after 3 rounds in which BtlBw grew
  by less than 25% [bbr_check_full_bw_reached]. Drain: pacing gain ln 2 / 2 until the packets in
  flight are at most one BDP [bbr_check_drain].
- ProbeBW: pacing gains [5/4, 3/4, 1, 1, 1, 1, 1, 1], a phase lasting one RTprop (5/4 also
  until the flight reaches 5/4 BDP or a loss, 3/4 at most until it falls to one BDP)
  [bbr_is_next_cycle_phase]; it starts at a random phase other than 3/4 (Linux: index
  ``7 - rand(7)`` then one step on) [bbr_reset_probe_bw_mode]; cwnd_gain 2.
- ProbeRTT: when RTprop has not been refreshed for 10 s, cwnd is 4 packets until 200 ms and
  one round have passed with at most 4 in flight; then the saved cwnd comes back.
- Pacing rate = pacing_gain · BtlBw · 99% (Linux's 1% margin), never lowered before the pipe is
  full; the first is 2/ln 2 · initial window / RTT [bbr_set_pacing_rate].
- cwnd [bbr_set_cwnd]: target = ceil(cwnd_gain · BtlBw · RTprop) plus Linux's quantization
  allowance: 3 send quanta (``max(pacing rate · 1 ms, 2)`` packets, 1 below 1.2 Mb/s, at most
  127; Linux's bytes per 2^-10 s over the MSS, taken here as packets per 2^-10 s), rounded up to
  even, plus 2 in the 5/4 phase [bbr_quantization_budget]. cwnd grows by the packets delivered
  up to the target (in Startup without the cap), at least 4.
- ACK aggregation [bbr_update_ack_aggregation, bbr_ack_aggregation_cwnd, bbr_extra_acked]:
  on each ACK with a valid rate sample, the packets (S)ACKed since the epoch began beyond
  BtlBw · (time since then) (an epoch restarts when the ACKs fall behind that rate) is
  "extra acked", at most cwnd; its max is kept in two windows that take turns every 5 rounds
  (bbr_extra_acked_win_rtts); once the pipe is full, cwnd's target grows by the larger of the
  two, at most BtlBw · 100 ms (bbr_extra_acked_max_us), before the quantization allowance
  [bbr_set_cwnd]. Not in Linux's v1 paper or draft; in ``tcp_bbr.c`` since Linux 5.1, so in
  this machine's 6.18 (``studies/results/kernel_bbr_cwnd.md`` measures it there).
- Loss [bbr_set_cwnd_to_recover_or_restore, bbr_ssthresh; draft-00 §4.2.3.4]: BBR v1 does
  not cut its model on loss. Packets newly deemed lost come off cwnd; the first round of fast
  recovery is packet conservation (cwnd = in flight + delivered, starting a round); leaving
  recovery or the timeout state restores the cwnd saved on entry. A timeout sets cwnd to 1
  (the sender) and restarts the full-pipe count [bbr_set_state]. Retransmissions follow the
  sender's SACK or NewReno recovery.

Not modelled (simplifications): pacing by send quanta (Linux's TCP pacing lets
``bbr_tso_segs_goal`` segments, 2 at these rates, leave back to back and then waits that many
gaps; here each packet is paced alone: measured on Linux 6.18 at 20 Mbit/s with 4 packets of
buffer, 48 % of its sender's gaps were under half a packet time, and its packets waited 0.2-0.3
ms longer at the port on average, drops and utilization equal: ``kernel_bbr_cwnd.md``),
long-term bandwidth sampling (policer detection,
``lt_bw``), idle restart, application-limited periods other than ProbeRTT (flows always have
data; a finite transfer is not marked app-limited near its end), EDT adjustments of the flight,
the delayed-ACK exemption of RTT samples; RTprop is also the lower bound of a valid rate
sample's interval (Linux: TCP's 5-minute min RTT). Gains are the paper's reals (2/ln 2, not
Linux's fixed-point 739/256). The flight is RFC 6675's pipe while SACKed or lost packets may be
outstanding, else the packets sent and not acknowledged (Linux's tcp_packets_in_flight).
"""

from __future__ import annotations

import math

import numpy as np

from validation.simulator.core.heap import uniform
from validation.simulator.core.jit import jit
from validation.simulator.core.port import queue_wait_s
from validation.simulator.layout import (
    BBR_BW_ROUNDS,
    FLOW_FLOATS,
    FLOW_INTS,
    RATE_SLOT,
    BbrCaState,
    BbrMode,
    FlowFloat,
    FlowInt,
    GlobalFloat,
    GlobalInt,
    RateSlot,
    RecoveryState,
    SlotFlag,
)

#: Startup's pacing_gain and cwnd_gain, 2/ln 2 (draft-00 §2 and §4.3.2.1 BBRHighGain, "the
#: minimum gain value that will allow the sending rate to double each round"; Queue 2016,
#: "Single BBR Flow Startup Behavior": "a gain of 2/ln2 to double the sending rate").
HIGH_GAIN = 2.0 / math.log(2.0)
#: Drain's pacing gain, ln 2 / 2 (draft-00 §4.3.3: "pacing_gain = 1/BBRHighGain", cwnd_gain
#: kept at BBRHighGain; Queue 2016: "the inverse of Startup's gain").
DRAIN_GAIN = math.log(2.0) / 2.0
#: ProbeBW's cwnd_gain (draft-00 §4.3.4.1: "during ProbeBW the cwnd_gain stays constant at
#: two"; §4.2.3.2: scaling the BDP by cwnd_gain "bounds in-flight data to a small multiple of
#: the BDP"; Queue 2016 sidebar "Delayed and stretched acks": "Raising ProbeBW's cwnd_gain to
#: two").
CWND_GAIN = 2.0
#: ProbeBW's pacing gains, eight phases (draft-00 §4.3.4.1 and §4.3.4.3
#: ``pacing_gain_cycle = [5/4, 3/4, 1, 1, 1, 1, 1, 1]``, BBRGainCycleLen 8; Queue 2016 appendix
#: "Steady-state behavior"; Linux bbr_pacing_gain).
PACING_GAINS = np.array([1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
CYCLE_LENGTH = 8
#: ProbeBW starts at index 7 - rand(7), then advances one phase, so never at the 3/4 phase
#: (draft-00 §4.3.4.2-4.3.4.3: ``BBR.cycle_index = BBRGainCycleLen - 1 -
#: random_int_in_range(0..6)`` then BBRAdvanceCyclePhase(); Linux's bbr_cycle_rand).
CYCLE_RAND = 7
#: The pipe is full after 3 rounds in which BtlBw grew by less than 25% (draft-00 §4.3.2.2
#: BBRCheckFullPipe; Linux bbr_full_bw_thresh, bbr_full_bw_cnt).
FULL_BW_GROWTH = 1.25
FULL_BW_ROUNDS = 3
#: RTprop filter window and ProbeRTT's duration (draft-00 §2 RTpropFilterLen 10 s and
#: ProbeRTTDuration 200 ms, §4.3.5; Linux bbr_min_rtt_win_sec, bbr_probe_rtt_mode_ms).
MIN_RTT_WINDOW_S = 10.0
PROBE_RTT_S = 0.2
#: Smallest cwnd and ProbeRTT's (draft-00 §2 and §4.2.3.3 BBRMinPipeCwnd, 4 packets; Linux
#: bbr_cwnd_min_target).
MIN_CWND_PACKETS = 4.0
#: Linux's pacing margin (bbr_pacing_margin_percent = 1).
PACING_MARGIN = 0.99
#: ACK aggregation: the estimate's two windows take turns every this many rounds
#: (bbr_extra_acked_win_rtts), and its cwnd allowance is at most BtlBw times this
#: (bbr_extra_acked_max_us = 100 ms; gain bbr_extra_acked_gain = 1); an epoch with this many
#: packets ACKed restarts (bbr_ack_epoch_acked_reset_thresh, 2^20).
EXTRA_ACKED_WIN_ROUNDS = 5
EXTRA_ACKED_MAX_S = 0.1
ACK_EPOCH_RESET_PACKETS = float(1 << 20)
#: Linux's initial window (TCP_INIT_CWND) below which Startup grows cwnd regardless.
INIT_CWND_PACKETS = 10
#: Send quantum (Linux bbr_tso_segs_goal): packets per 2^-10 s of the pacing rate, at least 2
#: (1 below bbr_min_tso_rate = 1.2 Mb/s), at most 127.
QUANTUM_SHIFT_PER_S = 1024.0
MIN_TSO_RATE_BYTES_PER_S = 1.2e6 / 8.0
MAX_QUANTUM_PACKETS = 127.0


@jit
def bbr_start(sp, t, f):
    """A new transfer: Startup, RTprop = the handshake's RTT (the propagation delay and the
    bottleneck's queue now), no bandwidth sample [bbr_init]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    for k in range(FlowInt.BBR_MODE, FlowInt.BBR_RS_PRIOR_IN_FLIGHT + 1):
        fi[b + k] = 0
    for k in range(FlowFloat.BBR_MIN_RTT_S, FLOW_FLOATS):
        ff[a + k] = 0.0
    fi[b + FlowInt.BBR_MODE] = BbrMode.STARTUP
    fi[b + FlowInt.BBR_PREV_CA_STATE] = BbrCaState.OPEN
    fi[b + FlowInt.BBR_RS_PRIOR_DELIVERED] = -1
    fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_RTTS] = 0
    fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_IDX] = 0
    ff[a + FlowFloat.BBR_ACK_EPOCH_S] = t
    rtt = ff[a + FlowFloat.RTT_S] + queue_wait_s(sp, t)  # the SYN's wait at the bottleneck
    ff[a + FlowFloat.BBR_MIN_RTT_S] = rtt
    ff[a + FlowFloat.BBR_MIN_RTT_STAMP_S] = t
    ff[a + FlowFloat.BBR_PACING_GAIN] = HIGH_GAIN
    ff[a + FlowFloat.BBR_CWND_GAIN] = HIGH_GAIN
    cwnd = ff[a + FlowFloat.CWND_PACKETS]
    _set_pacing_rate(sp, f, HIGH_GAIN * (cwnd / rtt) * PACING_MARGIN)
    ff[a + FlowFloat.BBR_PROBE_RTT_DONE_S] = -1.0
    ff[a + FlowFloat.BBR_DELIVERED_TIME_S] = t
    ff[a + FlowFloat.BBR_FIRST_TX_S] = t
    ff[a + FlowFloat.BBR_RS_BW_PER_S] = -1.0
    ff[a + FlowFloat.BBR_RS_RTT_S] = -1.0


@jit
def bbr_on_send(sp, t, f, seg, outstanding):
    """Packet ``seg`` is (re)sent; ``outstanding`` packets were out before [tcp_rate_skb_sent]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    if outstanding == 0:
        ff[a + FlowFloat.BBR_FIRST_TX_S] = t
        ff[a + FlowFloat.BBR_DELIVERED_TIME_S] = t
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    r = (f * (wmask + 1) + (seg & wmask)) * RATE_SLOT
    s.rs[r + RateSlot.DELIVERED] = float(fi[b + FlowInt.BBR_DELIVERED])
    s.rs[r + RateSlot.DELIVERED_TIME_S] = ff[a + FlowFloat.BBR_DELIVERED_TIME_S]
    s.rs[r + RateSlot.FIRST_TX_S] = ff[a + FlowFloat.BBR_FIRST_TX_S]
    s.rs[r + RateSlot.SENT_S] = t
    s.rs[r + RateSlot.APP_LIMITED] = 1.0 if fi[b + FlowInt.BBR_APP_LIMITED] != 0 else 0.0


@jit
def _set_pacing_rate(sp, f, rate):
    """Set the pacing rate and its gap (the rate changes on few ACKs; a packet is sent on
    most, and the gap it needs would be a division on the way to the next send time)."""
    s = sp[0]
    a = f * FLOW_FLOATS
    if (
        rate != s.ff[a + FlowFloat.BBR_PACING_RATE_PER_S]
        or s.ff[a + FlowFloat.BBR_PACING_GAP_S] == 0.0
    ):
        s.ff[a + FlowFloat.BBR_PACING_RATE_PER_S] = rate
        s.ff[a + FlowFloat.BBR_PACING_GAP_S] = 1.0 / rate


@jit
def bbr_pacing_gap(sp, f):
    """Seconds from one paced packet to the next: 1 / pacing rate."""
    return sp[0].ff[f * FLOW_FLOATS + FlowFloat.BBR_PACING_GAP_S]


@jit
def _delivered_one(sp, f, seq, chosen):
    """Packet ``seq`` is newly delivered: it is the sample's packet if it is the first of the
    ACK or was sent no earlier than the last one taken [tcp_rate_skb_delivered]."""
    s = sp[0]
    a = f * FLOW_FLOATS
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    j = f * (wmask + 1) + (seq & wmask)
    sent = s.rs[j * RATE_SLOT + RateSlot.SENT_S]
    if chosen and sent < s.ff[a + FlowFloat.BBR_FIRST_TX_S]:
        return
    s.fi[f * FLOW_INTS + FlowInt.BBR_RS_SLOT] = j
    s.ff[a + FlowFloat.BBR_FIRST_TX_S] = sent


@jit
def bbr_ack_sample(sp, t, f, cum, sack_seq, in_flight):
    """Before the sender processes an ACK (cumulative ``cum``, SACK of ``sack_seq`` if >= cum):
    count the newly delivered packets and form the rate and RTT samples [tcp_rate_gen]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    fi[b + FlowInt.BBR_RS_PRIOR_IN_FLIGHT] = in_flight
    fi[b + FlowInt.BBR_RS_PRIOR_DELIVERED] = -1
    fi[b + FlowInt.BBR_RS_APP_LIMITED] = 0
    ff[a + FlowFloat.BBR_RS_BW_PER_S] = -1.0
    ff[a + FlowFloat.BBR_RS_RTT_S] = -1.0
    acked = 0
    if sack_seq >= cum and (s.rg[row + (sack_seq & wmask)] & SlotFlag.SACKED) == 0:
        _delivered_one(sp, f, sack_seq, acked > 0)
        acked += 1
    for seq in range(fi[b + FlowInt.SND_UNA], cum):
        if (s.rg[row + (seq & wmask)] & SlotFlag.SACKED) == 0:
            _delivered_one(sp, f, seq, acked > 0)
            acked += 1
    fi[b + FlowInt.BBR_RS_ACKED] = acked
    if acked == 0:
        return
    delivered = fi[b + FlowInt.BBR_DELIVERED] + acked
    fi[b + FlowInt.BBR_DELIVERED] = delivered
    app = fi[b + FlowInt.BBR_APP_LIMITED]
    if app != 0 and delivered > app:
        fi[b + FlowInt.BBR_APP_LIMITED] = 0
    ff[a + FlowFloat.BBR_DELIVERED_TIME_S] = t
    j = fi[b + FlowInt.BBR_RS_SLOT]
    r = j * RATE_SLOT
    prior_delivered = np.int64(s.rs[r + RateSlot.DELIVERED])
    fi[b + FlowInt.BBR_RS_PRIOR_DELIVERED] = prior_delivered
    fi[b + FlowInt.BBR_RS_APP_LIMITED] = np.int64(s.rs[r + RateSlot.APP_LIMITED])
    sent = s.rs[r + RateSlot.SENT_S]
    if (s.rg[j] & SlotFlag.REXMIT) == 0:  # Karn: no RTT sample from a retransmission
        ff[a + FlowFloat.BBR_RS_RTT_S] = t - sent
    send_phase = sent - s.rs[r + RateSlot.FIRST_TX_S]
    ack_phase = t - s.rs[r + RateSlot.DELIVERED_TIME_S]
    interval = max(send_phase, ack_phase)
    if interval >= ff[a + FlowFloat.BBR_MIN_RTT_S] and interval > 0.0:
        ff[a + FlowFloat.BBR_RS_BW_PER_S] = (delivered - prior_delivered) / interval


@jit
def bbr_lost(sp, f, lo, hi):
    """Packets in [lo, hi) not SACKed are newly deemed lost: they count in this ACK's losses."""
    s = sp[0]
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    count = 0
    for seq in range(lo, hi):
        if (s.rg[row + (seq & wmask)] & SlotFlag.SACKED) == 0:
            count += 1
    s.fi[f * FLOW_INTS + FlowInt.BBR_LOSSES] += count


@jit
def bbr_save_cwnd(sp, f):
    """Remember cwnd before recovery, a timeout or ProbeRTT [bbr_save_cwnd]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    cwnd = ff[a + FlowFloat.CWND_PACKETS]
    if (
        fi[b + FlowInt.BBR_PREV_CA_STATE] < BbrCaState.RECOVERY
        and fi[b + FlowInt.BBR_MODE] != BbrMode.PROBE_RTT
    ):
        ff[a + FlowFloat.BBR_PRIOR_CWND_PACKETS] = cwnd
    else:
        prior = ff[a + FlowFloat.BBR_PRIOR_CWND_PACKETS]
        ff[a + FlowFloat.BBR_PRIOR_CWND_PACKETS] = max(prior, cwnd)


@jit
def bbr_on_timeout(sp, f):
    """A retransmission timeout: save cwnd, restart the full-pipe count [bbr_set_state]."""
    s = sp[0]
    bbr_save_cwnd(sp, f)
    s.fi[f * FLOW_INTS + FlowInt.BBR_PREV_CA_STATE] = BbrCaState.LOSS
    s.ff[f * FLOW_FLOATS + FlowFloat.BBR_FULL_BW_PER_S] = 0.0


@jit
def _inflight(sp, f, bw, gain, extra):
    """ceil(gain · bw · RTprop) plus ``extra`` packets (the ACK-aggregation allowance, for
    cwnd's target; 0 elsewhere) plus the quantization allowance [bbr_inflight,
    bbr_set_cwnd]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    cwnd = np.ceil(bw * ff[a + FlowFloat.BBR_MIN_RTT_S] * gain) + extra
    rate = ff[a + FlowFloat.BBR_PACING_RATE_PER_S]
    least = 1.0 if rate * s.g[GlobalFloat.WIRE_BYTES] < MIN_TSO_RATE_BYTES_PER_S else 2.0
    quantum = min(max(np.floor(rate / QUANTUM_SHIFT_PER_S), least), MAX_QUANTUM_PACKETS)
    cwnd += 3.0 * quantum
    cwnd += 1.0 if cwnd % 2.0 != 0.0 else 0.0  # to even, without a branch on the parity
    if fi[b + FlowInt.BBR_MODE] == BbrMode.PROBE_BW and fi[b + FlowInt.BBR_CYCLE_INDEX] == 0:
        cwnd += 2.0
    return cwnd


@jit
def _update_ack_aggregation(sp, f, bw, acked, round_start):
    """The ACK-aggregation estimate after an ACK with a valid rate sample that newly
    delivered ``acked`` packets; ``bw`` is BtlBw after it [bbr_update_ack_aggregation]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    if round_start:
        rounds = min(fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_RTTS] + 1, 0x1F)
        if rounds >= EXTRA_ACKED_WIN_ROUNDS:
            rounds = 0
            idx = 1 - fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_IDX]
            fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_IDX] = idx
            ff[a + FlowFloat.BBR_EXTRA_ACKED + idx] = 0.0
        fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_RTTS] = rounds
    now = ff[a + FlowFloat.BBR_DELIVERED_TIME_S]
    expected = np.floor(bw * (now - ff[a + FlowFloat.BBR_ACK_EPOCH_S]))
    epoch_acked = ff[a + FlowFloat.BBR_ACK_EPOCH_ACKED]
    if epoch_acked <= expected or epoch_acked + acked >= ACK_EPOCH_RESET_PACKETS:
        epoch_acked = 0.0
        ff[a + FlowFloat.BBR_ACK_EPOCH_S] = now
        expected = 0.0
    epoch_acked += acked
    ff[a + FlowFloat.BBR_ACK_EPOCH_ACKED] = epoch_acked
    extra = min(epoch_acked - expected, ff[a + FlowFloat.CWND_PACKETS])
    k = a + FlowFloat.BBR_EXTRA_ACKED + fi[b + FlowInt.BBR_EXTRA_ACKED_WIN_IDX]
    if extra > ff[k]:
        ff[k] = extra


@jit
def _aggregation_cwnd(sp, f, bw):
    """cwnd's allowance for ACK aggregation, packets [bbr_ack_aggregation_cwnd]."""
    s = sp[0]
    a = f * FLOW_FLOATS
    if s.fi[f * FLOW_INTS + FlowInt.BBR_FULL_BW_REACHED] == 0:
        return 0.0
    extra = max(s.ff[a + FlowFloat.BBR_EXTRA_ACKED], s.ff[a + FlowFloat.BBR_EXTRA_ACKED + 1])
    return min(extra, np.floor(bw * EXTRA_ACKED_MAX_S))


@jit
def _advance_cycle(sp, f):
    s = sp[0]
    b = f * FLOW_INTS
    s.fi[b + FlowInt.BBR_CYCLE_INDEX] = (s.fi[b + FlowInt.BBR_CYCLE_INDEX] + 1) % CYCLE_LENGTH
    a = f * FLOW_FLOATS
    s.ff[a + FlowFloat.BBR_CYCLE_STAMP_S] = s.ff[a + FlowFloat.BBR_DELIVERED_TIME_S]


@jit
def _reset_mode(sp, f):
    """Startup if the pipe was never full, else ProbeBW at a random phase [bbr_reset_mode]."""
    s = sp[0]
    b = f * FLOW_INTS
    if s.fi[b + FlowInt.BBR_FULL_BW_REACHED] == 0:
        s.fi[b + FlowInt.BBR_MODE] = BbrMode.STARTUP
        return
    s.fi[b + FlowInt.BBR_MODE] = BbrMode.PROBE_BW
    s.fi[b + FlowInt.BBR_CYCLE_INDEX] = CYCLE_LENGTH - 1 - int(uniform(sp) * CYCLE_RAND)
    _advance_cycle(sp, f)


@jit
def bbr_on_ack(sp, t, f, in_flight):
    """After the sender processed an ACK (``in_flight`` now): update the model and the state,
    then the pacing rate and cwnd [bbr_main]."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    bw_sample = ff[a + FlowFloat.BBR_RS_BW_PER_S]
    app_limited = fi[b + FlowInt.BBR_RS_APP_LIMITED] != 0
    losses = fi[b + FlowInt.BBR_LOSSES]
    fi[b + FlowInt.BBR_LOSSES] = 0
    # BtlBw and rounds [bbr_update_bw]
    round_start = False
    if bw_sample >= 0.0:
        if fi[b + FlowInt.BBR_RS_PRIOR_DELIVERED] >= fi[b + FlowInt.BBR_NEXT_ROUND_DELIVERED]:
            fi[b + FlowInt.BBR_NEXT_ROUND_DELIVERED] = fi[b + FlowInt.BBR_DELIVERED]
            fi[b + FlowInt.BBR_ROUNDS] += 1
            fi[b + FlowInt.BBR_PACKET_CONSERVATION] = 0
            round_start = True
            k = fi[b + FlowInt.BBR_ROUNDS] % BBR_BW_ROUNDS
            ff[a + FlowFloat.BBR_BW_ROUND + k] = 0.0
            top = 0.0
            for j in range(BBR_BW_ROUNDS):
                top = max(top, ff[a + FlowFloat.BBR_BW_ROUND + j])
            ff[a + FlowFloat.BBR_MAX_BW_PER_S] = top
        if not app_limited or bw_sample >= ff[a + FlowFloat.BBR_MAX_BW_PER_S]:
            # written back whether or not the sample is larger: a select, not a branch
            # (which of the two a sample is, the branch predictor cannot guess)
            k = a + FlowFloat.BBR_BW_ROUND + fi[b + FlowInt.BBR_ROUNDS] % BBR_BW_ROUNDS
            top = ff[k]
            ff[k] = bw_sample if bw_sample > top else top
            top = ff[a + FlowFloat.BBR_MAX_BW_PER_S]
            ff[a + FlowFloat.BBR_MAX_BW_PER_S] = bw_sample if bw_sample > top else top
    fi[b + FlowInt.BBR_ROUND_START] = 1 if round_start else 0
    bw = ff[a + FlowFloat.BBR_MAX_BW_PER_S]
    if bw_sample >= 0.0 and fi[b + FlowInt.BBR_RS_ACKED] > 0:
        _update_ack_aggregation(sp, f, bw, float(fi[b + FlowInt.BBR_RS_ACKED]), round_start)
    min_rtt = ff[a + FlowFloat.BBR_MIN_RTT_S]
    # ProbeBW's gain cycle [bbr_update_cycle_phase]
    if fi[b + FlowInt.BBR_MODE] == BbrMode.PROBE_BW:
        gain = ff[a + FlowFloat.BBR_PACING_GAIN]
        elapsed = ff[a + FlowFloat.BBR_DELIVERED_TIME_S] - ff[a + FlowFloat.BBR_CYCLE_STAMP_S]
        full = elapsed > min_rtt
        prior = float(fi[b + FlowInt.BBR_RS_PRIOR_IN_FLIGHT])
        if gain == 1.0:
            advance = full
        elif gain > 1.0:
            advance = full and (losses > 0 or prior >= _inflight(sp, f, bw, gain, 0.0))
        else:
            advance = full or prior <= _inflight(sp, f, bw, 1.0, 0.0)
        if advance:
            _advance_cycle(sp, f)
    # the pipe is full [bbr_check_full_bw_reached]
    if fi[b + FlowInt.BBR_FULL_BW_REACHED] == 0 and round_start and not app_limited:
        if bw >= ff[a + FlowFloat.BBR_FULL_BW_PER_S] * FULL_BW_GROWTH:
            ff[a + FlowFloat.BBR_FULL_BW_PER_S] = bw
            fi[b + FlowInt.BBR_FULL_BW_COUNT] = 0
        else:
            fi[b + FlowInt.BBR_FULL_BW_COUNT] += 1
            if fi[b + FlowInt.BBR_FULL_BW_COUNT] >= FULL_BW_ROUNDS:
                fi[b + FlowInt.BBR_FULL_BW_REACHED] = 1
    # Drain [bbr_check_drain]
    if fi[b + FlowInt.BBR_MODE] == BbrMode.STARTUP and fi[b + FlowInt.BBR_FULL_BW_REACHED] != 0:
        fi[b + FlowInt.BBR_MODE] = BbrMode.DRAIN
    if fi[b + FlowInt.BBR_MODE] == BbrMode.DRAIN and in_flight <= _inflight(sp, f, bw, 1.0, 0.0):
        _reset_mode(sp, f)
    # RTprop and ProbeRTT [bbr_update_min_rtt, bbr_check_probe_rtt_done]
    expired = t > ff[a + FlowFloat.BBR_MIN_RTT_STAMP_S] + MIN_RTT_WINDOW_S
    rtt = ff[a + FlowFloat.BBR_RS_RTT_S]
    if rtt >= 0.0 and (rtt < min_rtt or expired):
        ff[a + FlowFloat.BBR_MIN_RTT_S] = rtt
        ff[a + FlowFloat.BBR_MIN_RTT_STAMP_S] = t
    if expired and fi[b + FlowInt.BBR_MODE] != BbrMode.PROBE_RTT:
        fi[b + FlowInt.BBR_MODE] = BbrMode.PROBE_RTT
        bbr_save_cwnd(sp, f)
        ff[a + FlowFloat.BBR_PROBE_RTT_DONE_S] = -1.0
    if fi[b + FlowInt.BBR_MODE] == BbrMode.PROBE_RTT:
        mark = fi[b + FlowInt.BBR_DELIVERED] + in_flight
        fi[b + FlowInt.BBR_APP_LIMITED] = mark if mark != 0 else 1
        if ff[a + FlowFloat.BBR_PROBE_RTT_DONE_S] < 0.0 and in_flight <= MIN_CWND_PACKETS:
            ff[a + FlowFloat.BBR_PROBE_RTT_DONE_S] = t + PROBE_RTT_S
            fi[b + FlowInt.BBR_PROBE_RTT_ROUND_DONE] = 0
            fi[b + FlowInt.BBR_NEXT_ROUND_DELIVERED] = fi[b + FlowInt.BBR_DELIVERED]
        elif ff[a + FlowFloat.BBR_PROBE_RTT_DONE_S] >= 0.0:
            if round_start:
                fi[b + FlowInt.BBR_PROBE_RTT_ROUND_DONE] = 1
            if (
                fi[b + FlowInt.BBR_PROBE_RTT_ROUND_DONE] != 0
                and t > ff[a + FlowFloat.BBR_PROBE_RTT_DONE_S]
            ):
                ff[a + FlowFloat.BBR_MIN_RTT_STAMP_S] = t
                cwnd = ff[a + FlowFloat.CWND_PACKETS]
                ff[a + FlowFloat.CWND_PACKETS] = max(cwnd, ff[a + FlowFloat.BBR_PRIOR_CWND_PACKETS])
                _reset_mode(sp, f)
    # gains [bbr_update_gains]
    mode = fi[b + FlowInt.BBR_MODE]
    if mode == BbrMode.STARTUP:
        pacing_gain = HIGH_GAIN
        cwnd_gain = HIGH_GAIN
    elif mode == BbrMode.DRAIN:
        pacing_gain = DRAIN_GAIN
        cwnd_gain = HIGH_GAIN
    elif mode == BbrMode.PROBE_BW:
        pacing_gain = PACING_GAINS[fi[b + FlowInt.BBR_CYCLE_INDEX]]
        cwnd_gain = CWND_GAIN
    else:
        pacing_gain = 1.0
        cwnd_gain = 1.0
    ff[a + FlowFloat.BBR_PACING_GAIN] = pacing_gain
    ff[a + FlowFloat.BBR_CWND_GAIN] = cwnd_gain
    # pacing rate [bbr_set_pacing_rate]
    rate = pacing_gain * bw * PACING_MARGIN
    if fi[b + FlowInt.BBR_FULL_BW_REACHED] != 0 or rate > ff[a + FlowFloat.BBR_PACING_RATE_PER_S]:
        _set_pacing_rate(sp, f, rate)
    # cwnd [bbr_set_cwnd, bbr_set_cwnd_to_recover_or_restore]
    cwnd = ff[a + FlowFloat.CWND_PACKETS]
    acked = fi[b + FlowInt.BBR_RS_ACKED]
    if acked > 0:
        if fi[b + FlowInt.SND_UNA] <= fi[b + FlowInt.RTO_RECOVER]:
            state = BbrCaState.LOSS
        elif fi[b + FlowInt.RECOVERY] == RecoveryState.FAST:
            state = BbrCaState.RECOVERY
        else:
            state = BbrCaState.OPEN
        prev = fi[b + FlowInt.BBR_PREV_CA_STATE]
        if losses > 0:
            cwnd = max(cwnd - losses, 1.0)
        if state == BbrCaState.RECOVERY and prev != BbrCaState.RECOVERY:
            fi[b + FlowInt.BBR_PACKET_CONSERVATION] = 1
            fi[b + FlowInt.BBR_NEXT_ROUND_DELIVERED] = fi[b + FlowInt.BBR_DELIVERED]
            cwnd = float(in_flight + acked)
        elif prev >= BbrCaState.RECOVERY and state < BbrCaState.RECOVERY:
            cwnd = max(cwnd, ff[a + FlowFloat.BBR_PRIOR_CWND_PACKETS])
            fi[b + FlowInt.BBR_PACKET_CONSERVATION] = 0
        fi[b + FlowInt.BBR_PREV_CA_STATE] = state
        if fi[b + FlowInt.BBR_PACKET_CONSERVATION] != 0:
            cwnd = max(cwnd, float(in_flight + acked))
        else:
            target = _inflight(sp, f, bw, cwnd_gain, _aggregation_cwnd(sp, f, bw))
            if fi[b + FlowInt.BBR_FULL_BW_REACHED] != 0:
                cwnd = min(cwnd + acked, target)
            elif cwnd < target or fi[b + FlowInt.BBR_DELIVERED] < INIT_CWND_PACKETS:
                cwnd = cwnd + acked
            cwnd = max(cwnd, MIN_CWND_PACKETS)
    if mode == BbrMode.PROBE_RTT:
        cwnd = min(cwnd, MIN_CWND_PACKETS)
    ff[a + FlowFloat.CWND_PACKETS] = cwnd
