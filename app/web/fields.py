"""The web form's fields and the API names they stand for: the one place that knows both.

Each input of the form at ``/`` has a short name (the query-string key, so a URL reproduces
the page) and the path of the ``/v1/recommend`` request field it fills. A 422 from the API
locates its complaint by that path; :func:`field_for_location` maps it back to the input. The
names the results are read by are in :data:`RESULT` below. A renamed API field is a one-line
change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from models.choices import (
    AQM_NAMES,
    CONGESTION_CONTROL_NAMES,
    CONGESTION_CONTROLS,
    MEDIA,
    VENDOR_NAMES,
)

Kind = Literal["quantity", "rtts", "int", "float", "bool", "choice", "text"]


@dataclass(frozen=True)
class FormField:
    """One input of the form."""

    name: str  #: query-string key and HTML name
    path: tuple[str, ...]  #: where the value goes in the /v1/recommend body
    label: str
    unit: str  #: the unit hint shown beside the input
    help: str
    default: str = ""  #: the value for a 10 Gb/s core link ("" leaves it to the engine)
    kind: Kind = "quantity"
    choices: tuple[tuple[str, str], ...] = ()  #: (value, label) for kind="choice"
    group: str = "link"
    #: other request paths whose errors belong to this input (e.g. rtts_s for the RTT box)
    also: tuple[tuple[str, ...], ...] = ()
    #: "time", "rate" or "size" for a quantity: a number typed without a unit is refused
    dimension: str = ""
    #: folded under "More inputs" unless it holds a value or an error
    advanced: bool = False
    #: the choice this input refines (shown indented under it; used only when it is set)
    under: str = ""


# The defaults describe the thesis's core link (000 §1.3): 10 Gb/s, 100 ms round trips,
# 1000-byte packets, 1000 long-lived flows.
FIELDS: tuple[FormField, ...] = (
    FormField(
        "capacity",
        ("scenario", "capacity_bps"),
        "Link capacity",
        "bit/s, e.g. 10 Gbit/s",
        "Line rate of the port whose buffer you are sizing.",
        "10 Gbit/s",
        dimension="rate",
    ),
    FormField(
        "rtt",
        ("scenario", "rtt_s"),
        "Round-trip time",
        "s, e.g. 100 ms; or a list: 20 ms, 80 ms, 250 ms",
        "Typical round-trip time of the flows; with a list, their harmonic mean is used.",
        "100 ms",
        kind="rtts",
        also=(("scenario", "rtts_s"),),
        dimension="time",
    ),
    FormField(
        "packet",
        ("scenario", "packet_bytes"),
        "Packet size",
        "bytes, e.g. 1500 B",
        "Size of a full data packet.",
        "1000 B",
        dimension="size",
    ),
    FormField(
        "flows",
        ("scenario", "flows"),
        "Flows",
        "count",
        "Total number of flows through the port at once.",
        "1000",
        kind="int",
        group="traffic",
    ),
    FormField(
        "bottlenecked",
        ("scenario", "bottlenecked_flows"),
        "Bottlenecked flows",
        "count, optional",
        "Long-lived flows limited only by congestion at this port; leave empty if unknown.",
        kind="int",
        group="traffic",
    ),
    FormField(
        "share",
        ("scenario", "bottlenecked_share"),
        "Their share of the traffic",
        "fraction 0-1, optional",
        "Fraction of the capacity those bottlenecked flows carry; leave empty if unknown.",
        kind="float",
        group="traffic",
    ),
    FormField(
        "load",
        ("scenario", "load"),
        "Offered load",
        "fraction of capacity, optional",
        "Average demand over the capacity, e.g. 0.8; decides the flow-level regime.",
        kind="float",
        group="traffic",
    ),
    FormField(
        "access",
        ("scenario", "access_bps"),
        "Access rate",
        "bit/s, optional; e.g. 100 Mbit/s",
        "Rate of the senders' own access links; slow access links smooth the traffic.",
        group="traffic",
        dimension="rate",
        advanced=True,
    ),
    FormField(
        "window",
        ("scenario", "max_window_packets"),
        "Maximum window",
        "packets, optional",
        "Largest congestion window a flow may use (receive window / MSS).",
        kind="float",
        group="traffic",
        advanced=True,
    ),
    FormField(
        "paced",
        ("scenario", "paced"),
        "Senders pace their packets",
        "",
        "Tick if the senders spread each window over the round-trip time.",
        kind="bool",
        group="traffic",
        advanced=True,
    ),
    FormField(
        "cc",
        ("scenario", "congestion_control"),
        "Congestion control",
        "",
        "The senders' TCP: how far a window falls after a loss (CUBIC, Reno), ECN marking at "
        "a threshold (DCTCP, datacenters) or a probing rate model (BBR). Not given: unknown, "
        "sized for Reno and for CUBIC and the larger size recommended.",
        "",
        kind="choice",
        # The default (not given) first, then today's hosts' CUBIC, then the others in their
        # declared order.
        choices=(
            ("", "Not given (Reno or CUBIC)"),
            *(
                (cc, CONGESTION_CONTROL_NAMES[cc].removesuffix(" v1"))
                for cc in sorted(CONGESTION_CONTROLS, key=lambda cc: cc != "cubic")
            ),
        ),
        group="traffic",
    ),
    FormField(
        "incast",
        ("scenario", "incast_senders"),
        "Incast senders",
        "count, optional",
        "Senders that answer one request at once (datacenter fan-in): their first windows "
        "arrive as one burst.",
        kind="int",
        group="traffic",
        advanced=True,
    ),
    FormField(
        "iw",
        ("scenario", "initial_window_packets"),
        "Initial window",
        "packets, optional; 10 if empty",
        "Each sender's first window (10 packets, RFC 6928); sizes the incast burst.",
        kind="float",
        group="traffic",
        advanced=True,
    ),
    FormField(
        "aqm",
        ("scenario", "aqm"),
        "Active queue management",
        "",
        "An AQM keeps the standing queue near its target (CoDel 5 ms with a 100 ms interval, "
        "RFC 8289; PIE 15 ms, RFC 8033; L4S DualQ, RFC 9332); the buffer is its hard limit.",
        "none",
        kind="choice",
        choices=tuple(AQM_NAMES.items()),
        advanced=True,
    ),
    FormField(
        "aqm_target",
        ("scenario", "aqm_target_s"),
        "AQM target delay",
        "s, optional; e.g. 5 ms",
        "The queueing delay the AQM aims for (CoDel's target, PIE's reference delay). Empty: "
        "the RFC's, 5 ms for CoDel, 15 ms for PIE and DualQ.",
        dimension="time",
        advanced=True,
        under="aqm",
    ),
    FormField(
        "aqm_interval",
        ("scenario", "aqm_interval_s"),
        "AQM interval",
        "s, optional; e.g. 100 ms",
        "CoDel: how long the delay may stay above target before it drops (about the "
        "worst-case round-trip time); PIE and DualQ: how often the drop probability is "
        "updated. Empty: the RFC's, 100 ms for CoDel, 15 ms for PIE, 16 ms for DualQ.",
        dimension="time",
        advanced=True,
        under="aqm",
    ),
    FormField(
        "medium",
        ("scenario", "medium"),
        "Buffer technology",
        "",
        "Electronic memory, or an all-optical buffer of fibre delay lines.",
        "electronic",
        kind="choice",
        choices=tuple((medium, medium.capitalize()) for medium in MEDIA),
    ),
    FormField(
        "utilization",
        ("targets", "min_utilization"),
        "Utilization at least",
        "fraction 0-1",
        "Share of what the traffic could carry that the port must keep busy.",
        "0.9",
        kind="float",
        group="targets",
    ),
    FormField(
        "loss",
        ("targets", "max_loss"),
        "Loss at most",
        "probability 0-1",
        "Largest acceptable fraction of packets dropped.",
        "0.01",
        kind="float",
        group="targets",
    ),
    FormField(
        "delay",
        ("targets", "max_queueing_delay_s"),
        "Queueing delay at most",
        "s, optional; e.g. 5 ms",
        "Largest delay a full buffer may add; leave empty for one round-trip time.",
        group="targets",
        dimension="time",
    ),
    FormField(
        "vendor",
        ("device", "vendor"),
        "Device",
        "",
        "The recommended size is also shown as this device's configuration, to copy.",
        "tc",
        kind="choice",
        choices=tuple(VENDOR_NAMES.items()),
        group="device",
    ),
    FormField(
        "chip",
        ("device", "chip_buffer_bytes"),
        "Chip buffer",
        "bytes, e.g. 64 MiB; needed for SONiC",
        "Shared packet memory of the switch chip: sets the queue's dynamic threshold (α) of "
        "SONiC and of Arista's Trident-family switches.",
        group="device",
        dimension="size",
    ),
    FormField(
        "interface",
        ("device", "interface"),
        "Interface",
        "name, optional; e.g. Ethernet8",
        "The port as the device names it; empty: a placeholder in the device's naming.",
        group="device",
        kind="text",
    ),
)

GROUPS: tuple[tuple[str, str], ...] = (
    ("link", "The link"),
    ("traffic", "The traffic"),
    ("targets", "Targets"),
    ("device", "Device configuration"),
)

BY_NAME = {f.name: f for f in FIELDS}

# The names the page reads in the /v1/recommend answer.
RESULT = {
    "recommended": "recommended",
    "rules": "rules",
    "regime": "regime",
    "curves": "curves",
    "feasible": "feasible",
    "trade_off": "trade_off",
    "warnings": "warnings",
    "inputs": "inputs",
    "buffer_packets": "buffer_packets",
    "buffer_bytes": "buffer_bytes",
    "buffer_s": "buffer_s",
    "predicted": "predicted",
    "utilization": "utilization",
    "normalized_utilization": "normalized_utilization",
    "loss": "loss_probability",
    "delay_s": "queueing_delay_s",
    "effective_rtt_s": "effective_rtt_s",
    "bottlenecked_flows_used": "bottlenecked_flows_used",
    "device_config": "device_config",
    "text": "text",
    "limit": "limit",
    "cell_bytes": "cell_bytes",
    "release": "release",
    "notes": "notes",
}


def field_for_location(loc: tuple[str | int, ...]) -> FormField | None:
    """The input a validation error's location points at (``("body", "scenario", "flows")``,
    ``("scenario", "rtts_s", 2)``), or None for an error about the request as a whole."""
    parts = tuple(str(p) for p in loc if p != "body")
    for f in FIELDS:
        for path in (f.path, *f.also):
            if parts[: len(path)] == path:
                return f
    return None
