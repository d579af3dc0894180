# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Processor sharing: flow throughput and the three regimes
#
# Augé and Roberts (seed `003_04878e78c5c6bb91.txt`, §3, eq. 1; seed `002_e29b74a3ab8ed403.txt`,
# §III) look at a link at the flow level: flows arrive at random and share the capacity
# fairly. How many flows are in progress, and what throughput does each get? The answer
# decides whether the link is *transparent* (flows run at their own peak rate), *elastic*
# (a few flows are bottlenecked here) or *overloaded*, and each regime has its own buffer rule.
#
# **Premises** (003 §3.1-3.2):
#
# 1. flows arrive as a Poisson process of sessions; the load $\rho$ is arrival rate × mean
#    flow size / $C$; by insensitivity only the mean size matters;
# 2. with $i$ flows in progress the link serves at total rate $\varphi(i) \cdot C$, shared
#    equally;
# 3. $\Phi(i) = \varphi(1)\,\varphi(2) \cdots \varphi(i)$;
# 4. $\gamma$ = mean flow size / mean flow duration, as a fraction of $C$.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.processor_sharing import (
    ps_flow_distribution,
    ps_mean_flows,
    ps_saturation_probability,
    ps_throughput_ratio,
)
from models.regimes import classify_regime

# %% [markdown]
# ## The birth-death chain of flows and eq. 1
#
# Flows arrive at rate $\lambda$; with $i$ in progress they complete at rate $\varphi(i) C/\sigma$
# ($\sigma$ the mean size), so the cut equations give $\pi_i = \pi_0 \rho^i/\Phi(i)$. Little's law
# turns the mean number in progress into the mean duration, $E[T] = E[N]/\lambda$, hence
# $\gamma = \sigma/(C\,E[T]) = \rho/E[N]$:

# %%
rho = sp.symbols("rho", positive=True)
i = sp.symbols("i", integer=True, nonnegative=True)
Phi = sp.Function("Phi")
Z = sp.Sum(rho**i / Phi(i), (i, 0, sp.oo))
EN = sp.Sum(i * rho**i / Phi(i), (i, 0, sp.oo)) / Z
gamma_little = rho / EN
eq1 = sp.Sum(rho**i / Phi(i), (i, 0, sp.oo)) / sp.Sum(i * rho ** (i - 1) / Phi(i), (i, 1, sp.oo))
display(sp.Eq(sp.Symbol("γ"), eq1))
# the two agree term by term: ρ·Σ i ρ^(i-1)/Φ = Σ i ρ^i/Φ (the i = 0 term is zero)
assert sp.simplify(rho * i * rho ** (i - 1) / Phi(i) - i * rho**i / Phi(i)) == 0

# %% [markdown]
# ## $\varphi \equiv 1$ in closed form
#
# With no peak-rate limit every flow could use the whole link: $\Phi \equiv 1$, the number in
# progress is geometric, $P(n) = (1 - \rho)\rho^n$, and $\gamma = 1 - \rho$ (002 §III; 003 Fig. 1).

# %%
def converged(expr):
    """The |ρ| < 1 branch of a SymPy Piecewise sum (the series converge for ρ < 1)."""
    return expr.args[0][0] if isinstance(expr, sp.Piecewise) else expr


num = converged(sp.summation(rho**i, (i, 0, sp.oo)))
den = sp.diff(num, rho)  # Σ i ρ^(i-1) is the derivative of Σ ρ^i
gamma_1 = sp.simplify(num / den)
P_n = sp.simplify(rho**i / num)
display(sp.Eq(sp.Symbol("γ(φ≡1)"), gamma_1), sp.Eq(sp.Symbol("P(n)"), P_n))
assert sp.simplify(gamma_1 - (1 - rho)) == 0
tail = sp.simplify(1 - sp.summation(P_n, (i, 0, 4)))
print("P(N > 4 | ρ = 0.5) =", tail.subs(rho, sp.Rational(1, 2)), "≈ 0.03 (002 §III)")
print("γ(ρ = 0.5) =", gamma_1.subs(rho, sp.Rational(1, 2)))

# %% [markdown]
# ## Peak-rate-limited flows, $\varphi(i) = \min(i p/C, 1)$
#
# If every flow is capped at a peak rate $p$ (its access line), $i$ flows use $\min(i p, C)$.
# With $p/C = 1/m$, $\Phi(i) = i!/m^i$ up to $i = m$ and stays at $m!/m^m$ beyond, so the sums
# are a polynomial head plus a geometric tail: $\gamma$ is an exact rational function of $\rho$.

# %%
def gamma_peak(m):
    """γ(ρ) for p/C = 1/m, exact."""
    Phi_m = [sp.factorial(k) / sp.Integer(m) ** k for k in range(m + 1)]
    head_z = sum(rho**k / Phi_m[k] for k in range(m))
    head_d = sum(k * rho ** (k - 1) / Phi_m[k] for k in range(1, m))
    tail_z = rho**m / Phi_m[m] / (1 - rho)  # Σ_{k≥m} ρ^k / Φ(m)
    tail_d = sp.simplify(sp.diff(tail_z, rho))  # Σ_{k≥m} k ρ^(k-1) / Φ(m)
    return sp.simplify((head_z + tail_z) / (head_d + tail_d)), (head_z + tail_z)


gamma_10, Z_10 = gamma_peak(10)
print("γ at ρ → 0:", sp.limit(gamma_10, rho, 0), "  at ρ → 1:", sp.limit(gamma_10, rho, 1))

# %%
rhos = np.linspace(0.001, 0.999, 300)
g10 = sp.lambdify(rho, gamma_10, "numpy")
fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
ax[0].plot(rhos, 1 - rhos, label="φ ≡ 1: γ = 1 − ρ")
ax[0].plot(rhos, g10(rhos), label="p = 0.1 C")
ax[0].set(xlabel="load ρ", ylabel="γ (fraction of C)", title="003 Fig. 1")
ax[0].legend()
ax[1].plot(rhos, g10(rhos) / 0.1)
ax[1].axhline(0.5, color="grey", lw=0.8)
ax[1].axvline(0.9, color="grey", lw=0.8)
ax[1].set(xlabel="load ρ", ylabel="γ / p", title="p = 0.1 C: transparent up to ρ ≈ 0.9")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The regimes
#
# - **overload**, $\rho \ge 1$: the sums diverge, the number of flows grows without bound and
#   $\gamma \to 0$; no buffer fixes this.
# - **transparent**: the peak rates of the flows in progress add up to less than $C$ with high
#   probability, $P(N \ge m)$ small; flows run at their own pace, packets arrive nearly as a
#   Poisson stream, and $\rho^B < \varepsilon$ sizes the buffer (003 §4).
# - **elastic**: some flows can fill the residual capacity (or the link saturates often);
#   these flows are bottlenecked here and the buffer must absorb TCP's sawtooth (003 §5).
#
# The probability that the link is saturated with $p = C/m$ is $P(N \ge m)$. It grows steadily with
# the load, so "with high probability" needs a threshold; `models.regimes` uses the throughput
# reading of 003 §3.3 instead: the link is transparent while flows still get at least half their
# peak rate on average, which for $p = 0.1\,C$ holds up to about $\rho \approx 1 - p/C = 0.9$ (the
# right panel above). A flow that could fill the link alone makes it elastic at any load.

# %%
Pn_10 = [rho**k / (sp.factorial(k) / sp.Integer(10) ** k) / Z_10 for k in range(10)]
saturation_10 = sp.simplify(1 - sum(Pn_10))
for load in (0.5, 0.7, 0.9, 0.95):
    sat = float(saturation_10.subs(rho, load))
    print(f"ρ = {load}: P(link saturated) = {sat:.3f};  regime:",
          classify_regime(load, peak_rate_fraction=0.1).regime)
print("unlimited peak rate, ρ = 0.5:", classify_regime(0.5).regime)
print("ρ = 1.2:", classify_regime(1.2, peak_rate_fraction=0.1).regime)

# %% [markdown]
# ## A measured $\varphi$ table
#
# 003 §5 measures $\varphi(i)$ by simulation (TCP flows lose throughput with small buffers); any
# table $\varphi(1), \dots, \varphi(n)$, held at $\varphi(n)$ beyond, gives $\gamma$ the same way:
# explicit head, geometric tail with ratio $\rho/\varphi(n)$.

# %%
phi_table = [sp.Rational(6, 10), sp.Rational(8, 10), sp.Rational(9, 10), sp.Rational(95, 100)]
Phi_t = [sp.Integer(1)]
for f in phi_table:
    Phi_t.append(Phi_t[-1] * f)
n_t = len(phi_table)
head_z = sum(rho**k / Phi_t[k] for k in range(n_t))
head_d = sum(k * rho ** (k - 1) / Phi_t[k] for k in range(1, n_t))
tail_z = rho**n_t / Phi_t[n_t] / (1 - rho / phi_table[-1])
gamma_table = sp.simplify((head_z + tail_z) / (head_d + sp.diff(tail_z, rho)))
display(sp.Eq(sp.Symbol("γ(table)"), sp.factor(gamma_table)))

# %% [markdown]
# ## Check against `models.processor_sharing` and `models.regimes`

# %%
rng = np.random.default_rng(6)
loads = rng.uniform(0.001, 0.999, 80)
g1 = sp.lambdify(rho, gamma_1, "numpy")
assert np.allclose(g1(loads), ps_throughput_ratio(loads))
assert np.allclose(loads / g1(loads), ps_mean_flows(loads))
assert np.allclose(g10(loads), ps_throughput_ratio(loads, peak_rate_fraction=0.1), rtol=1e-9)
gt = sp.lambdify(rho, gamma_table, "numpy")
below = loads[loads < 0.95]
assert np.allclose(gt(below), ps_throughput_ratio(below, phi=[float(f) for f in phi_table]),
                   rtol=1e-9)
for m in (2, 4, 25):
    gm = sp.lambdify(rho, gamma_peak(m)[0], "numpy")
    assert np.allclose(gm(loads), ps_throughput_ratio(loads, peak_rate_fraction=1 / m), rtol=1e-9)

pn = sp.lambdify((rho, i), P_n, "numpy")
dist = ps_flow_distribution(0.5, max_flows=30)
assert np.allclose(pn(0.5, np.arange(31)), dist)
sat_f = sp.lambdify(rho, saturation_10, "numpy")
for load in loads[:20]:
    assert np.isclose(sat_f(load), ps_saturation_probability(float(load), 0.1), rtol=1e-8, atol=1e-15)
print("derivation and models agree")
