"""One declaration of every code and array layout the compiled core and its driver share.

The compiled core (``validation/simulator/core/``) keeps its state in flat arrays that the
driver (``engine.py``) allocates and reads back. Each array's row layout is an ``IntEnum``
here; numba reads the members of a global ``IntEnum`` as compile-time constants, so
``ff[f * FLOW_FLOATS + FlowFloat.CWND_PACKETS]`` compiles to the same address arithmetic as a
hand-numbered offset. The number of columns of a row is ``len(...)`` of its enum. Units are in
the member names where the field has one.

The reference implementation (``validation/simulator/reference/simulator.py``) uses the codes
(event kinds, traffic kinds, size distributions, recovery states) but not the array layouts.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from models.choices import CONGESTION_CONTROLS, SIMULATED_AQMS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Event(IntEnum):
    """Event kinds; at equal times events run in this order, then in the order scheduled."""

    DEPART = 0  # a packet leaves the bottleneck (fair queueing; FIFO departures are implicit)
    DELIVER = 1  # a packet reaches its receiver (and the ACK is back at the sender)
    ARRIVAL = 2  # a data packet reaches the bottleneck
    RTO = 3  # retransmission timer
    DELACK = 4  # delayed-ACK timer
    PACE = 5  # a paced sender may send again
    OPEN = 6  # an open-loop or background packet reaches the bottleneck
    FLOW = 7  # a flow (transfer) starts; flow -1: a Poisson flow arrival
    SAMPLE = 8  # the queue and cwnd trace is sampled


class Traffic(IntEnum):
    """Traffic kinds of the TCP flow slots (open-loop packets are not TCP slots)."""

    PERSISTENT = 0
    CLOSED_LOOP = 1
    POISSON_FLOWS = 2


#: Scenario traffic name -> code (open-loop runs have no TCP slots; they use PERSISTENT).
TRAFFIC_CODES = {
    "persistent": Traffic.PERSISTENT,
    "closed_loop": Traffic.CLOSED_LOOP,
    "poisson_flows": Traffic.POISSON_FLOWS,
}


class CongestionControl(IntEnum):
    """Congestion control of a flow group's senders."""

    RENO = 0  # RFC 5681
    CUBIC = 1  # RFC 9438
    DCTCP = 2  # RFC 8257
    BBR = 3  # BBR v1 (core/bbr.py)


#: Scenario congestion-control name -> code (each name's member, by the name in capitals).
CC_CODES = {name: CongestionControl[name.upper()] for name in CONGESTION_CONTROLS}


class EcnMode(IntEnum):
    """How a flow group's senders and receivers use ECN (``core/ecn.py``)."""

    OFF = 0  # not ECN-capable: the port drops its packets (drop-tail)
    CLASSIC = 1  # RFC 3168: ECE treated as a loss, once per window, CWR
    DCTCP = 2  # RFC 8257: the receiver's two-state echo, the sender's alpha


def ecn_mode(cc: str, ecn: bool) -> EcnMode:
    """How a group uses ECN: DCTCP's own (cc "dctcp"), classic RFC 3168 (``ecn``), or not."""
    if cc == "dctcp":
        return EcnMode.DCTCP
    return EcnMode.CLASSIC if ecn else EcnMode.OFF


#: Bits of a packet's flags, carried beside its epoch in the heap payload (``FLAGS_SHIFT``).
CE_FLAG = 1  # Congestion Experienced, set by the port (RFC 3168 §5)
CWR_FLAG = 2  # Congestion Window Reduced, set by the sender (RFC 3168 §6.1.2)
#: A SACK flow's packet carries its copy number, how many times its sequence number has been
#: sent modulo COPIES (1 for the first transmission), in the flags above CWR_FLAG: the
#: receiver keeps the number of the copy it delivered, so that RACK tells a delivery of an
#: earlier copy from one of the last retransmission (RFC 8985 §6.2 step 2, which reads it
#: from the timestamp echo, RFC 7323; ``core/sender.py``, ``_rack_advance``).
COPY_SHIFT = 2
COPIES = 4
FLAG_MASK = (1 << (COPY_SHIFT + 2)) - 1
assert COPIES == 1 << (FLAG_MASK.bit_length() - COPY_SHIFT)


class BbrMode(IntEnum):
    """BBR v1's state machine (core/bbr.py)."""

    STARTUP = 0
    DRAIN = 1
    PROBE_BW = 2
    PROBE_RTT = 3


#: BBR's bandwidth filter: a windowed max over this many round trips (Linux bbr_bw_rtts).
BBR_BW_ROUNDS = 10


class Aqm(IntEnum):
    """Active queue management of the drop-tail FIFO (the buffer stays the hard limit)."""

    NONE = 0
    CODEL = 1  # RFC 8289, at dequeue (core/codel.py)
    PIE = 2  # RFC 8033, at enqueue (core/pie.py)
    DUALQ = 3  # RFC 9332 DualPI2 as Linux runs it, one class of traffic, at dequeue (core/dualq.py)


#: Scenario AQM name -> code.
AQM_CODES = {name: Aqm[name.upper()] for name in SIMULATED_AQMS}


class CaIncrease(IntEnum):
    """How an ACK in congestion avoidance counts toward the window's growth.

    ``BYTES_ACKED``: by the segments it newly acknowledges (RFC 3465 byte counting, as Linux):
    one segment per RTT whatever the receiver's delayed ACKs. ``PER_ACK``: as one segment,
    whatever it acknowledges (RFC 5681 §3.1 Eq. 3, ns-2's ``TcpAgent::opencwnd``, ns-3's
    ``TcpNewReno``): half a segment per RTT when the receiver ACKs every second segment.
    """

    BYTES_ACKED = 0
    PER_ACK = 1


#: Scenario ``ca_increase`` name -> code.
CA_INCREASE_CODES = {"bytes_acked": CaIncrease.BYTES_ACKED, "per_ack": CaIncrease.PER_ACK}


class SizeDistribution(IntEnum):
    """Distributions of finite flow sizes."""

    FIXED = 0
    UNIFORM = 1
    PARETO = 2


#: Scenario size-distribution name -> code.
SIZE_CODES = {
    "fixed": SizeDistribution.FIXED,
    "uniform": SizeDistribution.UNIFORM,
    "pareto": SizeDistribution.PARETO,
}


class RecoveryState(IntEnum):
    """Loss-recovery state of a sender."""

    NONE = 0
    FAST = 1  # fast recovery after three duplicate ACKs
    AFTER_TIMEOUT = 2  # SACK: retransmitting the window after a timeout


class Status(IntEnum):
    """Why ``run_chunk`` returned."""

    STOPPED = 0  # the clock reached t_stop
    NEED_RANDOM = 1
    HEAP_FULL = 2
    TRACE_FULL = 3
    SAMPLES_FULL = 4
    DONE = 5  # the end time, or no event left
    NODES_FULL = 6


class FlowFloat(IntEnum):
    """Columns of ``ff``, the per-flow floats (one row a flow slot)."""

    RTT_S = 0  # two-way propagation delay
    CWND_PACKETS = 1
    SSTHRESH_PACKETS = 2
    SRTT_S = 3
    RTTVAR_S = 4
    RTO_S = 5
    RTT_TIME_S = 6  # send time of the packet being timed
    RTO_EXPIRY_S = 7  # when the retransmission timer expires (inf: not armed)
    RTO_EVENT_S = 8  # time of the RTO event in the heap (inf: none)
    NEXT_SEND_S = 9  # pacing: earliest time of the next transmission
    ACCESS_FREE_S = 10  # when the flow's access link is free
    # parameters of the flow's group
    ACCESS_TX_S = 11  # transmission time of a full packet on the access link
    DELACK_TIMEOUT_S = 12
    MIN_RTO_S = 13
    INITIAL_RTO_S = 14
    INITIAL_CWND_PACKETS = 15
    # CUBIC state (RFC 9438 §4): reset when a transfer starts
    W_MAX_PACKETS = 16  # window before the last reduction
    EPOCH_START_S = 17  # start of the current congestion-avoidance epoch (-1: none)
    K_S = 18  # time to grow back to W_MAX_PACKETS (Eq. 2)
    W_EST_PACKETS = 19  # Reno-friendly estimate (Eq. 4)
    # DCTCP sender state (RFC 8257 §3.3): reset by ecn_start when a transfer starts
    DCTCP_ALPHA = 20  # DCTCP.Alpha, the estimate of the fraction of marked packets
    DCTCP_ACKED_PACKETS = 21  # DCTCP.BytesAcked, in packets
    DCTCP_MARKED_PACKETS = 22  # DCTCP.BytesMarked, in packets
    # BBR v1 state (core/bbr.py): reset when a transfer starts; rates in packets/s
    BBR_MIN_RTT_S = 23  # RTprop: windowed min RTT
    BBR_MIN_RTT_STAMP_S = 24  # when BBR_MIN_RTT_S was last set
    BBR_PACING_RATE_PER_S = 25
    BBR_PACING_GAIN = 26
    BBR_CWND_GAIN = 27
    BBR_FULL_BW_PER_S = 28  # Startup: the bandwidth of the last 25% growth
    BBR_CYCLE_STAMP_S = 29  # start of the ProbeBW gain phase
    BBR_PROBE_RTT_DONE_S = 30  # end of ProbeRTT's 200 ms (-1: not yet timed)
    BBR_PRIOR_CWND_PACKETS = 31  # cwnd saved at recovery or ProbeRTT
    BBR_DELIVERED_TIME_S = 32  # when the last delivered packet was (S)ACKed
    BBR_FIRST_TX_S = 33  # send time of the last packet (S)ACKed (start of the send phase)
    BBR_MAX_BW_PER_S = 34  # BtlBw: the max of the per-round maxima below
    BBR_RS_BW_PER_S = 35  # this ACK's delivery-rate sample (-1: none)
    BBR_RS_RTT_S = 36  # this ACK's RTT sample (-1: none)
    BBR_PACING_GAP_S = 37  # 1 / BBR_PACING_RATE_PER_S, set with it
    # RACK (RFC 8985 §6.2; core/sender.py, _rack_advance): reset when a transfer starts
    RACK_XMIT_S = 38  # send time of the latest-sent packet delivered (-1: none yet)
    MIN_RTT_S = 39  # the smallest RTT sample (inf: none yet)
    # BBR's ACK-aggregation estimate (core/bbr.py, _update_ack_aggregation), in packets
    BBR_ACK_EPOCH_S = 40  # start of the ACK sampling epoch
    BBR_ACK_EPOCH_ACKED = 41  # packets (S)ACKed in the epoch
    BBR_EXTRA_ACKED = 42  # first of two windows' max excess ACKed (BBR_EXTRA_ACKED_WIN_IDX)
    BBR_BW_ROUND = 44  # first of BBR_BW_ROUNDS per-round maxima (round number modulo)


class FlowInt(IntEnum):
    """Columns of ``fi``, the per-flow integers.

    The first ``TCP_STATE`` columns are reset when a transfer starts; the flow's two event
    lists (deliveries, then arrivals; see :class:`EventList`) and its group's parameters
    follow.
    """

    ACTIVE = 0
    EPOCH = 1  # transfer number modulo EPOCHS (stale packets of an earlier transfer)
    SIZE_PACKETS = 2  # -1: unlimited
    SND_UNA = 3
    SND_NXT = 4
    HIGH_TX = 5  # one past the highest sequence number sent
    DUPACKS = 6
    RECOVERY = 7  # a RecoveryState
    RECOVER = 8  # recovery point (RFC 6582)
    RTO_RECOVER = 9  # highest sequence number outstanding at the last timeout
    LOST_LIMIT = 10  # SACK: packets below this and not SACKed are deemed lost
    HIGH_SACKED = 11  # one past the highest SACKed sequence number
    REXMIT_PTR = 12  # SACK: where the search for the next hole starts
    RTT_SEQ = 13  # the packet being timed (-1: none)
    PACE_PENDING = 14  # a PACE event is scheduled
    RCV_NXT = 15
    DELACK_COUNT = 16  # in-order segments not yet acknowledged
    DELACK_GEN = 17  # generation of the delayed-ACK timer
    OOO_PACKETS = 18  # out-of-order packets held by the receiver
    DELIVER_LIST = 19  # first column of the delivery list (EventList offsets)
    ARRIVAL_LIST = 22  # first column of the arrival list
    # parameters of the flow's group
    GROUP = 25
    MAX_WINDOW_PACKETS = 26
    SACK = 27
    DELAYED_ACK = 28
    PACING = 29
    CC = 30  # a CongestionControl
    ECN_MODE = 31  # an EcnMode (a group parameter)
    # ECN state (core/ecn.py): reset by ecn_start when a transfer starts
    ECN_RECOVER = 32  # one past the highest packet sent at the last ECE reduction (high_seq)
    DCTCP_WINDOW_END = 33  # DCTCP.WindowEnd, in packets (RFC 8257 §3.3)
    CE_STATE = 34  # receiver: DCTCP.CE (RFC 8257 §3.2), or the RFC 3168 ECE latch
    CWR_PENDING = 35  # sender: the next new data packet carries CWR
    # BBR v1 state (core/bbr.py): reset when a transfer starts
    BBR_MODE = 36  # a BbrMode
    BBR_CYCLE_INDEX = 37  # phase of the ProbeBW gain cycle
    BBR_DELIVERED = 38  # packets delivered (ACKed or SACKed) so far
    BBR_NEXT_ROUND_DELIVERED = 39  # BBR_DELIVERED at which the next round starts
    BBR_ROUNDS = 40  # packet-timed round trips so far
    BBR_ROUND_START = 41  # this ACK started a round
    BBR_FULL_BW_COUNT = 42  # Startup: rounds without 25% growth
    BBR_FULL_BW_REACHED = 43
    BBR_PREV_CA_STATE = 44  # a BbrCaState at the last ACK
    BBR_PACKET_CONSERVATION = 45
    BBR_PROBE_RTT_ROUND_DONE = 46
    BBR_APP_LIMITED = 47  # BBR_DELIVERED + 1 at which the app-limited marking ends (0: none)
    BBR_LOSSES = 48  # packets deemed lost since the last ACK was processed
    BBR_RS_ACKED = 49  # this ACK's newly delivered packets
    BBR_RS_PRIOR_DELIVERED = 50  # BBR_DELIVERED when the sample's packet was sent (-1: none)
    BBR_RS_APP_LIMITED = 51
    BBR_RS_PRIOR_IN_FLIGHT = 52  # packets in flight before this ACK
    BBR_RS_SLOT = 53  # window slot of this ACK's sample packet
    # the delayed-ACK timer in the heap (core/heap.py, push_delack): kept across transfers
    DELACK_KEY = 54  # heap key of the timer last started (valid while DELACK_COUNT > 0)
    DELACK_QUEUED = 55  # a DELACK event of the flow is in the heap
    # counts of the SACK scoreboard over [SND_UNA, HIGH_TX), kept as its bits change, so that
    # RFC 6675's pipe needs no pass over the window (core/sender.py, _pipe): reset by start_flow
    SACKED_OUT = 56  # packets SACKed
    REXMIT_OUT = 57  # packets retransmitted (since the last timeout) and not SACKed
    SACKED_ABOVE = 58  # of the SACKed ones, those at or above max(SND_UNA, LOST_LIMIT)
    # a PACE event kept off the heap, at FlowDue.PACE_S (core/sender.py, _delivery_first);
    # kept across transfers, as PACE_PENDING is
    PACE_DEFERRED = 59
    # RACK (RFC 8985 §6.2; core/sender.py): the sequence number of the packet at
    # FlowFloat.RACK_XMIT_S, and the queue of retransmissions in the order sent (a ring in
    # ``rq``: first entry, entries); reset by start_flow
    RACK_SEQ = 60
    RQ_HEAD = 61
    RQ_COUNT = 62
    # BBR's ACK-aggregation windows (core/bbr.py): reset by bbr_start
    BBR_EXTRA_ACKED_WIN_RTTS = 63  # rounds since the window last changed
    BBR_EXTRA_ACKED_WIN_IDX = 64  # the window being filled (0 or 1)

    CA_INCREASE = 36  # a CaIncrease


#: Columns of ``fi`` reset when a transfer starts.
TCP_STATE = int(FlowInt.DELIVER_LIST)


class EventList(IntEnum):
    """Offsets within a flow's event list in ``fi`` (from DELIVER_LIST or ARRIVAL_LIST)."""

    HEAD = 0  # first waiting node (-1: none)
    TAIL = 1  # last waiting node
    COUNT = 2  # events scheduled, the one in the heap included


#: Columns of ``ff`` and ``fi``.
FLOW_FLOATS = int(max(FlowFloat)) + BBR_BW_ROUNDS
FLOW_INTS = int(max(FlowInt)) + 1
assert FlowInt.ARRIVAL_LIST + len(EventList) == FlowInt.GROUP


class BbrCaState(IntEnum):
    """The TCP state BBR v1 reacts to (Linux's icsk_ca_state, the values BBR compares)."""

    OPEN = 0
    RECOVERY = 3  # fast recovery
    LOSS = 4  # after a retransmission timeout


class RateSlot(IntEnum):
    """Columns of ``rs``, the delivery-rate state of each sent packet (BBR flows only;
    Linux's ``tcp_rate.c``): per flow and window slot, set when the packet is (re)sent."""

    DELIVERED = 0  # the flow's BBR_DELIVERED then
    DELIVERED_TIME_S = 1  # the flow's BBR_DELIVERED_TIME_S then
    FIRST_TX_S = 2  # the flow's BBR_FIRST_TX_S then
    SENT_S = 3  # the send time
    APP_LIMITED = 4  # sent while app-limited (1.0) or not (0.0)


RATE_SLOT = len(RateSlot)


class GroupFloat(IntEnum):
    """Columns of ``gf``, the float parameters of each flow group."""

    FLOW_RATE_PER_S = 0  # Poisson flow arrivals
    FLOW_MEAN_PACKETS = 1
    PARETO_SHAPE = 2


class GroupInt(IntEnum):
    """Columns of ``gg``, the integer parameters of each flow group."""

    TRAFFIC = 0  # a Traffic
    SIZE_DISTRIBUTION = 1  # a SizeDistribution
    FIRST_FLOW = 2  # the group's slots are FIRST_FLOW .. FIRST_FLOW + FLOWS - 1
    FLOWS = 3


GROUP_FLOATS = len(GroupFloat)
GROUP_INTS = len(GroupInt)


class FlowCount(IntEnum):
    """Columns of ``fc``, what each flow slot (and, in the last row, the background) did
    after the warm-up; the results per group are sums over the group's slots."""

    ARRIVALS = 0  # packets that reached the bottleneck
    DROPS = 1
    DEPARTED_BYTES = 2  # bytes that left the bottleneck (as interval_bits counts them)
    TIMEOUTS = 3
    COMPLETED = 4  # transfers acknowledged in full
    MARKS = 5  # packets the port marked CE
    AQM_DROPS = 6  # of DROPS, those the AQM chose (the rest overflowed the buffer)


class SlotFlag(IntEnum):
    """Bits of ``rg``, one byte per flow and window slot (sequence number modulo the window)."""

    SACKED = 1
    REXMIT = 2  # retransmitted since the last timeout
    OOO = 4  # held out of order by the receiver
    # two 2-bit fields (SACK flows; layout.COPY_SHIFT): the copy number of the slot's last
    # transmission, and that of the copy the receiver delivered (SLOT_SENT_SHIFT, ..._GOT_...)
    SENT_COPY = 8
    GOT_COPY = 32


#: Shifts of SlotFlag's two copy-number fields (each ``COPIES - 1`` wide).
SLOT_SENT_SHIFT = 3
SLOT_GOT_SHIFT = 5


class GlobalFloat(IntEnum):
    """Entries of ``g``, the run's float parameters and state."""

    CAPACITY_BPS = 0
    WARMUP_S = 1
    END_S = 2
    WIRE_BYTES = 3  # bytes on the wire per full packet
    LIMIT_BYTES = 4  # byte-mode buffer limit (inf in packet mode)
    OPEN_RATE_PER_S = 5  # open-loop or background packet rate (0: none)
    INTERVAL_S = 6
    SAMPLE_INTERVAL_S = 7
    DELAY_BIN_S = 8
    # state
    LAST_CHANGE_S = 9  # last change of the queue occupancy
    QUEUE_BYTES = 10
    LAST_DEPARTURE_S = 11  # FIFO: departure time of the last accepted packet
    BUSY_S = 12
    DELAY_SUM_S = 13
    DELAY_SUMSQ_S2 = 14
    SERVICE_BYTES = 15  # fair queueing: the packet in transmission
    SERVICE_ARRIVAL_S = 16
    SERVICE_DEPARTURE_S = 17
    ECN_THRESHOLD_BYTES = 18  # mark CE at or above this many bytes at the port (inf: never)
    # AQM parameters and state (core/codel.py, core/pie.py, core/dualq.py)
    CODEL_TARGET_S = 19
    CODEL_INTERVAL_S = 20
    CODEL_FIRST_ABOVE_S = 21  # 0: the sojourn time is below target (RFC 8289 first_above_time)
    CODEL_DROP_NEXT_S = 22
    PIE_DROP_PROB = 23
    PIE_QDELAY_OLD_S = 24
    PIE_BURST_ALLOWANCE_S = 25
    PIE_NEXT_UPDATE_S = 26  # time of the next drop-probability update
    DUALQ_PROB = 27  # PI2's base probability p' (core/dualq.py)
    DUALQ_QDELAY_OLD_S = 28
    DUALQ_NEXT_UPDATE_S = 29


class GlobalInt(IntEnum):
    """Entries of ``gi``, the run's integer parameters and state."""

    FLOWS = 0  # TCP flow slots, all groups
    GROUPS = 1
    BUFFER_PACKETS = 2
    WINDOW_MASK = 3  # window slots per flow - 1 (a power of two - 1)
    OPEN_PERIODIC = 4
    OPEN_EXPONENTIAL = 5
    FAIR_QUEUEING = 6
    BYTE_MODE = 7
    TRACE = 8
    TRACED_FLOWS = 9
    OCCUPANCY_BINS = 10
    DELAY_BINS = 11
    INTERVALS = 12
    QUEUE_MASK = 13  # FIFO ring slots - 1
    FQ_MASK = 14  # fair-queueing ring slots per flow - 1
    # state
    SEQUENCE = 15  # events scheduled so far (the tie-break of the heap)
    HEAP_ENTRIES = 16
    RANDOM_POSITION = 17  # next unused uniform
    QUEUE_HEAD = 18
    QUEUE_PACKETS = 19
    DROP_RUN = 20  # consecutive drops so far
    ARRIVALS = 21  # after the warm-up
    DROPS = 22  # after the warm-up
    ARRIVALS_TOTAL = 23
    TIMEOUTS = 24
    DELAY_COUNT = 25
    SENT = 26
    DELIVERED = 27
    DROPPED_TCP = 28
    COMPLETED = 29
    BLOCKED = 30  # Poisson flow arrivals that found every slot of their group busy
    TRACE_ROWS = 31
    SAMPLE_ROWS = 32
    IN_SERVICE = 33  # fair queueing: 1 while a packet is in transmission
    SERVICE_FLOW = 34
    SERVICE_EPOCH = 35
    SERVICE_SEQ = 36
    ACTIVE_HEAD = 37  # fair queueing: DRR active list
    ACTIVE_COUNT = 38
    IN_FLIGHT = 39  # TCP packets in flight at the end
    FREE_NODE = 40  # first free node of the event lists (-1: none)
    FREE_NODES = 41
    ECN_MARKING = 42  # 1: the port marks ECN-capable packets (a threshold is set)
    ECN_THRESHOLD_PACKETS = 43  # mark CE at or above this many packets at the port
    MARKS = 44  # packets marked CE after the warm-up
    AQM = 45  # an Aqm
    AQM_DROPS = 46  # after the warm-up: drops the AQM chose
    CODEL_DROPPING = 47
    CODEL_COUNT = 48
    CODEL_LASTCOUNT = 49
    ROOT_TAKEN = 50  # 1 while the heap's root is the event being run (core/heap.py, heap_take)
    RTO_ENTRIES = 51  # entries of the retransmission timers' heap (rt, rk, rp)
    DUALQ_SCALABLE = 52  # 1: the run's senders are L4S (DCTCP), in DualQ's L queue


class QueueField(IntEnum):
    """Columns of ``qf``, the FIFO ring of accepted packets."""

    DEPARTURE_S = 0
    TX_S = 1
    ARRIVAL_S = 2
    FLOW = 3
    BYTES = 4
    EPOCH = 5  # CoDel (departures are events): what the delivery needs
    SEQ = 6


class NodeField(IntEnum):
    """Columns of ``nx``, the nodes of the per-flow event lists (their times are in ``nt``)."""

    KEY = 0
    PAYLOAD = 1
    NEXT = 2


class FqPacket(IntEnum):
    """Columns of ``fqq``, one packet of a flow's fair-queueing ring."""

    EPOCH = 0
    SEQ = 1
    BYTES = 2
    ARRIVAL_S = 3


class FqInt(IntEnum):
    """Columns of ``fqi``, the per-flow fair-queueing integers."""

    HEAD = 0  # ring head
    PACKETS = 1
    VISITED = 2  # visited in this DRR round


class FqFloat(IntEnum):
    """Columns of ``fqf``, the per-flow fair-queueing floats."""

    QUEUED_BYTES = 0
    DEFICIT_BYTES = 1


class TraceInt(IntEnum):
    """Columns of ``tri``, the packet trace's integers (its times are in ``trt``)."""

    FLOW = 0
    BYTES = 1
    DROPPED = 2
    EPOCH = 3  # the TCP slot's transfer number modulo EPOCHS when the row is written


#: Heap key: kind << KEY_SHIFT | sequence number.
KEY_SHIFT = 56
#: Heap payload: (flow + 1) << 44 | flags << 40 | epoch << 32 | argument (sequence number,
#: timer generation). A packet's flags (CE_FLAG, CWR_FLAG, its copy number) travel with it from
#: the sender to the port and on to the receiver: the core passes ``epoch | flags << EPOCH_BITS``
#: as the epoch.
FLOW_SHIFT = 44
FLAGS_SHIFT = 40
EPOCH_SHIFT = 32
EPOCH_BITS = 8
ARG_MASK = (1 << 32) - 1
#: Restarts of a flow slot are told apart modulo this (stale packets of an earlier transfer).
EPOCHS = 256
assert EPOCHS == 1 << EPOCH_BITS and FLAGS_SHIFT == EPOCH_SHIFT + EPOCH_BITS
assert FLOW_SHIFT == FLAGS_SHIFT + FLAG_MASK.bit_length()
assert SLOT_SENT_SHIFT == SlotFlag.SENT_COPY.bit_length() - 1
assert SLOT_GOT_SHIFT == SlotFlag.GOT_COPY.bit_length() - 1 == SLOT_SENT_SHIFT + 2


class Arrays(NamedTuple):
    """Every array of a compiled run, allocated by the driver, passed to the core as one.

    All are C-contiguous; 2-D arrays are rows of the enum named beside them.
    """

    ff: FloatArray  # (flows, FLOW_FLOATS): FlowFloat
    fi: IntArray  # (flows, FLOW_INTS): FlowInt (with the two EventLists)
    gf: FloatArray  # (groups, len(GroupFloat)): GroupFloat
    gg: IntArray  # (groups, len(GroupInt)): GroupInt
    fc: FloatArray  # (flows + 1, len(FlowCount)): FlowCount
    rg: npt.NDArray[np.uint8]  # (flows, window slots): SlotFlag bits
    g: FloatArray  # GlobalFloat
    gi: IntArray  # GlobalInt
    ht: FloatArray  # event heap: times
    hk: IntArray  # event heap: keys (kind << KEY_SHIFT | sequence number)
    hp: IntArray  # event heap: payloads (FLOW_SHIFT, EPOCH_SHIFT, ARG_MASK)
    rt: FloatArray  # retransmission timers' heap (core/heap.py): times
    rk: IntArray  # retransmission timers' heap: keys
    rp: IntArray  # retransmission timers' heap: payloads
    nt: FloatArray  # event-list nodes: times
    nx: IntArray  # (nodes, len(NodeField)): NodeField
    rand: FloatArray  # uniforms in [0, 1), used from gi[RANDOM_POSITION]
    qf: FloatArray  # (FIFO ring slots, len(QueueField)): QueueField
    fqq: FloatArray  # (flows + 1, ring slots, len(FqPacket)): FqPacket
    fqi: IntArray  # (flows + 1, len(FqInt)): FqInt
    fqf: FloatArray  # (flows + 1, len(FqFloat)): FqFloat
    fqa: IntArray  # flows + 1: the DRR active list (a ring)
    occ: FloatArray  # time with k packets at the bottleneck, s
    dhist: FloatArray  # queueing-delay histogram (bins of DELAY_BIN_S)
    bhist: IntArray  # loss-burst run lengths
    ibits: FloatArray  # bits departed per measurement interval
    deliv: IntArray  # payload packets delivered in order, per flow slot
    trt: FloatArray  # packet trace: times
    tri: IntArray  # (rows, len(TraceInt)): TraceInt
    st: FloatArray  # sampled trace: times
    sq: IntArray  # sampled trace: queue packets
    scw: FloatArray  # (samples, traced flows): cwnd
    rs: FloatArray  # (flows, window slots, RATE_SLOT): RateSlot (1 x 1 without BBR groups)
    sx: FloatArray  # (flows, window slots): last send time of each slot (1 x 1 without SACK)
    rq: IntArray  # (flows, window slots): RACK's retransmissions, a ring (1 x 1 without SACK)
    fd: FloatArray  # (flows, len(FlowDue)): FlowDue (apart from ff: a few bytes a flow)


class FlowDue(IntEnum):
    """Columns of ``fd``: when a flow's next events are due, for a paced sender's check
    (``core/sender.py``, ``_quiet_until``). Kept apart from ``ff`` so that keeping them up to
    date touches no other row of ``ff`` (in runs of many flows that was a cache miss more per
    event)."""

    DELIVER_S = 0  # its DELIVER in the heap (valid while the DELIVER list's COUNT > 0)
    DELACK_S = 1  # its delayed-ACK timer (valid while DELACK_COUNT > 0)
    PACE_S = 2  # its PACE event kept off the heap (valid while PACE_DEFERRED)
