"""The TCP receiver: in-order delivery, out-of-order buffering, (delayed) acknowledgements.

The receiver ACKs every ``DELAYED_ACK`` in-order segments (at most ``DELACK_TIMEOUT_S`` late)
and at once for out-of-order segments, duplicates and filled holes (RFC 5681 §4.2), and, for
DCTCP, for a packet whose CE differs from the last one's (RFC 8257 §3.2). It is evaluated
when the ACK is back at the sender (the ACK path has no queue). ECN-capable receivers echo CE
marks in ECE as ``ecn.py`` says (DCTCP's two-state machine or RFC 3168).
"""

from __future__ import annotations

from validation.simulator.core.ecn import dctcp_flip, receiver_ce
from validation.simulator.core.heap import push_delack
from validation.simulator.core.jit import jit
from validation.simulator.core.sender import on_ack
from validation.simulator.layout import (
    COPIES,
    COPY_SHIFT,
    FLOW_FLOATS,
    FLOW_INTS,
    SLOT_GOT_SHIFT,
    EcnMode,
    FlowDue,
    FlowFloat,
    FlowInt,
    GlobalFloat,
    GlobalInt,
    SlotFlag,
)

#: Columns of ``fd`` a flow.
DUE = len(FlowDue)


@jit
def send_ack(sp, t, f, sack_seq):
    """Acknowledge everything received in order (SACKing ``sack_seq`` if >= 0), with ECE set
    to the receiver's ECN state."""
    s = sp[0]
    b = f * FLOW_INTS
    s.fi[b + FlowInt.DELACK_COUNT] = 0
    s.fi[b + FlowInt.DELACK_GEN] += 1
    ece = s.fi[b + FlowInt.CE_STATE] != 0
    on_ack(sp, t, f, s.fi[b + FlowInt.RCV_NXT], sack_seq, ece)


@jit
def deliver(sp, t, f, epoch, seq, flags):
    """Packet ``seq`` of transfer ``epoch`` of flow f, with ``flags``, reaches its receiver."""
    s = sp[0]
    fi, gi = s.fi, s.gi
    b = f * FLOW_INTS
    gi[GlobalInt.DELIVERED] += 1
    if epoch != fi[b + FlowInt.EPOCH] or fi[b + FlowInt.ACTIVE] == 0:
        return
    ack_now = False
    if fi[b + FlowInt.ECN_MODE] != EcnMode.OFF and receiver_ce(sp, t, f, flags):
        if fi[b + FlowInt.DELACK_COUNT] > 0:  # DCTCP: ACK the waiting packets with the old ECE
            send_ack(sp, t, f, -1)
        dctcp_flip(sp, f)
        ack_now = True  # RFC 8257 §3.2: "send an immediate ACK" (with the new ECE)
    wmask = gi[GlobalInt.WINDOW_MASK]
    row = f * (wmask + 1)
    rcv = fi[b + FlowInt.RCV_NXT]
    if seq >= rcv and fi[b + FlowInt.SACK] != 0:  # the copy delivered (layout.COPY_SHIFT)
        j = row + (seq & wmask)
        got = (flags >> COPY_SHIFT) & (COPIES - 1)
        s.rg[j] = (s.rg[j] & ~((COPIES - 1) << SLOT_GOT_SHIFT)) | (got << SLOT_GOT_SHIFT)
    if seq == rcv:
        rcv += 1
        while fi[b + FlowInt.OOO_PACKETS] > 0 and s.rg[row + (rcv & wmask)] & SlotFlag.OOO:
            j = row + (rcv & wmask)
            s.rg[j] = s.rg[j] & ~SlotFlag.OOO
            fi[b + FlowInt.OOO_PACKETS] -= 1
            rcv += 1
        fi[b + FlowInt.RCV_NXT] = rcv
        advanced = rcv - seq
        if t >= s.g[GlobalFloat.WARMUP_S]:
            s.deliv[f] += advanced
        if advanced > 1 or fi[b + FlowInt.OOO_PACKETS] > 0 or ack_now:
            send_ack(sp, t, f, -1)
            return
        fi[b + FlowInt.DELACK_COUNT] += 1
        if fi[b + FlowInt.DELACK_COUNT] >= fi[b + FlowInt.DELAYED_ACK]:
            send_ack(sp, t, f, -1)
        elif fi[b + FlowInt.DELACK_COUNT] == 1:
            timeout = t + s.ff[f * FLOW_FLOATS + FlowFloat.DELACK_TIMEOUT_S]
            s.fd[f * DUE + FlowDue.DELACK_S] = timeout
            push_delack(sp, timeout, f, fi[b + FlowInt.DELACK_GEN])
    elif seq > rcv:
        j = row + (seq & wmask)
        if (s.rg[j] & SlotFlag.OOO) == 0:
            s.rg[j] = s.rg[j] | SlotFlag.OOO
            fi[b + FlowInt.OOO_PACKETS] += 1
        send_ack(sp, t, f, seq)
    else:
        send_ack(sp, t, f, -2)
