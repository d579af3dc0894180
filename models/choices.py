"""Every list of choices bufsize offers, each declared once: a ``Literal`` type for the type
checker and the API's schema, and the tuple of its values (``get_args``) for the checks, the
command line's options and the form.

``tests/test_choices.py`` fails when a list of these names is written out anywhere else.
"""

from __future__ import annotations

from typing import Literal, get_args

#: The senders' congestion control: Reno (RFC 5681), CUBIC (RFC 9438), DCTCP (RFC 8257), BBR
#: (v1 in the simulator, ``validation/simulator/core/bbr.py``).
CongestionControl = Literal["reno", "cubic", "dctcp", "bbr"]
CONGESTION_CONTROLS: tuple[CongestionControl, ...] = get_args(CongestionControl)
#: How people write each congestion control's name (a test checks the keys).
CONGESTION_CONTROL_NAMES: dict[str, str] = {
    "reno": "Reno",
    "cubic": "CUBIC",
    "dctcp": "DCTCP",
    "bbr": "BBR v1",
}

#: Active queue management on the port: CoDel (RFC 8289), PIE (RFC 8033), DualQ coupled AQM
#: (RFC 9332), or none (drop-tail).
Aqm = Literal["none", "codel", "pie", "dualq"]
AQMS: tuple[Aqm, ...] = get_args(Aqm)
#: How the form names each AQM (a test checks the keys).
AQM_NAMES: dict[str, str] = {
    "none": "None (drop-tail)",
    "codel": "CoDel / FQ-CoDel",
    "pie": "PIE",
    "dualq": "L4S DualQ",
}
#: The AQMs the packet simulator runs (a test checks that they are part of :data:`AQMS`): all of
#: them, DualQ with one class of traffic per run (``validation/simulator/core/dualq.py``).
SimulatedAqm = Aqm
SIMULATED_AQMS: tuple[SimulatedAqm, ...] = AQMS

#: What the buffer is made of.
Medium = Literal["electronic", "optical"]
MEDIA: tuple[Medium, ...] = get_args(Medium)

#: Which side wins when the delay bound conflicts with utilization and loss.
Priority = Literal["throughput", "delay"]
PRIORITIES: tuple[Priority, ...] = get_args(Priority)

#: The simulator's loss recovery: SACK (RFC 6675) or NewReno without SACK (RFC 6582).
Recovery = Literal["sack", "newreno"]
RECOVERIES: tuple[Recovery, ...] = get_args(Recovery)

#: Device families a buffer size can be configured for (``models/device.py``).
Vendor = Literal["tc", "sonic", "junos", "iosxr", "eos"]
VENDORS: tuple[Vendor, ...] = get_args(Vendor)
#: How people name each device family (a test checks the keys).
VENDOR_NAMES: dict[str, str] = {
    "tc": "Linux tc",
    "sonic": "SONiC (CONFIG_DB)",
    "junos": "Juniper Junos",
    "iosxr": "Cisco IOS XR",
    "eos": "Arista EOS",
}

#: Linux tc's queueing disciplines a snippet can set.
TcQdisc = Literal["pfifo", "bfifo", "fq_codel", "codel", "pie"]
TC_QDISCS: tuple[TcQdisc, ...] = get_args(TcQdisc)
