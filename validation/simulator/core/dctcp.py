"""DCTCP's sender (RFC 8257 §3.3-3.5; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010).

RFC 8257 (S. Bensley et al., October 2017) is read in its text (the RFC Editor's rfc8257.txt);
the quotations below are from it.

Slow start, congestion avoidance, loss detection and recovery and the retransmission timer are
Reno's (``sender.py``): §3.4, "A DCTCP sender grows its congestion window in the same way as
conventional TCP"; §3.5, "A DCTCP sender MUST react to loss episodes in the same way as
conventional TCP". What differs is the reaction to ECN-Echo:

- §3.3 steps 1-8, on every ACK: the packets newly acknowledged (step 1, "SACK options ... are
  ignored for this computation") are added to ``DCTCP.BytesAcked`` and, if the ACK carries
  ECE, to ``DCTCP.BytesMarked``; step 4: "If the acknowledgment number is less than or equal
  to DCTCP.WindowEnd, stop processing"; otherwise ``M = BytesMarked / BytesAcked``,
  ``α ← α·(1 − g) + g·M``, ``DCTCP.WindowEnd = SND.NXT`` and both counters restart (steps
  5-8). Counted in packets (every data packet is full-sized here, so the fraction of bytes is
  the fraction of packets).
- §3.3 step 9: "Rather than always halving the congestion window as described in [RFC3168],
  the sender SHOULD update cwnd as follows: cwnd = cwnd * (1 - DCTCP.Alpha / 2)", and "DCTCP
  does not react to congestion indications more than once for every window of data"
  (``ecn.py`` decides when). ssthresh is set with it, and both are at least 2 packets, as
  Linux's ``net/ipv4/tcp_dctcp.c`` (``dctcp_ssthresh``) keeps them. The RFC lists the cut as
  the step after the end-of-window update of α; here, as in Linux (the cut is its
  ``ssthresh`` hook, called on the first ECE of a window; α is updated by
  ``dctcp_update_alpha`` once snd_una reaches the window end, ``!before(snd_una, next_seq)``,
  where step 4 and this code wait for the acknowledgment number to pass it), the cut comes
  with the first ECE outside the last cut's window and uses the α of the last completed
  observation window.
  The cut is immediate (Linux and ns-3 reach the reduced window over the next round trip, by
  proportional rate reduction), and the window does not grow until that round trip is
  acknowledged (Linux's CWR state; ``ecn.py``).
- α starts at 1, so the first reaction halves the window: §3.3, "DCTCP.Alpha, which is
  initialized to 1"; also the default of Linux (``dctcp_alpha_on_init``) and of ns-3's
  ``TcpDctcp``. g = 1/16: §4.2, "A fixed estimation gain of 1/16 is used in some
  implementations".

Paper equations (Alizadeh et al. 2010, doi 10.1145/1851182.1851192, read in a text conversion
of the ACM open-access PDF): §3.1 "Controller at the Sender", eq. (1) α ← (1 − g)·α + g·F,
"updated once for every window of data (roughly one RTT)", and eq. (2) cwnd ← cwnd·(1 − α/2);
"slow start, additive increase in congestion avoidance, or recovery from packet lost are left
unchanged". §3.5: "g is set to 1/16 in all experiments".
"""

from __future__ import annotations

from validation.simulator.core.jit import jit
from validation.simulator.layout import FLOW_FLOATS, FLOW_INTS, FlowFloat, FlowInt

#: The estimation gain g = 1/16 (issue 14; RFC 8257 §4.2: "A fixed estimation gain of 1/16 is
#: used in some implementations"; Linux's default, dctcp_shift_g = 4; Alizadeh et al.
#: 2010 §3.5: "g is set to 1/16 in all experiments"; §3.4 eq. (15) bounds it by
#: g < 1.386/√(2(C·RTT + K)), 0.100 at 10 Gb/s, 100 µs, K = 12).
DCTCP_G = 1.0 / 16.0
#: Initial α: RFC 8257 §3.3, "DCTCP.Alpha, which is initialized to 1" (module docstring).
DCTCP_ALPHA_INIT = 1.0


@jit
def dctcp_start(sp, f):
    """A new transfer: α at its initial value, an empty observation window."""
    s = sp[0]
    a = f * FLOW_FLOATS
    s.ff[a + FlowFloat.DCTCP_ALPHA] = DCTCP_ALPHA_INIT
    s.ff[a + FlowFloat.DCTCP_ACKED_PACKETS] = 0.0
    s.ff[a + FlowFloat.DCTCP_MARKED_PACKETS] = 0.0
    s.fi[f * FLOW_INTS + FlowInt.DCTCP_WINDOW_END] = 0


@jit
def dctcp_update_alpha(sp, f, cum, newly, ece):
    """RFC 8257 §3.3 steps 1-8 on an ACK of everything below ``cum`` (``newly`` new packets)."""
    s = sp[0]
    ff = s.ff
    a = f * FLOW_FLOATS
    b = f * FLOW_INTS
    ff[a + FlowFloat.DCTCP_ACKED_PACKETS] += newly
    if ece:
        ff[a + FlowFloat.DCTCP_MARKED_PACKETS] += newly
    if cum <= s.fi[b + FlowInt.DCTCP_WINDOW_END]:
        return
    acked = ff[a + FlowFloat.DCTCP_ACKED_PACKETS]
    fraction = ff[a + FlowFloat.DCTCP_MARKED_PACKETS] / acked if acked > 0.0 else 0.0
    alpha = ff[a + FlowFloat.DCTCP_ALPHA]
    ff[a + FlowFloat.DCTCP_ALPHA] = alpha * (1.0 - DCTCP_G) + DCTCP_G * fraction
    s.fi[b + FlowInt.DCTCP_WINDOW_END] = s.fi[b + FlowInt.SND_NXT]
    ff[a + FlowFloat.DCTCP_ACKED_PACKETS] = 0.0
    ff[a + FlowFloat.DCTCP_MARKED_PACKETS] = 0.0


@jit
def dctcp_reduce(sp, f):
    """RFC 8257 §3.3 step 9: the new ssthresh (and cwnd) on ECE, cwnd·(1 − α/2), >= 2."""
    s = sp[0]
    a = f * FLOW_FLOATS
    cwnd = s.ff[a + FlowFloat.CWND_PACKETS]
    return max(cwnd * (1.0 - s.ff[a + FlowFloat.DCTCP_ALPHA] / 2.0), 2.0)
