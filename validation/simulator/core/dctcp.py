"""DCTCP's sender (RFC 8257 §3.3-3.5; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010).

Slow start, congestion avoidance, loss detection and recovery and the retransmission timer are
Reno's (``sender.py``): RFC 8257 §3.4 keeps the conventional window growth and §3.5 handles
loss as conventional TCP does. What differs is the reaction to ECN-Echo:

- §3.3 steps 1-8, once per ACK: the packets newly acknowledged (SACK ignored) are added to
  ``DCTCP.BytesAcked`` and, if the ACK carries ECE, to ``DCTCP.BytesMarked``; when the ACK
  passes ``DCTCP.WindowEnd`` (the acknowledgment number above it, as step 4 says) the fraction
  ``M = BytesMarked / BytesAcked`` updates ``α ← α·(1 − g) + g·M`` with g = 1/16, the window
  end becomes ``SND.NXT`` and both counters restart. Counted in packets (every data packet is
  full-sized here, so the fraction of bytes is the fraction of packets).
- §3.3 step 9: on ECE, ``cwnd ← cwnd·(1 − α/2)`` instead of halving, at most once per window of
  data (as RFC 3168 §6.1.2 limits the reaction; ``ecn.py`` decides when), and ssthresh with it;
  at least 2 packets, as Linux's ``tcp_dctcp.c`` keeps it. The cut is immediate (Linux and ns-3
  reach the reduced window over the next round trip).
- α starts at 1, so the first reaction halves the window: RFC 8257's initial DCTCP.Alpha, which
  is also the default of Linux (``dctcp_alpha_on_init``) and of ns-3's ``TcpDctcp``. (The steps
  above match RFC 8257's numbered steps as public implementations quote them verbatim in
  their comments; the RFC's own text could not be opened here, so its section numbers (§3.3
  for the steps), the section of the initial value and its wording on g are not checked.)

Paper equations (Alizadeh et al. 2010, doi 10.1145/1851182.1851192, read in a text conversion
of the ACM open-access PDF): §3.1 "Controller at the Sender", eq. (1) α ← (1 − g)·α + g·F,
"updated once for every window of data (roughly one RTT)", and eq. (2) cwnd ← cwnd·(1 − α/2);
"slow start, additive increase in congestion avoidance, or recovery from packet lost are left
unchanged". §3.5: "g is set to 1/16 in all experiments".
"""

from __future__ import annotations

from validation.simulator.core.jit import jit
from validation.simulator.layout import FLOW_FLOATS, FLOW_INTS, FlowFloat, FlowInt

#: The estimation gain g = 1/16 (issue 14; Linux's default, dctcp_shift_g = 4; Alizadeh et al.
#: 2010 §3.5: "g is set to 1/16 in all experiments"; §3.4 eq. (15) bounds it by
#: g < 1.386/√(2(C·RTT + K)), 0.100 at 10 Gb/s, 100 µs, K = 12).
DCTCP_G = 1.0 / 16.0
#: Initial α (see the module docstring).
DCTCP_ALPHA_INIT = 1.0


@jit
def dctcp_start(sp, f):  # type: ignore[no-untyped-def]
    """A new transfer: α at its initial value, an empty observation window."""
    s = sp[0]
    a = f * FLOW_FLOATS
    s.ff[a + FlowFloat.DCTCP_ALPHA] = DCTCP_ALPHA_INIT
    s.ff[a + FlowFloat.DCTCP_ACKED_PACKETS] = 0.0
    s.ff[a + FlowFloat.DCTCP_MARKED_PACKETS] = 0.0
    s.fi[f * FLOW_INTS + FlowInt.DCTCP_WINDOW_END] = 0


@jit
def dctcp_update_alpha(sp, f, cum, newly, ece):  # type: ignore[no-untyped-def]
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
def dctcp_reduce(sp, f):  # type: ignore[no-untyped-def]
    """RFC 8257 §3.3 step 9: the new ssthresh (and cwnd) on ECE, cwnd·(1 − α/2), >= 2."""
    s = sp[0]
    a = f * FLOW_FLOATS
    cwnd = s.ff[a + FlowFloat.CWND_PACKETS]
    return max(cwnd * (1.0 - s.ff[a + FlowFloat.DCTCP_ALPHA] / 2.0), 2.0)
