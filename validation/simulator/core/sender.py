"""The TCP sender: Reno congestion control, SACK (RFC 6675, with RACK's detection of lost
retransmissions, RFC 8985 §6.2) or NewReno (RFC 6582) recovery, the retransmission timer
(RFC 6298), pacing, and the start and end of transfers.

The model is the reference's (``validation/simulator/reference/simulator.py``, its docstring); this
is the same on arrays.
A flow's SACK scoreboard is one byte of :class:`SlotFlag` bits per window slot in ``rg``; the
send time of each slot's last transmission is in ``sx`` and RACK's queue of retransmissions in
``rq`` (SACK flows only).
"""

from __future__ import annotations

import numpy as np

from validation.simulator.core.bbr import (
    bbr_ack_sample,
    bbr_lost,
    bbr_on_ack,
    bbr_on_send,
    bbr_on_timeout,
    bbr_pacing_gap,
    bbr_save_cwnd,
    bbr_start,
)
from validation.simulator.core.counters import COUNTS
from validation.simulator.core.cubic import cubic_increase, cubic_reduce, cubic_start
from validation.simulator.core.ecn import ecn_on_ack, ecn_start, in_cwr
from validation.simulator.core.heap import heap_push, push_packet, push_rto, uniform
from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    COPIES,
    COPY_SHIFT,
    CWR_FLAG,
    EPOCH_BITS,
    EPOCHS,
    FLOW_FLOATS,
    FLOW_INTS,
    GROUP_FLOATS,
    GROUP_INTS,
    SLOT_GOT_SHIFT,
    SLOT_SENT_SHIFT,
    TCP_STATE,
    BbrMode,
    CaIncrease,
    CongestionControl,
    EcnMode,
    Event,
    EventList,
    FlowCount,
    FlowDue,
    FlowFloat,
    FlowInt,
    GlobalFloat,
    GlobalInt,
    GroupFloat,
    GroupInt,
    RecoveryState,
    SizeDistribution,
    SlotFlag,
    Traffic,
)
from validation.simulator.parameters import INITIAL_SSTHRESH, MAX_RTO_S

INF = np.inf
#: The window admits whole segments only: a new segment goes out while
#: ``snd_nxt − snd_una + 1 <= min(cwnd, rwnd)``, and in SACK recovery while ``cwnd − pipe >= 1``.
#: RFC 5681 §2 (cwnd): the sender "MUST NOT send data with a sequence number higher than the sum
#: of the highest acknowledged sequence number and the minimum of cwnd and rwnd"; RFC 6675 §5
#: (C): "(cwnd - pipe) >= 1 SMSS"; ns-2's ``TcpAgent::window()`` returns ``(int)cwnd_`` (tcp.cc)
#: and Linux keeps an integer ``snd_cwnd``. A fractional cwnd (1/cwnd per ACK) used to let the
#: flight reach ceil(cwnd), one segment more. The slack keeps a window that sums to a whole
#: number in floating point (9 + 9·(1/9) = 9.999…) from losing that segment, as Linux's
#: integer counter ``snd_cwnd_cnt`` would not.
WHOLE_SEGMENT_SLACK = 1e-9


@jit
def _admits(in_flight, window):
    """Whether one more whole segment fits: ``in_flight + 1 <= window`` (see above)."""
    return in_flight + 1.0 <= window + WHOLE_SEGMENT_SLACK


#: Columns of ``fd`` a flow.
DUE = len(FlowDue)


@jit
def _arm_rto(sp, t, f):
    s = sp[0]
    a = f * FLOW_FLOATS
    ff = s.ff
    expiry = t + ff[a + FlowFloat.RTO_S]
    ff[a + FlowFloat.RTO_EXPIRY_S] = expiry
    if expiry < ff[a + FlowFloat.RTO_EVENT_S]:
        ff[a + FlowFloat.RTO_EVENT_S] = expiry
        push_rto(sp, expiry, f)


@jit
def _transmit(sp, t, f, seg):
    s = sp[0]
    ff, fi, gi = s.ff, s.fi, s.gi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    wmask = gi[GlobalInt.WINDOW_MASK]
    tag = fi[b + FlowInt.EPOCH]
    bbr = fi[b + FlowInt.CC] == CongestionControl.BBR
    if bbr:
        bbr_on_send(sp, t, f, seg, fi[b + FlowInt.HIGH_TX] - fi[b + FlowInt.SND_UNA])
    restart = False
    sack = fi[b + FlowInt.SACK] != 0
    j = f * (wmask + 1) + (seg & wmask)
    if seg < fi[b + FlowInt.HIGH_TX]:
        flags = s.rg[j]
        if (flags & (SlotFlag.SACKED | SlotFlag.REXMIT)) == 0:
            fi[b + FlowInt.REXMIT_OUT] += 1
            if sack:
                _rack_queue(sp, f, seg)
        s.rg[j] = flags | SlotFlag.REXMIT
        fi[b + FlowInt.RTT_SEQ] = -1
        restart = seg == fi[b + FlowInt.SND_UNA]
    else:
        if fi[b + FlowInt.CWR_PENDING] != 0:  # RFC 3168 §6.1.2: CWR on the next new data
            fi[b + FlowInt.CWR_PENDING] = 0
            tag |= CWR_FLAG << EPOCH_BITS
        fi[b + FlowInt.HIGH_TX] = seg + 1
        if fi[b + FlowInt.RTT_SEQ] < 0:
            fi[b + FlowInt.RTT_SEQ] = seg
            ff[a + FlowFloat.RTT_TIME_S] = t
    if sack:
        s.sx[j] = t
        tag |= _next_copy(sp, j) << (COPY_SHIFT + EPOCH_BITS)
    if seg == fi[b + FlowInt.SND_NXT]:
        fi[b + FlowInt.SND_NXT] += 1
    gi[GlobalInt.SENT] += 1
    free = max(t, ff[a + FlowFloat.ACCESS_FREE_S]) + ff[a + FlowFloat.ACCESS_TX_S]
    ff[a + FlowFloat.ACCESS_FREE_S] = free
    arrival = free + 0.5 * ff[a + FlowFloat.RTT_S]
    push_packet(sp, arrival, Event.ARRIVAL, f, tag, seg)
    if restart or ff[a + FlowFloat.RTO_EXPIRY_S] == INF:  # see the reference's transmit
        _arm_rto(sp, t, f)
    if bbr:
        ff[a + FlowFloat.NEXT_SEND_S] = t + bbr_pacing_gap(sp, f)
    elif fi[b + FlowInt.PACING] != 0:
        srtt = ff[a + FlowFloat.SRTT_S] if ff[a + FlowFloat.SRTT_S] > 0 else ff[a + FlowFloat.RTT_S]
        window = min(ff[a + FlowFloat.CWND_PACKETS], float(fi[b + FlowInt.MAX_WINDOW_PACKETS]))
        ff[a + FlowFloat.NEXT_SEND_S] = t + srtt / window


@jit
def _next_copy(sp, j):
    """Window slot ``j`` is sent once more: its copy number, kept modulo COPIES, goes up by
    one and is returned, for the packet to carry (``layout.COPY_SHIFT``)."""
    s = sp[0]
    flags = s.rg[j]
    copy = ((flags >> SLOT_SENT_SHIFT) + 1) & (COPIES - 1)
    s.rg[j] = (flags & ~((COPIES - 1) << SLOT_SENT_SHIFT)) | (copy << SLOT_SENT_SHIFT)
    return copy


@jit
def _rack_queue(sp, f, seq):
    """Retransmission ``seq`` joins RACK's queue, kept in the order sent (RFC 8985 §6.2; Linux
    walks ``tsorted_sent_queue``, net/ipv4/tcp_recovery.c). Each entry is a sequence number
    retransmitted once more since the last timeout, so no number is in the queue twice; a
    full queue (one entry per window slot, more than a window's worth of retransmissions
    that no delivery has resolved) leaves this one to the retransmission timer."""
    s = sp[0]
    fi = s.fi
    b = f * FLOW_INTS
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    count = fi[b + FlowInt.RQ_COUNT]
    if count > wmask:
        return
    s.rq[f * (wmask + 1) + ((fi[b + FlowInt.RQ_HEAD] + count) & wmask)] = seq
    fi[b + FlowInt.RQ_COUNT] = count + 1


@jit
def _rack_advance(sp, t, f, seq):
    """RFC 8985 §6.2 step 2 (Linux ``tcp_rack_advance``): packet ``seq``, newly delivered at
    t, becomes RACK's reference if it was sent after the reference (send time, then
    sequence number: ``tcp_skb_sent_after``). §6.2 step 2 ignores a retransmitted packet
    whose delivery may be that of an earlier copy: when the copy delivered is not the last
    one sent (the timestamp echo's test; here the copy number the packet carried,
    ``layout.COPY_SHIFT``), or when it was delivered sooner than the smallest RTT after the
    retransmission (Linux's only test, ``tcp_rack_advance``).

    Without the first test, the delivery of an original transmission still queued when a
    timeout sent it again made the retransmission's send time RACK's reference: each
    retransmission sent before it and still on its way was deemed lost and sent again, and
    those again at the next such delivery. In 004 §VII's mix at 300 LBP flows and 2,459
    packets (seed 6480233911101838503, 60 s) that turned into a flood of copies: 92 % loss,
    where the simulator without RACK lost 1.6 % (Linux leaves the state after a spurious
    timeout, F-RTO, RFC 5682, or when the timestamp echo shows the original was delivered,
    ``tcp_packet_delayed``; neither is modelled here)."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    j = f * (s.gi[GlobalInt.WINDOW_MASK] + 1) + (seq & s.gi[GlobalInt.WINDOW_MASK])
    xmit = s.sx[j]
    flags = s.rg[j]
    if ((flags >> SLOT_SENT_SHIFT) ^ (flags >> SLOT_GOT_SHIFT)) & (COPIES - 1):
        return
    if (flags & SlotFlag.REXMIT) and t - xmit < ff[a + FlowFloat.MIN_RTT_S]:
        return
    rack = ff[a + FlowFloat.RACK_XMIT_S]
    if xmit > rack or (xmit == rack and seq > fi[b + FlowInt.RACK_SEQ]):
        ff[a + FlowFloat.RACK_XMIT_S] = xmit
        fi[b + FlowInt.RACK_SEQ] = seq


@jit
def _rack_detect(sp, f):
    """RFC 8985 §6.2 step 5 for retransmissions: one sent before RACK's reference and not yet
    delivered is lost again; it leaves the queue and may be retransmitted once more. Returns
    how many were deemed lost.

    The path of a flow never reorders its packets, so a packet sent before one delivered
    that is not itself delivered is lost: the reordering window RACK.reo_wnd is 0 here, as
    Linux makes it in recovery while it has seen no reordering (``tcp_rack_reo_wnd``), and
    then §6.2's ``RACK.xmit_ts + RACK.rtt + RACK.reo_wnd - Now() <= 0`` holds for every
    packet sent before the reference. Original transmissions need no such pass: the first
    ones sent before a SACKed packet are those below it, LOST_LIMIT's rule (``on_ack``).
    Without this, a lost retransmission stayed outstanding until the retransmission timer
    (RFC 6675 retransmits each hole once), where Linux's RACK resends it about an RTT later
    (its LINUX_MIB_TCPLOSTRETRANSMIT counter; net/ipv4/tcp_recovery.c,
    ``tcp_rack_mark_skb_lost``). Entries already delivered or below SND_UNA are dropped;
    the queue empties whenever no retransmission is outstanding.
    """
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    una = fi[b + FlowInt.SND_UNA]
    rack = ff[a + FlowFloat.RACK_XMIT_S]
    rack_seq = fi[b + FlowInt.RACK_SEQ]
    head = fi[b + FlowInt.RQ_HEAD]
    count = fi[b + FlowInt.RQ_COUNT]
    lost = 0
    while count > 0:
        seq = s.rq[row + head]
        j = row + (seq & wmask)
        flags = s.rg[j]
        if seq >= una and (flags & (SlotFlag.SACKED | SlotFlag.REXMIT)) == SlotFlag.REXMIT:
            xmit = s.sx[j]
            if not (rack > xmit or (rack == xmit and rack_seq > seq)):
                break  # sent after the reference: so is every later entry
            s.rg[j] = flags & ~SlotFlag.REXMIT
            fi[b + FlowInt.REXMIT_OUT] -= 1
            if seq < fi[b + FlowInt.REXMIT_PTR]:
                fi[b + FlowInt.REXMIT_PTR] = seq
            lost += 1
        head = (head + 1) & wmask
        count -= 1
    if fi[b + FlowInt.REXMIT_OUT] == 0:
        count = 0
    fi[b + FlowInt.RQ_HEAD] = head
    fi[b + FlowInt.RQ_COUNT] = count
    return lost


@jit
def _pipe(sp, f):
    """RFC 6675 pipe: packets outstanding, not SACKed, not deemed lost (plus retransmissions).

    The reference counts it in one pass over [SND_UNA, HIGH_TX): a packet not SACKed counts
    once if at or above LOST_LIMIT and once more if retransmitted. The same sum from the
    scoreboard's counts: the retransmitted ones not SACKed are REXMIT_OUT; of the packets
    from lo = max(SND_UNA, LOST_LIMIT) on, all are out but the SACKed ones, SACKED_ABOVE.
    That count is kept as the scoreboard changes (``on_ack``): a new SACK at or above lo adds
    one, SND_UNA passing SACKed packets at or above LOST_LIMIT takes them off, and every move
    of LOST_LIMIT sets it to 0 (``_raise_lost_limit``), because LOST_LIMIT only ever moves up
    to HIGH_TX (a timeout) or to HIGH_SACKED (fast recovery), above which nothing is SACKed.
    It was counted here in a pass over [lo, HIGH_SACKED) on every call, which after a timeout
    or with a LOST_LIMIT left above SND_UNA by a recovery took a pass over most of the window
    for every ACK and every packet sent (458 slots a bottleneck packet for BBR at 100 Mb/s
    with 40 flows, a one-BDP buffer and a 2048-packet window).
    """
    s = sp[0]
    fi = s.fi
    b = f * FLOW_INTS
    high = fi[b + FlowInt.HIGH_TX]
    count = fi[b + FlowInt.REXMIT_OUT]
    lo = max(fi[b + FlowInt.SND_UNA], fi[b + FlowInt.LOST_LIMIT])
    if lo >= high:
        return count
    return count + high - lo - fi[b + FlowInt.SACKED_ABOVE]


@jit
def _raise_lost_limit(sp, f, limit):
    """Deem lost the packets below ``limit`` not SACKed: HIGH_TX (a timeout) or HIGH_SACKED
    (fast recovery), the only values LOST_LIMIT takes. Nothing at or above either is SACKed,
    so the SACKed packets at or above max(SND_UNA, LOST_LIMIT) are then none (``_pipe``)."""
    b = f * FLOW_INTS
    sp[0].fi[b + FlowInt.LOST_LIMIT] = limit
    sp[0].fi[b + FlowInt.SACKED_ABOVE] = 0


@jit
def in_flight(sp, f):
    """Packets in flight as Linux counts them (for BBR): the pipe while SACKed or lost
    packets may be outstanding, else everything sent and not acknowledged."""
    s = sp[0]
    b = f * FLOW_INTS
    fi = s.fi
    if fi[b + FlowInt.RECOVERY] != RecoveryState.NONE or fi[b + FlowInt.DUPACKS] > 0:
        return _pipe(sp, f)
    return fi[b + FlowInt.HIGH_TX] - fi[b + FlowInt.SND_UNA]


@jit
def _next_hole(sp, f):
    """The first lost packet not yet retransmitted (-1: none)."""
    s = sp[0]
    fi = s.fi
    b = f * FLOW_INTS
    wmask = s.gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    seq = max(fi[b + FlowInt.REXMIT_PTR], fi[b + FlowInt.SND_UNA])
    lost_limit = fi[b + FlowInt.LOST_LIMIT]
    while seq < lost_limit and (s.rg[row + (seq & wmask)] & (SlotFlag.SACKED | SlotFlag.REXMIT)):
        seq += 1
    fi[b + FlowInt.REXMIT_PTR] = seq
    return seq if seq < lost_limit else -1


@jit
def try_send(sp, t, f):
    """Send what the window (or, in SACK recovery, the pipe) allows; pace if asked."""
    try_send_from(sp, t, t, f)


@jit
def try_send_from(sp, t, now, f):
    """``try_send`` at t, run at ``now`` <= t (a PACE event's work done ahead of its time,
    ``deferred_pace``): the checks of what may come first start from now."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    wmax = fi[b + FlowInt.MAX_WINDOW_PACKETS]
    sack = fi[b + FlowInt.SACK] != 0
    pacing = fi[b + FlowInt.PACING] != 0
    # t moves on to the paced send times of packets sent ahead (below)
    while fi[b + FlowInt.ACTIVE] != 0:
        seg = -1
        una = fi[b + FlowInt.SND_UNA]
        nxt = fi[b + FlowInt.SND_NXT]
        if sack and fi[b + FlowInt.RECOVERY] != RecoveryState.NONE:
            if not _admits(_pipe(sp, f), ff[a + FlowFloat.CWND_PACKETS]):
                return
            seg = _next_hole(sp, f)
            if seg < 0 and nxt - una < wmax:
                seg = nxt
        elif _admits(nxt - una, min(ff[a + FlowFloat.CWND_PACKETS], float(wmax))):
            seg = nxt
        size = fi[b + FlowInt.SIZE_PACKETS]
        if seg < 0 or (size >= 0 and seg >= size):
            return
        if pacing and t < ff[a + FlowFloat.NEXT_SEND_S]:
            if fi[b + FlowInt.PACE_PENDING] != 0 or fi[b + FlowInt.PACE_DEFERRED] != 0:
                return
            due = ff[a + FlowFloat.NEXT_SEND_S]
            if _delivery_first(sp, f, due):
                fi[b + FlowInt.PACE_DEFERRED] = 1  # the PACE event, kept off the heap
                s.fd[f * DUE + FlowDue.PACE_S] = due
                return
            if not _quiet_until(sp, now, f, due):
                fi[b + FlowInt.PACE_PENDING] = 1
                heap_push(sp, due, Event.PACE, f, 0, 0)
                return
            t = due  # sent now with its paced time: the PACE event would change nothing
        _transmit(sp, t, f, seg)


@jit
def _delivery_first(sp, f, due):
    """Whether a delivery of flow f is scheduled no later than a PACE event at ``due`` would
    run; then that event is kept off the heap (the reference's ``delivery_first`` says why
    the sample path is the same)."""
    s = sp[0]
    b = f * FLOW_INTS
    if s.fi[b + FlowInt.ECN_MODE] == EcnMode.DCTCP or due > s.g[GlobalFloat.END_S]:
        return False
    return (
        s.fi[b + FlowInt.DELIVER_LIST + EventList.COUNT] > 0
        and s.fd[f * DUE + FlowDue.DELIVER_S] <= due
    )


@jit
def deferred_pace(sp, t, f):
    """After a delivery of flow f at t, its PACE event kept off the heap: stays off while
    another delivery comes no later; else what it would do is done now if nothing of the
    flow can run before it, or it goes on the heap (the reference's ``deferred_pace``)."""
    s = sp[0]
    b = f * FLOW_INTS
    due = s.fd[f * DUE + FlowDue.PACE_S]
    if _delivery_first(sp, f, due):
        return
    s.fi[b + FlowInt.PACE_DEFERRED] = 0
    if _quiet_until(sp, t, f, due):
        try_send_from(sp, due, t, f)
        return
    s.fi[b + FlowInt.PACE_PENDING] = 1
    heap_push(sp, due, Event.PACE, f, 0, 0)


@jit
def _quiet_until(sp, now, f, due):
    """Whether, at time ``now``, nothing can change flow f's sender before a PACE event at
    ``due``: then that event's ``try_send`` would find the state of now, and the packet it
    would send can be sent at once with the send time ``due`` (the reference's
    ``quiet_until`` says why this is the same sample path).

    The flow's events that could come first, at times <= ``due`` (their kinds run before
    PACE at equal times): its first scheduled delivery, the deliveries not scheduled yet (of
    packets not yet past the port: not before now + RTT/2), its RTO and its delayed-ACK
    timer; and the end of the run. A DCTCP receiver may acknowledge twice in one delivery
    (the flush of its CE change, ``receiver.deliver``), so its sender never sends ahead.
    """
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    if fi[b + FlowInt.ECN_MODE] == EcnMode.DCTCP:
        return False
    if due > s.g[GlobalFloat.END_S] or now + 0.5 * ff[a + FlowFloat.RTT_S] <= due:
        return False
    if ff[a + FlowFloat.RTO_EVENT_S] <= due:
        return False
    d = f * DUE
    if fi[b + FlowInt.DELIVER_LIST + EventList.COUNT] > 0:
        if s.fd[d + FlowDue.DELIVER_S] <= due:
            return False
    if fi[b + FlowInt.DELACK_COUNT] > 0 and s.fd[d + FlowDue.DELACK_S] <= due:
        return False
    return True


@jit
def _draw_size(sp, group):
    """Packets of a new transfer of ``group`` (-1: unlimited)."""
    s = sp[0]
    gf = group * GROUP_FLOATS
    gg = group * GROUP_INTS
    if s.gg[gg + GroupInt.TRAFFIC] == Traffic.PERSISTENT:
        return np.int64(-1)
    mean = s.gf[gf + GroupFloat.FLOW_MEAN_PACKETS]
    dist = s.gg[gg + GroupInt.SIZE_DISTRIBUTION]
    if dist == SizeDistribution.FIXED:
        return np.int64(max(np.round(mean), 1.0))
    u = uniform(sp)
    if dist == SizeDistribution.UNIFORM:
        return np.int64(1 + int(u * (2.0 * mean - 1.0)))
    shape = s.gf[gf + GroupFloat.PARETO_SHAPE]
    scale = mean * (shape - 1.0) / shape
    return np.int64(max(np.ceil(scale * (1.0 - u) ** (-1.0 / shape)), 1.0))


@jit
def start_flow(sp, t, f):
    """Start a transfer in slot f: fresh TCP state, a new epoch; send the initial window."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    epoch = (fi[b + FlowInt.EPOCH] + 1) % EPOCHS
    delack_gen = fi[b + FlowInt.DELACK_GEN] + 1
    pace_pending = fi[b + FlowInt.PACE_PENDING]
    for k in range(TCP_STATE):  # the event lists stay: packets of the last transfer may be out
        fi[b + k] = 0
    fi[b + FlowInt.EPOCH] = epoch
    fi[b + FlowInt.DELACK_GEN] = delack_gen
    fi[b + FlowInt.PACE_PENDING] = pace_pending
    fi[b + FlowInt.SACKED_OUT] = 0
    fi[b + FlowInt.SACKED_ABOVE] = 0
    fi[b + FlowInt.REXMIT_OUT] = 0
    fi[b + FlowInt.RECOVER] = -1
    fi[b + FlowInt.RTO_RECOVER] = -1
    fi[b + FlowInt.RTT_SEQ] = -1
    fi[b + FlowInt.RACK_SEQ] = -1
    fi[b + FlowInt.RQ_HEAD] = 0
    fi[b + FlowInt.RQ_COUNT] = 0
    fi[b + FlowInt.ACTIVE] = 1
    fi[b + FlowInt.SIZE_PACKETS] = _draw_size(sp, fi[b + FlowInt.GROUP])
    slots = s.gi[GlobalInt.WINDOW_MASK] + 1
    for j in range(f * slots, (f + 1) * slots):
        s.rg[j] = 0
    ff[a + FlowFloat.CWND_PACKETS] = ff[a + FlowFloat.INITIAL_CWND_PACKETS]
    ff[a + FlowFloat.SSTHRESH_PACKETS] = INITIAL_SSTHRESH
    cubic_start(sp, f)
    ecn_start(sp, f)
    if fi[b + FlowInt.CC] == CongestionControl.BBR:
        bbr_start(sp, t, f)
    ff[a + FlowFloat.SRTT_S] = 0.0
    ff[a + FlowFloat.RTTVAR_S] = 0.0
    ff[a + FlowFloat.RTO_S] = ff[a + FlowFloat.INITIAL_RTO_S]
    ff[a + FlowFloat.RTT_TIME_S] = 0.0
    ff[a + FlowFloat.RACK_XMIT_S] = -1.0
    ff[a + FlowFloat.MIN_RTT_S] = INF
    ff[a + FlowFloat.RTO_EXPIRY_S] = INF
    ff[a + FlowFloat.NEXT_SEND_S] = t
    try_send(sp, t, f)


@jit
def rto_fire(sp, t, f):
    """The RTO event: re-arm if the timer moved, else time out (RFC 6298 §5, RFC 5681 (7))."""
    s = sp[0]
    ff, fi, gi = s.ff, s.fi, s.gi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    if t != ff[a + FlowFloat.RTO_EVENT_S]:
        return
    ff[a + FlowFloat.RTO_EVENT_S] = INF
    expiry = ff[a + FlowFloat.RTO_EXPIRY_S]
    if expiry == INF:
        return
    if t < expiry:
        ff[a + FlowFloat.RTO_EVENT_S] = expiry
        push_rto(sp, expiry, f)
        return
    ff[a + FlowFloat.RTO_EXPIRY_S] = INF
    una = fi[b + FlowInt.SND_UNA]
    high = fi[b + FlowInt.HIGH_TX]
    if fi[b + FlowInt.ACTIVE] == 0 or una >= high:
        return
    if t >= s.g[GlobalFloat.WARMUP_S]:
        gi[GlobalInt.TIMEOUTS] += 1
        s.fc[COUNTS * f + FlowCount.TIMEOUTS] += 1.0
    if fi[b + FlowInt.CC] == CongestionControl.CUBIC:  # RFC 9438 §4.8: ssthresh as in §4.6,
        ff[a + FlowFloat.SSTHRESH_PACKETS] = cubic_reduce(sp, f)
        # then the next epoch starts with K = 0 and W_max = its first cwnd (no W_max)
        ff[a + FlowFloat.W_MAX_PACKETS] = 0.0
    elif fi[b + FlowInt.CC] == CongestionControl.BBR:  # ssthresh unused; cwnd saved
        bbr_on_timeout(sp, f)
    else:
        ff[a + FlowFloat.SSTHRESH_PACKETS] = max((high - una) / 2.0, 2.0)
    ff[a + FlowFloat.CWND_PACKETS] = 1.0
    ff[a + FlowFloat.RTO_S] = min(2.0 * ff[a + FlowFloat.RTO_S], MAX_RTO_S)
    fi[b + FlowInt.DUPACKS] = 0
    fi[b + FlowInt.RTT_SEQ] = -1
    fi[b + FlowInt.RECOVER] = high - 1
    fi[b + FlowInt.RTO_RECOVER] = high - 1
    wmask = gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    for seq in range(una, high):
        j = row + (seq & wmask)
        s.rg[j] = s.rg[j] & ~SlotFlag.REXMIT
    fi[b + FlowInt.REXMIT_OUT] = 0
    fi[b + FlowInt.RQ_COUNT] = 0
    fi[b + FlowInt.REXMIT_PTR] = una
    if fi[b + FlowInt.SACK] != 0:
        fi[b + FlowInt.RECOVERY] = RecoveryState.AFTER_TIMEOUT
        _raise_lost_limit(sp, f, high)
    else:
        fi[b + FlowInt.RECOVERY] = RecoveryState.NONE
        fi[b + FlowInt.SND_NXT] = una
    ff[a + FlowFloat.NEXT_SEND_S] = t
    try_send(sp, t, f)
    if ff[a + FlowFloat.RTO_EXPIRY_S] == INF:
        _arm_rto(sp, t, f)


@jit
def _rtt_sample(sp, f, r):
    """RFC 6298 §2: SRTT, RTTVAR and RTO from a new measurement r."""
    s = sp[0]
    ff = s.ff
    a = f * FLOW_FLOATS
    if r < ff[a + FlowFloat.MIN_RTT_S]:
        ff[a + FlowFloat.MIN_RTT_S] = r
    if ff[a + FlowFloat.SRTT_S] == 0.0:
        ff[a + FlowFloat.SRTT_S] = r
        ff[a + FlowFloat.RTTVAR_S] = r / 2.0
    else:
        deviation = abs(ff[a + FlowFloat.SRTT_S] - r)
        ff[a + FlowFloat.RTTVAR_S] = 0.75 * ff[a + FlowFloat.RTTVAR_S] + 0.25 * deviation
        ff[a + FlowFloat.SRTT_S] = 0.875 * ff[a + FlowFloat.SRTT_S] + 0.125 * r
    rto = max(
        ff[a + FlowFloat.MIN_RTO_S], ff[a + FlowFloat.SRTT_S] + 4.0 * ff[a + FlowFloat.RTTVAR_S]
    )
    ff[a + FlowFloat.RTO_S] = min(rto, MAX_RTO_S)


@jit
def on_ack(sp, t, f, cum, sack_seq, ece):
    """An ACK of everything below ``cum`` (SACKing ``sack_seq`` if >= cum), with ECN-Echo
    ``ece``, reaches flow f."""
    s = sp[0]
    ff, fi, gi = s.ff, s.fi, s.gi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    wmask = gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    sack = fi[b + FlowInt.SACK] != 0
    # RACK's reference moves only while a retransmission is queued: any later one is sent
    # after every packet delivered so far, so earlier deliveries cannot make it lost
    rack = sack and fi[b + FlowInt.RQ_COUNT] > 0
    bbr = fi[b + FlowInt.CC] == CongestionControl.BBR
    if bbr:  # the flight before the ACK matters only in ProbeBW's 5/4 and 3/4 phases
        probing = (
            fi[b + FlowInt.BBR_MODE] == BbrMode.PROBE_BW
            and ff[a + FlowFloat.BBR_PACING_GAIN] != 1.0
        )
        bbr_ack_sample(sp, t, f, cum, sack_seq, in_flight(sp, f) if probing else 0)
    if sack_seq >= cum:
        j = row + (sack_seq & wmask)
        flags = s.rg[j]
        if (flags & SlotFlag.SACKED) == 0:
            if rack:
                _rack_advance(sp, t, f, sack_seq)
            fi[b + FlowInt.SACKED_OUT] += 1
            if sack_seq >= max(fi[b + FlowInt.SND_UNA], fi[b + FlowInt.LOST_LIMIT]):
                fi[b + FlowInt.SACKED_ABOVE] += 1
            if flags & SlotFlag.REXMIT:
                fi[b + FlowInt.REXMIT_OUT] -= 1
        s.rg[j] = flags | SlotFlag.SACKED
        if sack_seq + 1 > fi[b + FlowInt.HIGH_SACKED]:
            fi[b + FlowInt.HIGH_SACKED] = sack_seq + 1
    una = fi[b + FlowInt.SND_UNA]
    if cum > una:
        newly = cum - una
        # no SACKED or REXMIT bit to clear when both counts are 0
        if fi[b + FlowInt.SACKED_OUT] != 0 or fi[b + FlowInt.REXMIT_OUT] != 0:
            sacked = 0  # and the counts lose what leaves the window
            above = 0  # (SACKED_ABOVE: those at or above LOST_LIMIT)
            rexmit = 0
            lost_limit = fi[b + FlowInt.LOST_LIMIT]
            for seq in range(una, cum):
                j = row + (seq & wmask)
                flags = s.rg[j]
                if flags & SlotFlag.SACKED:
                    sacked += 1
                    if seq >= lost_limit:
                        above += 1
                else:
                    if rack:
                        _rack_advance(sp, t, f, seq)
                    if flags & SlotFlag.REXMIT:
                        rexmit += 1
                s.rg[j] = flags & ~(SlotFlag.SACKED | SlotFlag.REXMIT)
            fi[b + FlowInt.SACKED_OUT] -= sacked
            fi[b + FlowInt.SACKED_ABOVE] -= above
            fi[b + FlowInt.REXMIT_OUT] -= rexmit
        fi[b + FlowInt.SND_UNA] = cum
        if fi[b + FlowInt.SND_NXT] < cum:
            fi[b + FlowInt.SND_NXT] = cum
        fi[b + FlowInt.DUPACKS] = 0
        if fi[b + FlowInt.RTT_SEQ] >= 0 and cum > fi[b + FlowInt.RTT_SEQ]:
            _rtt_sample(sp, f, t - ff[a + FlowFloat.RTT_TIME_S])
            fi[b + FlowInt.RTT_SEQ] = -1
        exited = False
        recovery = fi[b + FlowInt.RECOVERY]
        if recovery != RecoveryState.NONE and cum > fi[b + FlowInt.RECOVER]:
            if recovery == RecoveryState.FAST and not bbr:
                ff[a + FlowFloat.CWND_PACKETS] = ff[a + FlowFloat.SSTHRESH_PACKETS]
            fi[b + FlowInt.RECOVERY] = RecoveryState.NONE
            exited = True
        if fi[b + FlowInt.RECOVERY] == RecoveryState.FAST:
            if not sack:  # NewReno partial ACK (RFC 6582 step 5)
                if bbr:
                    fi[b + FlowInt.BBR_LOSSES] += 1
                else:
                    cwnd = ff[a + FlowFloat.CWND_PACKETS]
                    ff[a + FlowFloat.CWND_PACKETS] = max(cwnd - newly + 1.0, 1.0)
                _transmit(sp, t, f, cum)
        elif not exited and not bbr and not in_cwr(sp, f, cum, ece):
            # no growth in ECN's CWR state (ecn.in_cwr: Linux's tcp_in_cwnd_reduction)
            cwnd = ff[a + FlowFloat.CWND_PACKETS]
            if cwnd < ff[a + FlowFloat.SSTHRESH_PACKETS]:  # at most 1 packet/ACK (RFC 5681)
                ff[a + FlowFloat.CWND_PACKETS] = cwnd + min(newly, 1)
            else:
                # segments the increase counts: those newly ACKed (RFC 3465) or 1 per ACK
                # (RFC 5681 Eq. 3, ns-2); see CaIncrease
                acked = newly if fi[b + FlowInt.CA_INCREASE] == CaIncrease.BYTES_ACKED else 1
                if fi[b + FlowInt.CC] == CongestionControl.CUBIC:
                    cubic_increase(sp, t, f, acked)
                else:
                    ff[a + FlowFloat.CWND_PACKETS] = cwnd + acked / cwnd
        size = fi[b + FlowInt.SIZE_PACKETS]
        if size >= 0 and cum >= size:
            _complete(sp, t, f)
            return
        if cum < fi[b + FlowInt.HIGH_TX]:
            _arm_rto(sp, t, f)
        else:
            ff[a + FlowFloat.RTO_EXPIRY_S] = INF
    elif cum == una and una < fi[b + FlowInt.HIGH_TX] and (sack_seq >= 0 or not sack):
        fi[b + FlowInt.DUPACKS] += 1
        if (
            fi[b + FlowInt.RECOVERY] == RecoveryState.NONE
            and fi[b + FlowInt.DUPACKS] == 3
            and cum > fi[b + FlowInt.RTO_RECOVER]
        ):
            # RFC 5681 eq. 4 halves FlightSize, data sent and not cumulatively acknowledged;
            # with SACK that counts what was SACKed above a hole. A recovery that a lost
            # retransmission prolongs (resent by RACK, _rack_detect) keeps SND_UNA at the
            # hole while new data goes out, so the flight grew to several cwnds and the
            # "reduction" raised cwnd: one LBP flow of 004 §VII's mix (300 LBP flows, 2,459
            # packets, seed 4452820398021706475) went from 1,078 to 3,062 packets in one
            # recovery, its flight above the whole buffer, and the mix lost 28 % of its
            # packets. Linux halves cwnd (tcp_reno_ssthresh) and ns-2 its window()
            # (TcpAgent::slowdown); the flight below cwnd, a sender that the application or
            # the receiver's window limits, is still what is halved.
            flight = min(fi[b + FlowInt.HIGH_TX] - una, ff[a + FlowFloat.CWND_PACKETS])
            if fi[b + FlowInt.CC] == CongestionControl.CUBIC:
                ssthresh = cubic_reduce(sp, f)
            elif bbr:  # BBR keeps its cwnd (set after the ACK) and saves it
                bbr_save_cwnd(sp, f)
                ssthresh = ff[a + FlowFloat.SSTHRESH_PACKETS]
            else:
                ssthresh = max(flight / 2.0, 2.0)
            ff[a + FlowFloat.SSTHRESH_PACKETS] = ssthresh
            fi[b + FlowInt.RECOVER] = fi[b + FlowInt.HIGH_TX] - 1
            fi[b + FlowInt.RECOVERY] = RecoveryState.FAST
            fi[b + FlowInt.RTT_SEQ] = -1
            if bbr:
                if sack:
                    bbr_lost(sp, f, una, fi[b + FlowInt.HIGH_SACKED])
                else:
                    fi[b + FlowInt.BBR_LOSSES] += 1
            if sack:
                if not bbr:
                    ff[a + FlowFloat.CWND_PACKETS] = ssthresh
                _raise_lost_limit(sp, f, fi[b + FlowInt.HIGH_SACKED])
                fi[b + FlowInt.REXMIT_PTR] = una
            elif not bbr:
                ff[a + FlowFloat.CWND_PACKETS] = ssthresh + 3.0
            # the first missing packet goes out at once, whatever the pipe (RFC 6675 step 4.3;
            # RFC 6582 step 2); later ones wait for pipe < cwnd with SACK
            _transmit(sp, t, f, una)
        elif fi[b + FlowInt.RECOVERY] == RecoveryState.FAST and not sack and not bbr:
            ff[a + FlowFloat.CWND_PACKETS] += 1.0
    if (
        sack
        and fi[b + FlowInt.RECOVERY] == RecoveryState.FAST
        and fi[b + FlowInt.HIGH_SACKED] > fi[b + FlowInt.LOST_LIMIT]
    ):
        if bbr:
            bbr_lost(sp, f, fi[b + FlowInt.LOST_LIMIT], fi[b + FlowInt.HIGH_SACKED])
        _raise_lost_limit(sp, f, fi[b + FlowInt.HIGH_SACKED])
    if rack:
        lost = _rack_detect(sp, f)
        if bbr:
            fi[b + FlowInt.BBR_LOSSES] += lost
    if fi[b + FlowInt.ECN_MODE] != EcnMode.OFF:
        ecn_on_ack(sp, t, f, cum, cum - una if cum > una else 0, ece)
    if bbr:
        bbr_on_ack(sp, t, f, in_flight(sp, f))
    try_send(sp, t, f)


@jit
def _complete(sp, t, f):
    """The transfer in slot f is acknowledged in full; a closed-loop user starts the next."""
    s = sp[0]
    if t >= s.g[GlobalFloat.WARMUP_S]:
        s.gi[GlobalInt.COMPLETED] += 1
        s.fc[COUNTS * f + FlowCount.COMPLETED] += 1.0
    b = f * FLOW_INTS
    s.fi[b + FlowInt.ACTIVE] = 0
    s.ff[f * FLOW_FLOATS + FlowFloat.RTO_EXPIRY_S] = INF
    if s.gg[s.fi[b + FlowInt.GROUP] * GROUP_INTS + GroupInt.TRAFFIC] == Traffic.CLOSED_LOOP:
        start_flow(sp, t, f)
