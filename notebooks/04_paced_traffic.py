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
# # Paced traffic: the Chernoff union bound of Theorem 2
#
# Theorem 1 (notebook 03) assumes Poisson sources. Theorem 2 of Ganjali's thesis (seed
# `000_9b46cc70677d86b3.txt`, §3.4, proof in App. B) replaces that with *pacing*: the packets
# of one flow arrive at least $S$ slots apart ($S$ = bottleneck rate / access rate), and the
# flows start at random times. The drop probability of a packet is then bounded by a union
# bound over the intervals that end at its arrival, each bounded with a Chernoff bound.
#
# **Premises** (App. B):
#
# 1. one RTT is $M = C \cdot \mathrm{RTT}$ slots; $N$ flows each send at most $W_{\max}$
#    packets in it, at least $S$ slots apart; $\rho = N W_{\max}/M < 1$;
# 2. flow start times are independent and uniform over the $M$ slots (random jitter);
# 3. a packet arriving in slot $t$ is dropped only if some interval of $l$ slots ending at $t$
#    is *overpopulated*: it holds at least $l + B$ other arrivals;
# 4. the Chernoff bound for a sum $X$ of independent variables in $[0, 1]$ with mean $\mu$:
#    $\Pr[X \ge (1+\delta)\mu] < \left(e^\delta/(1+\delta)^{1+\delta}\right)^\mu$.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.pacing import paced_drop_bound_slots, paced_drop_probability_bound

# %% [markdown]
# ## The Chernoff bound
#
# For $Y$ in $[0, 1]$ with mean $p$, convexity gives
# $E[e^{tY}] \le 1 + p(e^t - 1) \le \exp(p(e^t - 1))$; for the independent sum,
# $E[e^{tX}] \le \exp(\mu(e^t - 1))$. Markov's inequality on $e^{tX}$ gives
# $\Pr[X \ge a] \le \exp(\mu(e^t - 1) - t a)$ for every $t > 0$; the best $t$ is found by
# differentiation.

# %%
t, mu, a, delta = sp.symbols("t mu a delta", positive=True)
exponent = mu * (sp.exp(t) - 1) - t * a
t_best = sp.solve(sp.diff(exponent, t), t)[0]
derived = sp.simplify(exponent.subs(t, t_best))
# the same, written so that it evaluates without overflow: a − μ − a·ln(a/μ)
log_bound = a - mu - a * sp.log(a / mu)
assert sp.simplify(sp.expand_log(derived - log_bound, force=True)) == 0
display(sp.Eq(sp.Symbol("t*"), t_best), sp.Eq(sp.Symbol("ln Pr[X ≥ a]"), log_bound))
textbook = mu * (delta - (1 + delta) * sp.log(1 + delta))  # ln of (e^δ/(1+δ)^(1+δ))^μ
assert sp.simplify(sp.expand_log(log_bound.subs(a, (1 + delta) * mu) - textbook, force=True)) == 0

# %% [markdown]
# ## The three interval classes (and the thesis's Lemmas 7-9)
#
# In an interval of $l$ slots one flow has at most $k(l) = \min(\lceil l/S \rceil, W_{\max})$
# packets (one every $S$ slots, at most $W_{\max}$ per RTT), and on average $W_{\max} l/M$ packets,
# so all flows together $\rho l$ on average. Scaling each flow's count by $1/k$ puts it in $[0, 1]$;
# the Chernoff bound with mean $\rho l/k$ and threshold $(l + B)/k$ gives
# $\ln \Pr[\text{overpopulated}] \le (a - \mu - a \ln(a/\mu))/k$ with $a = l + B$, $\mu = \rho l$:
#
# - one packet per flow, $l \le S$: $k = 1$;
# - part of a window, $S < l < S W_{\max}$: $k = \lceil l/S \rceil$;
# - the whole window, $l \ge S W_{\max}$: $k = W_{\max}$.
#
# 000 App. B splits the lengths differently: Lemma 7 is $l \le \log W_{\max}$ (one packet per flow,
# since $c_S \ge 1$ makes $\log W_{\max} \le S$), Lemma 8 is $\log W_{\max} \le l \le S W_{\max}$
# (its proof takes $(k - 1)S \le l \le kS$) and Lemma 9 is $l \ge S W_{\max}$. The first two classes
# here cover Lemmas 7 and 8 together; the third is Lemma 9.
#
# The union bound adds these over $l = 1, 2, \dots$; intervals longer than one RTT, or needing
# more than the $N W_{\max}$ packets sent in an RTT, cannot be overpopulated. (The text weakens
# the threshold to $B$ or $l$ and integrates Lemma 9 to infinity; the exact sum is tighter and
# still a valid bound.)

# %%
l, B, rho, k = sp.symbols("l B rho k", positive=True)
scaled = sp.simplify(log_bound.subs({a: (l + B) / k, mu: rho * l / k}))
unscaled = log_bound.subs({a: l + B, mu: rho * l}) / k
assert sp.simplify(sp.expand_log(scaled - unscaled, force=True)) == 0
display(sp.Eq(sp.Symbol("ln term(l)"), unscaled))
log_term = sp.lambdify((l, B, rho, k), unscaled, "numpy")


def union_bound(flows, w_max, slots, slowdown, buffer):
    """Sum of the Chernoff terms over the interval lengths of one RTT, clipped to 1."""
    load = flows * w_max / slots
    longest = int(np.floor(min(slots, flows * w_max - 1 - buffer)))
    if longest < 1:
        return 0.0, (0.0, 0.0, 0.0)
    lengths = np.arange(1, longest + 1, dtype=float)
    per_flow = np.minimum(np.ceil(lengths / slowdown), w_max)
    terms = np.exp(log_term(lengths, buffer, load, per_flow))
    parts = (
        terms[lengths <= slowdown].sum(),
        terms[(lengths > slowdown) & (lengths < slowdown * w_max)].sum(),
        terms[lengths >= slowdown * w_max].sum(),
    )
    return min(1.0, sum(parts)), parts


# %% [markdown]
# ## Evaluated: the 000 §1.3 link
#
# 10 Gb/s, 100 ms, 1000-byte packets: $M = 125{,}000$ slots; 1000 flows with $W_{\max} = 64$, so
# $\rho = 0.512$. The Poisson bound of Theorem 1 is $\rho^B$. A slow access link (large $S$) pushes
# the paced bound far below it; as $S \to 1$ (no pacing by the access link) the bound gives nothing
# for small buffers, as the text warns. In between ($S = 100$) the partial-window intervals
# ($S < l < S W_{\max}$, within Lemma 8's range) set a floor that more buffer does not lower: there
# the bound needs $S$ of order $\log W_{\max}$ *times a large constant*, Assumption (2) of Theorem
# 2.

# %%
M, Nf, Wm = 125_000, 1000, 64
buffers = np.arange(0, 41)
fig, ax = plt.subplots(figsize=(6, 4))
for S in (1, 10, 100, 1000):
    ax.semilogy(buffers, [union_bound(Nf, Wm, M, S, b)[0] for b in buffers], label=f"paced, S = {S}")
ax.semilogy(buffers, (Nf * Wm / M) ** buffers, "k--", label="ρ^B (Poisson, Thm 1)")
ax.set(xlabel="buffer B (packets)", ylabel="drop probability bound", ylim=(1e-14, 2))
ax.legend()
plt.show()

p15, parts15 = union_bound(Nf, Wm, M, 1000, 15)
print(f"B = 15, S = 1000: bound {p15:.3g} (one-packet / partial-window / whole-window parts {', '.join(f'{x:.2g}' for x in parts15)})")
print(f"ρ^B = {(Nf * Wm / M) ** 15:.3g}, ratio {(Nf * Wm / M) ** 15 / p15:.0f}")

# %% [markdown]
# The utilization then follows as in App. A: each drop costs at most $W_{\max}^2/2$ packets, so
# $\theta \ge 1 - p W_{\max}^2/2$.

# %% [markdown]
# ## Check against `models.pacing`
#
# The model sums the same terms in log-space, in chunks, and stops once the rest is provably
# below $e^{-40}$ of the sum; agreement within $10^{-9}$ relative is expected.

# %%
rng = np.random.default_rng(4)
checked = 0
for _ in range(40):
    slots = float(rng.integers(100, 20000))
    w_max = float(rng.integers(1, 80))
    flows = float(max(1, int(rng.uniform(0.05, 0.95) * slots / w_max)))
    slowdown = float(rng.choice([1, 1.5, 3, 10, 40, 200]))
    buffer = float(rng.integers(0, 40))
    mine, parts = union_bound(flows, w_max, slots, slowdown, buffer)
    model = paced_drop_bound_slots(flows, w_max, slots, slowdown, buffer)
    assert np.isclose(mine, model.drop_probability, rtol=1e-9, atol=1e-300), (mine, model)
    if mine < 1.0:
        assert np.allclose(parts, (model.one_packet_intervals, model.partial_window_intervals,
                                   model.whole_window_intervals), rtol=1e-9, atol=1e-300)
    checked += 1

# and through the SI front end: capacity, RTT, access rate and packet size
p_model = paced_drop_probability_bound(1000, 64, 10e9, 0.1, 10e6, 1000.0, 15)
assert np.isclose(p_model, p15, rtol=1e-9)
print(f"derivation and models agree at {checked + 1} sample points")
