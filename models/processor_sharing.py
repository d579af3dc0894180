"""Flow-level processor-sharing (PS) models of statistical bandwidth sharing.

Flows arrive at random and share a link of capacity ``C``; with ``i`` flows in progress the link
serves them at the total rate ``φ(i)·C``. ``load`` (``ρ``) is the dimensionless flow-level load,
flow arrival rate × mean flow size / ``C``. Throughputs are returned as fractions of ``C``.

Three service-rate profiles are supported: ``φ ≡ 1`` (flows can each use the whole link, the
default), peak-rate-limited flows ``φ(i) = min(i·p/C, 1)`` (``peak_rate_fraction = p/C``), and a
user-given table ``φ(1..n)`` that stays at ``φ(n)`` beyond ``n`` (e.g. measured by simulation
as in 003 §5.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.errors import ParameterError
from models.roots import bracketed_root

FloatArray = npt.NDArray[np.float64]

#: Probability mass that :func:`ps_flow_distribution` may leave beyond ``max_flows`` when it
#: chooses ``max_flows`` itself.
DISTRIBUTION_TAIL_TOLERANCE = 1e-12

#: Most entries :func:`ps_flow_distribution` returns.
MAX_DISTRIBUTION_LENGTH = 10_000_000

#: Smallest peak rate fraction accepted: ``C/p`` flows must stay a finite float.
MIN_PEAK_RATE_FRACTION = 1e-300

#: Below this many flows, ``m`` (the least ``i`` with ``i·p/C >= 1``) is found with the
#: floating-point product, as the caller computes it; above, exactly from the fraction.
_EXACT_FLOWS = 2**52


@dataclass(frozen=True)
class _Profile:
    """The service-rate profile ``φ``: an explicit head ``φ(1..h)`` then a constant ``φ_∞``.

    ``peak_rate_fraction`` is set for the peak-rate profile, whose head is handled in closed
    form with Poisson probabilities (``Φ(i) = a^i i!`` for ``i < m``) and is never built.
    """

    head: FloatArray
    tail_phi: float
    peak_rate_fraction: float | None = None
    peak_flows: int = 0  # m: the least number of flows whose peak rates reach C


def _profile(peak_rate_fraction: Any, phi: Any) -> _Profile:
    if peak_rate_fraction is not None and phi is not None:
        raise ParameterError(
            "phi",
            "absent when peak_rate_fraction is given",
            "give at most one of peak_rate_fraction and phi",
        )
    if phi is not None:
        table = np.asarray(checks.in_range("phi", phi, 0.0, 1.0, low_inclusive=False))
        table = np.atleast_1d(table).astype(np.float64)
        if table.ndim != 1:
            raise ParameterError.got("phi", "a 1-D table of values for i = 1..n", phi)
        return _Profile(head=table, tail_phi=float(table[-1]))
    if peak_rate_fraction is None:
        return _Profile(head=np.zeros(0), tail_phi=1.0)
    a = float(checks.positive("peak_rate_fraction", peak_rate_fraction))
    checks.at_least("peak_rate_fraction", a, MIN_PEAK_RATE_FRACTION)
    if a >= 1.0:
        return _Profile(head=np.zeros(0), tail_phi=1.0)
    return _Profile(head=np.zeros(0), tail_phi=1.0, peak_rate_fraction=a, peak_flows=_peak_flows(a))


@lru_cache(maxsize=256)
def _peak_flows(a: float) -> int:
    """``m``, the least whole ``i`` with ``i·a >= 1`` (``0 < a < 1``), in closed form.

    ``⌈1/a⌉`` of the exact binary fraction ``a``; for ``m < 2^52`` it is then moved by at
    most one so that the floating-point product ``i·a`` decides (``a = 1/3`` gives 3, as
    ``3·(1/3)`` rounds to 1), which no longer matters for larger ``m``.
    """
    frac = Fraction(a)
    m = -(-frac.denominator // frac.numerator)
    if m < _EXACT_FLOWS:
        if m > 1 and (m - 1) * a >= 1.0:
            m -= 1
        elif m * a < 1.0:
            m += 1
    return m


def _check_load(load: Any, prof: _Profile) -> FloatArray:
    rho = np.asarray(
        checks.in_range("load", load, 0.0, 1.0, low_inclusive=False, high_inclusive=False),
        dtype=np.float64,
    )
    if np.any(rho >= prof.tail_phi):
        raise ParameterError(
            "load",
            f"< phi[-1] = {prof.tail_phi:g}",
            f"load must be < phi[-1] = {prof.tail_phi:g} (the service rate with many flows "
            f"in progress), got {load!r}",
        )
    return rho


#: ``ln(2π)/2``.
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)

#: Up to this many Poisson terms are computed with plain floats rather than arrays.
_FEW = 8


def _stirling_error(k: FloatArray) -> FloatArray:
    """``ln k! − [(k + 1/2)·ln k − k + ln(2π)/2]`` for ``k >= 1`` (series from 15 on)."""
    from scipy import special  # on first use: importing SciPy is most of the CLI start-up

    small = k < 15.0
    ks = np.where(small, k, 1.0)
    direct = special.gammaln(ks + 1.0) - (ks + 0.5) * np.log(ks) + ks - _HALF_LOG_2PI
    inv = 1.0 / np.where(small, 15.0, k)
    inv2 = inv * inv
    series = (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0))) * inv
    out: FloatArray = np.where(small, direct, series)
    return out


def _deviance(k: FloatArray, mean: float) -> FloatArray:
    """``k·ln(k/mean) − k + mean`` without cancellation (``k >= 1``, ``mean > 0``)."""
    log_ratio = np.log(k) - math.log(mean)
    far = np.abs(log_ratio) > 20.0  # k/mean beyond e^±20: no cancellation, no overflow this way
    d = np.where(far, 0.0, k - mean) / np.where(far, 1.0, mean)
    near = np.abs(d) < 0.1
    dn = np.where(near, d, 0.0)
    # (1 + d)·ln(1 + d) − d = Σ_{j>=2} (−d)^j / (j(j − 1)); 20 terms: |d|^20 < 1e-20.
    series = np.zeros_like(d)
    power = dn * dn
    for j in range(2, 22):
        series += power / (j * (j - 1))
        power = -power * dn
    df = np.where(near, 0.0, d)
    direct = (1.0 + df) * np.log1p(df) - df
    out: FloatArray = np.where(
        far, k * (log_ratio - 1.0) + mean, mean * np.where(near, series, direct)
    )
    return out


def _poisson_logpmf(k: Any, mean: float) -> FloatArray:
    """Log Poisson pmf ``ln(e^−A·A^k/k!)``, accurate for large ``k`` and ``A`` alike.

    Loader's saddle-point form ``−ln(2πk)/2 − stirlerr(k) − bd0(k, A)``: the textbook
    ``k·ln A − ln k! − A`` loses every digit to cancellation when ``k`` and ``A`` are large.
    """
    k = np.asarray(k, dtype=np.float64)
    if k.size <= _FEW:
        # A handful of values: plain floats cost less than the array arithmetic.
        few = [_poisson_logpmf_at(float(x), mean) for x in k.ravel()]
        return np.asarray(few, dtype=np.float64).reshape(k.shape)
    kk = np.maximum(k, 1.0)
    log_pmf = -0.5 * np.log(kk) - _HALF_LOG_2PI - _stirling_error(kk) - _deviance(kk, mean)
    out: FloatArray = np.where(k == 0.0, -mean, log_pmf)
    return out


def _poisson_logpmf_at(k: float, mean: float) -> float:
    """:func:`_poisson_logpmf` at one ``k``, with plain floats (no array overhead)."""
    if k == 0.0:
        return -mean
    if k < 15.0:
        stirling = math.lgamma(k + 1.0) - (k + 0.5) * math.log(k) + k - _HALF_LOG_2PI
    else:
        inv = 1.0 / k
        inv2 = inv * inv
        stirling = (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0))) * inv
    log_ratio = math.log(k) - math.log(mean)
    if abs(log_ratio) > 20.0:
        deviance = k * (log_ratio - 1.0) + mean
    else:
        d = (k - mean) / mean
        if abs(d) < 0.1:
            series, power = 0.0, d * d
            for j in range(2, 22):
                series += power / (j * (j - 1))
                power = -power * d
            deviance = mean * series
        else:
            deviance = mean * ((1.0 + d) * math.log1p(d) - d)
    return -0.5 * math.log(k) - _HALF_LOG_2PI - stirling - deviance


def _poisson_logcdf(k: int, mean: float) -> float:
    """``ln P(Poisson(mean) <= k)`` for a whole ``k >= 0``."""
    from scipy import special  # on first use: importing SciPy is most of the CLI start-up

    cdf = float(special.pdtr(float(k), mean))
    return math.log(cdf) if cdf > 0.0 else -math.inf


def _logaddexp(x: float, y: float) -> float:
    """``ln(e^x + e^y)`` for plain floats (NumPy's ``logaddexp`` formula)."""
    if x == y:
        return x + math.log(2.0)
    if x > y:
        return x + math.log1p(math.exp(y - x))
    if y > x:
        return y + math.log1p(math.exp(x - y))
    return math.nan


def _table_log_terms(rho: float, head: FloatArray) -> FloatArray:
    """``log(ρ^i/Φ(i))`` for ``i = 0..len(head)``."""
    steps = np.arange(1, head.size + 1) * math.log(rho) - np.cumsum(np.log(head))
    out: FloatArray = np.concatenate(([0.0], steps))
    return out


@dataclass(frozen=True)
class _Sums:
    """Log-space sums of the unnormalised stationary terms ``t_i = ρ^i/Φ(i)``.

    ``t_i`` are known up to a common factor; ``last`` is the index after which
    ``t_{i+1} = q·t_i`` (geometric tail), ``log_t_last`` its log term.
    """

    rho: float
    q: float
    last: int
    log_t_last: float
    log_z: float  # log Σ_{i>=0} t_i
    log_m1: float  # log Σ_{i>=1} i t_i


def _geometric_tail_logs(q: float, last: int) -> tuple[float, float]:
    """``log Σ_{k>=1} q^k`` and ``log Σ_{k>=1} (last + k) q^k``."""
    s0 = q / (1.0 - q)
    s1 = last * s0 + q / (1.0 - q) ** 2
    if math.isfinite(s1):
        return math.log(s0), math.log(s1)
    # Beyond the float range (m near 1e300 flows, q within 1e-12 of 1): the same in logs.
    log_s0 = math.log(q) - math.log1p(-q)
    log_s1 = float(np.logaddexp(math.log(last) + log_s0, math.log(q) - 2.0 * math.log1p(-q)))
    return log_s0, log_s1


def _sums(rho: float, prof: _Profile) -> _Sums:
    from scipy import special  # on first use: importing SciPy is most of the CLI start-up

    q = rho / prof.tail_phi
    if prof.peak_rate_fraction is not None:
        # Head i = 0..m-1: t_i = A^i/i! = e^A · Poisson(A) pmf, A = ρ/a (common factor e^A
        # dropped); tail i >= m: t_i = t_{m-1} ρ^(i-m+1).
        m = prof.peak_flows
        big_a = rho / prof.peak_rate_fraction
        last = m - 1
        log_t_last = _poisson_logpmf_at(float(last), big_a)
        log_head_z = _poisson_logcdf(last, big_a)
        # Σ_{i=1}^{m-1} i A^i/i! = A Σ_{j=0}^{m-2} A^j/j!
        log_head_m1 = math.log(big_a) + _poisson_logcdf(last - 1, big_a) if last >= 1 else -np.inf
    else:
        head = prof.head
        last = head.size
        log_t = _table_log_terms(rho, head)
        log_t_last = float(log_t[-1])
        log_head_z = float(special.logsumexp(log_t))
        if last >= 1:
            log_head_m1 = float(special.logsumexp(log_t[1:] + np.log(np.arange(1, last + 1))))
        else:
            log_head_m1 = -np.inf
    tail0, tail1 = _geometric_tail_logs(q, last)
    log_z = _logaddexp(log_head_z, log_t_last + tail0)
    log_m1 = _logaddexp(log_head_m1, log_t_last + tail1)
    return _Sums(rho, q, last, log_t_last, log_z, log_m1)


def _log_terms(s: _Sums, prof: _Profile, n: FloatArray) -> FloatArray:
    """``log t_i`` (same common factor as :func:`_sums`) at the flow counts ``n``."""
    out = np.empty(n.shape, dtype=np.float64)
    tail = n > s.last
    out[tail] = s.log_t_last + (n[tail] - s.last) * math.log(s.q)
    head_n = n[~tail]
    if prof.peak_rate_fraction is not None:
        out[~tail] = _poisson_logpmf(head_n, s.rho / prof.peak_rate_fraction)
    else:
        log_t = _table_log_terms(s.rho, prof.head)
        out[~tail] = log_t[head_n.astype(np.int64)]
    return out


def _over_loads(load: Any, prof: _Profile, fn: Any) -> Any:
    rho = _check_load(load, prof)
    out = np.empty(rho.shape, dtype=np.float64)
    for idx in np.ndindex(rho.shape):
        out[idx] = fn(_sums(float(rho[idx]), prof))
    return checks.float_or_array(out)


def ps_throughput_ratio(
    load: Any, *, peak_rate_fraction: float | None = None, phi: Any = None
) -> Any:
    """Expected flow throughput ``γ`` of the processor-sharing model, as a fraction of ``C``.

    Parameters
    ----------
    load : float or array_like
        Flow-level load ``ρ`` (dimensionless: flow arrival rate × mean size / capacity), in
        ``(0, 1)``; with a ``phi`` table also ``ρ < phi[-1]``.
    peak_rate_fraction : float, optional
        ``p/C``, the flows' exogenous peak rate as a fraction of the link capacity
        (``>= 1e-300``; values ``>= 1`` mean the flows are not peak-rate limited). Gives
        ``φ(i) = min(i·p/C, 1)``.
    phi : array_like, optional
        Table ``φ(1), ..., φ(n)`` in ``(0, 1]`` of the total service rate (fraction of ``C``)
        with ``i`` flows in progress; ``φ(i) = φ(n)`` for ``i > n``.

    Returns
    -------
    float or ndarray
        ``γ`` in ``(0, 1]``: mean flow size / mean flow duration, as a fraction of ``C``; with
        peak-rate-limited flows ``γ <= p/C``.

    Notes
    -----
    003 eq. 1: ``γ = Σ_{i>=0} ρ^i/Φ(i) / Σ_{i>=1} i ρ^(i−1)/Φ(i)``, ``Φ(i) = Π_{k<=i} φ(k)``.
    With ``φ ≡ 1``, ``γ = 1 − ρ``. The sums are evaluated exactly: in log space over the
    explicit part of ``φ`` (closed-form Poisson probabilities for the peak-rate profile, where
    ``ρ^i/Φ(i) = (ρC/p)^i/i!``), plus the geometric tail where ``φ`` is constant. The result
    is capped at the largest per-flow rate ``max_i φ(i)/i`` (``min(1, p/C)``), which ``γ``
    cannot exceed, so rounding never puts it above 1.

    Assumptions:

    - flows arrive as a Poisson process of sessions (insensitivity: only the load matters, not
      the flow-size distribution);
    - flows in progress share the service rate ``φ(i)C`` perfectly fairly;
    - all flows have the same peak rate (peak-rate profile);
    - quasi-stationary: ``φ(i)`` is reached at once when the number of flows changes.

    References
    ----------
    .. [1] J. Augé, J. Roberts, "A statistical bandwidth sharing perspective on buffer sizing"
       (seed ``003_04878e78c5c6bb91.txt``), §3.1-3.3, eq. 1, Fig. 1.
    .. [2] J. Augé, J. Roberts, "Buffer sizing for elastic traffic", NGI 2006 (seed
       ``002_e29b74a3ab8ed403.txt``), §III.
    """
    prof = _profile(peak_rate_fraction, phi)
    cap = _throughput_cap(prof)
    return _over_loads(load, prof, lambda s: min(cap, _gamma(s)))


def _gamma(s: _Sums) -> float:
    """``ρ·Z/M1`` from the log sums, without overflow when ``ρ`` is tiny."""
    log_ratio = s.log_z - s.log_m1
    if log_ratio > 700.0:  # ρ below about 1e-304: exp(log_ratio) would overflow
        return math.exp(math.log(s.rho) + log_ratio)
    return s.rho * math.exp(log_ratio)


def _throughput_cap(prof: _Profile) -> float:
    """Most a flow can get, ``max_i φ(i)/i`` (``p/C`` for the peak-rate profile, else <= 1).

    ``γ`` is a mean of these per-flow rates; the cap removes the last-digit excess that the
    ratio of the two sums can show (``γ = 1 + 1e-14`` at a load of ``1e-10``).
    """
    if prof.peak_rate_fraction is not None:
        return prof.peak_rate_fraction
    if prof.head.size == 0:
        return prof.tail_phi
    return float(np.max(prof.head / np.arange(1, prof.head.size + 1)))


def ps_mean_flows(load: Any, *, peak_rate_fraction: float | None = None, phi: Any = None) -> Any:
    """Mean number of flows in progress in the processor-sharing model.

    Parameters
    ----------
    load : float or array_like
        Flow-level load ``ρ`` (dimensionless), in ``(0, 1)`` (and ``< phi[-1]`` with a table).
    peak_rate_fraction : float, optional
        ``p/C`` (``> 0``), see :func:`ps_throughput_ratio`.
    phi : array_like, optional
        Service-rate table ``φ(1..n)`` in ``(0, 1]``, see :func:`ps_throughput_ratio`.

    Returns
    -------
    float or ndarray
        ``E[N] = Σ i ρ^i/Φ(i) / Σ ρ^i/Φ(i)``; equals ``ρ/γ`` (Little's law) and
        ``ρ/(1 − ρ)`` for ``φ ≡ 1``.

    Notes
    -----
    Stationary distribution ``P(n) ∝ ρ^n/Φ(n)`` (003 §3.1-3.2; 002 §III eq. for
    ``Pr[n flows] = (1 − ρ)ρ^n``).

    Assumptions:

    - as in :func:`ps_throughput_ratio`.

    References
    ----------
    .. [1] Seed ``003_04878e78c5c6bb91.txt``, §3.1 ("geometric distribution of mean
       ρ/(1 − ρ)") and eq. 1.
    .. [2] Seed ``002_e29b74a3ab8ed403.txt``, §III.
    """
    prof = _profile(peak_rate_fraction, phi)
    return _over_loads(load, prof, lambda s: math.exp(s.log_m1 - s.log_z))


def ps_tail_probability(
    load: float, flows: int, *, peak_rate_fraction: float | None = None, phi: Any = None
) -> float:
    """Probability that more than ``flows`` flows are in progress, ``P(N > flows)``.

    Parameters
    ----------
    load : float
        Flow-level load ``ρ`` (dimensionless), in ``(0, 1)``.
    flows : int
        Number of flows (whole number ``>= 0``).
    peak_rate_fraction : float, optional
        ``p/C`` (``> 0``), see :func:`ps_throughput_ratio`.
    phi : array_like, optional
        Service-rate table ``φ(1..n)``, see :func:`ps_throughput_ratio`.

    Returns
    -------
    float
        ``P(N > flows)``; ``ρ^(flows+1)`` for ``φ ≡ 1``.

    Notes
    -----
    Summed directly over the tail (no ``1 − P(N <= n)`` cancellation).

    Assumptions:

    - as in :func:`ps_throughput_ratio`.

    References
    ----------
    .. [1] Seed ``002_e29b74a3ab8ed403.txt``, §III ("if ρ = 0.5 ... the probability there are
       more than 4 flows in progress is only 0.03").
    """
    from scipy import special  # on first use: importing SciPy is most of the CLI start-up

    prof = _profile(peak_rate_fraction, phi)
    rho = float(_check_load(load, prof))
    n = checks.integer_at_least("flows", flows, 0)
    s = _sums(rho, prof)
    tail0, _ = _geometric_tail_logs(s.q, s.last)
    if n >= s.last:
        log_t_n = float(_log_terms(s, prof, np.array([float(n)]))[0])
        return math.exp(log_t_n + tail0 - s.log_z)
    geometric = s.log_t_last + tail0
    if prof.peak_rate_fraction is not None:
        big_a = rho / prof.peak_rate_fraction
        # Poisson mass on n+1..m-1, then the geometric tail beyond m-1.
        head = float(special.pdtrc(float(n), big_a) - special.pdtrc(float(s.last), big_a))
        log_head = math.log(head) if head > 0.0 else -np.inf
    else:
        idx = np.arange(n + 1, s.last + 1, dtype=np.float64)
        log_head = float(special.logsumexp(_log_terms(s, prof, idx)))
    return math.exp(float(np.logaddexp(log_head, geometric)) - s.log_z)


def ps_flow_distribution(
    load: float,
    *,
    peak_rate_fraction: float | None = None,
    phi: Any = None,
    max_flows: int | None = None,
) -> FloatArray:
    """Stationary distribution of the number of flows in progress, ``P(0), ..., P(max_flows)``.

    Parameters
    ----------
    load : float
        Flow-level load ``ρ`` (dimensionless), in ``(0, 1)``.
    peak_rate_fraction : float, optional
        ``p/C`` (``> 0``), see :func:`ps_throughput_ratio`.
    phi : array_like, optional
        Service-rate table ``φ(1..n)``, see :func:`ps_throughput_ratio`.
    max_flows : int, optional
        Last flow count returned (whole number ``>= 0``). By default the least ``n`` with
        ``P(N > n) < 1e-12``; the returned probabilities are then normalised to sum to 1.

    Returns
    -------
    ndarray
        ``P(n) = (ρ^n/Φ(n)) / Σ_i ρ^i/Φ(i)`` for ``n = 0..max_flows``;
        ``(1 − ρ)ρ^n`` for ``φ ≡ 1``.

    Notes
    -----
    Computed in log space. At most ``10^7`` entries are returned; a load so close to 1 that
    more are needed raises ``ParameterError`` unless ``max_flows`` is given.

    Assumptions:

    - as in :func:`ps_throughput_ratio`.

    References
    ----------
    .. [1] Seed ``002_e29b74a3ab8ed403.txt``, §III (``Pr[n flows] = (1 − ρ)ρ^n``).
    .. [2] Seed ``003_04878e78c5c6bb91.txt``, §3.1-3.2.
    """
    prof = _profile(peak_rate_fraction, phi)
    rho = float(_check_load(load, prof))
    s = _sums(rho, prof)
    if max_flows is None:
        n_max = _auto_max_flows(s, prof)
    else:
        n_max = checks.integer_at_least("max_flows", max_flows, 0)
    if n_max + 1 > MAX_DISTRIBUTION_LENGTH:
        raise ParameterError(
            "max_flows",
            f"< {MAX_DISTRIBUTION_LENGTH}",
            f"max_flows must be < {MAX_DISTRIBUTION_LENGTH}, got {n_max} (load {rho!r} is too "
            "close to 1 for the full distribution)",
        )
    n = np.arange(n_max + 1, dtype=np.float64)
    result: FloatArray = np.exp(_log_terms(s, prof, n) - s.log_z)
    if max_flows is None:
        # The neglected tail is below the tolerance: normalise over the returned counts, which
        # also absorbs SciPy's Poisson pmf error (about 1e-9 relative at means near 10^6).
        result /= math.fsum(result)
    return result


def _auto_max_flows(s: _Sums, prof: _Profile) -> int:
    """Least ``n`` with ``P(N > n) < DISTRIBUTION_TAIL_TOLERANCE``."""
    from scipy import special  # on first use: importing SciPy is most of the CLI start-up

    log_tol = math.log(DISTRIBUTION_TAIL_TOLERANCE)
    tail0, _ = _geometric_tail_logs(s.q, s.last)
    log_q = math.log(s.q)
    # In the geometric part, P(N > n) = t_n q/(1-q) / Z with t_n = t_last q^(n-last).
    if s.log_t_last + tail0 - s.log_z >= log_tol:
        k = math.ceil((log_tol - (s.log_t_last + tail0 - s.log_z)) / log_q)
        return s.last + max(k, 0)
    # Otherwise the tail is reached inside the explicit head: scan it (for the peak-rate
    # profile only up to where the Poisson terms are negligible).
    stop = s.last
    if prof.peak_rate_fraction is not None:
        big_a = s.rho / prof.peak_rate_fraction
        stop = min(stop, math.ceil(big_a + 40.0 * math.sqrt(big_a) + 100.0))
    beyond = math.exp(s.log_t_last + tail0 - s.log_z) if stop == s.last else 0.0
    if stop > MAX_DISTRIBUTION_LENGTH:
        # Never scan past the longest distribution returned; count what lies beyond it (if
        # that is not negligible the caller refuses the load).
        stop = MAX_DISTRIBUTION_LENGTH
        beyond = 1.0
        if prof.peak_rate_fraction is not None:
            big_a = s.rho / prof.peak_rate_fraction
            head = float(special.pdtrc(float(stop), big_a) - special.pdtrc(float(s.last), big_a))
            geometric = math.exp(s.log_t_last + tail0)
            beyond = min(1.0, (max(head, 0.0) + geometric) / math.exp(s.log_z))
        if beyond >= DISTRIBUTION_TAIL_TOLERANCE:
            return stop
    n = np.arange(stop + 1, dtype=np.float64)
    probs = np.exp(_log_terms(s, prof, n) - s.log_z)
    tails = np.cumsum(probs[::-1])[::-1] - probs + beyond  # P(N > n) for n = 0..stop
    ok = np.nonzero(tails < DISTRIBUTION_TAIL_TOLERANCE)[0]
    return int(ok[0]) if ok.size else stop


def ps_transparency_limit_load(
    peak_rate_fraction: float, throughput_fraction: float = 0.5
) -> float:
    """Highest load at which peak-rate-limited flows still get a given share of their peak rate.

    Parameters
    ----------
    peak_rate_fraction : float
        ``p/C``, in ``(0, 1)``.
    throughput_fraction : float, optional
        Required ``γ/(p/C)``, in ``(0, 1)``; default 0.5.

    Returns
    -------
    float
        The load ``ρ*`` with ``γ(ρ*) = throughput_fraction · p/C``; below it the link is
        transparent to flow throughput in this sense.

    Notes
    -----
    003 §3.3 on Fig. 1: "when flows are peak rate limited, the link is transparent to
    throughput performance up to high loads (close to (1 − p/C))". ``γ`` falls from ``p/C`` at
    ``ρ → 0`` to 0 at ``ρ → 1``; the root is found by bisection
    (:func:`models.roots.bracketed_root`) in ``[1e-9, 1 − 1e-12]``, and ``1 − 1e-12`` is
    returned when ``γ`` still exceeds the share there (very small ``p/C``).

    Assumptions:

    - processor sharing with ``φ(i) = min(i·p/C, 1)`` (see :func:`ps_throughput_ratio`).

    References
    ----------
    .. [1] Seed ``003_04878e78c5c6bb91.txt``, §3.3, Fig. 1.
    """
    a = float(
        checks.in_range(
            "peak_rate_fraction",
            peak_rate_fraction,
            0.0,
            1.0,
            low_inclusive=False,
            high_inclusive=False,
        )
    )
    frac = float(checks.probability("throughput_fraction", throughput_fraction))
    prof = _profile(a, None)

    def excess(rho: float) -> float:
        return _gamma(_sums(rho, prof)) / a - frac

    lo, hi = 1e-9, 1.0 - 1e-12
    if excess(hi) >= 0.0:
        # So many flows fit under C (p/C below about 1e-24) that they keep the share up to
        # a load within 1e-12 of 1: report that load, a lower bound on the limit.
        return hi
    return bracketed_root(excess, lo, hi, xtol=1e-13, rtol=1e-12)


def ps_saturation_probability(load: float, peak_rate_fraction: float) -> float:
    """Probability that the peak rates of the flows in progress add up to the link capacity.

    Parameters
    ----------
    load : float
        Flow-level load ``ρ`` (dimensionless), in ``(0, 1)``.
    peak_rate_fraction : float
        ``p/C`` (``> 0``); values ``>= 1`` mean one flow alone fills the link.

    Returns
    -------
    float
        ``P(N·p >= C) = P(N >= m)``, ``m = ⌈C/p⌉``, under the peak-rate-limited PS model: the
        fraction of time the link is saturated and flows are held below their peak rate.

    Notes
    -----
    The transparent regime is where this probability is small: "the sum of peak rates of all
    flows remains less than link capacity (with high probability)" (003 §3.3; 002 §III.C).

    Assumptions:

    - processor sharing with ``φ(i) = min(i·p/C, 1)`` (see :func:`ps_throughput_ratio`).

    References
    ----------
    .. [1] Seed ``003_04878e78c5c6bb91.txt``, §3.3.
    .. [2] Seed ``002_e29b74a3ab8ed403.txt``, §III.C.
    """
    prof = _profile(peak_rate_fraction, None)
    m = max(prof.peak_flows, 1)
    return ps_tail_probability(load, m - 1, peak_rate_fraction=peak_rate_fraction)
