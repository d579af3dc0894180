"""Predicted utilization and loss of a port against its buffer size.

The engine picks one traffic model per scenario and evaluates it on the buffer sizes of every
rule and on the curves, so that the recommendation and the curves come from the same equations.

- ``window_limited``: flows capped by their window so that ρ = N·W/(C·RTT) < 1 (000 ch. 3);
  utilization ρ·θ with the tiny-buffers bound θ ≥ 1 − ρ^B·W²/2 (000 App. A eq. A.13), loss ρ^B.
  Paced senders or slow access links (slowdown S known) also get the paced-traffic union bound
  (000 Thm 2, App. B), whichever of the two bounds is better: "the performance of paced TCP
  closely mirrors our analytical bound of O(log W_max) for Poisson sources" (000 §3.2).
- ``open_loop``: flows too slow to fill the port, offered load ρ (003 §4.2): M/M/1/B loss.
- ``congested_tcp``: N_b long-lived flows limited by congestion here (004): the window sawtooth
  with partial loss synchronization (004 eqs. 13-16, :func:`sawtooth_utilization`), the
  Gaussian bound of desynchronized flows (Appenzeller, 000 §2.2.2) when flows are many, and
  the Mathis loss rate at the flows' mean window (004 eqs. 18-22, :func:`window_loss_rate`)
  when N_b is known; with N_b unknown the loss is left undecided (NaN), never guessed with
  N_b = N.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from models import checks
from models.pacing import paced_drop_bound_bracket
from models.queues import mm1b_loss_bound, mm1b_loss_probability
from models.recommend.simulated_loss import bbr_utilization, bbr_utilization_measured
from models.sqrt_n import appenzeller_utilization_bound, sqrt_n_buffer_packets
from models.tiny_buffers import tiny_buffers_utilization_bound

Array = npt.NDArray[np.float64]
TrafficModelKind = Literal["window_limited", "open_loop", "congested_tcp"]

#: Constant of the Mathis equation as 004 eq. 2 uses it, R = 0.87·M/(T·sqrt(p)) (≈ sqrt(3/4)).
MATHIS_CONSTANT = 0.87

#: Windows above this many packets are scaled before squaring (their square would overflow).
_LARGE_WINDOW = 1e150


def sawtooth_utilization(
    buffer_packets: Any,
    bdp_packets: float,
    md_beta: float = 0.5,
    loss_sync_q: float = 1.0,
    bottlenecked_flows: float = 1.0,
) -> Array:
    """Utilization of a port fed by long-lived AIMD flows whose aggregate window saw-tooths.

    Parameters
    ----------
    buffer_packets : array_like
        Buffer B, packets (>= 0).
    bdp_packets : float
        Bandwidth-delay product P = C·T_e of the flows, packets (> 0).
    md_beta : float
        Multiplicative decrease β of the senders (dimensionless, in (0, 1)).
    loss_sync_q : float
        Fraction q (dimensionless, in (0, 1]) of the flows that see a loss in a congestion
        event (004 eq. 13); 1 is global synchronization.
    bottlenecked_flows : float
        Number N_b of flows (>= 1).

    Returns
    -------
    numpy.ndarray
        Long-run utilization (dimensionless, in (0, 1]) at each buffer size.

    Notes
    -----
    The aggregate window peaks at ``W_max = P + B`` (pipe plus full buffer) and after a
    congestion event falls to ``W_min = β_e·(P + B) + (1 − q)·N_b`` with
    ``β_e = 1 − q·(1 − β)``: a fraction q of the flows cut their windows by β, the others grow
    by one packet (004 eq. 14 with a general β). It then grows by one packet per flow per RTT.
    While ``W < P`` the link idles; when ``W ≥ P`` it is busy and the RTT stretches to W/C.
    Integrating over one cycle,

    ``U = (W_max² − W_min²) / (2P·(P − W_min) + W_max² − P²)`` if ``W_min < P``, else 1.

    ``U = 1`` exactly at ``B = (q·P − 2·N_b·(1 − q))/(2 − q)`` for β = 1/2, the BSCL term
    B_ρ (004 eq. 16); at ``B = P`` for q = 1 (the rule of thumb, 000 §2.1); at
    ``B = P·(1 − β)/β`` for q = 1 and a general β (RFC 9438). B = 0, β = 1/2, q = 1 gives 3/4.

    Assumptions:

    - long-lived flows, all limited by congestion at this port;
    - linear (Reno-like) window growth between losses; CUBIC grows concave-convex and spends
      longer near its peak, so this underestimates CUBIC's utilization below full buffering;
    - a congestion event is one loss burst per cycle; no timeouts.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis (seed
       ``000_9b46cc70677d86b3.txt``), §2.1 (single-flow window argument).
    .. [2] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links"
       (seed ``004_cb0749363e88d206.txt``), §III.C, eqs. 13-16.
    """
    b = np.asarray(checks.non_negative("buffer_packets", buffer_packets), dtype=np.float64)
    p = float(checks.positive("bdp_packets", bdp_packets))
    beta = float(checks.probability("md_beta", md_beta))
    q = float(checks.in_range("loss_sync_q", loss_sync_q, 0.0, 1.0, low_inclusive=False))
    n_b = float(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0))
    return _sawtooth(b, p, beta, q, n_b)


def _sawtooth(b: Array, p: float, beta: float, q: float, n_b: float) -> Array:
    """:func:`sawtooth_utilization` on checked arguments."""
    w_max = p + b
    w_min = (1.0 - q * (1.0 - beta)) * w_max + (1.0 - q) * n_b
    idle = w_min < p
    # U is a ratio of quadratics in the windows: scale them by W_max where squaring them
    # would overflow (identity elsewhere, so ordinary inputs give the same digits).
    scale = np.where(w_max > _LARGE_WINDOW, w_max, 1.0)
    w_max_s = w_max / scale
    p_s = p / scale
    w_lo = np.minimum(w_min, p) / scale
    num = w_max_s**2 - w_lo**2
    den = 2.0 * p_s * (p_s - w_lo) + w_max_s**2 - p_s**2
    safe_den = np.where(idle & (den > 0), den, 1.0)
    u = np.where(idle, num / safe_den, 1.0)
    return np.clip(u, 0.0, 1.0)


def window_loss_rate(buffer_packets: Any, bdp_packets: float, bottlenecked_flows: float) -> Array:
    """Loss rate of N_b long-lived Reno flows whose windows share the pipe and the buffer.

    Parameters
    ----------
    buffer_packets : array_like
        Buffer B, packets (>= 0).
    bdp_packets : float
        C_e·T_e of the flows, packets (> 0).
    bottlenecked_flows : float
        N_b (>= 1).

    Returns
    -------
    numpy.ndarray
        Loss probability (dimensionless, in (0, 1]).

    Notes
    -----
    The flows' mean window is ``(P + B)/N_b`` packets and the Mathis equation
    ``W = 0.87/sqrt(p)`` (004 eqs. 2, 21-22) gives ``p = (0.87·N_b/(P + B))²``, capped at 1.
    Its inverse at ``p = p̂`` is B_p = K_p·N_b − P (004 eq. 23).

    Assumptions:

    - all N_b flows are long-lived and lose packets only here;
    - the Mathis equation holds (p below 2-5%, losses recovered by fast retransmit); CUBIC
      flows lose less than this at the same window.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis (seed ``004_cb0749363e88d206.txt``), §IV,
       eqs. 2, 18-23.
    """
    b = np.asarray(checks.non_negative("buffer_packets", buffer_packets), dtype=np.float64)
    p = float(checks.positive("bdp_packets", bdp_packets))
    n_b = float(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0))
    return _window_loss(b, p, n_b)


def _window_loss(b: Array, p: float, n_b: float) -> Array:
    """:func:`window_loss_rate` on checked arguments."""
    # Where the mean window (P + B)/N_b is below 0.87 packets the loss is capped at 1: decide
    # that before dividing, so that no ratio or square can overflow.
    windows = p + b
    full = MATHIS_CONSTANT * n_b >= windows
    ratio = MATHIS_CONSTANT * n_b / np.where(full, MATHIS_CONSTANT * n_b, windows)
    return np.where(full, 1.0, np.minimum(1.0, ratio**2))


#: Grid of B at which the paced drop bound is evaluated for the curves and the search: every
#: whole size up to :data:`PACED_GRID_EXACT` packets (where the bound's answers lie), then
#: :data:`PACED_GRID_PER_OCTAVE` points per doubling; a size between grid points takes the
#: bound at the point below it.
PACED_GRID_EXACT = 64
PACED_GRID_PER_OCTAVE = 8


def _grid_size(index: Array) -> Array:
    """The buffer size of each grid index (0 -> 1 packet)."""
    exact = index + 1.0
    octaves = np.log2(PACED_GRID_EXACT) + (index - PACED_GRID_EXACT + 1) / PACED_GRID_PER_OCTAVE
    return np.where(index < PACED_GRID_EXACT, exact, np.exp2(octaves))


def _grid_index(sizes: Array) -> Array:
    """The largest grid index whose size is at most each size (sizes below 1 -> 0)."""
    b = np.maximum(sizes, 1.0)
    exact = np.floor(b + 1e-9) - 1.0
    octaves = np.floor((np.log2(b) - np.log2(PACED_GRID_EXACT)) * PACED_GRID_PER_OCTAVE + 1e-9)
    index = np.where(b < PACED_GRID_EXACT + 1.0, exact, PACED_GRID_EXACT - 1.0 + octaves)
    return index.astype(np.int64)


_PACED_TABLES: dict[tuple[int, float, float, float], Array] = {}

#: Paced-bound tables kept (one per link), oldest dropped first.
_PACED_TABLES_KEPT = 32


def _paced_upper(flows: int, w: float, slots: float, slowdown: float, top: int) -> Array:
    """``min(1, upper end)`` of :func:`models.pacing.paced_drop_bound_bracket` at the grid
    sizes of indices ``0..top`` (or more), see :func:`_grid_size`.

    One table per link, extended as larger sizes are asked for; once the bound reaches 0 it
    stays 0 (it falls with B), so the grid beyond is not evaluated.
    """
    key = (flows, w, slots, slowdown)
    table = _PACED_TABLES.get(key)
    if table is None:
        table = np.zeros(0)
    if table.size <= top and not (table.size and table[-1] == 0.0):
        start = table.size
        stop = max(top + 1, 2 * start, 64)
        grid = _grid_size(np.arange(start, stop, dtype=np.float64))
        _, high = paced_drop_bound_bracket(flows, w, slots, slowdown, grid)
        table = np.concatenate((table, np.minimum(1.0, np.asarray(high, dtype=np.float64))))
        if len(_PACED_TABLES) >= _PACED_TABLES_KEPT:
            _PACED_TABLES.pop(next(iter(_PACED_TABLES)))
        _PACED_TABLES[key] = table
    if table.size <= top:  # the bound is 0 from the table's end on
        table = np.concatenate((table, np.zeros(top + 1 - table.size)))
    return table


@dataclass(frozen=True)
class TrafficModel:
    """One of the three traffic models above, with the parameters it needs.

    ``max_utilization`` is the most the traffic can carry (fraction of capacity): ρ for
    window-limited or open-loop traffic below saturation, 1 otherwise. ``bbr``: the congested
    senders are BBR v1, whose utilization is this simulator's measured figure
    (:func:`models.recommend.simulated_loss.bbr_utilization`), not the loss-driven sawtooth.
    ``utilization_unknown``: no model here holds for these senders at this port (DCTCP behind
    DualQ's L4S step on a wide-area link), so the utilization is not predicted at any size
    (:meth:`utilization_known`); :meth:`utilization` keeps the model's number for the searches
    and curves, which never print it as a prediction.
    """

    kind: TrafficModelKind
    capacity_bps: float
    packet_bytes: float
    max_utilization: float
    load: float = 1.0
    max_window_packets: float = 1.0
    flows: int = 1
    rtt_s: float = 0.1
    bdp_packets: float = 1.0
    bottlenecked_share: float = 1.0
    bottlenecked_flows: int = 1
    md_beta: float = 0.5
    loss_sync_q: float = 1.0
    desynchronized: bool = False
    loss_known: bool = True
    slowdown: float | None = None
    bbr: bool = False
    utilization_unknown: bool = False

    @property
    def packet_time_s(self) -> float:
        """Transmission time of one packet at line rate, seconds."""
        return 8.0 * self.packet_bytes / self.capacity_bps

    def utilization_known(self, buffer_packets: Any) -> npt.NDArray[np.bool_]:
        """Whether :meth:`utilization` is a prediction at each buffer size: not for senders no
        model here describes (``utilization_unknown``), nor for BBR below the smallest buffer
        its simulated figures were measured at."""
        b = np.atleast_1d(np.asarray(buffer_packets, dtype=np.float64))
        if self.utilization_unknown:
            return np.zeros(b.shape, dtype=bool)
        if self.kind == "congested_tcp" and self.bbr:
            p_e = self.bottlenecked_share * self.bdp_packets
            return bbr_utilization_measured(self._nonnegative(b) / p_e)
        return np.ones(b.shape, dtype=bool)

    def utilization(self, buffer_packets: Any) -> Array:
        """Predicted utilization (fraction of capacity) at each buffer size."""
        b = np.atleast_1d(np.asarray(buffer_packets, dtype=np.float64))
        if self.kind == "window_limited":
            theta = np.clip(
                np.asarray(
                    tiny_buffers_utilization_bound(b, self.max_window_packets, self.load),
                    dtype=np.float64,
                ),
                0.0,
                1.0,
            )
            if self.slowdown is not None:
                theta = np.maximum(theta, 1.0 - self._paced_drop_upper(b) * self._w2_half)
            return self.load * theta
        if self.kind == "open_loop":
            loss = np.asarray(mm1b_loss_probability(self.load, b), dtype=np.float64)
            return np.minimum(1.0, self.load * (1.0 - loss))
        share = self.bottlenecked_share
        p_e = share * self.bdp_packets
        if self.bbr:
            # Paced BBR senders: not the loss-driven sawtooth below, this simulator's figures.
            return (1.0 - share) + share * bbr_utilization(self._nonnegative(b) / p_e)
        # The model's parameters were checked when it was built: the unchecked cores here
        # (same arithmetic as sawtooth_utilization and window_loss_rate).
        u = _sawtooth(
            self._nonnegative(b),
            p_e,
            self.md_beta,
            self.loss_sync_q,
            float(self.bottlenecked_flows),
        )
        if self.desynchronized:
            u = np.maximum(u, appenzeller_utilization_bound(b, self._sqrt_n_rule_packets))
        return (1.0 - share) + share * u

    @cached_property
    def _sqrt_n_rule_packets(self) -> float:
        """``C_e·T_e/√N_b`` in packets, for Appenzeller's bound."""
        return float(
            sqrt_n_buffer_packets(
                self.bottlenecked_share * self.capacity_bps,
                self.rtt_s,
                self.bottlenecked_flows,
                self.packet_bytes,
            )
        )

    @property
    def _w2_half(self) -> float:
        return self.max_window_packets**2 / 2.0

    def _paced_drop_upper(self, b: Array) -> Array:
        """Upper end of the paced drop bound's bracket at each size (000 Thm 2, App. B).

        The bound falls with B, so its value at the nearest point at or below B of a grid
        with :data:`PACED_GRID_PER_OCTAVE` points per doubling is an upper bound at B too:
        the bracket is evaluated on that grid only (once per model, cached), not at every
        size the search and the curves ask for.
        """
        slots = self.capacity_bps * self.rtt_s / (8.0 * self.packet_bytes)
        sizes = np.asarray(b, dtype=np.float64)
        steps = _grid_index(sizes)
        top = int(np.max(steps)) if steps.size else 0
        table = _paced_upper(
            self.flows,
            self.max_window_packets,
            slots,
            float(self.slowdown or 1.0),
            top,
        )
        out = table[steps.astype(np.int64)]
        # Below one packet the bound is not defined on the grid: no buffer, no guarantee.
        return np.where(sizes < 1.0, 1.0, out)

    @staticmethod
    def _nonnegative(b: Array) -> Array:
        return np.asarray(checks.non_negative("buffer_packets", b), dtype=np.float64)

    def loss_probability(self, buffer_packets: Any) -> Array:
        """Predicted packet loss probability at each buffer size."""
        b = np.atleast_1d(np.asarray(buffer_packets, dtype=np.float64))
        if self.kind == "window_limited":
            loss = np.asarray(mm1b_loss_bound(self.load, b), dtype=np.float64)
            if self.slowdown is not None:
                loss = np.minimum(loss, self._paced_drop_upper(b))
            return loss
        if self.kind == "open_loop":
            return np.asarray(mm1b_loss_probability(self.load, b), dtype=np.float64)
        if not self.loss_known:
            return np.full(b.shape, np.nan)
        p_e = self.bottlenecked_share * self.bdp_packets
        return _window_loss(self._nonnegative(b), p_e, float(self.bottlenecked_flows))

    def queueing_delay_s(self, buffer_packets: Any) -> Array:
        """Largest queueing delay, a full buffer drained at line rate (004 eq. 24), seconds."""
        b = np.atleast_1d(np.asarray(buffer_packets, dtype=np.float64))
        return b * self.packet_time_s

    def normalized_utilization(self, buffer_packets: Any) -> Array:
        """Utilization as a fraction of ``max_utilization`` (compared with the target)."""
        return np.minimum(1.0, self.utilization(buffer_packets) / self.max_utilization)
