"""The SONiC CONFIG_DB snippet against SONiC's YANG models of the buffer tables.

Read from sonic-net/sonic-buildimage (commit 086b03bd70f9e211aaaf5f6aefe0790b508d2a94),
``src/sonic-yang-models/yang-models/``; the lines that constrain the emitted tables are quoted
here, the files are not copied::

    sonic-buffer-pool.yang, container BUFFER_POOL, list BUFFER_POOL_LIST:
        key "name";
        leaf name { type string; }
        leaf type { mandatory true; type enumeration { enum ingress; enum egress; enum both; } }
        leaf mode { mandatory true; type enumeration { enum static; enum dynamic; } }
        leaf size { type uint64; description "Buffer Pool Size (in Bytes)"; }
        leaf xoff { default 0; type uint64; }
        leaf percentage { type uint8; must "(not(current()/../size))" ... }

    sonic-buffer-profile.yang, container BUFFER_PROFILE, list BUFFER_PROFILE_LIST:
        key "name";
        leaf static_th { type uint64; }
        leaf dynamic_th { type int32 { range "-8..7"; } }
        leaf size { mandatory true; type uint64;
                    description "Reserved buffer size in bytes for this profile."; }
        leaf pool { mandatory true; type leafref {
                    path "/bpl:sonic-buffer-pool/bpl:BUFFER_POOL/bpl:BUFFER_POOL_LIST/bpl:name"; } }
        (and xon_offset, xon, xoff, headroom_type, packet_discard_action, all optional)

    sonic-buffer-queue.yang, container BUFFER_QUEUE, list BUFFER_QUEUE_LIST:
        key "port qindex";
        leaf port { type leafref { path "/prt:sonic-port/prt:PORT/prt:PORT_LIST/prt:name"; } }
        leaf qindex { type string { pattern "(1[0-5]|[0-9])((-)(1[0-5]|[0-9]))?" } }
        leaf profile { type leafref { path
            "/bpf:sonic-buffer-profile/bpf:BUFFER_PROFILE/bpf:BUFFER_PROFILE_LIST/bpf:name"; } }

    sonic-wred-profile.yang (revision 2021-04-01), container WRED_PROFILE, list WRED_PROFILE_LIST:
        key "name";
        leaf name { type string { pattern '[a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})';
                                  length 1..32; } }
        leaf green_min_threshold { type uint64; units bytes; }   (yellow_, red_ alike)
        leaf green_max_threshold { type uint64; units bytes;
            must "(current() >= current()/../green_min_threshold)"; }   (yellow_, red_ alike)
        leaf ecn { type enumeration { enum ecn_none; enum ecn_green; enum ecn_yellow;
            enum ecn_red; enum ecn_green_yellow; enum ecn_green_red; enum ecn_yellow_red;
            enum ecn_all; } default ecn_none; }
        leaf wred_green_enable { type boolean; default false; }   (yellow, red alike)
        leaf green_drop_probability { type uint64 { range "0..100"; } units percent; }

    sonic-queue.yang (revision 2021-04-01), container QUEUE, list QUEUE_LIST:
        key "ifname qindex";
        leaf ifname { type union { type leafref { path ".../PORT/PORT_LIST/name"; }
                                   type string { pattern "CPU"; } } }
        leaf qindex { type string; }
        leaf scheduler { type leafref { path ".../SCHEDULER/SCHEDULER_LIST/name"; } }
        leaf wred_profile { type leafref {
            path "/wrd:sonic-wred-profile/wrd:WRED_PROFILE/wrd:WRED_PROFILE_LIST/wrd:name"; } }

    sample_config_db.json writes a profile as strings: "ecn": "ecn_all",
    "green_max_threshold": "2048000", "wred_green_enable": "true", "green_drop_probability": "50".

``dynamic_th`` is log2 α: SAI (opencomputeproject/SAI inc/saibuffer.h),
SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH, "Dynamic threshold for the shared usage. The threshold
is set to the 2^n of available buffer of the pool."

CONFIG_DB keeps every value as a string and joins a two-leaf key with ``|``, as in
sonic-yang-models/tests/files/sample_config_db.json: ``"BUFFER_QUEUE": {"Ethernet10|4":
{"profile": "egress_lossy_profile"}}`` and ``"egress_lossy_profile": {"pool":
"egress_lossy_pool", "size": "1518", "dynamic_th": "3"}``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from models.device import QueueDiscipline, device_config
from models.errors import ParameterError
from models.shared_buffer import steady_queue_bytes

UINT64_MAX = 2**64 - 1
INT32 = re.compile(r"-?[0-9]+")
UINT = re.compile(r"[0-9]+")
# YANG patterns match the whole value (RFC 7950 §9.4.5), hence the anchors.
QINDEX = re.compile(r"(1[0-5]|[0-9])((-)(1[0-5]|[0-9]))?")

POOL_LEAVES = {"type", "mode", "size", "xoff", "percentage"}
PROFILE_LEAVES = {
    "static_th",
    "dynamic_th",
    "size",
    "pool",
    "xon_offset",
    "xon",
    "xoff",
    "headroom_type",
    "packet_discard_action",
}


def _uint64(value: Any) -> int:
    assert isinstance(value, str) and UINT.fullmatch(value), value
    number = int(value)
    assert 0 <= number <= UINT64_MAX
    return number


WRED_NAME = re.compile(r"[a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})")
ECN_MODES = {
    "ecn_none",
    "ecn_green",
    "ecn_yellow",
    "ecn_red",
    "ecn_green_yellow",
    "ecn_green_red",
    "ecn_yellow_red",
    "ecn_all",
}
COLOURS = ("green", "yellow", "red")
WRED_LEAVES = {"ecn"} | {
    f"{leaf}"
    for colour in COLOURS
    for leaf in (
        f"{colour}_min_threshold",
        f"{colour}_max_threshold",
        f"wred_{colour}_enable",
        f"{colour}_drop_probability",
    )
}


def check_wred_against_yang(document: dict[str, Any]) -> None:
    """Assert the WRED_PROFILE and QUEUE tables satisfy the quoted YANG constraints."""
    profiles = document["WRED_PROFILE"]
    for name, profile in profiles.items():
        assert WRED_NAME.fullmatch(name) and 1 <= len(name) <= 32
        assert set(profile) <= WRED_LEAVES
        assert profile.get("ecn", "ecn_none") in ECN_MODES
        for colour in COLOURS:
            low = profile.get(f"{colour}_min_threshold")
            high = profile.get(f"{colour}_max_threshold")
            if high is not None:
                assert _uint64(high) >= _uint64(low or "0")  # must max >= min
            if low is not None:
                _uint64(low)
            assert profile.get(f"wred_{colour}_enable", "false") in {"true", "false"}
            probability = profile.get(f"{colour}_drop_probability", "100")
            assert 0 <= _uint64(probability) <= 100  # range "0..100"
    for key, entry in document["QUEUE"].items():
        ifname, qindex = key.split("|")
        assert ifname and qindex
        assert set(entry) <= {"scheduler", "wred_profile"}
        assert entry["wred_profile"] in profiles  # leafref resolves inside the document


def check_against_yang(document: dict[str, Any]) -> None:
    """Assert ``document`` satisfies the quoted YANG constraints, references included."""
    if "WRED_PROFILE" in document or "QUEUE" in document:
        check_wred_against_yang(document)
        document = {k: v for k, v in document.items() if k not in ("WRED_PROFILE", "QUEUE")}
    assert set(document) == {"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_QUEUE"}
    pools = document["BUFFER_POOL"]
    for pool in pools.values():
        assert set(pool) <= POOL_LEAVES
        assert {"type", "mode"} <= set(pool)  # mandatory true
        assert pool["type"] in {"ingress", "egress", "both"}
        assert pool["mode"] in {"static", "dynamic"}
        assert not ("size" in pool and "percentage" in pool)  # must not(size)
        _uint64(pool["size"])
    profiles = document["BUFFER_PROFILE"]
    for profile in profiles.values():
        assert set(profile) <= PROFILE_LEAVES
        assert {"size", "pool"} <= set(profile)  # mandatory true
        _uint64(profile["size"])
        assert profile["pool"] in pools  # leafref resolves inside the document
        th = profile["dynamic_th"]
        assert isinstance(th, str) and INT32.fullmatch(th)
        assert -8 <= int(th) <= 7  # range "-8..7"
    for key, entry in document["BUFFER_QUEUE"].items():
        port, qindex = key.split("|")
        assert port and QINDEX.fullmatch(qindex)
        assert set(entry) == {"profile"}
        assert entry["profile"] in profiles  # leafref resolves inside the document


def _json_part(text: str) -> dict[str, Any]:
    # The text is the JSON alone (what Copy puts on the clipboard must load as it is).
    return dict(json.loads(text))


MIB = 2**20


@pytest.mark.parametrize(
    ("buffer_bytes", "chip_bytes", "n", "log2_alpha"),
    [
        # α_min = S/(B − nS), then rounded up to a power of two (hand-computed):
        # 1 MB of 64 MiB with 8 queues: 1000192/(67108864 − 8001536) = 0.01692 -> 2^-5.
        (1_000_000, 64 * MIB, 8, -5),
        # 12 MiB with 4 queues: 12582912/(67108864 − 50331648) = 0.75 -> 2^0 = 1.
        (12 * MIB, 64 * MIB, 4, 0),
        # 16000 B with 32 queues: 16128/(16777216 − 516096) = 0.000992 -> below 2^-8, so -8.
        (16_000, 16 * MIB, 32, -8),
        # 30 MiB alone in 32 MiB: 31457280/(33554432 − 31457280) = 15 -> 2^4.
        (30 * MIB, 32 * MIB, 1, 4),
    ],
)
def test_config_db_satisfies_the_yang_models(
    buffer_bytes: int, chip_bytes: int, n: int, log2_alpha: int
) -> None:
    config = device_config(
        "sonic",
        buffer_bytes,
        100e9,
        chip_buffer_bytes=chip_bytes,
        congested_queues=n,
        cell_bytes=256,
        interface="Ethernet8",
        queue="3",
    )
    document = _json_part(config.text)
    assert document == config.config_db
    check_against_yang(document)
    profile = document["BUFFER_PROFILE"]["bufsize_egress_profile"]
    assert profile["dynamic_th"] == str(log2_alpha)
    assert document["BUFFER_QUEUE"] == {"Ethernet8|3": {"profile": "bufsize_egress_profile"}}
    pool = int(document["BUFFER_POOL"]["bufsize_egress_pool"]["size"])
    assert pool == chip_bytes  # already a whole number of 256 B cells
    # The α emitted gives each of n congested queues at least the size rounded to the cell.
    rounded = -(-buffer_bytes // 256) * 256
    assert config.limit.limit_bytes == rounded
    assert steady_queue_bytes(2.0**log2_alpha, pool, n) >= rounded


def test_reserved_size_is_one_packet_in_cells() -> None:
    config = device_config("sonic", 1e6, 10e9, chip_buffer_bytes=32 * MIB, cell_bytes=96)
    assert config.config_db is not None
    # 1500 B in 96 B cells: 16 cells = 1536 B.
    assert config.config_db["BUFFER_PROFILE"]["bufsize_egress_profile"]["size"] == "1536"


def test_sonic_needs_a_chip_buffer_that_can_hold_the_queues() -> None:
    with pytest.raises(ParameterError, match="chip_buffer_bytes is required for sonic") as err:
        device_config("sonic", 1e6, 10e9)
    assert err.value.name == "chip_buffer_bytes"
    with pytest.raises(ParameterError, match="chip_buffer_bytes: no α suffices") as err:
        device_config("sonic", 10e6, 10e9, chip_buffer_bytes=64 * MIB, congested_queues=8)
    assert err.value.name == "chip_buffer_bytes"


def test_checker_rejects_what_yang_rejects() -> None:
    # The checker is only worth something if it fails on the errors it is meant to catch.
    good = device_config("sonic", 1e6, 10e9, chip_buffer_bytes=64 * MIB).config_db
    assert good is not None
    for path, bad in (
        (("BUFFER_PROFILE", "bufsize_egress_profile", "dynamic_th"), "8"),
        (("BUFFER_PROFILE", "bufsize_egress_profile", "pool"), "missing_pool"),
        (("BUFFER_PROFILE", "bufsize_egress_profile", "size"), "1.5"),
        (("BUFFER_QUEUE", "Ethernet0|0", "profile"), "missing_profile"),
        (("BUFFER_POOL", "bufsize_egress_pool", "mode"), "shared"),
    ):
        broken = json.loads(json.dumps(good))
        broken[path[0]][path[1]][path[2]] = bad
        with pytest.raises(AssertionError):
            check_against_yang(broken)
    broken = json.loads(json.dumps(good))
    broken["BUFFER_QUEUE"] = {"Ethernet0|16": {"profile": "bufsize_egress_profile"}}
    with pytest.raises(AssertionError):
        check_against_yang(broken)


def test_dctcp_port_marks_ecn_at_k_per_the_yang_models() -> None:
    # K = 12 packets of 1500 B = 18,000 B, rounded up to 256 B cells: 18,176 B.
    k = 12 * 1500.0
    config = device_config(
        "sonic",
        300 * 1500.0,
        10e9,
        chip_buffer_bytes=32 * MIB,
        interface="Ethernet8",
        queue="3",
        discipline=QueueDiscipline(ecn_threshold_bytes=k),
    )
    document = json.loads(config.text)
    assert document == config.config_db
    check_against_yang(document)
    profile = document["WRED_PROFILE"]["bufsize_ecn"]
    assert profile["ecn"] == "ecn_all"
    for colour in COLOURS:
        # DCTCP's step: every ECN-capable packet is marked once the queue passes K.
        assert profile[f"{colour}_min_threshold"] == profile[f"{colour}_max_threshold"] == "18176"
        assert profile[f"wred_{colour}_enable"] == "true"
        assert profile[f"{colour}_drop_probability"] == "100"
    assert document["QUEUE"] == {"Ethernet8|3": {"wred_profile": "bufsize_ecn"}}


def test_checker_rejects_a_wred_profile_yang_rejects() -> None:
    good = device_config(
        "sonic",
        1e6,
        10e9,
        chip_buffer_bytes=64 * MIB,
        discipline=QueueDiscipline(ecn_threshold_bytes=20_000.0),
    ).config_db
    assert good is not None
    for table, key, leaf, bad in (
        ("WRED_PROFILE", "bufsize_ecn", "ecn", "ecn_on"),
        ("WRED_PROFILE", "bufsize_ecn", "green_max_threshold", "100"),  # below min
        ("WRED_PROFILE", "bufsize_ecn", "green_drop_probability", "101"),
        ("QUEUE", "Ethernet0|0", "wred_profile", "missing_profile"),
    ):
        broken = json.loads(json.dumps(good))
        broken[table][key][leaf] = bad
        with pytest.raises(AssertionError):
            check_against_yang(broken)


def test_copy_text_is_valid_json_and_the_comments_are_notes() -> None:
    config = device_config("sonic", 1e6, 10e9, chip_buffer_bytes=64 * MIB)
    assert json.loads(config.text) == config.config_db
    assert any(note.startswith("bufsize: queue limit") for note in config.notes)
