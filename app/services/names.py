"""Each input's name in each edge's words, from one table, and the error naming one input.

The API's fields and the model parameters share one spelling (``capacity_bps``), which is the
key here; the command line's option for it is :data:`OPTION_OF` (``--capacity``). A service
that refuses an input raises :class:`FieldError` with the message written in the words of the
edge that asked (it is given :func:`api_word` or :func:`option_word`), so no edge rewrites
another's message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

#: Model parameter or API field -> the ``bufsize`` option that sets it.
OPTION_OF = {
    "capacity_bps": "--capacity",
    "flows": "--flows",
    "rtt_s": "--rtt",
    "rtt_jitter_s": "--rtt-jitter",
    "access_bps": "--access-rate",
    "max_window_packets": "--max-window",
    "packet_bytes": "--packet",
    "header_bytes": "--header",
    "recovery": "--recovery",
    "congestion_control": "--cc",
    "ecn_threshold_packets": "--ecn-threshold",
    "ecn_threshold_bytes": "--ecn-threshold",
    "aqm": "--aqm",
    "codel_target_s": "--codel-target",
    "codel_interval_s": "--codel-interval",
    "aqm_target_s": "--aqm-target",
    "aqm_interval_s": "--aqm-interval",
    "ca_increase": "--ca-increase",
    "delayed_ack": "--delayed-ack",
    "initial_window_packets": "--initial-window",
    "min_rto_s": "--min-rto",
    "background_load": "--background-load",
    "duration_s": "--duration",
    "warmup_s": "--warmup",
    "packet_budget": "--packet-budget",
    "buffer_packets": "--buffer",
    "buffer_bytes": "--buffer",
    "chip_buffer_bytes": "--chip-buffer",
    "congested_queues": "--congested-queues",
    "cell_bytes": "--cell-bytes",
    "interface": "--interface",
    "max_loss": "--max-loss",
    "replications": "--replications",
    "seed": "--seed",
}

#: How an edge names an input (the key of :data:`OPTION_OF`).
Words = Callable[[str], str]


def api_word(name: str) -> str:
    """The API's (and the models') name of an input: the key itself."""
    return name


def option_word(name: str) -> str:
    """The command line's name of an input: its option."""
    return OPTION_OF[name]


def in_option_words(message: str, names: Iterable[str]) -> str:
    """``message`` with each of ``names`` (whole words) replaced by its option."""
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
    return pattern.sub(lambda m: OPTION_OF[m.group(1)], message)


class FieldError(ValueError):
    """An input a service refused: ``field`` is its place in the API's request (its body).

    ``str(error)`` is the message in the words of the edge that called (see the module); the
    API answers it as a 422 at ``("body", *field)``, the command line prints it.
    """

    def __init__(self, field: tuple[str | int, ...], message: str, value: Any = None) -> None:
        self.field = field
        self.value = value
        super().__init__(message)
