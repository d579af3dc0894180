"""The generated Linux tc commands, applied to a veth pair in a network namespace of the test's
own and read back with ``tc -j qdisc show``: the limit is the recommended size.

Needs iproute2 and the right to create network namespaces (root, or CAP_NET_ADMIN and
CAP_SYS_ADMIN); where a namespace cannot be created the tests are skipped and say why. Where
the kernel lacks an AQM qdisc (fq_codel, pie), the read-back is skipped with the kernel's
release and the qdiscs it has, and the netlink request tc sends for the command is decoded
instead (strace, and linux/pkt_sched.h from linux-libc-dev for the attribute numbers).
"""

from __future__ import annotations

import json
import platform
import re
import shlex
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.services.device import DeviceRequest, configure_recommended
from models.device import device_config, tc_commands, tc_shaper_commands
from models.recommend import LinkScenario, Targets, recommend


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=30, check=False)


@pytest.fixture
def veth() -> Iterator[tuple[str, str]]:
    """A namespace with a veth pair, both ends up; removed afterwards whatever happens."""
    if shutil.which("ip") is None or shutil.which("tc") is None:
        pytest.skip("cannot create a network namespace: iproute2 (ip, tc) is not installed")
    tag = uuid.uuid4().hex[:8]
    namespace, device = f"bufsize-test-{tag}", f"bz{tag}"  # device names: at most 15 chars
    made = _run("ip", "netns", "add", namespace)
    if made.returncode != 0:
        pytest.skip(f"cannot create a network namespace: {made.stderr.strip()}")
    try:
        for step in (
            ("link", "add", device, "type", "veth", "peer", "name", f"{device}p"),
            ("link", "set", device, "up"),
            ("link", "set", f"{device}p", "up"),
        ):
            done = _run("ip", "-n", namespace, *step)
            assert done.returncode == 0, done.stderr
        yield namespace, device
    finally:
        _run("ip", "netns", "del", namespace)


def _apply(namespace: str, command: str) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[0] == "tc"
    return _run("tc", "-n", namespace, *words[1:])


def _root_qdisc(namespace: str, device: str) -> dict[str, Any]:
    shown = _run("tc", "-n", namespace, "-j", "qdisc", "show", "dev", device)
    assert shown.returncode == 0, shown.stderr
    roots = [q for q in json.loads(shown.stdout) if q.get("root")]
    assert len(roots) == 1, shown.stdout
    return dict(roots[0])


def _active_command(text: str) -> str:
    commands = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 1, text
    return commands[0]


# 000 §3.2: "1000 flows share a link of capacity 10 Gb/s ... an RTT of 100ms, a maximum window
# size of 64 KB, and a packet size of 1 KB" (recommended: tiny buffers, 15 packets); the same
# link with 10 flows and no window limit, and a 100 Mbit/s access link of 50 flows.
SCENARIOS = [
    LinkScenario(
        capacity_bps=10e9, rtts_s=(0.1,), flows=1000, packet_bytes=1000.0, max_window_packets=64
    ),
    LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=10, packet_bytes=1500.0),
    LinkScenario(capacity_bps=100e6, rtts_s=(0.02, 0.08), flows=50, packet_bytes=1500.0),
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pfifo_and_bfifo_limits_equal_the_recommended_size(
    veth: tuple[str, str], scenario: LinkScenario
) -> None:
    namespace, device = veth
    best = recommend(scenario, Targets()).recommended
    for qdisc, expected in (
        ("pfifo", best.buffer_packets),
        ("bfifo", round(best.buffer_packets * scenario.packet_bytes)),
    ):
        snippet = device_config(
            "tc",
            best.buffer_bytes,
            scenario.capacity_bps,
            packet_bytes=scenario.packet_bytes,
            interface=device,
            qdisc=qdisc,
        )
        done = _apply(namespace, _active_command(snippet.text))
        assert done.returncode == 0, done.stderr
        shown = _root_qdisc(namespace, device)
        assert shown["kind"] == qdisc
        assert shown["options"]["limit"] == expected


@pytest.mark.parametrize("packets", [1, 834, 125_000])
def test_given_sizes_round_trip_through_the_kernel(veth: tuple[str, str], packets: int) -> None:
    namespace, device = veth
    snippet = device_config("tc", packets * 1500.0, 10e9, interface=device)
    assert _apply(namespace, _active_command(snippet.text)).returncode == 0
    assert _root_qdisc(namespace, device)["options"]["limit"] == packets


@pytest.mark.parametrize(
    ("capacity_bps", "packets", "shown"), [(20e6, 242, "20Mbit"), (1e9, 834, "1Gbit")]
)
def test_the_htb_shaper_form_applies_and_reads_back(
    veth: tuple[str, str], capacity_bps: float, packets: int, shown: str
) -> None:
    # The commented shaper form of a drop-tail port, uncommented: htb at the line rate with the
    # pfifo under its class (tc-htb(8)); tc prints the class's rate in its own units.
    namespace, device = veth
    snippet = device_config("tc", packets * 1500.0, capacity_bps, interface=device)
    lines = snippet.text.splitlines()
    start = next(i for i, line in enumerate(lines) if "shape to it with htb" in line)
    shaper = [line.removeprefix("# ") for line in lines[start + 1 :]]
    assert len(shaper) == 3 and shaper[2].endswith(f"parent 1:1 pfifo limit {packets}")
    for command in shaper:
        done = _apply(namespace, command)
        assert done.returncode == 0, (command, done.stderr)
    classes = _run("tc", "-n", namespace, "class", "show", "dev", device)
    assert "class htb 1:1 root leaf " in classes.stdout, classes.stdout
    assert f" rate {shown} ceil {shown} " in classes.stdout, classes.stdout
    shown_qdiscs = _run("tc", "-n", namespace, "-j", "qdisc", "show", "dev", device)
    qdiscs = json.loads(shown_qdiscs.stdout)
    assert [q["kind"] for q in qdiscs if q.get("root")] == ["htb"]
    leaves = [q for q in qdiscs if q.get("parent") == "1:1"]
    assert [(q["kind"], q["options"]["limit"]) for q in leaves] == [("pfifo", packets)]


def test_fq_codel_limit_target_interval(veth: tuple[str, str]) -> None:
    namespace, device = veth
    scenario = SCENARIOS[1]
    best = recommend(scenario, Targets()).recommended
    snippet = device_config(
        "tc",
        best.buffer_bytes,
        scenario.capacity_bps,
        packet_bytes=scenario.packet_bytes,
        interface=device,
        qdisc="fq_codel",
        rtt_s=0.1,
    )
    command = _active_command(snippet.text)
    assert command == tc_commands(snippet.limit, device, 0.1)["fq_codel"]
    done = _apply(namespace, command)
    if done.stderr.strip() == KERNEL_LACKS_QDISC:
        pytest.skip(_lacking(namespace, device, "fq_codel"))
    assert done.returncode == 0, done.stderr
    options = _root_qdisc(namespace, device)["options"]
    assert options["limit"] == best.buffer_packets
    # RFC 8289 §4 / tc-codel(8): interval = the RTT (100 ms), target = 5 % of it (5 ms);
    # iproute2's JSON gives both in microseconds.
    assert options["interval"] == 100_000
    assert options["target"] == 5_000


#: The kernel's answer (netlink) to a qdisc it does not have: iproute2 has parsed the whole
#: command by then (an option it cannot read stops it earlier with its own usage message).
KERNEL_LACKS_QDISC = "Error: Specified qdisc kind is unknown."
#: Qdiscs probed for a skip's reason: those the snippets use, and the usual companions.
PROBED_QDISCS = ("pfifo", "bfifo", "htb", "fq_codel", "codel", "pie", "fq", "sfq", "netem")


def _lacking(namespace: str, device: str, kind: str) -> str:
    """Why a read-back is skipped: the kernel's release, and which of :data:`PROBED_QDISCS` it
    has and lacks (each tried bare as the root qdisc of the test's own veth)."""
    lacks = [
        probed
        for probed in PROBED_QDISCS
        if _run(
            "tc", "-n", namespace, "qdisc", "replace", "dev", device, "root", probed
        ).stderr.strip()
        == KERNEL_LACKS_QDISC
    ]
    has = [probed for probed in PROBED_QDISCS if probed not in lacks]
    return (
        f"parsed by tc, but kernel {platform.release()} has no {kind} qdisc to read it back "
        f"({KERNEL_LACKS_QDISC!r}); of {', '.join(PROBED_QDISCS)} it has {', '.join(has)} "
        f"and lacks {', '.join(lacks)}; the request tc sends is checked by "
        "test_tc_sends_the_kernel_the_analysed_aqm_and_ecn_options"
    )


def _recommended_snippet(scenario: LinkScenario, device: str) -> tuple[Any, str]:
    rec = recommend(scenario, Targets())
    text = configure_recommended(rec, scenario, DeviceRequest("tc", interface=device)).text
    return rec, _active_command(text)


# The analysed queue discipline, deployed: a CoDel port (RFC 8289 target 5 ms, interval 100 ms),
# a PIE port (RFC 8033 QDELAY_REF 15 ms) and a DCTCP leaf (marking at K = C·RTT/7), each read
# back from the kernel where it has the qdisc.
AQM_CASES = [
    (
        LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, aqm="codel"),
        "fq_codel",
        {"target": 5_000, "interval": 100_000},
    ),
    (
        LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, aqm="pie"),
        "pie",
        {"target": 15_000},
    ),
    (
        # The operator's own CoDel times (2 ms below a 50 ms interval) replace the RFC's.
        LinkScenario(
            capacity_bps=100e6,
            rtts_s=(0.1,),
            flows=40,
            aqm="codel",
            aqm_target_s=0.002,
            aqm_interval_s=0.05,
        ),
        "fq_codel",
        {"target": 2_000, "interval": 50_000},
    ),
    (
        # PIE's own QDELAY_REF and T_UPDATE (tc-pie(8) target and tupdate).
        LinkScenario(
            capacity_bps=100e6,
            rtts_s=(0.1,),
            flows=40,
            aqm="pie",
            aqm_target_s=0.02,
            aqm_interval_s=0.03,
        ),
        "pie",
        {"target": 20_000, "tupdate": 30_000},
    ),
    (
        # 10 Gb/s, 100 µs, 1500 B: BDP 83.3 packets, K = 11.9 packets = 17,857 B = 14.3 µs,
        # ce_threshold rounded up to 15 µs.
        LinkScenario(
            capacity_bps=10e9,
            rtts_s=(100e-6,),
            flows=20,
            congestion_control="dctcp",
            access_bps=10e9,
        ),
        "fq_codel",
        {"ce_threshold": 15},
    ),
]


@pytest.mark.parametrize(("scenario", "kind", "expected"), AQM_CASES)
def test_the_analysed_aqm_or_ecn_marking_is_the_active_command(
    veth: tuple[str, str], scenario: LinkScenario, kind: str, expected: dict[str, int]
) -> None:
    namespace, device = veth
    rec, command = _recommended_snippet(scenario, device)
    words = shlex.split(command)
    assert words[6] == kind, command
    assert words[words.index("limit") + 1] == str(rec.recommended.buffer_packets)
    done = _apply(namespace, command)
    if done.returncode != 0:
        # iproute2 read every option (no usage message); only the kernel lacks the qdisc.
        assert done.stderr.strip() == KERNEL_LACKS_QDISC, done.stderr
        pytest.skip(_lacking(namespace, device, kind))
    options = _root_qdisc(namespace, device)["options"]
    assert options["limit"] == rec.recommended.buffer_packets
    for key, value in expected.items():
        assert options[key] == value, options


# --- the AQM and ECN commands as the kernel would receive them ---------------------------------
#
# Where the kernel lacks fq_codel or pie, tc still parses the command and sends the kernel its
# netlink request (RTM_NEWQDISC) before the kernel refuses the kind. That request is captured
# with strace and decoded here: its TCA_OPTIONS must carry each value of the command under the
# attribute number the kernel's own UAPI header (linux/pkt_sched.h, from linux-libc-dev) gives,
# so the command deploys the analysed target, interval, limit and marking threshold on any
# kernel that has the qdisc. The kernel's own read-back stays the test above.

UAPI_HEADER = "/usr/include/linux/pkt_sched.h"
#: rtnetlink's qdisc attributes (linux/rtnetlink.h enum: TCA_UNSPEC, TCA_KIND, TCA_OPTIONS).
TCA_KIND, TCA_OPTIONS = 1, 2
#: struct tcmsg: family (1) + padding (3) + ifindex, handle, parent, info (4 each).
TCMSG_BYTES = 20
#: tcm_parent of a root qdisc (linux/pkt_sched.h TC_H_ROOT).
TC_H_ROOT = 0xFFFF_FFFF


def _uapi_attributes(prefix: str) -> dict[str, int]:
    """The numbers of an attribute enum of linux/pkt_sched.h: ``{"TARGET": 1, ...}``."""
    with open(UAPI_HEADER, encoding="utf-8") as header:
        text = header.read()
    start = text.index(f"{prefix}UNSPEC")
    body = text[start : text.index(f"__{prefix}MAX", start)]
    names = [word.strip().rstrip(",") for word in body.split(",")]
    names = [name for name in (n.split()[0] for n in names if n.split()) if name]
    assert all(name.startswith(prefix) for name in names), names
    return {name.removeprefix(prefix): number for number, name in enumerate(names)}


def _attributes(data: bytes) -> dict[int, bytes]:
    """Netlink attributes (struct nlattr: u16 length, u16 type, payload padded to 4 bytes)."""
    found, offset = {}, 0
    while offset + 4 <= len(data):
        length = int.from_bytes(data[offset : offset + 2], "little")
        kind = int.from_bytes(data[offset + 2 : offset + 4], "little") & 0x3FFF
        assert length >= 4, data.hex()
        found[kind] = data[offset + 4 : offset + length]
        offset += (length + 3) & ~3
    return found


def _sent_qdisc_request(namespace: str, command: str) -> tuple[str, dict[int, int], int]:
    """The kind, the u32 options and the parent handle (tcmsg.tcm_parent) of the qdisc
    request tc sends for ``command``."""
    words = shlex.split(command)
    traced = _run(
        "strace", "-f", "-xx", "-s", "65536", "-e", "trace=sendmsg",
        "tc", "-n", namespace, *words[1:],
    )  # fmt: skip
    requests = re.findall(
        r"iov_base=\[\{nlmsg_len=\d+, [^}]*\}, \"((?:\\x[0-9a-f]{2})+)\"", traced.stderr
    )
    assert requests, traced.stderr
    payload = bytes.fromhex(requests[-1].replace("\\x", ""))
    top = _attributes(payload[TCMSG_BYTES:])
    kind = top[TCA_KIND].rstrip(b"\0").decode()
    options = {
        number: int.from_bytes(value, "little")
        for number, value in _attributes(top[TCA_OPTIONS]).items()
        if len(value) == 4
    }
    return kind, options, int.from_bytes(payload[12:16], "little")


UAPI_PREFIX = {"fq_codel": "TCA_FQ_CODEL_", "pie": "TCA_PIE_", "codel": "TCA_CODEL_"}


@pytest.mark.parametrize(("scenario", "kind", "expected"), AQM_CASES)
def test_tc_sends_the_kernel_the_analysed_aqm_and_ecn_options(
    veth: tuple[str, str], scenario: LinkScenario, kind: str, expected: dict[str, int]
) -> None:
    namespace, device = veth
    for tool, path in (("strace", shutil.which("strace")), ("the UAPI header", UAPI_HEADER)):
        if path is None or not Path(path).exists():
            pytest.skip(f"cannot read tc's netlink request: {tool} is not installed")
    rec, command = _recommended_snippet(scenario, device)
    sent_kind, options, parent = _sent_qdisc_request(namespace, command)
    assert (sent_kind, parent) == (kind, TC_H_ROOT)
    numbers = _uapi_attributes(UAPI_PREFIX[kind])
    # The kernel's attributes are in microseconds (tc-fq_codel(8), tc-pie(8) TIME), the limit
    # in packets; "ecn" is the attribute ECN = 1.
    wanted = {
        "LIMIT": rec.recommended.buffer_packets,
        **{k.upper(): v for k, v in expected.items()},
    }
    if "ce_threshold" in expected:
        wanted["ECN"] = 1
    assert {name: options.get(numbers[name]) for name in wanted} == wanted, options
    # The same qdisc in the htb shaper form: under class 1:1 (handle 0x00010001), same options.
    *shaper, leaf = tc_shaper_commands(
        device_config("tc", 1500.0, scenario.capacity_bps, interface=device).limit,
        device,
        command,
    )
    for line in shaper:
        assert _apply(namespace, line).returncode == 0, line
    sent_kind, leaf_options, parent = _sent_qdisc_request(namespace, leaf)
    assert (sent_kind, parent, leaf_options) == (kind, 0x0001_0001, options)
