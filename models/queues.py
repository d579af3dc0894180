"""Packet-level queueing models of a router port: M/M/1/B and M/D/1/B.

``buffer_packets`` (``B``) is the most packets the port holds, the one in transmission included:
the ``K`` of M/M/1/K and M/G/1/K. ``load`` (``ρ``) is the dimensionless offered load, arrival
rate times mean service time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.errors import ParameterError

FloatArray = npt.NDArray[np.float64]

#: Largest offered load accepted by :func:`md1b_queue` (100 times the link capacity).
MD1B_MAX_LOAD = 100.0

#: The forward substitution of :func:`md1b_queue` rescales its unknowns above this magnitude.
_RESCALE_ABOVE = 1e100


def _whole_at_least(name: str, value: Any, bound: int) -> FloatArray:
    """Check an array of whole numbers ``>= bound`` and return it as floats."""
    arr = np.asarray(checks.at_least(name, value, bound), dtype=np.float64)
    if np.any(arr != np.floor(arr)):
        raise ParameterError.got(name, "a whole number of packets", value)
    return arr


def mm1b_loss_probability(load: Any, buffer_packets: Any) -> Any:
    """Loss probability of the M/M/1/B queue.

    Parameters
    ----------
    load : float or array_like
        Offered load ``ρ`` (dimensionless, arrival rate / service rate), ``> 0``; loads ``>= 1``
        are allowed (the queue is finite).
    buffer_packets : float or array_like
        ``B``, the most packets the port holds, the one in service included (``>= 1``).
        Non-integer values interpolate the formula smoothly.

    Returns
    -------
    float or ndarray
        Probability that an arriving packet finds the buffer full and is dropped (broadcast
        over the inputs).

    Notes
    -----
    ``p = ρ^B (1 − ρ) / (1 − ρ^(B+1))``, and ``p = 1/(B + 1)`` at ``ρ = 1``. It is evaluated as
    ``expm1(ℓ)·e^(Bℓ)/expm1((B+1)ℓ)`` with ``ℓ = ln ρ`` (``ℓ < 0``) and
    ``expm1(−ℓ)/expm1(−(B+1)ℓ)`` (``ℓ > 0``), which is exact near ``ρ = 1`` and does not
    overflow for large ``B`` at ``ρ > 1``.

    Assumptions:

    - packets arrive as a Poisson process (PASTA: the loss probability is the time-fraction of
      a full buffer);
    - transmission times are exponential (packet sizes exponentially distributed);
    - a single FIFO drop-tail port holding ``B`` packets including the one in transmission;
    - the arrival process does not react to losses (open loop).

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
       ``000_9b46cc70677d86b3.txt``), §3.6, eq. 3.3.
    .. [2] J. Augé, J. Roberts, "A statistical bandwidth sharing perspective on buffer sizing"
       (seed ``003_04878e78c5c6bb91.txt``), §4.2.
    .. [3] J. Augé, J. Roberts, "Buffer sizing for elastic traffic", NGI 2006 (seed
       ``002_e29b74a3ab8ed403.txt``), §IV.A.
    """
    rho = np.asarray(checks.positive("load", load), dtype=np.float64)
    b = np.asarray(checks.at_least("buffer_packets", buffer_packets, 1), dtype=np.float64)
    rho, b = np.broadcast_arrays(rho, b)
    ell = np.log(rho)
    out = np.empty(rho.shape, dtype=np.float64)
    below = ell < 0
    above = ell > 0
    at_one = ~(below | above)
    with np.errstate(under="ignore"):
        lb, bb = ell[below], b[below]
        out[below] = np.expm1(lb) * np.exp(bb * lb) / np.expm1((bb + 1.0) * lb)
        la, ba = ell[above], b[above]
        out[above] = np.expm1(-la) / np.expm1(-(ba + 1.0) * la)
    out[at_one] = 1.0 / (b[at_one] + 1.0)
    return checks.float_or_array(out)


def mm1b_loss_scalar(load: float, buffer_packets: float) -> float:
    """:func:`mm1b_loss_probability` for one checked ``load > 0`` and ``buffer_packets >= 1``.

    The same formula in plain floats, for callers that evaluate it many times in a scalar
    root search (:func:`models.tcp_queue.tcp_mm1b_fixed_point`); no argument checks.
    """
    ell = math.log(load)
    if ell < 0.0:
        return (
            math.expm1(ell)
            * math.exp(buffer_packets * ell)
            / math.expm1((buffer_packets + 1.0) * ell)
        )
    if ell > 0.0:
        return math.expm1(-ell) / math.expm1(-(buffer_packets + 1.0) * ell)
    return 1.0 / (buffer_packets + 1.0)


def mm1b_loss_bound(load: Any, buffer_packets: Any) -> Any:
    """Geometric loss bound ``ρ^B`` of a buffer of ``B`` packets at load ``ρ < 1``.

    Parameters
    ----------
    load : float or array_like
        Offered load ``ρ`` (dimensionless), in ``(0, 1)``.
    buffer_packets : float or array_like
        ``B``, the most packets the port holds, the one in service included (``>= 1``).

    Returns
    -------
    float or ndarray
        ``ρ^B``: the probability that an M/M/1 queue (or any M/G/1 LCFS-PR queue) holds at
        least ``B`` packets; an upper bound on the M/M/1/B and M/D/1/B loss probabilities.

    Notes
    -----
    ``P(loss) ≤ P(Q_∞ ≥ B) = ρ^B`` where ``Q_∞`` is the occupancy of the infinite queue, which is
    geometric for M/M/1 (003 §4.1: "approximate packet loss probability for a buffer of size B
    by (Λ_t/C)^B"; 002 §IV.A: "Pr[loss | buffer size = B] ≈ ρ^B").

    Assumptions:

    - Poisson packet arrivals (locally Poisson superposition of many non-bottlenecked flows);
    - exponential packet sizes (M/M/1), or fixed sizes through the LCFS-PR argument of 000
      App. A Lemma 6;
    - load strictly below 1.

    References
    ----------
    .. [1] Seed ``002_e29b74a3ab8ed403.txt``, §IV.A (loss ≈ ρ^B).
    .. [2] Seed ``003_04878e78c5c6bb91.txt``, §4.1-4.2 (``ρ^B < ε`` sizing).
    .. [3] Seed ``000_9b46cc70677d86b3.txt``, §3.3 (M/M/1 drop rate ρ^B) and App. A, Lemma 6.
    """
    rho = np.asarray(
        checks.in_range("load", load, 0.0, 1.0, low_inclusive=False, high_inclusive=False),
        dtype=np.float64,
    )
    b = np.asarray(checks.at_least("buffer_packets", buffer_packets, 1), dtype=np.float64)
    with np.errstate(under="ignore"):
        return checks.float_or_array(np.asarray(rho**b, dtype=np.float64))


def md1b_loss_bound(load: Any, buffer_packets: Any) -> Any:
    """LCFS-PR bound ``ρ^B`` on the M/D/1/B loss probability (000 App. A, Lemma 6).

    Parameters
    ----------
    load : float or array_like
        Offered load ``ρ`` (dimensionless), in ``(0, 1)``.
    buffer_packets : float or array_like
        ``B``, the most packets the port holds, the one in service included (``>= 1``).

    Returns
    -------
    float or ndarray
        ``ρ^B``.

    Notes
    -----
    The occupancy of an M/D/1 FCFS queue equals that of the M/D/1 LCFS-PR queue (same arrivals,
    both work conserving, same service rate), whose occupancy is geometric with parameter ``ρ``
    for any M/G/1 LCFS-PR system; hence the drop probability is at most ``ρ^B``.

    Assumptions:

    - Poisson packet arrivals at rate ``ρC``;
    - fixed packet size (deterministic transmission time);
    - load strictly below 1.

    References
    ----------
    .. [1] Seed ``000_9b46cc70677d86b3.txt``, App. A, Lemma 6 and the paragraph that proves it.
    """
    return mm1b_loss_bound(load, buffer_packets)


def transparent_buffer_packets(load: Any, max_loss: Any) -> Any:
    """Smallest buffer with ``ρ^B ≤ ε``: the transparent-regime sizing rule.

    Parameters
    ----------
    load : float or array_like
        Link load ``ρ`` (dimensionless), in ``(0, 1)``.
    max_loss : float or array_like
        Target loss probability ``ε``, in ``(0, 1)``.

    Returns
    -------
    int or ndarray of int
        ``B = ⌈ln ε / ln ρ⌉`` packets (at least 1).

    Notes
    -----
    ``ρ^B < ε  ⇔  B > ln ε / ln ρ``; the ratio is rounded up after removing floating-point noise
    of relative size ``1e-12`` (so that ``ε = ρ^k`` gives exactly ``k``).

    Assumptions:

    - transparent regime: the peak rates of the flows in progress sum below the link capacity
      with high probability, so packet arrivals are locally Poisson;
    - flow peak rates below about a tenth of the link rate and ``ε > 0.001`` (003 §4.2: then the
      required buffer equals that of Poisson arrivals);
    - the M/M/1 bound ``ρ^B`` (exponential packet sizes, conservative for fixed sizes).

    References
    ----------
    .. [1] Seed ``003_04878e78c5c6bb91.txt``, §4.2 ("the M/M/1 formula ρ^B < ε is a useful sizing
       guideline").
    .. [2] Seed ``002_e29b74a3ab8ed403.txt``, §IV.A.
    """
    rho = np.asarray(
        checks.in_range("load", load, 0.0, 1.0, low_inclusive=False, high_inclusive=False),
        dtype=np.float64,
    )
    eps = np.asarray(checks.probability("max_loss", max_loss), dtype=np.float64)
    ratio = np.log(eps) / np.log(rho)
    b = np.maximum(np.ceil(ratio * (1.0 - 1e-12)), 1.0).astype(np.int64)
    return int(b) if b.ndim == 0 else b


def transparent_admissible_load(buffer_packets: Any, max_loss: Any) -> Any:
    """Largest load at which a buffer of ``B`` packets keeps ``ρ^B ≤ ε``.

    Parameters
    ----------
    buffer_packets : float or array_like
        ``B``, the most packets the port holds (``>= 1``).
    max_loss : float or array_like
        Target loss probability ``ε``, in ``(0, 1)``.

    Returns
    -------
    float or ndarray
        Admissible load ``ρ = ε^(1/B)`` (dimensionless).

    Notes
    -----
    Inverse of ``ρ^B = ε``. Example of 003 §4.2: ``B = 20`` gives ``ρ = 0.79`` at ``ε = 0.01``
    and ``ρ = 0.70`` at ``ε = 0.001``.

    Assumptions:

    - transparent regime with locally Poisson packet arrivals;
    - the M/M/1 bound ``ρ^B`` on the loss probability.

    References
    ----------
    .. [1] Seed ``003_04878e78c5c6bb91.txt``, §4.2 and §6 item 1.
    """
    b = np.asarray(checks.at_least("buffer_packets", buffer_packets, 1), dtype=np.float64)
    eps = np.asarray(checks.probability("max_loss", max_loss), dtype=np.float64)
    return checks.float_or_array(np.asarray(eps ** (1.0 / b), dtype=np.float64))


@dataclass(frozen=True)
class MD1BResult:
    """Stationary performance of the M/D/1/B queue.

    Attributes
    ----------
    loss_probability : float or ndarray
        Probability that an arriving packet is dropped (time-fraction of a full buffer).
    mean_queue_packets : float or ndarray
        Time-average number of packets in the port, the one in transmission included.
    mean_delay_slots : float or ndarray
        Mean time an accepted packet spends in the port (waiting plus transmission), in units
        of the packet transmission time (Little's law on the accepted packets).
    """

    loss_probability: Any
    mean_queue_packets: Any
    mean_delay_slots: Any


def _md1b_scalar(rho: float, k: int) -> tuple[float, float, float, FloatArray]:
    """Loss, mean number, mean delay and occupancy distribution of M/D/1/K."""
    from scipy import special  # on first use: importing SciPy is most of the CLI start-up

    # Tail probabilities abar[m] = P(A >= m) of the Poisson(rho) number of arrivals during one
    # transmission, far enough that the neglected terms are below the double-precision range.
    extra = math.ceil(rho + 40.0 * math.sqrt(rho) + 60.0)
    m = np.arange(k + 2 + extra, dtype=np.float64)
    # P(A >= m) = P(A > m - 1): the Poisson survival function, scipy.stats.poisson.sf(m - 1, rho),
    # which is special.pdtrc(floor(m - 1), rho); called directly to spare importing scipy.stats.
    abar = special.pdtrc(m - 1.0, rho)
    abar[0] = 1.0
    a0 = math.exp(-rho)
    # R[m] = sum_{l >= m} abar[l], summed from the smallest terms.
    r_tail = np.cumsum(abar[::-1])[::-1]

    # Cut equations of the embedded chain at departures (x_0 = 1, unnormalised):
    # a0 x_n = x_0 abar[n] + sum_{i=1}^{n-1} x_i abar[n-i+1], n = 1..K-1.
    x = np.zeros(k, dtype=np.float64)
    x[0] = 1.0
    for n in range(1, k):
        x[n] = (x[0] * abar[n] + np.dot(x[1:n], abar[n:1:-1])) / a0
        if x[n] > _RESCALE_ABOVE:
            x[: n + 1] /= x[n]
    # Mass of the full state from the cut equations summed over n (no cancellation):
    # 1 - (1 - rho) X = D with D below, so P_K = D / (x_0 + rho X).
    d = x[0] * r_tail[k] + float(np.dot(x[1:k], r_tail[k:1:-1]))
    total = float(np.sum(x))
    norm = x[0] + rho * total
    occupancy = np.empty(k + 1, dtype=np.float64)
    occupancy[:k] = x / norm
    occupancy[k] = d / norm
    loss = float(occupancy[k])
    mean_n = float(np.dot(np.arange(k + 1, dtype=np.float64), occupancy))
    delay = mean_n / (rho * (1.0 - loss))
    return loss, mean_n, delay, occupancy


def _md1b_inputs(load: Any, buffer_packets: Any) -> tuple[FloatArray, FloatArray]:
    rho = np.asarray(
        checks.in_range("load", load, 0.0, MD1B_MAX_LOAD, low_inclusive=False), dtype=np.float64
    )
    b = _whole_at_least("buffer_packets", buffer_packets, 1)
    rho_b, b_b = np.broadcast_arrays(rho, b)
    return rho_b, b_b


def md1b_queue(load: Any, buffer_packets: Any) -> MD1BResult:
    """Exact loss probability, mean occupancy and mean delay of the M/D/1/B queue.

    Parameters
    ----------
    load : float or array_like
        Offered load ``ρ`` (dimensionless: packet arrival rate times transmission time), in
        ``(0, 100]``; loads ``>= 1`` are allowed.
    buffer_packets : int or array_like
        ``B``, the most packets the port holds, the one in transmission included (whole
        number ``>= 1``).

    Returns
    -------
    MD1BResult
        ``loss_probability``, ``mean_queue_packets`` and ``mean_delay_slots`` (floats, or arrays
        broadcast over the inputs).

    Notes
    -----
    Embedded Markov chain of M/G/1/K at departure epochs, ``K = B``, states ``0..K−1`` (packets
    left behind). With ``a_k = e^{−ρ} ρ^k / k!`` the probability of ``k`` arrivals during one
    transmission and ``ā_m = Σ_{k≥m} a_k``, the departure distribution ``π`` solves the cut
    (level-crossing) form of its balance equations, a lower-triangular system

    ``a_0 π_n = π_0 ā_n + Σ_{i=1}^{n−1} π_i ā_{n−i+1}``,  ``n = 1..K−1``,

    solved by forward substitution with rescaling (non-negative terms only, so it is stable
    for ``ρ > 1`` and ``B`` in the thousands). The time-average occupancy is
    ``p_j = π_j/(π_0 + ρ)`` for ``j < K`` and the loss probability is
    ``p_K = 1 − 1/(π_0 + ρ)``; ``p_K`` is evaluated as ``D/(π_0 + ρ)`` with
    ``D = π_0 R_K + Σ_{i=1}^{K−1} π_i R_{K−i+1}``, ``R_m = Σ_{l≥m} ā_l`` (the cut equations
    summed over ``n``), which avoids the cancellation of ``1 − 1/(π_0 + ρ)`` for small losses.
    Mean delay by Little's law: ``W = L/(ρ(1 − p_K))`` transmission times.

    Assumptions:

    - packets arrive as a Poisson process (open loop, rate independent of losses);
    - all packets have the same size (deterministic transmission time, one slot);
    - one FIFO drop-tail port holding ``B`` packets including the one in transmission.

    References
    ----------
    .. [1] Seed ``000_9b46cc70677d86b3.txt``, App. A, Lemma 6 (the M/D/1 "virtual system") and
       §4.2.2 (measured drops compared with an M/D/1 queue of the same size and load).
    .. [2] D. Gross, C. M. Harris, *Fundamentals of Queueing Theory*, 3rd ed., Wiley, 1998, the
       M/G/1/K queue (embedded chain at departures, ``p_K = 1 − 1/(π_0 + ρ)``).
    .. [3] H. Takagi, *Queueing Analysis*, Vol. 2: *Finite Systems*, North-Holland, 1993, the
       M/G/1/K queue.
    """
    rho, b = _md1b_inputs(load, buffer_packets)
    loss = np.empty(rho.shape, dtype=np.float64)
    mean_n = np.empty(rho.shape, dtype=np.float64)
    delay = np.empty(rho.shape, dtype=np.float64)
    for idx in np.ndindex(rho.shape):
        loss[idx], mean_n[idx], delay[idx], _ = _md1b_scalar(float(rho[idx]), int(b[idx]))
    return MD1BResult(
        checks.float_or_array(loss), checks.float_or_array(mean_n), checks.float_or_array(delay)
    )


def md1b_occupancy_distribution(load: float, buffer_packets: int) -> FloatArray:
    """Time-average distribution of the number of packets in an M/D/1/B port.

    Parameters
    ----------
    load : float
        Offered load ``ρ`` (dimensionless), in ``(0, 100]``.
    buffer_packets : int
        ``B`` (whole number ``>= 1``), the one in transmission included.

    Returns
    -------
    ndarray
        ``p_0 .. p_B``; ``p_B`` is the loss probability (PASTA).

    Notes
    -----
    Same embedded-chain solution as :func:`md1b_queue`.

    Assumptions:

    - Poisson arrivals, fixed packet size, one FIFO drop-tail port of ``B`` packets.

    References
    ----------
    .. [1] Seed ``000_9b46cc70677d86b3.txt``, App. A, Lemma 6.
    .. [2] D. Gross, C. M. Harris, *Fundamentals of Queueing Theory*, 3rd ed., the M/G/1/K queue.
    """
    rho, b = _md1b_inputs(load, buffer_packets)
    if rho.ndim != 0:
        raise ParameterError("load", "a scalar", "load and buffer_packets must be scalars here")
    return _md1b_scalar(float(rho), int(b))[3]
