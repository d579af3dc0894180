"""``bufsize simulate``'s inputs: its options, or a scenario file, as a :class:`Request`.

The option that sets each scenario field is :data:`app.services.names.OPTION_OF`; a refused
value's message names the option (:func:`option_message`).
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.services.names import in_option_words
from app.units import parse_packets, parse_quantity
from validation.simulator import Scenario
from validation.simulator.fields import FIELDS
from validation.simulator.scenario import SCENARIO_DEFAULTS

DEFAULTS = SCENARIO_DEFAULTS


def option_help(name: str, how: str = "") -> str:
    """The help of the option that sets scenario field ``name``: the field's own sentence
    (:data:`validation.simulator.fields.FIELDS`), then ``how`` the option takes it."""
    return f"{FIELDS[name].help}." + (f" {how[0].upper()}{how[1:]}" if how else "")


#: Scenario fields named in the simulator's messages by their options (app.services.names):
#: those with an underscore (a bare "flows" is handled below; "aqm" and the like read as words).
_NAMED = (
    "capacity_bps",
    "rtt_s",
    "rtt_jitter_s",
    "access_bps",
    "max_window_packets",
    "packet_bytes",
    "header_bytes",
    "congestion_control",
    "ecn_threshold_packets",
    "ecn_threshold_bytes",
    "codel_target_s",
    "codel_interval_s",
    "ca_increase",
    "delayed_ack",
    "initial_window_packets",
    "min_rto_s",
    "background_load",
    "duration_s",
    "warmup_s",
    "packet_budget",
    "buffer_packets",
)


def option_message(message: str) -> str:
    """Say ``--warmup`` where the simulator's message says ``warmup_s``, and so on."""
    message = in_option_words(message, _NAMED)
    if message.startswith("flows "):
        message = "--flows" + message[len("flows") :]
    return message


#: Options that shape the scenario; with --scenario the file gives the scenario instead.
SCENARIO_OPTIONS = (
    "capacity",
    "flows",
    "rtt",
    "rtt_jitter",
    "access_rate",
    "max_window",
    "packet",
    "header",
    "pacing",
    "recovery",
    "cc",
    "ecn",
    "ecn_threshold",
    "aqm",
    "codel_target",
    "codel_interval",
    "ca_increase",
    "delayed_ack",
    "initial_window",
    "min_rto",
    "background_load",
    "duration",
    "warmup",
)
_UNIT_KINDS = (("_bps", "rate"), ("_s", "time"), ("_bytes", "size"))


class ScenarioFileError(ValueError):
    """A --scenario file that cannot be read or is not a valid scenario (names the field)."""


def _with_units(where: str, values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for key, value in values.items():
        if isinstance(value, str):
            for suffix, kind in _UNIT_KINDS:
                if key.endswith(suffix):
                    out[key] = parse_quantity(where + key, value, kind)
    return out


def load_scenario_file(path: Path) -> Scenario:
    """The scenario of a TOML (``.toml``) or JSON (``.json``) file, with its flow groups.

    Raises
    ------
    ScenarioFileError
        If the file cannot be read or parsed, or a field is unknown or out of its bounds.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioFileError(f"--scenario: cannot read {str(path)!r}: {exc.strerror}") from exc
    try:
        if path.suffix.lower() == ".toml":
            values: Any = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            values = json.loads(text)
        else:
            raise ScenarioFileError(f"--scenario: {str(path)!r} must end in .toml or .json")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ScenarioFileError(f"--scenario: {str(path)!r} is not valid: {exc}") from exc
    if not isinstance(values, dict):
        raise ScenarioFileError(f"--scenario: {str(path)!r} must hold a table of fields")
    try:
        values = _with_units("", values)
        groups = values.get("groups")
        if isinstance(groups, list):
            values["groups"] = [
                _with_units(f"groups[{i}].", g) if isinstance(g, dict) else g
                for i, g in enumerate(groups)
            ]
        return Scenario.from_dict(values)
    except (ValueError, TypeError) as exc:
        raise ScenarioFileError(f"--scenario {str(path)!r}: {exc}") from exc


@dataclass
class Request:
    """What the command line asks for: a scenario, buffer sizes, replications and a seed."""

    scenario: Scenario
    buffers: list[int]
    replications: int
    seed: int
    trace: Path | None = None
    as_json: bool = False


def _buffers(text: str, wire_bytes: int, capacity_bps: float) -> list[int]:
    """Packets (``64``), or a size (``96KiB``) or a time at line rate (``5ms``), rounded down."""
    parts = [p for p in (s.strip() for s in text.split(",")) if p]
    if not parts:
        raise ValueError("--buffer: give one buffer size or a comma-separated list")
    out: set[int] = set()
    for part in parts:
        try:
            number = float(part)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            if number != int(number):
                raise ValueError(f"--buffer: {part!r} is not a whole number of packets")
            packets = int(number)
        else:
            try:
                packets = _whole_packets(parse_quantity("--buffer", part, "size") / wire_bytes)
            except ValueError:
                seconds = parse_quantity("--buffer", part, "time")
                packets = _whole_packets(seconds * capacity_bps / (8 * wire_bytes))
        if packets < 1:
            held = "" if math.isfinite(number) else f" ({wire_bytes:,} B each on the wire)"
            raise ValueError(f"--buffer must be >= 1 packet{held}, got {part!r}")
        out.add(packets)
    return sorted(out)


def _whole_packets(packets: float) -> int:
    """Round down, forgiving the last bits of unit conversion (12 ms x 10 Mbit/s = 10 packets)."""
    if not math.isfinite(packets):
        raise ValueError(f"--buffer must be finite, got {packets!r} packets")
    return math.floor(packets * (1.0 + 1e-9))


def _window_packets(text: str, packet_bytes: int) -> int:
    """A bare number is packets; a size (``3MiB``) holds that many whole segments."""
    return int(parse_packets("--max-window", text, packet_bytes))


def _jitter_s(text: str, rtt_s: float) -> float:
    """A time (``10ms``) or a share of the mean RTT (``20%``)."""
    stripped = text.strip()
    if stripped.endswith("%"):
        try:
            share = float(stripped[:-1])
        except ValueError as exc:
            raise ValueError(f"--rtt-jitter: cannot read {text!r}; try '20%' or '10ms'") from exc
        return share / 100.0 * rtt_s
    return parse_quantity("--rtt-jitter", stripped, "time")


_PACKETS = re.compile(r"^\s*(\d+)\s*(packets?|pkts?)?\s*$", re.IGNORECASE)


def ecn_threshold(text: str | None) -> tuple[int | None, int | None]:
    """``--ecn-threshold``: (packets, bytes). A whole number, or ``65 packets``, is packets;
    a size (``90KB``, ``64 KiB``) is bytes on the wire; None: no marking."""
    if text is None:
        return None, None
    match = _PACKETS.match(text)
    if match:
        return int(match.group(1)), None
    size = parse_quantity("--ecn-threshold", text, "size")
    if not math.isfinite(size) or not size.is_integer():
        raise ValueError(
            f"--ecn-threshold: {text!r} is not a whole number of packets or of bytes; "
            "try '65', '65 packets' or '90KB'"
        )
    return None, int(size)


def _whole(name: str, value: float) -> int:
    if not value.is_integer():
        raise ValueError(f"{name} must be a whole number of bytes, got {value!r}")
    return int(value)


def seconds_text(seconds: float) -> str:
    """A default time as the option would be typed: ``200ms``, ``60s``."""
    return f"{seconds:g}s" if seconds >= 1.0 else f"{seconds * 1e3:g}ms"


def build_request(opts: dict[str, Any], explicit: frozenset[str] = frozenset()) -> Request:
    """Parse the options into a validated :class:`Request` (``ValueError`` names the option).

    ``explicit`` names the options given on the command line (not defaulted); with
    ``--scenario`` none of :data:`SCENARIO_OPTIONS` may be among them.
    """
    if opts.get("scenario") is not None:
        clash = [name for name in SCENARIO_OPTIONS if name in explicit]
        if clash:
            option = "--" + clash[0].replace("_", "-")
            raise ScenarioFileError(
                f"{option} cannot be combined with --scenario: set it in the scenario file"
            )
        scenario = load_scenario_file(opts["scenario"])
        if "packet_budget" in explicit:
            scenario = scenario.replace(packet_budget=opts["packet_budget"])
    else:
        scenario = _scenario_from_options(opts)
    buffers = _buffers(opts["buffer"], scenario.wire_bytes, scenario.capacity_bps)
    for buffer_packets in buffers:
        scenario.validate(buffer_packets)
    if opts["replications"] < 1:
        raise ValueError(f"--replications must be >= 1, got {opts['replications']}")
    if opts["seed"] < 0:
        raise ValueError(f"--seed must be >= 0, got {opts['seed']}")
    return Request(
        scenario=scenario,
        buffers=buffers,
        replications=opts["replications"],
        seed=opts["seed"],
        trace=opts["trace"],
        as_json=opts["as_json"],
    )


def _scenario_from_options(opts: dict[str, Any]) -> Scenario:
    for name in ("capacity", "flows", "rtt"):
        if opts.get(name) is None:
            raise ValueError(f"Missing option '--{name}' (or give the scenario with --scenario)")
    capacity_bps = parse_quantity("--capacity", opts["capacity"], "rate")
    rtt_s = parse_quantity("--rtt", opts["rtt"], "time")
    packet_bytes = _whole("--packet", parse_quantity("--packet", opts["packet"], "size"))
    header_bytes = _whole("--header", parse_quantity("--header", opts["header"], "size"))
    if packet_bytes < 1:
        raise ValueError(f"--packet must be >= 1 byte, got {opts['packet']!r}")
    if header_bytes < 0:
        raise ValueError(f"--header must be >= 0 bytes, got {opts['header']!r}")
    threshold_packets, threshold_bytes = ecn_threshold(opts["ecn_threshold"])
    scenario = Scenario(
        capacity_bps=capacity_bps,
        flows=opts["flows"],
        rtt_s=rtt_s,
        rtt_jitter_s=None if opts["rtt_jitter"] is None else _jitter_s(opts["rtt_jitter"], rtt_s),
        access_bps=parse_quantity("--access-rate", opts["access_rate"], "rate"),
        max_window_packets=_window_packets(opts["max_window"], packet_bytes),
        packet_bytes=packet_bytes,
        header_bytes=header_bytes,
        pacing=opts["pacing"],
        recovery=opts["recovery"],
        congestion_control=opts["cc"],
        ecn=opts["ecn"],
        ecn_threshold_packets=threshold_packets,
        ecn_threshold_bytes=threshold_bytes,
        ca_increase=opts["ca_increase"],
        delayed_ack=opts["delayed_ack"],
        initial_window_packets=opts["initial_window"],
        min_rto_s=parse_quantity("--min-rto", opts["min_rto"], "time"),
        background_load=opts["background_load"],
        aqm=opts["aqm"],
        codel_target_s=parse_quantity("--codel-target", opts["codel_target"], "time"),
        codel_interval_s=parse_quantity("--codel-interval", opts["codel_interval"], "time"),
        duration_s=parse_quantity("--duration", opts["duration"], "time"),
        warmup_s=parse_quantity("--warmup", opts["warmup"], "time"),
        packet_budget=opts["packet_budget"],
    )
    scenario.validate()
    return scenario
