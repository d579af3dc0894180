"""The SONiC CONFIG_DB snippet: the dynamic threshold α it chooses, the reserved size, the ECN
step of a DCTCP port and the Copy text. Its validity against SONiC's own YANG models is checked
by libyang in tests/models/test_device_sonic_yang.py (the models are in tests/data/sonic-yang/).

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
from typing import Any

import pytest

from models.device import QueueDiscipline, device_config
from models.errors import ParameterError
from models.shared_buffer import steady_queue_bytes

COLOURS = ("green", "yellow", "red")


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
def test_dynamic_threshold_gives_each_congested_queue_its_size(
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
    profile = document["WRED_PROFILE"]["bufsize_ecn"]
    assert profile["ecn"] == "ecn_all"
    for colour in COLOURS:
        # DCTCP's step: every ECN-capable packet is marked once the queue passes K.
        assert profile[f"{colour}_min_threshold"] == profile[f"{colour}_max_threshold"] == "18176"
        assert profile[f"wred_{colour}_enable"] == "true"
        assert profile[f"{colour}_drop_probability"] == "100"
    assert document["QUEUE"] == {"Ethernet8|3": {"wred_profile": "bufsize_ecn"}}


def test_copy_text_is_valid_json_and_the_comments_are_notes() -> None:
    config = device_config("sonic", 1e6, 10e9, chip_buffer_bytes=64 * MIB)
    assert json.loads(config.text) == config.config_db
    assert any(note.startswith("bufsize: queue limit") for note in config.notes)
