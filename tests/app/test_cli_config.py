"""Tests of ``bufsize config`` through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli import main

# The thesis example of 000 §3.2 ("1000 flows share a link of capacity 10 Gb/s ... an RTT of
# 100ms, a maximum window size of 64 KB, and a packet size of 1 KB") behind 100 Mb/s access
# links, the "link-pacing" of 000 §3.4 (S = 100 >= 4·log2 64 = 24): bufsize recommends 15
# packets (tiny buffers), as `bufsize recommend` prints.
THESIS = ["--capacity", "10 Gbit/s", "--rtt", "100ms", "--packet", "1000B", "--flows", "1000"]
THESIS += ["--max-window", "64", "--access-rate", "100 Mbit/s"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["config", *args])
    return result.exit_code, result.stdout, result.stderr


def test_given_buffer_in_packets_for_tc() -> None:
    code, out, _ = run("--vendor", "tc", "--buffer", "834", "--capacity", "10 Gbit/s")
    assert code == 0
    assert "tc qdisc replace dev eth0 root pfifo limit 834\n" in out
    # 834 packets of 1500 B = 1,251,000 B, 1000.8 us -> 1001 us at 10 Gbit/s.
    assert "# bufsize: queue limit 1251000 B = 834 packets of 1500 B = 1001 us" in out


def test_given_buffer_as_a_size_for_iosxr() -> None:
    code, out, _ = run(
        "--vendor",
        "iosxr",
        "--buffer",
        "1.25MB",
        "--capacity",
        "10Gbps",
        "--interface",
        "Te0/0/0/1",
    )
    assert code == 0
    assert "  queue-limit 1250000 bytes\n" in out
    assert "interface Te0/0/0/1\n service-policy output bufsize-egress\n" in out


def test_sonic_with_the_chip_options_of_the_issue() -> None:
    code, out, err = run(
        "--vendor",
        "sonic",
        "--buffer",
        "1MB",
        "--capacity",
        "100 Gbit/s",
        "--chip-buffer",
        "64MiB",
        "--congested-queues",
        "8",
        "--cell-bytes",
        "256",
    )
    assert code == 0
    document = json.loads("\n".join(x for x in out.splitlines() if not x.startswith("#")))
    # By hand: 1,000,192 B (256 B cells) needs α ≥ 0.01692 with 8 of 64 MiB -> 2^-5.
    assert document["BUFFER_PROFILE"]["bufsize_egress_profile"]["dynamic_th"] == "-5"
    assert document["BUFFER_POOL"]["bufsize_egress_pool"]["size"] == str(64 * 2**20)
    assert "note: dynamic_th = -5" in err


def test_recommended_size_from_the_recommend_options() -> None:
    code, out, _ = run("--vendor", "junos", *THESIS)
    assert code == 0
    # 15 packets of 1000 B = 15,000 B = 12 us at 10 Gbit/s.
    assert "set class-of-service schedulers bufsize-sched buffer-size temporal 12\n" in out


def test_json_carries_the_numbers_and_the_recommendation() -> None:
    code, out, _ = run("--vendor", "tc", "--qdisc", "bfifo", "--json", *THESIS)
    assert code == 0
    answer = json.loads(out)
    assert answer["recommended"] == {
        "rule": "tiny_buffers",
        "buffer_packets": 15,
        "buffer_bytes": 15000.0,
    }
    assert answer["limit"]["limit_bytes"] == 15_000
    assert "tc qdisc replace dev eth0 root bfifo limit 15000\n" in answer["text"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vendor", "tc", "--buffer", "834"], "--capacity (the port's line rate) is required"),
        (
            ["--vendor", "tc", "--capacity", "1Gbps", "--flows", "10"],
            "give --buffer SIZE, or --rtt",
        ),
        (["--vendor", "tc", "--buffer", "3 parsecs", "--capacity", "1Gbps"], "--buffer"),
        (
            ["--vendor", "sonic", "--buffer", "1MB", "--capacity", "1Gbps"],
            "--chip-buffer is required for sonic",
        ),
        (
            [
                "--vendor",
                "sonic",
                "--buffer",
                "10MB",
                "--capacity",
                "1Gbps",
                "--chip-buffer",
                "64MiB",
                "--congested-queues",
                "8",
            ],
            "--chip-buffer: no α suffices",
        ),
        (["--vendor", "tc", "--buffer", "-5", "--capacity", "1Gbps"], "--buffer must be > 0"),
        (
            ["--vendor", "tc", "--buffer", "10", "--capacity", "1Gbps", "--flows", "5", "--paced"],
            "--flows, --pacing: recommend options, not used with --buffer",
        ),
        (
            ["--vendor", "tc", "--buffer", "10", "--capacity", "1Gbps", "--interface", "a b"],
            "--interface must be",
        ),
    ],
)
def test_errors_exit_2_naming_the_option(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("Error: ")
    assert message in err


def test_unknown_vendor_is_refused_by_click() -> None:
    code, _, err = run("--vendor", "nxos", "--buffer", "10", "--capacity", "1Gbps")
    assert code == 2
    assert "--vendor" in err


def test_given_buffer_as_a_time_is_converted_at_the_line_rate() -> None:
    code, out, err = run("--vendor", "tc", "--buffer", "5ms", "--capacity", "10 Gbit/s")
    assert code == 0, err
    # 5 ms at 10 Gbit/s = 6,250,000 B = 4,166.7 packets of 1500 B, rounded up to 4167.
    assert "tc qdisc replace dev eth0 root pfifo limit 4167\n" in out
    assert "5ms at 10 Gbit/s = 6,250,000 B = 4,166.7 packets of 1500 B" in err


def test_a_buffer_that_is_no_quantity_names_the_three_forms() -> None:
    code, _, err = run("--vendor", "tc", "--buffer", "5 Gbit/s", "--capacity", "10 Gbit/s")
    assert code == 2
    assert "packets (834), a size (1.25MB) or a time (5ms)" in err


def test_iosxr_interface_placeholder_has_the_port_speed() -> None:
    for rate, name in (("10 Gbit/s", "TenGigE0/0/0/0"), ("400 Gbit/s", "FourHundredGigE0/0/0/0")):
        code, out, _ = run("--vendor", "iosxr", "--buffer", "100", "--capacity", rate)
        assert code == 0
        assert f"interface {name}\n" in out


def test_dctcp_leaf_gets_ecn_marking_at_k() -> None:
    # 10 Gb/s, 100 µs, 1500 B: BDP 83.3 packets, K = C·RTT/7 = 11.9 packets = 17,857 B,
    # 14.3 µs at line rate -> ce_threshold 15us (rounded up).
    code, out, err = run(
        "--vendor",
        "tc",
        "--capacity",
        "10 Gbit/s",
        "--rtt",
        "100us",
        "--flows",
        "20",
        "--cc",
        "dctcp",
        "--access-rate",
        "10 Gbit/s",
    )
    assert code == 0, err
    active = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert len(active) == 1
    assert active[0].startswith("tc qdisc replace dev eth0 root fq_codel limit ")
    assert active[0].endswith(" ce_threshold 15us ecn")


def test_codel_port_gets_the_engines_target_and_interval() -> None:
    code, out, err = run(
        "--vendor", "tc", "--capacity", "100 Mbit/s", "--rtt", "20ms", "--flows", "40",
        "--aqm", "codel",
    )  # fmt: skip
    assert code == 0, err
    active = [line for line in out.splitlines() if line and not line.startswith("#")]
    # RFC 8289: TARGET 5 ms, INTERVAL 100 ms, whatever the RTT (the engine's CoDel rule).
    assert active[0].endswith(" target 5000us interval 100000us")
    assert " fq_codel limit " in active[0]


def test_the_operators_aqm_times_reach_the_snippet() -> None:
    # --aqm-target and --aqm-interval replace the RFC's CoDel times in the active command.
    code, out, err = run(
        "--vendor", "tc", "--capacity", "100 Mbit/s", "--rtt", "20ms", "--flows", "40",
        "--aqm", "codel", "--aqm-target", "2ms", "--aqm-interval", "30ms",
    )  # fmt: skip
    assert code == 0, err
    active = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert active[0].endswith(" target 2000us interval 30000us")
    # A given size takes them too: PIE with its own QDELAY_REF and T_UPDATE (tc-pie(8)).
    code, out, err = run(
        "--vendor", "tc", "--buffer", "5ms", "--capacity", "10 Gbit/s",
        "--aqm", "pie", "--aqm-target", "20ms", "--aqm-interval", "30ms",
    )  # fmt: skip
    assert code == 0, err
    active = [line for line in out.splitlines() if line and not line.startswith("#")]
    # 5 ms at 10 Gbit/s = 6,250,000 B = 4,166.7 packets of 1500 B, rounded up.
    assert active == [
        "tc qdisc replace dev eth0 root pie limit 4167 target 20000us tupdate 30000us"
    ]


def test_aqm_times_without_an_aqm_are_refused_in_option_words() -> None:
    code, _, err = run("--vendor", "tc", "--buffer", "5ms", "--capacity", "10 Gbit/s",
                       "--aqm-target", "2ms")  # fmt: skip
    assert code == 2
    assert "Error: only an AQM has a target and an interval: set --aqm to one of codel" in err
    assert "or leave --aqm-target out" in err
    code, _, err = run(
        "--vendor", "tc", "--capacity", "100 Mbit/s", "--rtt", "20ms", "--flows", "40",
        "--aqm", "codel", "--aqm-target", "200ms",
    )  # fmt: skip
    assert code == 2
    assert "--aqm-target must be below CoDel's interval --aqm-interval (0.1 s)" in err


def test_given_buffer_takes_dctcps_threshold_in_packets_sizes_or_times() -> None:
    # 2 ms at 10 Gbit/s = 2,500,000 B = 1,666.7 -> 1667 packets; K = 150 us at 10 Gbit/s =
    # 187,500 B, which ce_threshold takes back as 150 us.
    code, out, err = run(
        "--vendor", "tc", "--buffer", "2ms", "--capacity", "10 Gbit/s", "--ecn-threshold", "150us"
    )  # fmt: skip
    assert code == 0, err
    active = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert active == ["tc qdisc replace dev eth0 root fq_codel limit 1667 ce_threshold 150us ecn"]
    assert "--ecn-threshold 150us at 10 Gbit/s = 187,500 B" in err
    # 120 packets of 1500 B = 180,000 B on IOS XR's random-detect, min = max = K.
    code, out, err = run(
        "--vendor", "iosxr", "--buffer", "1000", "--capacity", "10 Gbit/s", "--ecn-threshold", "120"
    )  # fmt: skip
    assert code == 0, err
    assert "  random-detect 180000 bytes 180000 bytes\n  random-detect ecn\n" in out


def test_ecn_threshold_at_or_above_the_buffer_or_without_it_is_refused() -> None:
    code, _, err = run(
        "--vendor", "tc", "--buffer", "100", "--capacity", "10 Gbit/s", "--ecn-threshold", "100"
    )  # fmt: skip
    assert code == 2
    assert "Error: --ecn-threshold (150,000 B) must be below the buffer --buffer (150,000 B)" in err
    code, _, err = run(
        "--vendor", "tc", "--capacity", "10 Gbit/s", "--rtt", "1ms", "--flows", "4",
        "--ecn-threshold", "20",
    )  # fmt: skip
    assert code == 2
    assert "--ecn-threshold goes with --buffer: for a recommended size, --cc dctcp" in err
