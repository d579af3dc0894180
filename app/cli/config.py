"""``bufsize config``: a buffer size as device configuration (tc, SONiC, Junos, IOS XR, EOS).

The size is either given (``--buffer 834`` packets or ``--buffer 1.25MB``, with the port's line
rate as ``--capacity``) or recommended for a scenario with the options of ``bufsize
recommend``. The snippet is :func:`models.device.device_config`'s; with ``--json`` the numbers it
used come too.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, replace
from typing import Any

import click
from click.core import ParameterSource

from app.cli.recommend import AQM_INPUTS, link_inputs, optional_quantity, parse_rtts
from app.cli.recommend import recommend as recommend_command
from app.services.device import (
    DeviceRequest,
    RecommendedSize,
    config_answer,
    configure,
    configure_recommended,
    given_discipline,
)
from app.services.names import in_option_words
from app.services.recommend import recommend
from app.units import UnitError, parse_quantity
from models.choices import TC_QDISCS, VENDORS
from models.device import DeviceConfig

#: Model parameters named in this command's messages by their options (app.services.names).
NAMED = (
    "buffer_bytes",
    "capacity_bps",
    "packet_bytes",
    "chip_buffer_bytes",
    "congested_queues",
    "cell_bytes",
    "interface",
    "rtt_s",
    "ecn_threshold_bytes",
    *AQM_INPUTS,
)
#: Options of ``bufsize recommend`` needed to recommend a size (``--buffer`` replaces them).
_RECOMMEND_REQUIRED = ("capacity", "rtt", "flows")
#: Options of ``bufsize recommend`` that also serve a given ``--buffer``: the line rate, the
#: packet size (for packets), the RTT (CoDel's interval when no AQM is given), the AQM with its
#: target and interval, and ``--json``.
_WITH_BUFFER = ("capacity", "packet", "rtt", "aqm", "aqm_target", "aqm_interval", "as_json")


def _option_message(message: str) -> str:
    return in_option_words(message, NAMED)


def _size_bytes(
    text: str, packet_bytes: float, capacity_bps: float, option: str = "--buffer"
) -> tuple[float, str | None]:
    """``--buffer`` (or ``--ecn-threshold``): a bare number is packets, a size (``1.25MB``) is
    bytes, a time (``5ms``) is converted at the line rate; the conversion said in words when
    there was one."""
    try:
        return float(text) * packet_bytes, None
    except ValueError:
        pass
    try:
        return parse_quantity(option, text, "size"), None
    except UnitError as not_size:
        try:
            seconds = parse_quantity(option, text, "time")
        except UnitError:
            raise UnitError(
                f"{option}: cannot read {text!r} as packets (834), a size (1.25MB) or a time (5ms)"
            ) from not_size
    if seconds <= 0:
        raise UnitError(f"{option}: {text!r} must be a positive time")
    size = seconds * capacity_bps / 8.0
    return size, (
        f"{option} {text.strip()} at {capacity_bps / 1e9:g} Gbit/s = {size:,.0f} B "
        f"= {size / packet_bytes:,.1f} packets of {packet_bytes:g} B"
    )


def _typed(name: str | None) -> bool:
    """Whether the option ``name`` was given on the command line (not left at its default)."""
    source = click.get_current_context().get_parameter_source(str(name))
    return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def _recommend_options() -> list[click.Parameter]:
    """``bufsize recommend``'s options, none required here (``--buffer`` may stand for them)."""
    params = []
    for param in recommend_command.params:
        clone = copy.copy(param)
        clone.required = False
        params.append(clone)
    return params


def _make(opts: dict[str, Any]) -> tuple[DeviceConfig, dict[str, Any] | None]:
    device = DeviceRequest(
        vendor=opts["vendor"],
        cell_bytes=opts["cell_bytes"],
        interface=opts["interface"],
        queue=str(opts["queue"]),
        chip_buffer_bytes=None
        if opts["chip_buffer"] is None
        else parse_quantity("--chip-buffer", opts["chip_buffer"], "size"),
        congested_queues=opts["congested_queues"],
        qdisc=opts["qdisc"],
    )
    packet = parse_quantity("--packet", opts["packet"], "size")
    if opts["buffer"] is not None:
        ignored = [
            param.opts[0]
            for param in recommend_command.params
            if param.name not in _WITH_BUFFER and _typed(param.name)
        ]
        if ignored:
            raise ValueError(
                f"{', '.join(ignored)}: recommend options, not used with --buffer (which gives "
                "the size); give either --buffer or the scenario"
            )
        if opts["capacity"] is None:
            raise ValueError("--capacity (the port's line rate) is required with --buffer")
        rtt = None
        if opts["rtt"] is not None:
            rtts = parse_rtts(opts["rtt"])
            rtt = len(rtts) / sum(1.0 / r for r in rtts)  # harmonic mean, as the engine's T_e
        capacity = parse_quantity("--capacity", opts["capacity"], "rate")
        size, converted = _size_bytes(opts["buffer"], packet, capacity)
        k_bytes, k_converted = None, None
        if opts["ecn_threshold"] is not None:
            k_bytes, k_converted = _size_bytes(
                opts["ecn_threshold"], packet, capacity, "--ecn-threshold"
            )
        discipline = given_discipline(
            opts["aqm"],
            optional_quantity("--aqm-target", opts["aqm_target"], "time"),
            optional_quantity("--aqm-interval", opts["aqm_interval"], "time"),
            k_bytes,
            buffer_bytes=size,
        )
        device = replace(device, rtt_s=rtt, discipline=discipline)
        result = configure(device, size, capacity, packet)
        said = tuple(text for text in (converted, k_converted) if text is not None)
        return replace(result, notes=(*said, *result.notes)), None
    if opts["ecn_threshold"] is not None:
        raise ValueError(
            "--ecn-threshold goes with --buffer: for a recommended size, --cc dctcp sets "
            "DCTCP's threshold K = C·RTT/7"
        )
    missing = [f"--{name}" for name in _RECOMMEND_REQUIRED if opts[name] is None]
    if missing:
        raise ValueError(
            f"give --buffer SIZE, or {', '.join(missing)} to recommend one (see bufsize "
            "recommend --help)"
        )
    scenario, targets = link_inputs(opts)
    rec = recommend(scenario, targets)
    return configure_recommended(rec, scenario, device), asdict(RecommendedSize.of(rec))


@click.command(params=_recommend_options())
@click.option("--vendor", required=True, type=click.Choice(VENDORS), help="Device family.")
@click.option(
    "--buffer",
    help="Per-queue buffer: packets (834), a size (1.25MB) or a time (5ms, at --capacity).",
)
@click.option(
    "--chip-buffer", help="Shared memory of the switch chip, e.g. 64MiB (sonic: required)."
)
@click.option(
    "--congested-queues",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Queues congested at once sharing --chip-buffer.",
)
@click.option(
    "--cell-bytes", type=click.IntRange(min=1), help="Memory cell, bytes (vendor default)."
)
@click.option(
    "--ecn-threshold",
    help="With --buffer: DCTCP's ECN marking threshold K on the queue, packets (120), a size "
    "(180KB) or a time (150us, at --capacity); K = C·RTT/7 (Alizadeh et al. 2010 eq. 13).",
)
@click.option("--interface", help="Port name (a placeholder in the vendor's naming by default).")
@click.option(
    "--queue", type=click.IntRange(0, 15), default=0, show_default=True, help="Egress queue."
)
@click.option(
    "--qdisc",
    type=click.Choice(TC_QDISCS),
    default=None,
    help="tc: the qdisc of the active command (default: the one that deploys the analysis: "
    "fq_codel marking CE at K for --cc dctcp, fq_codel for --aqm codel, pie for --aqm pie, "
    "else pfifo).",
)
def config(**opts: Any) -> None:
    """The recommended (or given) buffer as device configuration, rounded to the memory cell."""
    try:
        result, used = _make(opts)
    except ValueError as exc:  # UnitError is a ValueError too
        click.echo(f"Error: {_option_message(str(exc))}", err=True)
        raise SystemExit(2) from exc
    if opts["as_json"]:
        answer = config_answer(result)
        answer["recommended"] = used
        click.echo(json.dumps(answer, indent=2, ensure_ascii=False))
        return
    click.echo(result.text, nl=False)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
