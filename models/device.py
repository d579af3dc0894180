"""A buffer size as device configuration: Linux tc, SONiC, Junos, IOS-XR, Arista EOS.

Pure text generation: nothing here touches a device or a file. A size is rounded up to the
device's memory cell (``cell_bytes``) and converted to packets and to time at the port's line
rate; each template follows one vendor document, cited in a comment of the text it emits, and
says which release that document describes.

References
----------
.. [1] tc-pfifo(8) / tc-bfifo(8) (iproute2): ``pfifo limit`` in packets, ``bfifo limit`` in
   bytes. tc-fq_codel(8) (iproute2 6.1): ``limit PACKETS``, ``target TIME``, ``interval TIME``.
.. [2] K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, "Controlled Delay Active Queue
   Management", RFC 8289 (read): §3.1, the interval "SHOULD be at least a round-trip time",
   "the appropriate interval value is the maximum round-trip time of all the connections
   sharing the buffer"; §4.2, "use an INTERVAL value slightly larger than the RTT seen by most
   of the connections", "INTERVAL SHOULD have a value of 100 ms" for the terrestrial Internet;
   §4.3, "TARGET SHOULD be set to 5 ms", "the best TARGET value is 5-10% of the RTT, with the
   low end of 5% preferred"; §4.5, "TARGET is set to 5% of INTERVAL". The man pages
   tc-codel(8)/tc-fq_codel(8) agree: interval "on the order of the worst-case RTT through the
   bottleneck", default 100 ms; target "Default and recommended value is 5ms".
.. [3] SONiC YANG models, sonic-net/sonic-buildimage ``src/sonic-yang-models/yang-models/``
   sonic-buffer-pool.yang, sonic-buffer-profile.yang, sonic-buffer-queue.yang (revision
   2021-07-01); memory cells in ``platform/*/asic_table.j2``. SAI ``inc/saibuffer.h``,
   ``SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH``: "The threshold is set to the 2^n of available
   buffer of the pool", so ``dynamic_th`` is ``log2 α``.
.. [4] Juniper, Junos OS "buffer-size (Schedulers)", ``[edit class-of-service schedulers
   scheduler-name]``, Junos OS 13.2 documentation.
.. [5] Cisco, "queue-limit", Modular QoS Command Reference for Cisco NCS 5500 Series and Cisco
   NCS 540 Series Routers (IOS XR Release 6.x).
.. [6] Arista, Transfer of Information (TOI) pages "Temporal Tail Drop Thresholds" and
   "Configurable Voq Tail Drop Thresholds".
.. [7] ECN marking for DCTCP on Linux: the kernel commit that added ``ce_threshold`` to codel
   and fq_codel (E. Dumazet, "codel: add ce_threshold attribute", Linux 4.2, 2015): "For DCTCP
   or similar ECN based deployments on fabrics with shallow buffers ... A DCTCP enabled egress
   port simply have a queue occupancy threshold above which ECT packets get CE mark. In codel
   language this translates to a sojourn time"; tc-fq_codel(8): ``ce_threshold TIME``, ``ecn``.
   tc-pie(8): ``limit PACKETS``, ``target TIME`` (15 ms by default, RFC 8033 §4.2).
.. [8] SONiC YANG sonic-wred-profile.yang (WRED_PROFILE_LIST: green_min_threshold,
   green_max_threshold uint64 bytes, max "must" be >= min; ecn enumeration ecn_none ..
   ecn_all; wred_green_enable boolean; green_drop_probability 0..100) and sonic-queue.yang
   (QUEUE_LIST key "ifname qindex", wred_profile leafref), sonic-buildimage revision 2021-04-01.
.. [9] Cisco IOS XR Modular Quality of Service Command Reference (CRS, Release 4.0):
   ``random-detect min-threshold [units] max-threshold [units]`` (units bytes, kbytes, ms, us,
   packets; max from min), ``random-detect ecn``. Juniper Junos OS, "Example: Configuring ECN"
   (QFX Series, Junos OS 13.2X51-D25 or later): ``explicit-congestion-notification`` in the
   scheduler and a WRED drop profile whose thresholds mark; ``drop-profiles ... fill-level
   percentage drop-probability percentage``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from models import checks
from models.choices import AQMS, TC_QDISCS, VENDORS
from models.errors import ParameterError
from models.shared_buffer import SONIC_DYNAMIC_TH_RANGE, ThresholdChoice, choose_alpha

#: Memory cell per vendor family, bytes, and where the number comes from.
DEFAULT_CELL_BYTES: dict[str, int] = {"tc": 1, "sonic": 256, "junos": 1, "iosxr": 1, "eos": 1}
CELL_SOURCE: dict[str, str] = {
    "tc": "Linux counts bytes (tc-bfifo(8): limit in bytes): no cell",
    "sonic": "sonic-buildimage platform/*/asic_table.j2 cell_size: Spectrum 96, Spectrum-2/3 144, "
    "Tofino-2 176, Spectrum-4/5 192, Spectrum-6 256 bytes; 256, the largest, by default",
    "junos": "the cited Junos document gives no memory cell: none unless a cell size is given",
    "iosxr": "the cited IOS XR document gives no memory cell (its 'packets' unit is 256 B): "
    "none unless a cell size is given",
    "eos": "the cited Arista documents give no memory cell: none unless a cell size is given",
}
DEFAULT_INTERFACE: dict[str, str] = {
    "tc": "eth0",
    "sonic": "Ethernet0",
    "junos": "et-0/0/0",
    "iosxr": "HundredGigE0/0/0/0",
    "eos": "Ethernet1",
}
#: The bound a chip memory breaks when no dynamic threshold gives the queues their size.
_ENOUGH_MEMORY = "large enough that an α in 2^-8..2^7 gives each congested queue the size"
#: IOS XR's Ethernet interface names by line rate (bit/s), from the slowest up; a rate between
#: two takes the next faster name (a 2.5G port is configured as a TenGigE one would be).
IOSXR_INTERFACE_BY_RATE = (
    (1e9, "GigabitEthernet"),
    (10e9, "TenGigE"),
    (25e9, "TwentyFiveGigE"),
    (40e9, "FortyGigE"),
    (50e9, "FiftyGigE"),
    (100e9, "HundredGigE"),
    (200e9, "TwoHundredGigE"),
    (400e9, "FourHundredGigE"),
    (800e9, "EightHundredGigE"),
)
#: Junos's Ethernet interface prefixes by line rate: ge- (1G), xe- (10G), et- (25G and up).
JUNOS_INTERFACE_BY_RATE = ((1e9, "ge"), (10e9, "xe"), (float("inf"), "et"))
#: Bytes of one packet in IOS XR's ``packets`` unit ("packets are assumed to be 256 bytes").
IOSXR_PACKET_UNIT_BYTES = 256
#: CoDel's interval when no RTT is known (tc-codel(8) default, 100 ms) and target's share of it.
CODEL_DEFAULT_INTERVAL_S = 0.1
CODEL_TARGET_FRACTION = 0.05
#: PIE's QDELAY_REF and T_UPDATE (RFC 8033 §4.2: "QDELAY_REF = 15 ms", "T_UPDATE = 15 ms").
PIE_DEFAULT_TARGET_S = 0.015
PIE_DEFAULT_TUPDATE_S = 0.015


def default_interface(vendor: str, capacity_bps: float) -> str:
    """A placeholder port name in the vendor's naming, of the port's speed where the name
    carries it (IOS XR, Junos)."""
    if vendor == "iosxr":
        name = next(
            (n for rate, n in IOSXR_INTERFACE_BY_RATE if capacity_bps <= rate * 1.0001),
            IOSXR_INTERFACE_BY_RATE[-1][1],
        )
        return f"{name}0/0/0/0"
    if vendor == "junos":
        prefix = next(p for rate, p in JUNOS_INTERFACE_BY_RATE if capacity_bps <= rate * 1.0001)
        return f"{prefix}-0/0/0"
    return DEFAULT_INTERFACE[vendor]


@dataclass(frozen=True)
class QueueDiscipline:
    """What the port's queue does besides tail drop at the limit: the AQM the analysis assumed
    (with its target and interval) or DCTCP's ECN marking threshold K.

    Attributes
    ----------
    aqm : str
        ``none``, ``codel``, ``pie`` or ``dualq`` (L4S DualQ Coupled AQM).
    target_s : float or None
        The AQM's target queueing delay, seconds (CoDel TARGET, PIE QDELAY_REF).
    interval_s : float or None
        CoDel's INTERVAL, seconds.
    ecn_threshold_bytes : float or None
        DCTCP: mark CE above this queue, bytes (K); None for no marking.
    """

    aqm: str = "none"
    target_s: float | None = None
    interval_s: float | None = None
    ecn_threshold_bytes: float | None = None

    def __post_init__(self) -> None:
        if self.aqm not in AQMS:
            raise ParameterError.got("aqm", f"one of {', '.join(AQMS)}", self.aqm)
        for name in ("target_s", "interval_s", "ecn_threshold_bytes"):
            value = getattr(self, name)
            if value is not None:
                checks.positive(name, value)


@dataclass(frozen=True)
class QueueLimit:
    """One queue limit in the units devices take.

    Attributes
    ----------
    requested_bytes : float
        The size asked for, bytes.
    cell_bytes : int
        The device's memory cell, bytes.
    limit_bytes : int
        ``requested_bytes`` rounded up to a whole number of cells, bytes.
    limit_packets : int
        ``limit_bytes`` in packets of ``packet_bytes``, rounded up.
    limit_s : float
        ``limit_bytes`` drained at the line rate, seconds.
    limit_us : int
        ``limit_s`` in microseconds, rounded up (time-based limits hold at least the bytes).
    packet_bytes : float
        Packet size used for the packet count, bytes.
    capacity_bps : float
        The port's line rate, bit/s.
    """

    requested_bytes: float
    cell_bytes: int
    limit_bytes: int
    limit_packets: int
    limit_s: float
    limit_us: int
    packet_bytes: float
    capacity_bps: float


def _ceil_div(value: float, unit: float) -> int:
    """``ceil(value / unit)`` that does not round 1250000.0000000002 / 1 up to 1250001."""
    ratio = value / unit
    nearest = round(ratio)
    return (
        int(nearest)
        if math.isclose(ratio, nearest, rel_tol=1e-12, abs_tol=1e-9)
        else math.ceil(ratio)
    )


def queue_limit(
    buffer_bytes: float, capacity_bps: float, packet_bytes: float = 1500.0, cell_bytes: int = 1
) -> QueueLimit:
    """Round ``buffer_bytes`` up to the memory cell and express it in bytes, packets and time.

    Parameters
    ----------
    buffer_bytes : float
        The recommended buffer, bytes (> 0).
    capacity_bps : float
        The port's line rate, bit/s (> 0).
    packet_bytes : float
        Packet size for the packet count, bytes (> 0).
    cell_bytes : int
        The device's memory cell, bytes (integer >= 1).

    Returns
    -------
    QueueLimit
    """
    checks.positive("buffer_bytes", buffer_bytes)
    checks.positive("capacity_bps", capacity_bps)
    checks.positive("packet_bytes", packet_bytes)
    cell = checks.integer_at_least("cell_bytes", cell_bytes, 1)
    limit_bytes = _ceil_div(float(buffer_bytes), cell) * cell
    limit_s = 8.0 * limit_bytes / float(capacity_bps)
    return QueueLimit(
        requested_bytes=float(buffer_bytes),
        cell_bytes=cell,
        limit_bytes=limit_bytes,
        limit_packets=_ceil_div(limit_bytes, float(packet_bytes)),
        limit_s=limit_s,
        limit_us=_ceil_div(limit_s * 1e6, 1.0),
        packet_bytes=float(packet_bytes),
        capacity_bps=float(capacity_bps),
    )


@dataclass(frozen=True)
class DeviceConfig:
    """A configuration snippet and the numbers it was made from.

    Attributes
    ----------
    vendor : str
        One of :data:`VENDORS`.
    text : str
        The snippet, comments citing its document included, ready to paste.
    limit : QueueLimit
        The queue limit it enforces.
    interface : str
        The port it names.
    shared : ThresholdChoice or None
        The dynamic-threshold α when a shared memory was given (always for SONiC).
    release : str
        The software release the template follows.
    references : tuple of str
        The documents the template follows.
    notes : tuple of str
        What the operator should know (rounding, ranges, what was not emitted and why).
    config_db : dict or None
        SONiC only: the CONFIG_DB document the text carries.
    """

    vendor: str
    text: str
    limit: QueueLimit
    interface: str
    shared: ThresholdChoice | None
    release: str
    references: tuple[str, ...]
    notes: tuple[str, ...]
    config_db: dict[str, Any] | None = field(default=None, compare=False)


def _rate_text(rate_bps: float) -> str:
    for factor, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if rate_bps >= factor:
            return f"{rate_bps / factor:g} {unit}"
    return f"{rate_bps:g} bit/s"


def _summary(limit: QueueLimit) -> str:
    return (
        f"queue limit {limit.limit_bytes} B = {limit.limit_packets} packets of "
        f"{limit.packet_bytes:g} B = {limit.limit_us} us at {_rate_text(limit.capacity_bps)}"
        f" (asked {limit.requested_bytes:.0f} B, cell {limit.cell_bytes} B)"
    )


def _header(mark: str, limit: QueueLimit, release: str, references: tuple[str, ...]) -> list[str]:
    """The comment lines every snippet starts with: the numbers, the release, the documents."""
    lines = [f"{mark} bufsize: {_summary(limit)}", f"{mark} follows {release}:"]
    return lines + [f"{mark}   {reference}" for reference in references]


# --- Linux tc ---------------------------------------------------------------------------------

TC_REFERENCES = (
    "tc-pfifo(8)/tc-bfifo(8): 'limit' is packets for pfifo, bytes for bfifo",
    "tc-fq_codel(8): limit PACKETS, target TIME, interval TIME, ce_threshold TIME, ecn",
    "tc-pie(8): limit PACKETS, target TIME, tupdate TIME",
    "Linux 'codel: add ce_threshold attribute' (2015): the CE threshold for DCTCP ports",
    "RFC 8289 §4.2-4.5 (interval ~ the RTT of most flows; target 5 % of it: 5 ms for 100 ms)",
    "tc-htb(8): qdisc htb default CLASSID; class htb rate RATE ceil RATE; a qdisc under the "
    "class by parent CLASSID",
)
TC_RELEASE = "iproute2 6.1 (Debian 12)"


def codel_times_us(rtt_s: float | None, limit: QueueLimit) -> tuple[int, int]:
    """CoDel's (target, interval) in microseconds for a port with this limit.

    ``interval`` is the round-trip time when known, else tc-codel(8)'s 100 ms (tc-codel(8):
    "on the order of the worst-case RTT through the bottleneck"; RFC 8289 §4.2: "an INTERVAL
    value slightly larger than the RTT seen by most of the connections", 100 ms for the
    terrestrial Internet); ``target`` is 5 % of it (RFC 8289 §4.5: "TARGET is set to 5% of
    INTERVAL"; 5 ms for the default 100 ms, tc-codel(8)'s "Default and recommended value"),
    raised to one packet time at line rate so that a single packet in service never counts as
    a standing queue.
    """
    interval_s = (
        CODEL_DEFAULT_INTERVAL_S if rtt_s is None else float(checks.positive("rtt_s", rtt_s))
    )
    packet_time_s = 8.0 * limit.packet_bytes / limit.capacity_bps
    target_s = max(CODEL_TARGET_FRACTION * interval_s, packet_time_s)
    return _ceil_div(target_s * 1e6, 1.0), _ceil_div(interval_s * 1e6, 1.0)


def _ceil_us(seconds: float) -> int:
    return _ceil_div(seconds * 1e6, 1.0)


def _aqm_times_us(
    rtt_s: float | None, limit: QueueLimit, discipline: QueueDiscipline | None
) -> tuple[int, int]:
    """CoDel's (target, interval), µs: the analysis's for a CoDel port that gave them, else from
    the RTT (another AQM's target and interval are not CoDel's)."""
    target_us, interval_us = codel_times_us(rtt_s, limit)
    if discipline is None or discipline.aqm != "codel":
        return target_us, interval_us
    if discipline.target_s is not None:
        target_us = _ceil_us(discipline.target_s)
    if discipline.interval_s is not None:
        interval_us = _ceil_us(discipline.interval_s)
    return target_us, interval_us


def _pie_times_us(discipline: QueueDiscipline | None) -> tuple[int, int]:
    """PIE's (target, tupdate), µs: the analysis's for a PIE port, else RFC 8033 §4.2's
    QDELAY_REF 15 ms and T_UPDATE 15 ms (tc-pie(8)'s defaults too)."""
    target_s, tupdate_s = PIE_DEFAULT_TARGET_S, PIE_DEFAULT_TUPDATE_S
    if discipline is not None and discipline.aqm == "pie":
        target_s = discipline.target_s if discipline.target_s is not None else target_s
        tupdate_s = discipline.interval_s if discipline.interval_s is not None else tupdate_s
    return _ceil_us(target_s), _ceil_us(tupdate_s)


def ecn_threshold_us(limit: QueueLimit, discipline: QueueDiscipline) -> int | None:
    """DCTCP's marking threshold K as the sojourn time tc's ``ce_threshold`` takes, µs (K
    bytes drained at the line rate, rounded up)."""
    if discipline.ecn_threshold_bytes is None:
        return None
    return _ceil_us(8.0 * discipline.ecn_threshold_bytes / limit.capacity_bps)


def tc_commands(
    limit: QueueLimit,
    interface: str,
    rtt_s: float | None = None,
    discipline: QueueDiscipline | None = None,
) -> dict[str, str]:
    """The ``tc qdisc replace`` command of each qdisc, keyed by qdisc name (no comments); with
    an ECN threshold also ``fq_codel_ecn``, FQ-CoDel marking CE above K (tc-fq_codel(8)
    ``ce_threshold``, the form Linux added for DCTCP)."""
    target_us, interval_us = _aqm_times_us(rtt_s, limit, discipline)
    root = f"tc qdisc replace dev {interface} root"
    pie_target_us, pie_tupdate_us = _pie_times_us(discipline)
    commands = {
        "pfifo": f"{root} pfifo limit {limit.limit_packets}",
        "bfifo": f"{root} bfifo limit {limit.limit_bytes}",
        "fq_codel": f"{root} fq_codel limit {limit.limit_packets} "
        f"target {target_us}us interval {interval_us}us",
        "codel": f"{root} codel limit {limit.limit_packets} "
        f"target {target_us}us interval {interval_us}us",
        "pie": f"{root} pie limit {limit.limit_packets} target {pie_target_us}us "
        f"tupdate {pie_tupdate_us}us",
    }
    k_us = None if discipline is None else ecn_threshold_us(limit, discipline)
    if k_us is not None:
        commands["fq_codel_ecn"] = (
            f"{root} fq_codel limit {limit.limit_packets} ce_threshold {k_us}us ecn"
        )
    return commands


def tc_shaper_commands(limit: QueueLimit, interface: str, command: str) -> list[str]:
    """``command`` (a root qdisc) under an htb class shaped to the line rate: where this
    interface is faster than the link analysed, the queue then forms here, drained at the rate
    the size was computed for (tc-htb(8))."""
    rate = f"{round(limit.capacity_bps)}bit"
    return [
        f"tc qdisc replace dev {interface} root handle 1: htb default 1",
        f"tc class replace dev {interface} parent 1: classid 1:1 htb rate {rate} ceil {rate}",
        command.replace(f"dev {interface} root ", f"dev {interface} parent 1:1 ", 1),
    ]


def _active_qdisc(qdisc: str | None, discipline: QueueDiscipline | None) -> str:
    """The qdisc that deploys the analysis: DCTCP marking, the AQM, or drop-tail."""
    if qdisc is not None:
        return qdisc
    if discipline is None:
        return "pfifo"
    if discipline.ecn_threshold_bytes is not None:
        return "fq_codel_ecn"
    return {"codel": "fq_codel", "pie": "pie"}.get(discipline.aqm, "pfifo")


def tc_config(
    limit: QueueLimit,
    interface: str,
    qdisc: str | None = "pfifo",
    rtt_s: float | None = None,
    discipline: QueueDiscipline | None = None,
) -> str:
    """Linux ``tc`` commands: the qdisc that deploys the analysis (or the one asked for), and
    the others as commented alternatives."""
    if qdisc is not None and qdisc not in TC_QDISCS:
        raise ParameterError.got("qdisc", f"one of {', '.join(TC_QDISCS)}", qdisc)
    commands = tc_commands(limit, interface, rtt_s, discipline)
    active = _active_qdisc(qdisc, discipline)
    target_us, interval_us = _aqm_times_us(rtt_s, limit, discipline)
    given = discipline is not None and discipline.aqm == "codel"
    why = (
        "the AQM's target and interval as analysed (or given)"
        if given
        else "interval ~ RTT (RFC 8289 §4.2), target 5 % of it (RFC 8289 §4.5)"
    )
    comment = {
        "pfifo": "drop-tail FIFO, limit in packets (tc-pfifo(8))",
        "bfifo": "drop-tail FIFO, limit in bytes (tc-bfifo(8))",
        "fq_codel": f"FQ-CoDel, hard limit in packets; target {target_us} us, interval "
        f"{interval_us} us: {why}",
        "codel": f"CoDel on one FIFO (tc-codel(8)), hard limit in packets; target {target_us} "
        f"us, interval {interval_us} us",
        "pie": "PIE (tc-pie(8), RFC 8033), hard limit in packets; target = QDELAY_REF, "
        "tupdate = T_UPDATE",
        "fq_codel_ecn": "FQ-CoDel marking CE on ECN-capable packets whose sojourn exceeds K "
        "(ce_threshold, added to Linux for DCTCP), hard limit in packets",
    }
    lines = [*_header("#", limit, f"Linux tc, {TC_RELEASE}", TC_REFERENCES)]
    if discipline is not None and discipline.aqm == "dualq" and qdisc is None:
        lines.append(
            "# The L4S DualQ Coupled AQM (RFC 9332) has no qdisc in iproute2 6.1: only the "
            "hard limit is set here"
        )
    lines += [f"# {comment[active]}", commands[active]]
    for other, command in commands.items():
        if other != active:
            lines += [f"# or {comment[other]}:", f"# {command}"]
    lines.append(
        f"# where {interface} is faster than the {_rate_text(limit.capacity_bps)} analysed "
        "(the queue would build upstream), shape to it with htb and put the qdisc under it:"
    )
    lines += [f"# {line}" for line in tc_shaper_commands(limit, interface, commands[active])]
    return "\n".join(lines) + "\n"


# --- SONiC ------------------------------------------------------------------------------------

SONIC_REFERENCES = (
    "sonic-wred-profile.yang and sonic-queue.yang (WRED_PROFILE with ecn, QUEUE wred_profile)",
    "sonic-buffer-pool.yang (BUFFER_POOL_LIST: type ingress|egress|both, mode static|dynamic, "
    "size uint64 bytes)",
    "sonic-buffer-profile.yang (BUFFER_PROFILE_LIST: pool leafref, size uint64 bytes reserved, "
    'dynamic_th int32 range "-8..7")',
    "sonic-buffer-queue.yang (BUFFER_QUEUE_LIST key 'port qindex', profile leafref)",
    "SAI saibuffer.h, SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH: 'The threshold is set to the "
    "2^n of available buffer of the pool' (dynamic_th = n = log2 α)",
)
SONIC_RELEASE = "sonic-buildimage master, YANG revision 2021-07-01"


def sonic_config_db(
    limit: QueueLimit,
    shared: ThresholdChoice,
    interface: str,
    queue: str,
    pool_bytes: int,
    reserved_bytes: int,
    name: str = "bufsize",
    ecn_threshold_bytes: int | None = None,
) -> dict[str, Any]:
    """CONFIG_DB tables BUFFER_POOL, BUFFER_PROFILE and BUFFER_QUEUE (every value a string);
    with an ECN threshold also WRED_PROFILE (ECN marking of every colour from K, min = max = K,
    probability 100 %: DCTCP's step marking) and the QUEUE entry that applies it."""
    if shared.alpha_log2 is None:
        raise ParameterError(
            "chip_buffer_bytes", _ENOUGH_MEMORY, f"chip_buffer_bytes: {shared.reason}"
        )
    pool = f"{name}_egress_pool"
    profile = f"{name}_egress_profile"
    document: dict[str, Any] = {
        "BUFFER_POOL": {pool: {"type": "egress", "mode": "dynamic", "size": str(pool_bytes)}},
        "BUFFER_PROFILE": {
            profile: {
                "pool": pool,
                "size": str(reserved_bytes),
                "dynamic_th": str(shared.alpha_log2),
            }
        },
        "BUFFER_QUEUE": {f"{interface}|{queue}": {"profile": profile}},
    }
    if ecn_threshold_bytes is not None:
        wred = f"{name}_ecn"
        k = str(int(ecn_threshold_bytes))
        colours: dict[str, str] = {}
        for colour in ("green", "yellow", "red"):
            colours |= {
                f"wred_{colour}_enable": "true",
                f"{colour}_min_threshold": k,
                f"{colour}_max_threshold": k,
                f"{colour}_drop_probability": "100",
            }
        document["WRED_PROFILE"] = {wred: {"ecn": "ecn_all", **colours}}
        document["QUEUE"] = {f"{interface}|{queue}": {"wred_profile": wred}}
    return document


def _sonic(
    limit: QueueLimit,
    interface: str,
    queue: str,
    chip_buffer_bytes: float | None,
    congested_queues: int,
    discipline: QueueDiscipline | None = None,
) -> tuple[str, ThresholdChoice, dict[str, Any], list[str]]:
    if chip_buffer_bytes is None:
        raise ParameterError(
            "chip_buffer_bytes",
            "given for sonic",
            "chip_buffer_bytes is required for sonic: the shared pool the dynamic threshold "
            "(dynamic_th = log2 α) divides",
        )
    checks.at_least("chip_buffer_bytes", chip_buffer_bytes, 1.0)
    cell = limit.cell_bytes
    pool_bytes = int(float(chip_buffer_bytes) // cell) * cell
    if pool_bytes <= 0:
        raise ParameterError.got("chip_buffer_bytes", f">= one {cell} B cell", chip_buffer_bytes)
    reserved = _ceil_div(limit.packet_bytes, cell) * cell
    shared = choose_alpha(limit.limit_bytes, pool_bytes, congested_queues, SONIC_DYNAMIC_TH_RANGE)
    if not shared.alpha_suffices:
        raise ParameterError(
            "chip_buffer_bytes", _ENOUGH_MEMORY, f"chip_buffer_bytes: {shared.reason}"
        )
    k_bytes = None
    if discipline is not None and discipline.ecn_threshold_bytes is not None:
        k_bytes = _ceil_div(discipline.ecn_threshold_bytes, cell) * cell
    document = sonic_config_db(
        limit, shared, interface, queue, pool_bytes, reserved, ecn_threshold_bytes=k_bytes
    )
    alpha = float(shared.alpha or 0.0)
    notes = [
        f"dynamic_th = {shared.alpha_log2} (α = 2^{shared.alpha_log2}): with {congested_queues} "
        f"congested queues each settles at α·B/(1 + n·α) = {shared.steady_queue_bytes:.0f} B "
        f">= {limit.limit_bytes} B (Choudhury and Hahne 1998); a queue alone may take "
        f"α·B/(1 + α) = {alpha * pool_bytes / (1 + alpha):.0f} B",
        f"profile size {reserved} B is the reserved (guaranteed) part, one packet rounded to the "
        "cell, as in SONiC's sample egress_lossy_profile (1518); the shared part comes on top",
        f"pool size {pool_bytes} B: the chip buffer rounded down to the {cell} B cell",
        f"BUFFER_QUEUE's port is a leafref to the device's PORT table: {interface} must exist "
        "there",
    ]
    if k_bytes is not None:
        notes.append(
            f"WRED_PROFILE bufsize_ecn marks ECN-capable packets of every colour from K = "
            f"{k_bytes} B (min = max = K, probability 100 %: DCTCP's step marking), and QUEUE "
            f"applies it to {interface} queue {queue} (sonic-wred-profile.yang, sonic-queue.yang)"
        )
    if discipline is not None and discipline.aqm != "none":
        notes.append(
            f"SONiC's CONFIG_DB has no {discipline.aqm} table: the AQM cannot be set here, only "
            "the hard limit"
        )
    # The text is the JSON alone, so that it can be copied and loaded as it is ('config load');
    # what it enforces and the documents it follows are in the notes beside it.
    notes.insert(0, f"bufsize: {_summary(limit)}")
    notes.append(f"follows {SONIC_RELEASE}: " + "; ".join(SONIC_REFERENCES))
    notes.append("save the JSON as a file and load it with 'config load FILE'")
    text = json.dumps(document, indent=4) + "\n"
    return text, shared, document, notes


# --- Junos ------------------------------------------------------------------------------------

JUNOS_REFERENCES = (
    "'buffer-size (Schedulers)', [edit class-of-service schedulers scheduler-name]:",
    "buffer-size (percent percentage | remainder | temporal microseconds);",
    "temporal: 'This maximum is computed by multiplying the logical interface speed by the",
    "configured temporal value'; its range varies by platform (Buffer Size Temporal Value",
    "Ranges by Router Type)",
)
JUNOS_RELEASE = "Junos OS 13.2 documentation (the statement exists since before Junos OS 7.4)"


def junos_config(
    limit: QueueLimit,
    interface: str,
    chip_buffer_bytes: float | None = None,
    forwarding_class: str = "best-effort",
    name: str = "bufsize",
    discipline: QueueDiscipline | None = None,
) -> str:
    """A Junos scheduler with ``buffer-size temporal <µs>`` (and ``percent`` as an alternative)."""
    scheduler, scheduler_map = f"{name}-sched", f"{name}-map"
    lines = [
        *_header("#", limit, JUNOS_RELEASE, JUNOS_REFERENCES),
        f"set class-of-service schedulers {scheduler} buffer-size temporal {limit.limit_us}",
        f"set class-of-service scheduler-maps {scheduler_map} forwarding-class {forwarding_class} "
        f"scheduler {scheduler}",
        f"set class-of-service interfaces {interface} scheduler-map {scheduler_map}",
    ]
    if discipline is not None and discipline.ecn_threshold_bytes is not None:
        # 'Example: Configuring ECN': ECN in the scheduler, marking at a WRED drop profile's
        # fill level (a share of the queue's buffer): from K on, every ECN-capable packet.
        level = min(100, _ceil_div(100.0 * discipline.ecn_threshold_bytes, limit.limit_bytes))
        profile = f"{name}-ecn"
        lines += [
            f"# DCTCP: mark CE from K = {discipline.ecn_threshold_bytes:.0f} B = {level} % of "
            "this queue's buffer ('Example: Configuring ECN', QFX Series)",
            f"set class-of-service drop-profiles {profile} fill-level {level} drop-probability 100",
            f"set class-of-service schedulers {scheduler} drop-profile-map loss-priority any "
            f"protocol any drop-profile {profile}",
            f"set class-of-service schedulers {scheduler} explicit-congestion-notification",
        ]
    if discipline is not None and discipline.aqm != "none":
        lines.append(
            f"# {discipline.aqm}: Junos has no such AQM in the cited documents; only the hard "
            "limit is set"
        )
    if chip_buffer_bytes is not None:
        checks.at_least("chip_buffer_bytes", chip_buffer_bytes, 1.0)
        percent = _ceil_div(100.0 * limit.limit_bytes, float(chip_buffer_bytes))
        if percent <= 100:
            lines += [
                f"# or as a share of a {float(chip_buffer_bytes):.0f} B delay buffer "
                "('percent percentage', Range: 0 through 100):",
                f"# set class-of-service schedulers {scheduler} buffer-size percent {percent}",
            ]
    return "\n".join(lines) + "\n"


# --- IOS XR -----------------------------------------------------------------------------------

IOSXR_REFERENCES = (
    "'queue-limit value [unit]' in policy map class configuration; value 1 to 4294967295;",
    "unit bytes, kbytes, mbytes, ms, packets (default; 'packets are assumed to be 256 bytes",
    "in size') or us",
)
IOSXR_RELEASE = (
    "Cisco IOS XR Release 6.x, Modular QoS Command Reference for Cisco NCS 5500 Series and "
    "NCS 540 Series Routers"
)
IOSXR_MAX_VALUE = 4_294_967_295


def iosxr_config(
    limit: QueueLimit,
    interface: str,
    name: str = "bufsize",
    discipline: QueueDiscipline | None = None,
) -> str:
    """An IOS XR policy map whose class-default has ``queue-limit <bytes> bytes``."""
    if limit.limit_bytes > IOSXR_MAX_VALUE:
        raise ParameterError(
            "buffer_bytes",
            f"<= {IOSXR_MAX_VALUE} once rounded to the cell",
            f"buffer_bytes: {limit.limit_bytes} B is above IOS XR's queue-limit range "
            f"1 to {IOSXR_MAX_VALUE}",
        )
    policy = f"{name}-egress"
    lines = [
        *_header("!", limit, IOSXR_RELEASE, IOSXR_REFERENCES),
        f"! the same limit in time: queue-limit {limit.limit_us} us ('the guaranteed service "
        "rate of the",
        "! class is used to calculate the queue limit in bytes': the line rate only when "
        "class-default is alone)",
        f"policy-map {policy}",
        " class class-default",
        f"  queue-limit {limit.limit_bytes} bytes",
        *_iosxr_marking(discipline),
        " !",
        " end-policy-map",
        "!",
        f"interface {interface}",
        f" service-policy output {policy}",
        "!",
    ]
    return "\n".join(lines) + "\n"


def _iosxr_marking(discipline: QueueDiscipline | None) -> list[str]:
    """DCTCP's step marking at K (random-detect with min = max = K, and ecn), or a statement."""
    if discipline is None:
        return []
    lines = []
    if discipline.ecn_threshold_bytes is not None:
        k = _ceil_div(discipline.ecn_threshold_bytes, 1.0)
        lines += [
            f"  ! DCTCP: mark CE from K = {k} bytes (min = max = K: a step, not a ramp)",
            f"  random-detect {k} bytes {k} bytes",
            "  random-detect ecn",
        ]
    if discipline.aqm != "none":
        lines.append(
            f"  ! {discipline.aqm}: IOS XR has no such AQM in the cited reference; only the "
            "hard limit is set"
        )
    return lines


# --- Arista EOS -------------------------------------------------------------------------------

EOS_REFERENCES = (
    "Arista AVD eos_cli_config_gen (aristanetworks/avd, commit 3cac535, Apache-2.0), the EOS",
    "CLI it writes: qos-profiles.j2 ('qos profile NAME', 'tx-queue N'),",
    "ethernet-interface-tx-queues.j2 ('random-detect drop minimum-threshold MIN UNITS",
    "maximum-threshold MAX UNITS drop-probability P weight W', 'random-detect ecn",
    "minimum-threshold MIN UNITS maximum-threshold MAX UNITS max-mark-probability P weight W'),",
    "ethernet-interfaces.j2 ('service-profile NAME'); qos_profiles.schema.yml: units segments,",
    "bytes, kbytes, mbytes (microseconds, milliseconds), drop-probability 1-100, weight 0-15",
    "TOI 'Temporal Tail Drop Thresholds' and 'Configurable Voq Tail Drop Thresholds': a true",
    "per-queue tail-drop threshold, whose command syntax those pages do not give",
    "AVD platform-trident.j2 and platform-apply.j2 (same commit): 'platform trident mmu queue",
    "profile NAME', 'egress unicast queue N threshold T' (platform.schema.yml: 'Dynamic Shared",
    "Memory threshold'; its examples 1/64, 1/8, 8), 'platform trident mmu queue profile NAME",
    "apply'",
)
EOS_RELEASE = "Arista EOS CLI as Arista's AVD writes it (release not stated there)"
#: The QoS profile bufsize's EOS snippet defines and applies.
EOS_PROFILE = "bufsize"
#: Largest threshold in one unit AVD's schema admits for ECN ('max: 256000000').
EOS_MAX_THRESHOLD = 256_000_000
#: α values the Trident MMU profile is written with: AVD's examples span 1/64 (2^-6) to 8
#: (2^3); the platform's own range is not in the cited templates, so none beyond is emitted.
EOS_TRIDENT_ALPHA_RANGE = (-6, 3)
#: What the operator should know about the EOS snippet.
EOS_NOTE = (
    "EOS: on Trident-family switches (a shared-memory MMU: 'platform trident') a queue's limit "
    "is its dynamic threshold α, emitted when the chip buffer is given; elsewhere the limit is "
    "a WRED drop step (minimum = maximum, probability 100, weight 0) on the transmit queue, "
    "not the per-VOQ tail-drop threshold of the Sand (Jericho) TOIs, whose syntax was not "
    "found, so no Sand-platform tail-drop command is emitted; WRED and ECN on transmit queues "
    "depend on the platform family (check 'random-detect' in its QoS chapter), and a platform "
    "that refuses equal thresholds needs the maximum one segment above the minimum"
)


def _eos_threshold(size_bytes: float) -> str:
    """A threshold as EOS takes it: whole bytes, or kbytes (rounded up) beyond the range."""
    whole = _ceil_div(size_bytes, 1.0)
    if whole <= EOS_MAX_THRESHOLD:
        return f"{whole} bytes"
    return f"{_ceil_div(size_bytes, 1000.0)} kbytes"


def _eos_alpha(alpha: float) -> str:
    """α as the Trident MMU profile writes it: ``1/32`` below one, ``4`` from one up."""
    if alpha >= 1.0:
        return f"{alpha:.0f}"
    return f"1/{1.0 / alpha:.0f}"


def _eos_trident(queue: str, shared: ThresholdChoice | None) -> list[str]:
    """The Trident MMU queue profile giving the queue its share of the chip (dynamic threshold
    α, Choudhury and Hahne 1998), or what it needs."""
    profile = f"platform trident mmu queue profile {EOS_PROFILE}"
    if shared is None:
        return [
            "! Trident-family switches set a queue's share of the shared buffer by its dynamic "
            "threshold α",
            f"! ('{profile}' / 'egress unicast queue {queue} threshold α'): give the chip "
            "buffer to have α computed",
        ]
    if shared.alpha is None or not shared.alpha_suffices:
        return [f"! Trident-family switches, no MMU profile: {shared.reason}"]
    lines = [
        f"! Trident-family switches (shared-memory MMU): α = {_eos_alpha(shared.alpha)} gives "
        f"each of {shared.congested_queues} congested queues",
        f"! α·B/(1 + n·α) = {shared.steady_queue_bytes:.0f} B >= {shared.target_bytes:.0f} B "
        f"of the {shared.chip_buffer_bytes:.0f} B chip (Choudhury and Hahne 1998)",
    ]
    if shared.alpha_min is not None and shared.alpha > 2.0 * shared.alpha_min:
        lines.append(
            "! (1/64 is the smallest α written here and gives more than the size: the WRED "
            "step below holds the limit)"
        )
    return [
        *lines,
        profile,
        f"    egress unicast queue {queue} threshold {_eos_alpha(shared.alpha)}",
        f"{profile} apply",
    ]


def eos_config(
    limit: QueueLimit,
    interface: str,
    queue: str,
    discipline: QueueDiscipline | None = None,
    shared: ThresholdChoice | None = None,
) -> str:
    """A QoS profile whose transmit queue drops above the limit, applied to the port; on
    Trident-family switches also the MMU queue profile whose dynamic threshold α gives the
    queue the limit out of the chip's shared memory (``shared``, when the chip is known).

    The drop is WRED with minimum = maximum = the limit, drop probability 100 % and weight 0
    (the instantaneous queue, not an average): every packet that finds the queue above the
    limit is dropped, a tail drop at the limit. A DCTCP port also marks ECN-capable packets
    from K with the same step (minimum = maximum = K, max-mark-probability 100, weight 0).
    """
    drop = _eos_threshold(limit.limit_bytes)
    lines = [
        *_header("!", limit, EOS_RELEASE, EOS_REFERENCES),
        *_eos_trident(queue, shared),
        f"! tail drop at {limit.limit_bytes} B: WRED with minimum = maximum = the limit, drop "
        "probability 100, weight 0 (instantaneous queue)",
    ]
    queue_lines = [
        f"      random-detect drop minimum-threshold {drop} maximum-threshold {drop} "
        "drop-probability 100 weight 0"
    ]
    if discipline is not None and discipline.ecn_threshold_bytes is not None:
        k = _eos_threshold(discipline.ecn_threshold_bytes)
        lines.append(
            f"! DCTCP: mark CE from K = {discipline.ecn_threshold_bytes:.0f} B, a step (minimum "
            "= maximum = K, max-mark-probability 100, weight 0)"
        )
        queue_lines.append(
            f"      random-detect ecn minimum-threshold {k} maximum-threshold {k} "
            "max-mark-probability 100 weight 0"
        )
    if discipline is not None and discipline.aqm != "none":
        lines.append(
            f"! {discipline.aqm}: EOS has no such AQM in the cited documents; only the hard "
            "limit is set here"
        )
    lines += [f"qos profile {EOS_PROFILE}", f"   tx-queue {queue}", *queue_lines]
    lines += ["!", f"interface {interface}", f"   service-profile {EOS_PROFILE}"]
    return "\n".join(lines) + "\n"


# --- all vendors ------------------------------------------------------------------------------


def device_config(
    vendor: str,
    buffer_bytes: float,
    capacity_bps: float,
    *,
    packet_bytes: float = 1500.0,
    cell_bytes: int | None = None,
    interface: str | None = None,
    queue: str = "0",
    chip_buffer_bytes: float | None = None,
    congested_queues: int = 8,
    rtt_s: float | None = None,
    qdisc: str | None = None,
    discipline: QueueDiscipline | None = None,
) -> DeviceConfig:
    """The configuration that enforces a per-queue buffer of ``buffer_bytes`` on ``vendor``.

    Parameters
    ----------
    vendor : str
        ``tc``, ``sonic``, ``junos``, ``iosxr`` or ``eos``.
    buffer_bytes : float
        The recommended buffer, bytes (> 0).
    capacity_bps : float
        The port's line rate, bit/s (> 0): converts bytes to time.
    packet_bytes : float
        Packet size, bytes: converts bytes to packets.
    cell_bytes : int or None
        The memory cell the size is rounded up to, bytes; None for the vendor's default
        (:data:`DEFAULT_CELL_BYTES`).
    interface : str or None
        Port name; None for a placeholder in the vendor's naming.
    queue : str
        Egress queue index (SONiC ``qindex``, EOS ``tx-queue``).
    chip_buffer_bytes : float or None
        Shared memory ``B`` of the chip, bytes: sets SONiC's ``dynamic_th``; for other vendors
        it adds the dynamic-threshold α to the notes (and Junos's ``percent``).
    congested_queues : int
        ``n``, queues congested at once sharing ``chip_buffer_bytes`` (integer >= 1).
    rtt_s : float or None
        Round-trip time, seconds: CoDel's interval for tc ``fq_codel``.
    qdisc : str or None
        tc only: the qdisc of the active command (:data:`TC_QDISCS`); None for the one that
        deploys ``discipline`` (fq_codel with ce_threshold for an ECN threshold, fq_codel for
        CoDel, pie for PIE, else pfifo).
    discipline : QueueDiscipline or None
        The AQM (with its target and interval) or the ECN marking threshold the analysis
        assumed; None for drop-tail.

    Returns
    -------
    DeviceConfig
    """
    if vendor not in VENDORS:
        raise ParameterError.got("vendor", f"one of {', '.join(VENDORS)}", vendor)
    checks.integer_at_least("congested_queues", congested_queues, 1)
    if not isinstance(queue, str) or not queue.isdigit() or int(queue) > 15:
        raise ParameterError.got("queue", "an egress queue index 0 to 15", queue)
    cell = DEFAULT_CELL_BYTES[vendor] if cell_bytes is None else cell_bytes
    limit = queue_limit(buffer_bytes, capacity_bps, packet_bytes, cell)
    port = (
        default_interface(vendor, capacity_bps) if interface is None else _interface_name(interface)
    )
    notes = [f"cell: {CELL_SOURCE[vendor]}" if cell_bytes is None else f"cell: {cell} B as given"]
    shared: ThresholdChoice | None = None
    document: dict[str, Any] | None = None
    references: tuple[str, ...]
    if vendor == "sonic":
        text, shared, document, sonic_notes = _sonic(
            limit, port, queue, chip_buffer_bytes, congested_queues, discipline
        )
        notes += sonic_notes
        references, release = SONIC_REFERENCES, SONIC_RELEASE
    else:
        if chip_buffer_bytes is not None:
            checks.at_least("chip_buffer_bytes", chip_buffer_bytes, 1.0)
            alphas = EOS_TRIDENT_ALPHA_RANGE if vendor == "eos" else SONIC_DYNAMIC_TH_RANGE
            shared = choose_alpha(limit.limit_bytes, chip_buffer_bytes, congested_queues, alphas)
            notes.append(f"shared memory: {shared.reason}")
        if vendor == "tc":
            text = tc_config(limit, port, qdisc, rtt_s, discipline)
            references, release = TC_REFERENCES, TC_RELEASE
        elif vendor == "junos":
            text = junos_config(limit, port, chip_buffer_bytes, discipline=discipline)
            references, release = JUNOS_REFERENCES, JUNOS_RELEASE
        elif vendor == "iosxr":
            text = iosxr_config(limit, port, discipline=discipline)
            references, release = IOSXR_REFERENCES, IOSXR_RELEASE
        else:
            text = eos_config(limit, port, queue, discipline, shared)
            references, release = EOS_REFERENCES, EOS_RELEASE
            notes.append(EOS_NOTE)
    return DeviceConfig(
        vendor=vendor,
        text=text,
        limit=limit,
        interface=port,
        shared=shared,
        release=release,
        references=tuple(references),
        notes=tuple(notes),
        config_db=document,
    )


def _interface_name(interface: str) -> str:
    """Refuse names that would break the snippet (spaces, quotes, line breaks, shell syntax)."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._:-")
    if not interface or len(interface) > 64 or not set(interface) <= allowed:
        raise ParameterError.got(
            "interface",
            "1 to 64 letters, digits or '/._:-' (a port name such as Ethernet0)",
            interface,
        )
    return interface
