"""The rule of thumb: a buffer of one bandwidth-delay product, and its generalizations."""

from __future__ import annotations

from typing import Any

import numpy as np

from models import checks


def harmonic_mean_rtt_s(rtts_s: Any) -> float:
    """Effective RTT of flows with heterogeneous round-trip times (harmonic mean).

    Parameters
    ----------
    rtts_s : array_like
        Round-trip times of the flows, in seconds (each > 0).

    Returns
    -------
    float
        ``T_e = N / sum(1 / T_i)`` in seconds.

    Notes
    -----
    ``T_e = N / Σ_i (1/T_i)`` — 004 (Dhamdhere, Jiang, Dovrolis), §III.B, eqs. 11-12: with the
    flows' windows in proportion to their rates, the aggregate window is ``C·T_e``.

    Assumptions:

    - the flows share the link with throughput inversely proportional to their RTT;
    - each RTT includes the flow's propagation and its non-bottleneck queueing delay.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III.B, eqs. 11-12.
    """
    rtts = np.atleast_1d(np.asarray(checks.positive("rtts_s", rtts_s), dtype=np.float64))
    return float(rtts.size / np.sum(1.0 / rtts))
