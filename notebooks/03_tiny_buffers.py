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
# # Tiny buffers: $O(\log W_{\max})$ packets
#
# Ganjali's Theorem 1 (seed `000_9b46cc70677d86b3.txt`, §3.3, proof in App. A): if sources send in a
# locally Poisson way and the link is over-provisioned, a buffer of
# $\log_{1/\rho}\bigl(W_{\max}^2/(2(1-\theta))\bigr)$ packets gives an effective utilization
# $\theta$, whatever the link rate. This notebook follows App. A from eq. A.9 to eq. A.13 and
# reproduces the worked example ($W_{\max} = 64$, $\rho = 0.5$, $\theta = 0.9$ -> 15 packets).
#
# **Premises** (App. A):
#
# 1. $N$ flows, each sending as a Poisson process at rate $W_i(t)/\mathrm{RTT}$, windows
#    capped at $W_{\max}$; the capacity is $C \ge N W_{\max}/(\rho \cdot \mathrm{RTT})$ with
#    $\rho < 1$;
# 2. the aggregate is dominated by a Poisson process of rate $N W_{\max}/\mathrm{RTT}$, and the
#    dominating M/D/1 queue drops at most a fraction $\rho^B$ of packets (Lemmas 5 and 6, via
#    the LCFS-PR queue's geometric occupancy);
# 3. each drop costs at most a triangle of $W_{\max}^2/2$ packets of throughput (Fig. A.2,
#    eq. A.7);
# 4. over a long interval $\Delta$, the sources would send
#    $U_T \approx \Delta N W_{\max}/\mathrm{RTT}$ packets without losses (A.6), and the drops
#    cost $U_L \le \rho^B \Delta N W_{\max}^3/(2\,\mathrm{RTT})$ (A.8), up to a factor
#    $1 \pm \varepsilon$.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.tiny_buffers import (
    tiny_buffer_packets,
    tiny_buffers_load,
    tiny_buffers_utilization_bound,
)

# %% [markdown]
# ## From A.9 to A.12
#
# A.9 asks for $(U_T - U_L)/(\rho C \Delta) \ge \theta$; with $\rho C = N W_{\max}/\mathrm{RTT}$ and
# $U_T$ at its lower end this is A.10,
# $U_L \le N \Delta W_{\max} (1 - \theta - \varepsilon)/\mathrm{RTT}$. Inserting the
# high-probability bound on $U_L$ (A.8) gives A.11.

# %%
rho, B, W, theta, eps, N, Delta, RTT = sp.symbols(
    "rho B W_max theta epsilon N Delta RTT", positive=True
)
U_T = Delta * N * W / RTT * (1 - eps)  # A.6, lower end
U_L_bound = (1 + eps) * rho**B * Delta * N * W**3 / (2 * RTT)  # A.8
rhoC = N * W / RTT

A9 = sp.Ge((U_T - sp.Symbol("U_L")) / (rhoC * Delta), theta)
A10_rhs = sp.solve(sp.Eq((U_T - sp.Symbol("U_L")) / (rhoC * Delta), theta), sp.Symbol("U_L"))[0]
display(sp.Eq(sp.Symbol("U_L^max (A.10)"), sp.factor(A10_rhs)))
A11 = sp.Lt(U_L_bound, A10_rhs)
display(A11)

# %% [markdown]
# Dividing A.11 by $\Delta N W_{\max}/\mathrm{RTT}$ leaves a condition on $\rho^B$ alone (A.12);
# with $\varepsilon \to 0$:

# %%
x = sp.symbols("x", positive=True)  # x stands for rho**B
A11_in_x = (A11.lhs - A11.rhs).subs(rho**B, x)
x_max = sp.solve(sp.Eq(A11_in_x, 0), x)[0]
display(sp.Eq(sp.Symbol("rho^B (A.12, ε)"), sp.simplify(x_max)))
A12 = sp.limit(x_max, eps, 0)
display(sp.Eq(sp.Symbol("rho^B (A.12)"), A12))
assert sp.simplify(A12 - 2 * (1 - theta) / W**2) == 0

# %% [markdown]
# ## A.13: solve for $B$
#
# $\rho^B < 2(1-\theta)/W_{\max}^2$ with $0 < \rho < 1$; taking logarithms flips the inequality
# since $\ln \rho < 0$: $B > \ln\bigl(W_{\max}^2/(2(1-\theta))\bigr)/\ln(1/\rho)$.

# %%
B_A13 = sp.solve(sp.Eq(rho**B, A12), B)[0]
B_A13 = sp.simplify(sp.expand_log(B_A13, force=True))
B_thm1 = sp.log(W**2 / (2 * (1 - theta))) / sp.log(1 / rho)
display(sp.Eq(sp.Symbol("B"), B_thm1))
assert sp.simplify(sp.expand_log(B_A13 - B_thm1, force=True)) == 0

# %% [markdown]
# The inverse, the utilization a given buffer guarantees, is A.12 read the other way:
# $\theta \ge 1 - \rho^B W_{\max}^2/2$.

# %%
theta_bound = sp.solve(sp.Eq(rho**B, 2 * (1 - theta) / W**2), theta)[0]
display(sp.Eq(sp.Symbol("θ_min"), theta_bound))

# %% [markdown]
# ## The worked example (000 §3.3)
#
# "if $W_{\max} = 64$ packets, $\rho = 0.5$, and we want an effective utilization of 90%, we need a
# buffer size of 15 packets regardless of the link capacity".

# %%
example = B_thm1.subs({W: 64, rho: sp.Rational(1, 2), theta: sp.Rational(9, 10)})
print("B =", sp.simplify(example), "=", sp.N(example, 5), "-> rounded up:", sp.ceiling(example))
assert sp.ceiling(example) == 15

# %%
windows = np.logspace(0.5, 4, 100)
B_f = sp.lambdify((W, rho, theta), B_thm1, "numpy")
fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
for r in (0.25, 0.5, 0.75, 0.9):
    ax[0].semilogx(windows, B_f(windows, r, 0.9), label=f"ρ = {r}")
ax[0].set(xlabel="W_max (packets)", ylabel="buffer (packets)", title="θ = 0.9")
ax[0].legend()
buffers = np.arange(0, 41)
th_f = sp.lambdify((B, W, rho), theta_bound, "numpy")
for r in (0.25, 0.5, 0.75):
    ax[1].plot(buffers, np.clip(th_f(buffers, 64, r), 0, 1), label=f"ρ = {r}")
ax[1].set(xlabel="buffer (packets)", ylabel="θ lower bound", title="W_max = 64")
ax[1].legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Check against `models.tiny_buffers`
#
# The model returns the exact (un-rounded) size and the clipped inverse; the load is
# $\rho = N W_{\max}/(C \cdot \mathrm{RTT})$ with $C \cdot \mathrm{RTT}$ in packets.

# %%
rng = np.random.default_rng(3)
ws = rng.uniform(1, 5000, 60)
rhos = rng.uniform(0.01, 0.99, 60)
thetas = rng.uniform(0.0, 0.999, 60)
bufs = rng.uniform(0, 60, 60)

exact = np.maximum(B_f(ws, rhos, thetas), 0.0)  # no negative buffers when W_max is tiny
assert np.allclose(exact, tiny_buffer_packets(ws, rhos, thetas))
assert np.allclose(np.clip(th_f(bufs, ws, rhos), 0, 1),
                   tiny_buffers_utilization_bound(bufs, ws, rhos))

C_bps, rtt_s, pkt, flows = sp.symbols("C_bps rtt_s packet_bytes flows", positive=True)
load_expr = flows * W / (C_bps * rtt_s / (8 * pkt))
load_f = sp.lambdify((flows, W, C_bps, rtt_s, pkt), load_expr, "numpy")
caps, rtts = rng.uniform(1e6, 1e11, 60), rng.uniform(1e-3, 0.5, 60)
ns, pkts = rng.integers(1, 10000, 60).astype(float), rng.uniform(64, 9000, 60)
assert np.allclose(load_f(ns, ws, caps, rtts, pkts), tiny_buffers_load(ns, ws, caps, rtts, pkts))
print("derivation and models agree at 180 sample points")
