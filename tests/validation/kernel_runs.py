"""The trace kernel run over hand-made packets: the set-up its unit tests share."""

from __future__ import annotations

import numpy as np

from validation.traces import kernel


def run_kernel(
    time_s: np.ndarray,
    flow: np.ndarray,
    dropped: np.ndarray,
    *,
    flows: int,
    warmup_s: float = 0.0,
    queue_full_s: float = 0.0,
    capacity_bps: float | None = None,
    loss_time_s: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's per-flow state (``fs``, ``fi``) of ``flows`` flows after one batch of
    1500-byte packets at ``time_s`` of ``flow``, ``dropped`` at the link at their own time;
    no handshakes. ``loss_time_s``: the losses the packets tell of as a capture's reader gives
    them (a retransmission carries its hole's time); by default the drops', at their time."""
    fs, fi = kernel.new_state(flows)
    losses = np.where(dropped, time_s, np.nan) if loss_time_s is None else loss_time_s
    kernel.advance(
        fs,
        fi,
        np.full(flows, np.nan),
        time_s,
        flow.astype(np.int64),
        np.full(time_s.size, 1500, dtype=np.int64),
        dropped,
        losses,
        losses,  # a drop event (a capture's hole) tells of the loss at once
        warmup_s,
        queue_full_s,
        kernel.new_link(capacity_bps),
    )
    return fs, fi
