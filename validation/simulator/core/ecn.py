"""ECN at the port and at the hosts: marking, the receivers' echo, the senders' reaction.

The port (``mark_on_arrival``, called by ``fifo.py`` for a packet it accepts): an arrival of an
ECN-capable flow (its group's ``EcnMode`` is not OFF) that finds at least
``ECN_THRESHOLD_PACKETS`` packets (or ``ECN_THRESHOLD_BYTES`` bytes) at the port, the one in
transmission included, is marked CE instead of being dropped (Alizadeh et al., SIGCOMM 2010
§3.1, "Simple Marking at the Switch", read: "An arriving packet is marked with the CE
codepoint if the queue occupancy is greater than K upon it's arrival", so the paper's K is
this threshold minus one; RFC 8257 §3.1, read, has the same rule: "When a packet arrives at a
switch and its queue length is greater than the congestion threshold, the switch sets the CE
codepoint in the packet"). Packets not ECN-capable see drop-tail,
and the buffer stays the hard limit: a full buffer drops an ECN-capable packet too
(``fifo.py`` decides acceptance first). ``mark_or_drop`` is the one function an AQM that marks
(CoDel's ECN mode) calls instead of dropping: it marks an ECN-capable packet and drops any
other. (Not the rule of RFC 3168 §5, read: "the CE codepoint of an ECN-Capable packet SHOULD
only be set if the router would otherwise have dropped the packet", under which a switch
drops a packet that is not ECN-capable where it would mark; here such packets are dropped
only by the full buffer. The two give opposite winners when DCTCP shares the port with
non-ECN TCP: ``test_dctcp_is_starved_by_cubic_in_a_shared_queue_with_drop_tail_for_cubic``.)

The receivers (``receiver_ce``, before the packet is acknowledged):

- DCTCP (RFC 8257 §3.2 and its Figure 1, read; Alizadeh et al. §3.1 "ECN-Echo at the
  Receiver" and Fig. 10, the two-state machine with delayed ACKs, read): the receiver keeps
  ``DCTCP.CE``, the CE bit of the last packet; "When sending an ACK, the ECE flag MUST be set
  if and only if DCTCP.CE is true". When a packet's CE differs from DCTCP.CE, "set DCTCP.CE to
  true [false] and send an immediate ACK"; in-order packets still waiting for a delayed ACK
  are first acknowledged with the old ECE (the RFC's "an implementation MAY choose to send two
  ACKs: one for previously unacknowledged packets and another acknowledging the most recently
  received packet", which is what Linux's ``net/ipv4/tcp_dctcp.h``, ``dctcp_ece_ack_update``,
  does). So every ACK's ECE is the CE of all the packets it acknowledges. (ns-3's ``TcpDctcp``,
  ``src/internet/model/tcp-dctcp.cc``, ``CeState0to1``/``CeState1to0``, sends only the first
  of the two; studies/results/ns3_compare.md measures what that changes.)
- RFC 3168 §6.1.3 (read): once a CE packet arrives, every ACK carries ECE until a data packet
  with CWR arrives.

The senders (``ecn_on_ack``, at the end of every ACK): at most once per window of data, and
not in loss recovery or within the window of the last loss reduction (RFC 3168 §6.1.2, read),
an ACK with ECE makes the sender reduce: a classic ECN sender as on a loss (Reno: ssthresh =
half the flight; CUBIC: RFC 9438 §4.6) but with no retransmission and no fast recovery, cwnd =
ssthresh; DCTCP by cwnd·(1 − α/2) (``dctcp.py``). Either then sets CWR on its next new data
packet (RFC 3168 §6.1.2: "the TCP sender sets the CWR flag in the TCP header of the first new
data packet sent after the window reduction"). Until an ACK passes the packets out at the
reduction (``ECN_RECOVER`` = one past the highest sent then; every ACK at or below it, the one
that acknowledges exactly those packets included) and on any ACK with ECE, the window does
not grow (``in_cwr``, which ``sender.py`` asks), and no new ECE reduction comes: Linux's ECE
puts the sender in CWR (``tcp_try_to_open`` calls ``tcp_enter_cwr``, which records
``high_seq = snd_nxt``), and
``tcp_cong_control`` in ``net/ipv4/tcp_input.c`` calls ``tcp_cong_avoid`` only when not
``tcp_in_cwnd_reduction``; ``tcp_fastretrans_alert`` ends the state only once ``snd_una``
passes ``high_seq`` ("CWR is to be held something *above* high_seq is ACKed", so not when
``snd_una == high_seq``), cwnd = ssthresh (``tcp_end_cwnd_reduction``), and only then may an
ECE enter CWR again.
ns-3 3.44's CA_CWR state does not grow it either. (Until 29 Nov 2026 the window grew through
that round trip: with 10 DCTCP flows at 1 Gbit/s, 200 µs, 9.5 points more of the packets were
marked, ``studies/dctcp_queue_p99.py``.) DCTCP's estimator also runs on every ACK
(RFC 8257 §3.3 steps 1-8, read) and updates α when an ACK passes DCTCP.WindowEnd, once per
observation window, as Alizadeh et al. §3.1 eq. (1) does once per window of data.

Simplifications: the reduction is immediate, where Linux's ``tcp_cwnd_reduction`` (and ns-3's
PRR) lower cwnd over that round trip by proportional rate reduction (RFC 6937) and end at the
same ssthresh; a loss detected (third duplicate ACK) within the window of an ECE reduction
reduces again (RFC 3168 §6.1.2 would not lower ssthresh twice in one round trip, and RFC 8257
§3.5 says "a DCTCP sender will only reduce the cwnd once per window of data across all loss
signals"); a sender
does not clear ECT on retransmissions (RFC 3168 §6.1.5 says it MUST); the SYN's negotiation
is not modelled (every flow of a group is ECN-capable or none is).
"""

from __future__ import annotations

from validation.simulator.core.counters import COUNTS, drop
from validation.simulator.core.cubic import cubic_reduce
from validation.simulator.core.dctcp import dctcp_reduce, dctcp_start, dctcp_update_alpha
from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    CE_FLAG,
    CWR_FLAG,
    FLOW_FLOATS,
    FLOW_INTS,
    CongestionControl,
    EcnMode,
    FlowCount,
    FlowFloat,
    FlowInt,
    GlobalFloat,
    GlobalInt,
    RecoveryState,
)


@jit
def ecn_start(sp, f):
    """A new transfer: no ECE reduction yet, receiver state 0, no CWR to send, DCTCP's α."""
    s = sp[0]
    b = f * FLOW_INTS
    s.fi[b + FlowInt.ECN_RECOVER] = -1
    s.fi[b + FlowInt.CE_STATE] = 0
    s.fi[b + FlowInt.CWR_PENDING] = 0
    dctcp_start(sp, f)


@jit
def ecn_capable(sp, f):
    """Whether packets of flow ``f`` (``FLOWS``: background, open loop) are ECN-capable."""
    s = sp[0]
    return f < s.gi[GlobalInt.FLOWS] and s.fi[f * FLOW_INTS + FlowInt.ECN_MODE] != EcnMode.OFF


@jit
def count_mark(sp, t, f):
    """Count a CE mark of a packet of flow ``f`` at time t."""
    s = sp[0]
    if t >= s.g[GlobalFloat.WARMUP_S]:
        s.gi[GlobalInt.MARKS] += 1
        s.fc[COUNTS * f + FlowCount.MARKS] += 1.0


@jit
def mark_on_arrival(sp, t, f, count, queued_bytes):
    """CE_FLAG if the port marks an accepted arrival of flow ``f`` that found ``count`` packets
    (``queued_bytes`` bytes) at the port, else 0."""
    s = sp[0]
    gi = s.gi
    if gi[GlobalInt.ECN_MARKING] == 0 or not ecn_capable(sp, f):
        return 0
    if (
        count >= gi[GlobalInt.ECN_THRESHOLD_PACKETS]
        or queued_bytes >= s.g[GlobalFloat.ECN_THRESHOLD_BYTES]
    ):
        count_mark(sp, t, f)
        return CE_FLAG
    return 0


@jit
def mark_or_drop(sp, t, f, size):
    """An AQM's congestion signal: CE_FLAG for an ECN-capable packet (counted as a mark), or
    -1 after dropping any other (counted as a drop); the caller keeps a marked packet."""
    if ecn_capable(sp, f):
        count_mark(sp, t, f)
        return CE_FLAG
    drop(sp, t, f, size)
    return -1


@jit
def receiver_ce(sp, t, f, flags):
    """Update the receiver's ECE state for an arriving packet with ``flags``; return True if
    in-order packets waiting for a delayed ACK must first be acknowledged with the old state
    (DCTCP's state change, RFC 8257 §3.2)."""
    s = sp[0]
    b = f * FLOW_INTS
    fi = s.fi
    mode = fi[b + FlowInt.ECN_MODE]
    ce = 1 if flags & CE_FLAG else 0
    if mode == EcnMode.DCTCP:
        if ce == fi[b + FlowInt.CE_STATE]:
            return False
        return True
    if mode == EcnMode.CLASSIC:
        if flags & CWR_FLAG:
            fi[b + FlowInt.CE_STATE] = 0
        if ce:
            fi[b + FlowInt.CE_STATE] = 1
    return False


@jit
def dctcp_flip(sp, f):
    """DCTCP's receiver after the flush: DCTCP.CE takes the new packet's CE."""
    s = sp[0]
    b = f * FLOW_INTS
    s.fi[b + FlowInt.CE_STATE] = 1 - s.fi[b + FlowInt.CE_STATE]


@jit
def in_cwr(sp, f, cum, ece):
    """Whether an ACK of everything below ``cum`` with ECN-Echo ``ece`` finds flow ``f`` in
    ECN's CWR state, where its window does not grow (``sender.on_ack``): the ACK carries ECE
    or does not pass the packets out at the last ECE reduction (``ECN_RECOVER``), unless it is
    within the window of a timeout (``RTO_RECOVER``).

    Linux's ``tcp_cong_control`` (``net/ipv4/tcp_input.c``) calls ``tcp_cong_avoid`` only when
    not ``tcp_in_cwnd_reduction`` (``include/net/tcp.h``: the CA_CWR or CA_Recovery state); an
    ECE enters CWR and an ACK above ``high_seq`` ends it (module docstring). After a timeout
    the Loss state replaces CWR, and cwnd grows whatever the ECE.
    """
    s = sp[0]
    b = f * FLOW_INTS
    fi = s.fi
    return cum > fi[b + FlowInt.RTO_RECOVER] and (ece or cum <= fi[b + FlowInt.ECN_RECOVER])


@jit
def ecn_on_ack(sp, t, f, cum, newly, ece):
    """The sender's reaction to an ACK of everything below ``cum`` (``newly`` new packets)
    carrying ECE or not (see the module docstring)."""
    s = sp[0]
    ff, fi = s.ff, s.fi
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    dctcp = fi[b + FlowInt.CC] == CongestionControl.DCTCP
    if dctcp:
        dctcp_update_alpha(sp, f, cum, newly, ece)
    if (
        not ece
        or fi[b + FlowInt.RECOVERY] != RecoveryState.NONE
        or cum <= fi[b + FlowInt.ECN_RECOVER]
        or cum <= fi[b + FlowInt.RECOVER]
    ):
        return
    high = fi[b + FlowInt.HIGH_TX]
    if dctcp:
        ssthresh = dctcp_reduce(sp, f)
    elif fi[b + FlowInt.CC] == CongestionControl.CUBIC:
        ssthresh = cubic_reduce(sp, f)
    else:
        ssthresh = max((high - fi[b + FlowInt.SND_UNA]) / 2.0, 2.0)
    ff[a + FlowFloat.SSTHRESH_PACKETS] = ssthresh
    ff[a + FlowFloat.CWND_PACKETS] = ssthresh
    fi[b + FlowInt.ECN_RECOVER] = high
    fi[b + FlowInt.CWR_PENDING] = 1
