"""SONiC's CONFIG_DB documents, as bufsize emits them, validated against SONiC's own YANG models
by libyang's ``yanglint`` (Debian's libyang2-tools, installed by .ci/run).

The models are sonic-buildimage's, copied under tests/data/sonic-yang/ (see its README.md for the
commit and the licence). A CONFIG_DB table ``T`` is the list ``T_LIST`` of the container ``T``
in the module that declares it, its key split at ``|`` into the list's key leaves, as SONiC's
own loader (sonic-yang-mgmt) reads it. The data are written as XML (every value as text), so
each value is read and checked by libyang against its YANG type, range, pattern, ``must`` and
``leafref``, not by a conversion of ours.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

from app.services.device import DeviceRequest, configure, configure_recommended, given_discipline
from models.recommend import LinkScenario, Targets, recommend

YANG_DIR = Path(__file__).resolve().parent.parent / "data" / "sonic-yang"
#: The modules the emitted tables (and the PORT row they refer to) live in, and what they import.
MODULES = (
    "sonic-buffer-pool",
    "sonic-buffer-profile",
    "sonic-buffer-queue",
    "sonic-wred-profile",
    "sonic-queue",
    "sonic-port",
    "sonic-device_metadata",
)
#: The port the snippets name, as the switch already has it (PORT requires lanes and speed).
INTERFACE = "Ethernet8"
PORT_ROW = {INTERFACE: {"lanes": "8,9,10,11", "speed": "100000", "admin_status": "up"}}

YANGLINT = shutil.which("yanglint")
needs_yanglint = pytest.mark.skipif(
    YANGLINT is None,
    reason="yanglint (Debian libyang2-tools) is not installed; .ci/run installs it",
)


@cache
def _tables() -> dict[str, tuple[str, str, str, tuple[str, ...]]]:
    """CONFIG_DB table -> (module, namespace, top container, key leaves), read from the models."""
    tables = {}
    for name in MODULES:
        text = (YANG_DIR / f"{name}.yang").read_text(encoding="utf-8")
        namespace = re.search(r'namespace\s+"([^"]+)"', text)
        assert namespace, name
        for table, keys in re.findall(r'list\s+(\w+)_LIST\s*\{[^{}]*?key\s+"([^"]+)"', text):
            tables[table] = (name, namespace.group(1), name, tuple(keys.split()))
    return tables


def config_db_xml(config_db: dict[str, dict[str, dict[str, str]]]) -> str:
    """The CONFIG_DB document as YANG instance data (XML), one top container per module."""
    modules: dict[str, list[str]] = {}
    namespaces: dict[str, str] = {}
    for table, rows in config_db.items():
        assert table in _tables(), f"no model declares the table {table}"
        module, namespace, _, keys = _tables()[table]
        namespaces[module] = namespace
        items = []
        for key, fields in rows.items():
            parts = key.split("|")
            assert len(parts) == len(keys), (table, key, keys)
            leaves = [*zip(keys, parts, strict=True), *fields.items()]
            body = "".join(f"<{leaf}>{escape(str(value))}</{leaf}>" for leaf, value in leaves)
            items.append(f"<{table}_LIST>{body}</{table}_LIST>")
        modules.setdefault(module, []).append(f"<{table}>{''.join(items)}</{table}>")
    return "\n".join(
        f'<{module} xmlns="{namespaces[module]}">{"".join(parts)}</{module}>'
        for module, parts in modules.items()
    )


def yanglint(config_db: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``yanglint`` on the document with the PORT row it refers to, as configuration data."""
    data = tmp_path / "config_db.xml"
    data.write_text(config_db_xml({**config_db, "PORT": PORT_ROW}), encoding="utf-8")
    schemas = [str(YANG_DIR / f"{name}.yang") for name in MODULES]
    return subprocess.run(
        [str(YANGLINT), "-D", "-p", str(YANG_DIR), "-t", "config", *schemas, str(data)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _sonic(scenario: LinkScenario, chip: float = 256 * 2**20) -> dict[str, Any]:
    device = DeviceRequest("sonic", interface=INTERFACE, chip_buffer_bytes=chip)
    config = configure_recommended(recommend(scenario, Targets()), scenario, device)
    assert config.config_db is not None
    return config.config_db


#: A drop-tail core port, a DCTCP leaf (WRED_PROFILE with ECN at K on the queue) and a CoDel
#: port (SONiC has no CoDel table: the buffer only), each as bufsize emits it.
LINKS = {
    "drop-tail": LinkScenario(capacity_bps=100e9, rtts_s=(0.05,), flows=5000),
    "dctcp": LinkScenario(
        capacity_bps=100e9, rtts_s=(100e-6,), flows=40, congestion_control="dctcp"
    ),
    # 1 Gb/s: CoDel's start-up hard limit, C·(TARGET + INTERVAL + T_e) = 10,417 packets
    # (15.6 MB), fits the chip (at 10 Gb/s it would need 156 MB).
    "codel": LinkScenario(capacity_bps=1e9, rtts_s=(0.02,), flows=100, aqm="codel"),
}


@needs_yanglint
@pytest.mark.parametrize("link", list(LINKS))
def test_emitted_config_db_is_valid_against_sonics_yang(link: str, tmp_path: Path) -> None:
    config_db = _sonic(LINKS[link])
    assert ("WRED_PROFILE" in config_db) == (link == "dctcp")
    done = yanglint(config_db, tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "err" not in done.stderr.lower(), done.stderr


@needs_yanglint
@pytest.mark.parametrize(
    ("size", "chip", "queues"),
    # tests/models/test_device_sonic.py's α cases (2^-5, 2^0, 2^-8 and 2^4), on queue 3.
    [(1_000_000, 64 * 2**20, 8), (12 * 2**20, 64 * 2**20, 4), (16_000, 16 * 2**20, 32),
     (30 * 2**20, 32 * 2**20, 1)],
)  # fmt: skip
def test_the_alpha_cases_are_valid_against_sonics_yang(
    size: float, chip: float, queues: int, tmp_path: Path
) -> None:
    device = DeviceRequest(
        "sonic",
        interface=INTERFACE,
        queue="3",
        chip_buffer_bytes=chip,
        congested_queues=queues,
        cell_bytes=256,
    )
    config = configure(device, size, 100e9, 1500.0)
    assert config.config_db is not None
    done = yanglint(config.config_db, tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout


@needs_yanglint
@pytest.mark.parametrize(
    ("size", "chip", "cell"),
    # The dynamic threshold at both ends of its range and between: a packet of a 64 MiB chip
    # (dynamic_th -8), 7 MB (0) and 8.38 MB (7, just under the 8.39 MB share of 8 queues).
    [(1_500, 64 * 2**20, 256), (7e6, 64 * 2**20, 208), (8.38e6, 64 * 2**20, 208)],
)
def test_given_sizes_are_valid_against_sonics_yang(
    size: float, chip: float, cell: int, tmp_path: Path
) -> None:
    device = DeviceRequest("sonic", interface=INTERFACE, chip_buffer_bytes=chip, cell_bytes=cell)
    config = configure(device, size, 100e9, 1500.0)
    assert config.config_db is not None
    dynamic_th = config.config_db["BUFFER_PROFILE"]["bufsize_egress_profile"]["dynamic_th"]
    assert dynamic_th == {1_500: "-8", 7e6: "0", 8.38e6: "7"}[size]
    done = yanglint(config.config_db, tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout


def _broken(change: str) -> dict[str, Any]:
    db = copy.deepcopy(_sonic(LINKS["dctcp"]))
    if change == "dynamic_th":
        db["BUFFER_PROFILE"]["bufsize_egress_profile"]["dynamic_th"] = "8"  # range -8..7
    elif change == "wred":
        db["WRED_PROFILE"]["bufsize_ecn"]["green_max_threshold"] = "1"  # below green min
    elif change == "leafref":
        db["BUFFER_QUEUE"][f"{INTERFACE}|0"]["profile"] = "no_such_profile"
    elif change == "ecn":
        db["WRED_PROFILE"]["bufsize_ecn"]["ecn"] = "ecn_everything"  # not an enum value
    return db


@needs_yanglint
@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("dynamic_th", "dynamic_th"),
        ("wred", "Green max threshold must be greater than or equal to min threshold"),
        ("leafref", "no_such_profile"),
        ("ecn", "ecn_everything"),
    ],
)
def test_the_check_refuses_what_sonic_would_refuse(change: str, words: str, tmp_path: Path) -> None:
    # The validator is not a formality: a value out of the model's range, a broken must, a
    # reference to nothing and an unknown enum are each refused, naming what is wrong.
    done = yanglint(_broken(change), tmp_path)
    assert done.returncode != 0
    assert words in done.stderr, done.stderr


@needs_yanglint
def test_a_given_size_with_dctcps_threshold_is_valid_against_sonics_yang(tmp_path: Path) -> None:
    # What /v1/config and 'bufsize config --buffer --ecn-threshold' build for a given size:
    # 500 KB with K = 150 KB on a 64 MiB chip (ECN profile at K, rounded to the 256 B cell).
    device = DeviceRequest(
        "sonic",
        interface=INTERFACE,
        chip_buffer_bytes=64 * 2**20,
        discipline=given_discipline("none", ecn_threshold_bytes=150e3, buffer_bytes=500e3),
    )
    config = configure(device, 500e3, 100e9, 1500.0)
    assert config.config_db is not None
    assert config.config_db["WRED_PROFILE"]["bufsize_ecn"]["green_min_threshold"] == "150016"
    done = yanglint(config.config_db, tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
