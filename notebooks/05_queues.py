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
# # Queues: M/M/1/B, M/D/1/B, the LCFS-PR bound and the TCP fixed point
#
# The packet-level models of a router port:
#
# - M/M/1/B (Ganjali's thesis, seed `000_9b46cc70677d86b3.txt`, eq. 3.3; Augé-Roberts seeds
#   `002` §IV.A and `003` §4.2): Poisson arrivals, exponential packet sizes;
# - M/D/1/B (000 App. A, Lemma 6): Poisson arrivals, fixed packet size; its loss is bounded by
#   $\rho^B$ through the LCFS-PR argument;
# - the TCP equation closed over an M/M/1/B queue (000 §3.6, eqs. 3.2-3.3), which shows why
#   the buffer must grow like $\log W_{\max}$ under the scaling $C \propto N W_{\max}$.
#
# **Premises**: $B$ is the most packets the port holds, the one being transmitted included
# (the $K$ of M/M/1/K); $\rho$ is the offered load.

# %%
# %matplotlib inline
import math

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from scipy import optimize

from models.queues import (
    md1b_queue,
    mm1b_loss_bound,
    mm1b_loss_probability,
    transparent_admissible_load,
    transparent_buffer_packets,
)
from models.tcp_queue import tcp_mm1b_fixed_point

# %% [markdown]
# ## M/M/1/B from the birth-death chain
#
# States $0, \dots, B$ packets; arrivals at rate $\lambda$ move up (except in state $B$, where they
# are dropped), services at rate $\mu$ move down. Cutting between $n$ and $n+1$:
# $\lambda \pi_n = \mu \pi_{n+1}$. With a concrete $B$ SymPy solves the balance equations outright:

# %%
rho = sp.symbols("rho", positive=True)
B_small = 4
pis = sp.symbols(f"pi0:{B_small + 1}", positive=True)
balance = [sp.Eq(rho * pis[n], pis[n + 1]) for n in range(B_small)]
normal = sp.Eq(sum(pis), 1)
sol = sp.solve(balance + [normal], pis, dict=True)[0]
loss_B4 = sp.simplify(sol[pis[B_small]])  # PASTA: an arrival sees the time-average state
display(sp.Eq(sp.Symbol("p (B = 4)"), sp.factor(loss_B4)))

# %% [markdown]
# In general $\pi_n = \rho^n \pi_0$, and the geometric sum normalizes it; the loss is $\pi_B$:

# %%
B, n = sp.symbols("B n", positive=True, integer=True)
norm = sp.summation(rho**n, (n, 0, B)).args[1][0]  # the ρ ≠ 1 branch of the Piecewise
p_mm1b = sp.simplify(rho**B / norm)
display(sp.Eq(sp.Symbol("p"), p_mm1b))
assert sp.simplify(p_mm1b.subs(B, B_small) - loss_B4) == 0
assert sp.simplify(p_mm1b - rho**B * (1 - rho) / (1 - rho ** (B + 1))) == 0  # eq. 3.3
p_at_1 = sp.limit(p_mm1b, rho, 1)
display(sp.Eq(sp.Symbol("p(ρ=1)"), p_at_1))

# %% [markdown]
# ## The bound $\rho^B$ and the transparent-regime sizing
#
# $p \le \rho^B$ (the infinite M/M/1 queue holds at least $B$ packets with probability $\rho^B$).
# Asking $\rho^B \le \varepsilon$ gives $B = \lceil \ln \varepsilon / \ln \rho \rceil$ and, for a
# given $B$, the admissible load $\varepsilon^{1/B}$. Checks from the papers:
# $0.75^{20} \approx 0.3\%$ (000 §3.3); $B = 20$ admits $\rho = 0.79$ at $\varepsilon = 1\%$ and
# $0.70$ at $\varepsilon = 0.1\%$ (003 §4.2; the exact value is 0.708); $0.9^{100} < 1/30000$ (002).

# %%
eps = sp.symbols("epsilon", positive=True)
B_transparent = sp.solve(sp.Eq(rho**B, eps), B)[0]
rho_admissible = sp.solve(sp.Eq(rho**B, eps), rho)[0]
display(sp.Eq(sp.Symbol("B"), B_transparent), sp.Eq(sp.Symbol("ρ_max"), rho_admissible))
print("0.75^20 =", sp.N(sp.Rational(3, 4) ** 20, 3))
print("B = 20:", [round(float(rho_admissible.subs({B: 20, eps: e})), 2) for e in (0.01, 0.001)])
print("0.9^100 * 30000 =", sp.N(sp.Rational(9, 10) ** 100 * 30000, 3))

# %% [markdown]
# ## M/D/1/B from the embedded chain at departures
#
# With fixed packet sizes the number in the system is not Markov, but it is at departure
# epochs. Let $a_k = e^{-\rho}\rho^k/k!$ be the probability of $k$ Poisson arrivals during one
# transmission. A departure leaves $i$ packets; the next leaves $i - 1 + A$ (or $A$ if the port
# was empty and the next arrival starts a transmission), capped at $K - 1 = B - 1$ since
# arrivals to a full port are dropped. The departure distribution $\pi$ solves $\pi = \pi P$; the
# time-average distribution and the loss follow from the standard M/G/1/K relations
# $p_j = \pi_j/(\pi_0 + \rho)$ for $j < K$ and $p_K = 1 - 1/(\pi_0 + \rho)$.

# %%
def embedded_matrix(K, r, a=None):
    """Transition matrix of the M/D/1/K departure chain (states 0..K-1)."""
    a = a or (lambda k: sp.exp(-r) * r**k / sp.factorial(k))
    P = sp.zeros(K, K)
    for i in range(K):
        base = max(i - 1, 0)
        for j in range(base, K - 1):
            P[i, j] = a(j - base)
        P[i, K - 1] = 1 - sum(P[i, j] for j in range(K - 1))
    return P


def md1k_symbolic(K):
    P = embedded_matrix(K, rho)
    pi = sp.symbols(f"q0:{K}")
    eqs = [sp.Eq(sum(pi[i] * P[i, j] for i in range(K)), pi[j]) for j in range(K - 1)]
    eqs.append(sp.Eq(sum(pi), 1))
    sol = sp.solve(eqs, pi, dict=True)[0]
    pi0 = sp.simplify(sol[pi[0]])
    loss = sp.simplify(1 - 1 / (pi0 + rho))
    mean_n = sum(j * sol[pi[j]] for j in range(K)) / (pi0 + rho) + K * loss
    return loss, sp.simplify(mean_n)


md1_loss = {}
md1_mean = {}
for K in (1, 2, 3):
    md1_loss[K], md1_mean[K] = md1k_symbolic(K)
display(sp.Eq(sp.Symbol("p (M/D/1/1)"), md1_loss[1]), sp.Eq(sp.Symbol("p (M/D/1/2)"), md1_loss[2]))

# %% [markdown]
# $B = 1$ is the M/D/1/1 loss system, $p = \rho/(1 + \rho)$ as Erlang's formula says for any
# service-time distribution. For larger $B$ the same chain is solved numerically.

# %%
assert sp.simplify(md1_loss[1] - rho / (1 + rho)) == 0


def md1k_numeric(K, r):
    from scipy.stats import poisson

    P = np.array(embedded_matrix(K, r, a=lambda k: poisson.pmf(k, r)).tolist(), dtype=float)
    A = np.vstack([(P.T - np.eye(K))[:-1], np.ones(K)])
    pi = np.linalg.solve(A, np.r_[np.zeros(K - 1), 1.0])
    loss = 1 - 1 / (pi[0] + r)
    return loss, np.dot(np.arange(K), pi) / (pi[0] + r) + K * loss


# %% [markdown]
# ## The LCFS-PR bound (000 App. A, Lemma 6)
#
# An M/D/1 FCFS queue has the same occupancy as the M/D/1 LCFS-PR queue (same arrivals, both
# work-conserving), and any M/G/1 LCFS-PR queue has geometric occupancy $(1 - \rho)\rho^n$; so the
# chance that an arrival finds $B$ or more packets, hence the drop probability with a buffer of $B$,
# is at most $\rho^B$. Fixed sizes lose less than exponential ones, and both less than $\rho^B$.
# (The curves use `models.queues.md1b_queue`, checked against the chain above at the end: the direct
# $1 - 1/(\pi_0 + \rho)$ loses all its digits to cancellation below about $10^{-13}$.)

# %%
buffers = np.arange(1, 31)
fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
for r, style in ((0.5, "-"), (0.8, "--")):
    ax[0].semilogy(buffers, r**buffers, "k" + style, label=f"ρ^B, ρ = {r}")
    ax[0].semilogy(buffers, mm1b_loss_probability(r, buffers), "C0" + style, label=f"M/M/1/B, ρ = {r}")
    ax[0].semilogy(buffers, md1b_queue(r, buffers).loss_probability, "C1" + style,
                   label=f"M/D/1/B, ρ = {r}")
ax[0].set(xlabel="B (packets)", ylabel="loss probability")
ax[0].legend(fontsize=7)
loads = np.linspace(0.05, 0.99, 60)
ax[1].semilogy(loads, md1b_queue(loads, 20).loss_probability, label="M/D/1/20")
ax[1].semilogy(loads, mm1b_loss_probability(loads, 20), label="M/M/1/20")
ax[1].semilogy(loads, loads**20, "k--", label="ρ^20")
ax[1].set(xlabel="load ρ", ylabel="loss probability")
ax[1].legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## TCP + M/M/1/B: why $B$ must grow like $\log W_{\max}$ (000 §3.6)
#
# $N$ flows, RTT $\tau$, each sending $R = (1/\tau)\sqrt{3/(2p)}$ (eq. 3.2, capped by
# $W_{\max}/\tau$), through a link of $C = N W_{\max}/(2\tau)$ packets per second, so
# $\rho = N R/C = 2\tau R/W_{\max}$. With the approximation $p \approx \rho^{B+1}$ of eq. 3.3 the
# fixed point is explicit:

# %%
W, beta, alpha = sp.symbols("W_max beta alpha", positive=True)
rho_fp = sp.symbols("rho", positive=True)
fixed_point = sp.Eq(rho_fp, 2 / W * sp.sqrt(sp.Rational(3, 2) / rho_fp ** (B + 1)))
rho_star = sp.solve(fixed_point, rho_fp)[0]
display(sp.Eq(sp.Symbol("ρ*"), rho_star))

# %% [markdown]
# A constant buffer lets the utilization vanish as $W_{\max}$ grows; a buffer
# $B = \beta \ln W_{\max}$ keeps it at $e^{-2/\beta}$, so any target $\alpha < 1$ is reached with
# $\beta = -2/\ln \alpha$ (000 §3.6, statements 1 and 2).

# %%
lim_const = sp.limit(rho_star.subs(B, 5), W, sp.oo)
lim_log = sp.limit(rho_star.subs(B, beta * sp.log(W)), W, sp.oo)
display(sp.Eq(sp.Symbol("lim ρ* (B = 5)"), lim_const), sp.Eq(sp.Symbol("lim ρ* (B = β ln W)"), lim_log))
assert lim_const == 0
assert sp.simplify(lim_log - sp.exp(-2 / beta)) == 0
print("β for α = 0.5:", sp.N(sp.solve(sp.Eq(lim_log, sp.Rational(1, 2)), beta)[0], 4))

# %% [markdown]
# Without the approximation, the fixed point $\rho = N R(p(\rho))/C$ with the exact M/M/1/B loss
# is found numerically; the picture is the same (Fig. 3.8 of the thesis shows it in
# simulation: $N = 10$, $W_{\max}$ from 10 to 1529, peak load a little over 50%).

# %%
tau, N_flows = 0.1, 10
p_exact = sp.lambdify((rho, B), p_mm1b, "numpy")


def derived_fixed_point(w_max, cap_pps, buffer):
    def excess(r):
        p = 1.0 / (buffer + 1.0) if abs(r - 1.0) < 1e-12 else p_exact(r, buffer)
        rate = min(w_max / tau, math.sqrt(1.5 / p) / tau) if p > 0 else w_max / tau
        return r - N_flows * rate / cap_pps

    peak = N_flows * w_max / (cap_pps * tau)
    return peak if excess(peak) <= 0 else optimize.brentq(excess, peak * 1e-12, peak, xtol=1e-15)


windows = np.unique(np.logspace(1, 5, 25).astype(int))
const_b = [derived_fixed_point(w, N_flows * w / (2 * tau), 5) for w in windows]
log_b = [derived_fixed_point(w, N_flows * w / (2 * tau), 5 * math.log(w) / math.log(10)) for w in windows]
fig, ax = plt.subplots(figsize=(5.5, 3.5))
ax.semilogx(windows, const_b, "o-", label="B = 5")
ax.semilogx(windows, log_b, "s-", label="B = 5·log10(W_max)")
ax.set(xlabel="W_max (packets)", ylabel="utilization ρ", title="C = N·W_max/(2τ)", ylim=(0, 1))
ax.legend()
plt.show()

# %% [markdown]
# ## Check against `models.queues` and `models.tcp_queue`

# %%
rng = np.random.default_rng(5)
loads = rng.uniform(0.01, 3.0, 60)
loads[loads == 1.0] = 0.999
bufs = rng.integers(1, 80, 60).astype(float)
assert np.allclose(p_exact(loads, bufs), mm1b_loss_probability(loads, bufs), rtol=1e-9)
assert np.isclose(float(p_at_1.subs(B, 7)), mm1b_loss_probability(1.0, 7))

below = loads[loads < 1]
eps_s = rng.uniform(1e-6, 0.5, below.size)
bt_f = sp.lambdify((rho, eps), B_transparent, "numpy")
assert np.array_equal(np.maximum(np.ceil(bt_f(below, eps_s) * (1 - 1e-12)), 1),
                      transparent_buffer_packets(below, eps_s))
ra_f = sp.lambdify((B, eps), rho_admissible, "numpy")
assert np.allclose(ra_f(bufs[: below.size], eps_s), transparent_admissible_load(bufs[: below.size], eps_s))
assert np.allclose(below ** bufs[: below.size], mm1b_loss_bound(below, bufs[: below.size]))

for K in (1, 2, 3):
    lf = sp.lambdify(rho, md1_loss[K], "numpy")
    mf = sp.lambdify(rho, md1_mean[K], "numpy")
    res = md1b_queue(loads, K)
    assert np.allclose(lf(loads), res.loss_probability, rtol=1e-9)
    assert np.allclose(mf(loads), res.mean_queue_packets, rtol=1e-9)
for r, K in zip(loads[:20], bufs[:20].astype(int)):
    loss, mean_n = md1k_numeric(int(K), float(r))
    res = md1b_queue(float(r), int(K))
    assert np.isclose(loss, res.loss_probability, rtol=1e-6, atol=1e-14)
    assert np.isclose(mean_n, res.mean_queue_packets, rtol=1e-6)

for w, b in [(10, 5.0), (100, 5.0), (1000, 15.0), (64, 3.0), (5000, 30.0)]:
    cap_pps = N_flows * w / (2 * tau)
    model = tcp_mm1b_fixed_point(N_flows, w, cap_pps * 8 * 1500, tau, b, 1500.0)
    assert np.isclose(derived_fixed_point(w, cap_pps, b), model.load, rtol=1e-6)
print("derivation and models agree")
