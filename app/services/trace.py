"""Estimate BSCL's parameters from a packet trace (004 §VI), size the buffer, check it.

``bufsize trace``, ``POST /v1/traces`` and the trace jobs behind it all come here: the edge
reads its text inputs with :func:`trace_options` (errors in its own words) and runs
:func:`run_trace` on a file already on this machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.services.names import FieldError, Words
from app.units import parse_fraction, parse_packets, parse_quantity

if TYPE_CHECKING:  # the readers and estimators are imported when a trace is read
    from validation.traces import TraceEstimates
    from validation.verify import Progress, Verification

#: The packet size a buffer given in packets is converted with, bytes.
TRACE_PACKET_BYTES = 1500
#: Simulator runs per size of a trace's check (``verify``): the fewest and the most.
TRACE_REPLICATIONS = (2, 20)


@dataclass(frozen=True)
class TraceOptions:
    """How to read a trace and size from it."""

    capacity_bps: float | None = None
    buffer_bytes: float | None = None
    warmup_s: float = 0.0
    max_loss: float = 0.01
    verify: bool = False
    seed: int = 1
    replications: int = 5
    with_flows: bool = False
    filename: str | None = None


@dataclass(frozen=True)
class TraceResult:
    """The JSON-able document, the estimates, and the check (with ``verify``)."""

    doc: dict[str, Any]
    estimates: TraceEstimates
    verification: Verification | None


def max_loss(text: str, words: Words) -> float:
    """BSCL's loss target p̂ typed as a fraction or a percentage, in (0, 1)."""
    name = words("max_loss")
    value = parse_fraction(name, text)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be in (0, 1) (0% .. 100%), got {text!r}")
    return value


def _text(texts: Mapping[str, str | None], name: str, default: str) -> str:
    text = texts.get(name)
    return default if text is None else text


def _whole(
    texts: Mapping[str, str | None],
    name: str,
    default: int,
    low: int,
    high: int | None,
    words: Words,
) -> int:
    """A whole number from ``texts[name]`` (``default`` when absent) in [low, high]."""
    text = texts.get(name)
    if text is None:
        return default
    try:
        value = int(text.strip())
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        span = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise FieldError(
            (name,), f"{words(name)} must be a whole number {span}, got {text!r}", text
        )
    return value


def trace_options(
    texts: Mapping[str, str | None],
    words: Words,
    *,
    capacity_range: tuple[float, float] | None = None,
    **rest: Any,
) -> TraceOptions:
    """The options from text keyed by API field (``capacity_bps``, ``buffer_packets``,
    ``warmup_s``, ``max_loss``, ``replications``, ``seed``; absent or None: the default), the
    rest as given.

    A bad input raises :class:`FieldError` naming it in ``words``; a capacity outside
    ``capacity_range`` (bit/s, both ends included) too, when it is given.
    """
    capacity_text = texts.get("capacity_bps")
    try:
        capacity_bps = (
            None
            if capacity_text is None
            else parse_quantity(words("capacity_bps"), capacity_text, "rate")
        )
        if capacity_bps is not None and capacity_range is not None:
            low, high = capacity_range
            if not low <= capacity_bps <= high:
                raise ValueError(
                    f"{words('capacity_bps')} must be in [{low:g}, {high:g}] bit/s, "
                    f"got {capacity_text!r}"
                )
    except ValueError as exc:
        raise FieldError(("capacity_bps",), str(exc), capacity_text) from exc
    warmup_text = _text(texts, "warmup_s", "0s")
    try:
        warmup_s = parse_quantity(words("warmup_s"), warmup_text, "time")
        if not warmup_s >= 0:
            raise ValueError(f"{words('warmup_s')} must be >= 0, got {warmup_text!r}")
    except ValueError as exc:
        raise FieldError(("warmup_s",), str(exc), texts.get("warmup_s")) from exc
    try:
        loss = max_loss(_text(texts, "max_loss", "1%"), words)
    except ValueError as exc:
        raise FieldError(("max_loss",), str(exc)) from exc
    buffer_bytes = None
    buffer_text = texts.get("buffer_packets")
    if buffer_text is not None:
        if capacity_bps is None:
            raise FieldError(
                ("buffer_packets",),
                f"{words('buffer_packets')} needs {words('capacity_bps')} (the queue's delay "
                "is buffer/C)",
            )
        try:
            packets = parse_packets(words("buffer_packets"), buffer_text, TRACE_PACKET_BYTES)
            if not packets > 0:
                raise ValueError(f"{words('buffer_packets')} must be > 0, got {buffer_text!r}")
        except ValueError as exc:
            raise FieldError(("buffer_packets",), str(exc), buffer_text) from exc
        buffer_bytes = packets * TRACE_PACKET_BYTES
    return TraceOptions(
        capacity_bps=capacity_bps,
        buffer_bytes=buffer_bytes,
        warmup_s=warmup_s,
        max_loss=loss,
        replications=_whole(texts, "replications", 5, *TRACE_REPLICATIONS, words),
        seed=_whole(texts, "seed", 1, 0, None, words),
        **rest,
    )


def run_trace(
    path: Path,
    options: TraceOptions,
    *,
    progress: Callable[[float], None] | None = None,
    stage: Callable[[str, float], None] | None = None,
    verify_progress: Progress | None = None,
    workers: int | None = None,
) -> TraceResult:
    """Estimates, the BSCL size and (with ``options.verify``) its simulation check.

    The check is :func:`validation.verify.verify` of the BSCL size (``size=("bscl", ⌈B⌉)``)
    on the link the estimates describe (:func:`validation.traces.sizing.link_from_estimates`),
    the same check as ``bufsize recommend --verify``, its simulator runs in ``workers``
    processes (default: every CPU; the service gives its BUFSIZE_WORKERS).
    """
    from validation.traces import estimate_trace, open_trace
    from validation.traces.sizing import size_from_estimates

    reader = open_trace(path)
    est = estimate_trace(
        reader,
        capacity_bps=options.capacity_bps,
        warmup_s=options.warmup_s,
        buffer_bytes=options.buffer_bytes,
        progress=progress,
        stage=stage,
    )
    out: dict[str, Any] = {
        "file": options.filename or str(path),
        "estimates": est.to_dict(flows=options.with_flows),
    }
    try:
        sizing = size_from_estimates(est, options.max_loss)
    except ValueError as exc:
        out["bscl"] = None
        out["bscl_error"] = str(exc)
        return TraceResult(out, est, None)
    out["bscl"] = sizing.to_dict()
    if not options.verify:
        return TraceResult(out, est, None)
    from validation.traces.sizing import link_from_estimates
    from validation.verify import verify as check_size

    link, targets = link_from_estimates(est, options.max_loss)
    checked = check_size(
        link,
        None,
        targets,
        replications=options.replications,
        seed=options.seed,
        size=("bscl", math.ceil(sizing.buffer_packets)),
        progress=verify_progress,
        workers=workers,
    )
    out["verification"] = checked.to_dict()
    return TraceResult(out, est, checked)


def summary(doc: dict[str, Any]) -> str:
    """What a finished trace reading did, in one line."""
    est = doc["estimates"]
    message = f"{est['packets']:,} packets of {est['flows']:,} flows read"
    if doc.get("bscl") is None:
        return f"{message}; no BSCL size ({doc.get('bscl_error')})"
    check = doc.get("verification")
    if check is not None:
        # Every size's runs, extra batches and the slow end of an assumed access rate included.
        runs = sum(c["replications"] for c in [*check["sizes"], *check.get("slow_sizes", [])])
        message += f"; the BSCL size checked in {runs} simulator runs"
    return message
