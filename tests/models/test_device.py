"""Device configuration: rounding to the memory cell, unit conversions, golden snippets.

Each golden snippet was reviewed line by line against the vendor document its template cites;
the page and the sentence each line rests on are quoted beside it.
"""

from __future__ import annotations

from typing import Any

import pytest

from models.device import (
    DEFAULT_CELL_BYTES,
    QueueDiscipline,
    codel_times_us,
    device_config,
    queue_limit,
    tc_commands,
)
from models.errors import ParameterError

# --- rounding and conversions (hand-computed) --------------------------------------------------


def test_queue_limit_rounds_up_to_the_cell_and_converts_at_line_rate() -> None:
    # 1,250,000 B in 256 B cells: 1250000/256 = 4882.81 -> 4883 cells = 1,250,048 B;
    # 1,250,048/1500 = 833.37 -> 834 packets; 1,250,048·8/10^10 s = 1000.04 us -> 1001 us.
    limit = queue_limit(1_250_000, 10e9, 1500.0, 256)
    assert (limit.limit_bytes, limit.limit_packets, limit.limit_us) == (1_250_048, 834, 1001)
    assert limit.limit_s == pytest.approx(1_250_048 * 8 / 10e9, rel=1e-15)
    # A whole number of cells stays as it is, even through floating point (834 · 1500.0).
    exact = queue_limit(834 * 1500.0, 10e9, 1500.0, 1)
    assert (exact.limit_bytes, exact.limit_packets, exact.limit_us) == (1_251_000, 834, 1001)
    # 0.1 + 0.2 is 0.30000000000000004 in binary; it is still 1 byte, not 2.
    assert queue_limit(0.1 + 0.2 + 0.7, 1e9, 1.0, 1).limit_bytes == 1


def test_rounding_never_gives_less_than_asked() -> None:
    for size in (1.0, 255.0, 257.0, 1e6 + 0.5, 35_227_500.0):
        for cell in (1, 96, 144, 176, 192, 208, 256):
            limit = queue_limit(size, 25e9, 1500.0, cell)
            assert limit.limit_bytes >= size
            assert limit.limit_bytes - size < cell
            assert limit.limit_bytes % cell == 0
            assert limit.limit_packets * 1500.0 >= limit.limit_bytes
            assert limit.limit_us * 1e-6 * 25e9 / 8 >= limit.limit_bytes


def test_vendor_default_cells() -> None:
    # sonic-buildimage platform/mellanox/asic_table.j2, MELLANOX-SPECTRUM-6: "cell_size": "256".
    assert DEFAULT_CELL_BYTES["sonic"] == 256
    assert device_config("sonic", 1000, 1e9, chip_buffer_bytes=2**20).limit.limit_bytes == 1024
    assert device_config("tc", 1000, 1e9).limit.limit_bytes == 1000
    assert device_config("tc", 1000, 1e9, cell_bytes=96).limit.limit_bytes == 1056


def test_codel_times() -> None:
    limit = queue_limit(1_250_000, 10e9)
    # tc-codel(8): interval "on the order of the worst-case RTT through the bottleneck" (RFC
    # 8289 §4.2: "slightly larger than the RTT seen by most of the connections"); target 5 % of
    # it (RFC 8289 §4.5: "TARGET is set to 5% of INTERVAL"; 5 ms of 100 ms).
    assert codel_times_us(0.1, limit) == (5_000, 100_000)
    assert codel_times_us(None, limit) == (5_000, 100_000)  # tc-codel(8) default interval 100ms
    assert codel_times_us(0.02, limit) == (1_000, 20_000)
    # At 1 Mbit/s a 1500 B packet takes 12 ms: target is raised to one packet time.
    slow = queue_limit(150_000, 1e6)
    assert codel_times_us(0.1, slow) == (12_000, 100_000)


def test_tc_commands() -> None:
    limit = queue_limit(1_250_000, 10e9)
    # tc-pfifo(8): "limit ... in packets for pfifo"; tc-bfifo(8) "in bytes for bfifo";
    # tc-fq_codel(8): "fq_codel [ limit PACKETS ] ... [ target TIME ] [ interval TIME ]".
    assert tc_commands(limit, "eth1", 0.05) == {
        "pfifo": "tc qdisc replace dev eth1 root pfifo limit 834",
        "bfifo": "tc qdisc replace dev eth1 root bfifo limit 1250000",
        "fq_codel": "tc qdisc replace dev eth1 root fq_codel limit 834 target 2500us "
        "interval 50000us",
        "codel": "tc qdisc replace dev eth1 root codel limit 834 target 2500us interval 50000us",
        # tc-pie(8): "target TIME ... Default value is 15ms" (RFC 8033 §4.2 QDELAY_REF),
        # tupdate: RFC 8033 §4.2's T_UPDATE of 15 ms (sch_pie's default since Linux 5.1)
        "pie": "tc qdisc replace dev eth1 root pie limit 834 target 15000us tupdate 15000us",
    }
    text = device_config("tc", 1_250_000, 10e9, interface="eth1", rtt_s=0.05, qdisc="bfifo").text
    active = [line for line in text.splitlines() if not line.startswith("#")]
    assert active == ["tc qdisc replace dev eth1 root bfifo limit 1250000"]
    assert "# tc qdisc replace dev eth1 root pfifo limit 834" in text.splitlines()


# --- golden snippets ---------------------------------------------------------------------------

JUNOS_HEADER = """\
# follows Junos OS 13.2 documentation (the statement exists since before Junos OS 7.4):
#   'buffer-size (Schedulers)', [edit class-of-service schedulers scheduler-name]:
#   buffer-size (percent percentage | remainder | temporal microseconds);
#   temporal: 'This maximum is computed by multiplying the logical interface speed by the
#   configured temporal value'; its range varies by platform (Buffer Size Temporal Value
#   Ranges by Router Type)
"""

# Juniper, "buffer-size (Schedulers)", Junos OS 13.2 documentation
# (juniper.net/documentation/en_US/junos13.2/topics/reference/configuration-statement/
# buffer-size-edit-cos.html):
#   Hierarchy Level: [edit class-of-service schedulers scheduler-name]
#   "percent percentage—Buffer size as a percentage of the total buffer. Range: 0 through 100"
#   "temporal microseconds—Buffer size as a temporal value. The queuing algorithm starts
#    dropping packets when it queues more than a computed number of bytes. This maximum is
#    computed by multiplying the logical interface speed by the configured temporal value."
# Line by line: "set class-of-service schedulers S buffer-size temporal U" sets that statement
# (U in microseconds, rounded up so that speed × U covers the bytes); the scheduler-map line
# binds the scheduler to a forwarding class, and the interfaces line applies the map to the port
# ("Configuring the Scheduler Buffer Size", same release: schedulers are associated with
# forwarding classes through scheduler maps applied to interfaces).
JUNOS_GOLDEN = [
    (
        # 15,000 B at 10 Gbit/s: 15000·8/10^10 s = 12 us exactly.
        {"buffer_bytes": 15_000, "capacity_bps": 10e9, "packet_bytes": 1000.0},
        "# bufsize: queue limit 15000 B = 15 packets of 1000 B = 12 us at 10 Gbit/s "
        "(asked 15000 B, cell 1 B)\n" + JUNOS_HEADER + "set class-of-service schedulers "
        "bufsize-sched buffer-size temporal 12\n"
        "set class-of-service scheduler-maps bufsize-map forwarding-class best-effort "
        "scheduler bufsize-sched\n"
        "set class-of-service interfaces xe-0/0/0 scheduler-map bufsize-map\n",  # 10G: xe-
    ),
    (
        # 1.25 MB at 10 Gbit/s = 1000 us; as a share of a 100 MB buffer 1.25 % -> 2 (whole
        # percent, rounded up: "percent percentage ... Range: 0 through 100").
        {
            "buffer_bytes": 1_250_000,
            "capacity_bps": 10e9,
            "chip_buffer_bytes": 100e6,
            "interface": "xe-0/0/1",
        },
        "# bufsize: queue limit 1250000 B = 834 packets of 1500 B = 1000 us at 10 Gbit/s "
        "(asked 1250000 B, cell 1 B)\n" + JUNOS_HEADER + "set class-of-service schedulers "
        "bufsize-sched buffer-size temporal 1000\n"
        "set class-of-service scheduler-maps bufsize-map forwarding-class best-effort "
        "scheduler bufsize-sched\n"
        "set class-of-service interfaces xe-0/0/1 scheduler-map bufsize-map\n"
        "# or as a share of a 100000000 B delay buffer ('percent percentage', Range: 0 "
        "through 100):\n"
        "# set class-of-service schedulers bufsize-sched buffer-size percent 2\n",
    ),
    (
        # 35,227,500 B at 400 Gbit/s: 704.55 us -> 705 (400e9/8 · 705e-6 = 35,250,000 B).
        {"buffer_bytes": 35_227_500, "capacity_bps": 400e9, "interface": "et-1/0/0"},
        "# bufsize: queue limit 35227500 B = 23485 packets of 1500 B = 705 us at 400 Gbit/s "
        "(asked 35227500 B, cell 1 B)\n" + JUNOS_HEADER + "set class-of-service schedulers "
        "bufsize-sched buffer-size temporal 705\n"
        "set class-of-service scheduler-maps bufsize-map forwarding-class best-effort "
        "scheduler bufsize-sched\n"
        "set class-of-service interfaces et-1/0/0 scheduler-map bufsize-map\n",
    ),
]

IOSXR_HEADER = """\
! follows Cisco IOS XR Release 6.x, Modular QoS Command Reference for Cisco NCS 5500 Series \
and NCS 540 Series Routers:
!   'queue-limit value [unit]' in policy map class configuration; value 1 to 4294967295;
!   unit bytes, kbytes, mbytes, ms, packets (default; 'packets are assumed to be 256 bytes
!   in size') or us
"""


def _iosxr_body(limit_us: int, limit_bytes: int, interface: str) -> str:
    # Cisco, Modular QoS Command Reference for Cisco NCS 5500 Series and Cisco NCS 540 Series
    # Routers, "queue-limit": "To specify or modify the maximum number of packets the queue can
    # hold for a class policy configured in a policy map for each port, use the queue-limit
    # command in policy map class configuration mode."; "queue-limit value [unit]"; "value:
    # Maximum threshold for tail drop in bytes. Range is from 1 to 4294967295"; "unit: bytes,
    # kbytes, mbytes, ms, packets (default), us"; "When configuring the queue-limit command,
    # you must configure one of the following commands: priority, shape average, bandwidth or
    # bandwidth remaining, except for the default class" (so class-default is used);
    # "The queue-limit command is supported only in the egress direction" (service-policy
    # output). The CRS reference (Release 4.0): "When the queue limit is configured in time
    # units, the guaranteed service rate of the class is used to calculate the queue limit in
    # bytes". "policy-map" / "class" / "end-policy-map" and "service-policy output" are the
    # IOS XR MQC structure of the same reference's examples.
    return (
        f"! the same limit in time: queue-limit {limit_us} us ('the guaranteed service rate of "
        "the\n"
        "! class is used to calculate the queue limit in bytes': the line rate only when "
        "class-default is alone)\n"
        "policy-map bufsize-egress\n"
        " class class-default\n"
        f"  queue-limit {limit_bytes} bytes\n"
        " !\n"
        " end-policy-map\n"
        "!\n"
        f"interface {interface}\n"
        " service-policy output bufsize-egress\n"
        "!\n"
    )


IOSXR_GOLDEN = [
    (
        {"buffer_bytes": 15_000, "capacity_bps": 10e9, "packet_bytes": 1000.0},
        "! bufsize: queue limit 15000 B = 15 packets of 1000 B = 12 us at 10 Gbit/s "
        "(asked 15000 B, cell 1 B)\n"
        + IOSXR_HEADER
        + _iosxr_body(12, 15_000, "TenGigE0/0/0/0"),  # the placeholder has the port's speed
    ),
    (
        # 256 B cells: 1,250,000 -> 1,250,048 B; 1000.04 us -> 1001 us.
        {
            "buffer_bytes": 1_250_000,
            "capacity_bps": 10e9,
            "cell_bytes": 256,
            "interface": "TenGigE0/0/0/1",
        },
        "! bufsize: queue limit 1250048 B = 834 packets of 1500 B = 1001 us at 10 Gbit/s "
        "(asked 1250000 B, cell 256 B)\n"
        + IOSXR_HEADER
        + _iosxr_body(1001, 1_250_048, "TenGigE0/0/0/1"),
    ),
    (
        {"buffer_bytes": 35_227_500, "capacity_bps": 400e9},
        "! bufsize: queue limit 35227500 B = 23485 packets of 1500 B = 705 us at 400 Gbit/s "
        "(asked 35227500 B, cell 1 B)\n"
        + IOSXR_HEADER
        + _iosxr_body(705, 35_227_500, "FourHundredGigE0/0/0/0"),
    ),
]

# Arista Transfer of Information pages (arista.com/en/support/toi, tag "voq"): "Temporal Tail
# Drop Thresholds enables the configuration of interface TX queue tail drops thresholds in units
# of time. The system dynamically computes the maximum allowable queue occupancy by considering
# the current interface speed and the Weighted Round Robin (WRR) bandwidth allocation." and
# "Configurable Voq Tail Drop Thresholds provides flexibility to change default voq tail drop
# based on speed of the ..." The pages found give no command syntax, so the snippet is comments
# with the numbers only, and says so.
# Arista AVD's eos_cli_config_gen (aristanetworks/avd, commit 3cac535) writes a QoS profile as
# "qos profile NAME" / "   tx-queue N" / "      random-detect drop minimum-threshold MIN UNITS
# maximum-threshold MAX UNITS drop-probability P weight W" (qos-profiles.j2,
# ethernet-interface-tx-queues.j2) and applies it with "   service-profile NAME" under the
# interface (ethernet-interfaces.j2). The commands below are written out by hand from those.
EOS_GOLDEN = [
    (
        {"buffer_bytes": 15_000, "capacity_bps": 10e9, "packet_bytes": 1000.0},
        "! bufsize: queue limit 15000 B = 15 packets of 1000 B = 12 us at 10 Gbit/s "
        "(asked 15000 B, cell 1 B)",
        [
            "qos profile bufsize",
            "   tx-queue 0",
            "      random-detect drop minimum-threshold 15000 bytes maximum-threshold 15000 bytes "
            "drop-probability 100 weight 0",
            "interface Ethernet1",
            "   service-profile bufsize",
        ],
    ),
    (
        {
            "buffer_bytes": 1_250_000,
            "capacity_bps": 10e9,
            "queue": "3",
            "interface": "Ethernet7/1",
        },
        "! bufsize: queue limit 1250000 B = 834 packets of 1500 B = 1000 us at 10 Gbit/s "
        "(asked 1250000 B, cell 1 B)",
        [
            "qos profile bufsize",
            "   tx-queue 3",
            "      random-detect drop minimum-threshold 1250000 bytes maximum-threshold 1250000 "
            "bytes drop-probability 100 weight 0",
            "interface Ethernet7/1",
            "   service-profile bufsize",
        ],
    ),
    (
        # 208 B cells: 35,227,500/208 = 169362.98 -> 169363 cells = 35,227,504 B; 23485.003 ->
        # 23486 packets; 704.55 us -> 705 us.
        {"buffer_bytes": 35_227_500, "capacity_bps": 400e9, "cell_bytes": 208},
        "! bufsize: queue limit 35227504 B = 23486 packets of 1500 B = 705 us at 400 Gbit/s "
        "(asked 35227500 B, cell 208 B)",
        [
            "qos profile bufsize",
            "   tx-queue 0",
            "      random-detect drop minimum-threshold 35227504 bytes maximum-threshold 35227504 "
            "bytes drop-probability 100 weight 0",
            "interface Ethernet1",
            "   service-profile bufsize",
        ],
    ),
    (
        # 300 MB is above the 256,000,000 a threshold takes in one unit: 300,000 kbytes.
        {"buffer_bytes": 300e6, "capacity_bps": 400e9},
        "! bufsize: queue limit 300000000 B = 200000 packets of 1500 B = 6000 us at 400 Gbit/s "
        "(asked 300000000 B, cell 1 B)",
        [
            "qos profile bufsize",
            "   tx-queue 0",
            "      random-detect drop minimum-threshold 300000 kbytes maximum-threshold 300000 "
            "kbytes drop-probability 100 weight 0",
            "interface Ethernet1",
            "   service-profile bufsize",
        ],
    ),
]


@pytest.mark.parametrize(("arguments", "first", "commands"), EOS_GOLDEN)
def test_eos_golden_commands(arguments: dict[str, Any], first: str, commands: list[str]) -> None:
    args = dict(arguments)
    size, rate = args.pop("buffer_bytes"), args.pop("capacity_bps")
    config = device_config("eos", size, rate, **args)
    lines = config.text.splitlines()
    assert lines[0] == first
    assert [line for line in lines if not line.startswith("!")] == commands
    assert any("WRED drop step" in note for note in config.notes)


def test_eos_dctcp_port_marks_at_k_and_an_aqm_is_said_to_be_missing() -> None:
    # K = 20,000 B: "random-detect ecn minimum-threshold MIN UNITS maximum-threshold MAX UNITS
    # max-mark-probability P weight W" (ethernet-interface-tx-queues.j2), a step at K.
    dctcp = device_config(
        "eos", 1e6, 10e9, discipline=QueueDiscipline(ecn_threshold_bytes=20_000.0)
    )
    assert (
        "      random-detect ecn minimum-threshold 20000 bytes maximum-threshold 20000 bytes "
        "max-mark-probability 100 weight 0"
    ) in dctcp.text.splitlines()
    codel = device_config("eos", 1e6, 10e9, discipline=QueueDiscipline(aqm="codel"))
    assert "! codel: EOS has no such AQM in the cited documents" in codel.text
    commands = [line for line in codel.text.splitlines() if not line.startswith("!")]
    assert not any("random-detect ecn" in line for line in commands)


@pytest.mark.parametrize(
    ("vendor", "arguments", "expected"),
    [("junos", a, e) for a, e in JUNOS_GOLDEN] + [("iosxr", a, e) for a, e in IOSXR_GOLDEN],
)
def test_golden_snippets(vendor: str, arguments: dict[str, object], expected: str) -> None:
    args = dict(arguments)
    size, rate = args.pop("buffer_bytes"), args.pop("capacity_bps")
    config = device_config(vendor, size, rate, **args)  # type: ignore[arg-type]
    assert config.text.splitlines() == expected.splitlines()
    assert config.text == expected


def test_iosxr_refuses_a_limit_beyond_its_range() -> None:
    # "Range is from 1 to 4294967295."
    with pytest.raises(
        ParameterError, match=r"buffer_bytes: .* above IOS XR's queue-limit range"
    ) as err:
        device_config("iosxr", 5e9, 400e9)
    assert err.value.name == "buffer_bytes"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"vendor": "nxos"}, "vendor must be one of tc, sonic, junos, iosxr, eos"),
        ({"buffer_bytes": 0.0}, "buffer_bytes must be > 0"),
        ({"capacity_bps": -1.0}, "capacity_bps must be > 0"),
        ({"cell_bytes": 0}, "cell_bytes must be >= 1"),
        ({"congested_queues": 0}, "congested_queues must be >= 1"),
        ({"interface": "eth0; reboot"}, "interface must be 1 to 64 letters"),
        ({"queue": "16"}, "queue must be an egress queue index 0 to 15"),
        ({"qdisc": "sfq"}, "qdisc must be one of pfifo, bfifo, fq_codel"),
        # A memory below one byte is refused by name; 5e-324 B once overflowed Junos's
        # percentage (100·limit/B is infinite) and became a 500.
        ({"chip_buffer_bytes": 5e-324, "vendor": "junos"}, "chip_buffer_bytes must be >= 1"),
    ],
)
def test_bad_arguments_name_the_parameter(arguments: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"vendor": "tc", "buffer_bytes": 1e6, "capacity_bps": 1e9}
    args.update(arguments)
    vendor, size, rate = args.pop("vendor"), args.pop("buffer_bytes"), args.pop("capacity_bps")
    with pytest.raises(ParameterError, match=message) as err:
        device_config(vendor, size, rate, **args)  # type: ignore[arg-type]
    assert err.value.name == next(iter(arguments))


def test_shared_memory_note_for_routers() -> None:
    config = device_config("junos", 1_250_000, 10e9, chip_buffer_bytes=64 * 2**20)
    assert config.shared is not None and config.shared.alpha_log2 == -5
    # 1,250,000/(67,108,864 − 8·1,250,000) = 0.02189 -> 2^-5 = 0.03125.
    assert config.shared.alpha_min == pytest.approx(1_250_000 / (67_108_864 - 10_000_000))


def test_eos_trident_mmu_profile_gives_the_queue_its_share_of_the_chip() -> None:
    # 1 MB of a 64 MiB chip with 8 queues congested: α ≥ S/(B − n·S) = 1,000,000/(67,108,864 −
    # 8,000,000) = 0.0169 -> 1/32; each queue settles at α·B/(1 + n·α) = 2,097,152/1.25 =
    # 1,677,721.6 B (by hand). AVD platform-trident.j2 / platform-apply.j2 syntax.
    config = device_config(
        "eos", 1e6, 100e9, chip_buffer_bytes=64 * 2**20, queue="3", interface="Ethernet3/1"
    )
    commands = [line for line in config.text.splitlines() if not line.startswith("!")]
    assert commands[:3] == [
        "platform trident mmu queue profile bufsize",
        "    egress unicast queue 3 threshold 1/32",
        "platform trident mmu queue profile bufsize apply",
    ]
    assert "! α·B/(1 + n·α) = 1677722 B >= 1000000 B of the 67108864 B chip" in config.text
    # The transmit queue's WRED step stays for the platforms without the MMU profile.
    assert "   tx-queue 3" in commands


def test_eos_trident_profile_needs_the_chip_and_says_when_no_alpha_fits() -> None:
    without = device_config("eos", 1e6, 100e9)
    assert not any(line.startswith("platform trident") for line in without.text.splitlines())
    assert "give the chip buffer to have α computed" in without.text
    # 60 MB × 8 queues exceeds a 64 MiB chip: no α gives it.
    too_big = device_config("eos", 60e6, 100e9, chip_buffer_bytes=64 * 2**20)
    assert "! Trident-family switches, no MMU profile: no α suffices" in too_big.text
    assert not any(line.startswith("platform trident") for line in too_big.text.splitlines())
    # One packet: α needed 1500/(67,108,864 − 12,000) = 2.2e-5, below the smallest α written
    # (1/64): the profile says so and the WRED step holds the limit.
    tiny = device_config("eos", 1500.0, 100e9, chip_buffer_bytes=64 * 2**20)
    assert "    egress unicast queue 0 threshold 1/64" in tiny.text.splitlines()
    assert "1/64 is the smallest α written here" in tiny.text
