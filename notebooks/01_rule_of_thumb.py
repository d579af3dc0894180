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
# # The rule of thumb: one bandwidth-delay product
#
# Where does $B = C \cdot \mathrm{RTT}$ come from? Ganjali's thesis (seed
# `000_9b46cc70677d86b3.txt`, §2.1.2) derives it from the window of one TCP flow; §2.2.1 extends it
# to synchronized flows; Dhamdhere, Jiang and Dovrolis (seed `004_cb0749363e88d206.txt`, §III.B)
# show that flows with different RTTs need the *harmonic* mean of their RTTs. The same argument with
# a general multiplicative decrease $\beta$ (RFC 9438 for CUBIC) gives
# $B = C \cdot \mathrm{RTT} \cdot (1-\beta)/\beta$.
#
# **Premises** (000 §2.1.2): one flow in congestion avoidance; $2T$ is the round-trip time and
# $C$ the bottleneck capacity, so the pipe holds $2T \cdot C$ packets; the window when the
# buffer overflows is $W = 2T \cdot C + B$; a loss halves the window; the link must never go
# idle.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.rule_of_thumb import (
    bdp_buffer_packets,
    harmonic_mean_rtt_s,
    md_beta_buffer_packets,
)

# %% [markdown]
# ## The window argument
#
# Just before the loss the window is $2T \cdot C + B$; just after it, $T \cdot C + B/2$. The source
# resumes sending before the pipe drains only if the halved window still covers the pipe:
# $T \cdot C + B/2 \ge 2T \cdot C$.

# %%
T, C, B = sp.symbols("T C B", positive=True)
W_full = 2 * T * C + B
W_after = W_full / 2
condition = sp.Ge(W_after, 2 * T * C)
display(condition)
B_min = sp.solve(sp.Eq(W_after, 2 * T * C), B)[0]
display(sp.Eq(sp.Symbol("B_min"), B_min))
# the inequality holds exactly for B >= 2TC (the slack is linear and increasing in B)
assert sp.simplify(sp.diff(W_after - 2 * T * C, B)) > 0
assert sp.simplify(B_min - 2 * T * C) == 0

# %% [markdown]
# ## Synchronized flows (000 §2.2.1)
#
# With $N$ flows whose sawtooths are in phase, the aggregate window is
# $W(t) = \sum_i W_i(t) = 2\bar T \cdot C + Q(t)$; all flows halve together, so the aggregate
# behaves like one flow and the same inequality appears with $\bar T$ in place of $T$: synchronized
# flows need the full bandwidth-delay product.

# %%
N = 3  # any number: the windows add up
w = sp.symbols(f"w1:{N + 1}", positive=True)  # each flow's window at the overflow
Tbar = sp.symbols("Tbar", positive=True)
overflow = sp.Eq(sum(w), 2 * Tbar * C + B)
after = sum(wi / 2 for wi in w)  # every flow halves at once
B_sync = sp.solve([overflow, sp.Eq(after, 2 * Tbar * C)], [B, w[0]], dict=True)[0][B]
display(sp.Eq(sp.Symbol("B_sync"), B_sync))
assert sp.simplify(B_sync - 2 * Tbar * C) == 0

# %% [markdown]
# ## A general multiplicative decrease $\beta$
#
# Write $\mathrm{RTT} = 2T$. If a loss multiplies the window by $\beta$ (Reno 0.5, CUBIC 0.7), the
# condition becomes $\beta (C \cdot \mathrm{RTT} + B) \ge C \cdot \mathrm{RTT}$.

# %%
RTT, beta = sp.symbols("RTT beta", positive=True)
B_beta = sp.solve(sp.Eq(beta * (C * RTT + B), C * RTT), B)[0]
display(sp.Eq(sp.Symbol("B_beta"), sp.factor(B_beta)))
assert sp.simplify(B_beta.subs(beta, sp.Rational(1, 2)) - C * RTT) == 0  # Reno: the rule
print("CUBIC (β = 0.7):", sp.nsimplify(B_beta.subs(beta, sp.Rational(7, 10)) / (C * RTT)), "× C·RTT")

# %%
betas = np.linspace(0.3, 0.9, 61)
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.plot(betas, sp.lambdify(beta, B_beta / (C * RTT))(betas))
ax.plot([0.5, 0.7], [1.0, 3 / 7], "o")
ax.annotate("Reno", (0.5, 1.0), textcoords="offset points", xytext=(6, 4))
ax.annotate("CUBIC", (0.7, 3 / 7), textcoords="offset points", xytext=(6, 4))
ax.set(xlabel="multiplicative decrease β", ylabel="B / (C·RTT)",
       title="Single-flow buffer for 100% utilization")
plt.show()

# %% [markdown]
# ## Heterogeneous RTTs: the harmonic mean (004 §III.B, eqs. 4-12)
#
# $N_b$ flows with RTTs $T_i$, all losing at the same congestion event. The worst case has each
# window halve exactly to its in-flight share $W^{\mathrm{flt}}$, which is the same for every flow
# (the mean window does not depend on the RTT). The link stays busy with an empty queue when the
# flows' rates $W^{\mathrm{flt}}/T_i$ add up to $C$ (eqs. 7-8); the buffer must hold the backlog
# before the event, $Q^{\max} = N_b W^{\mathrm{flt}}$ (eq. 6).

# %%
Nb = 4
Ti = sp.symbols(f"T1:{Nb + 1}", positive=True)
Wflt = sp.symbols("W_flt", positive=True)
Wflt_sol = sp.solve(sp.Eq(sum(Wflt / t for t in Ti), C), Wflt)[0]  # eqs. 7-9
Qmax = sp.simplify(Nb * Wflt_sol)  # eq. 10
Te = Nb / sum(1 / t for t in Ti)  # eq. 12
display(sp.Eq(sp.Symbol("Q_max"), Qmax))
assert sp.simplify(Qmax - C * Te) == 0  # eq. 11: B = C·T_e
assert sp.simplify(Qmax.subs({t: T for t in Ti}) - C * T) == 0  # equal RTTs: the plain rule

# %% [markdown]
# The paper's example: RTTs spread evenly from $T/N_b$ to $T$ give $T_e = T/H(N_b)$
# ($H$ the harmonic number), about $T/(\ln N_b + 1)$; for $N_b = 1000$, about $T/8$, while the
# arithmetic mean is about $T/2$.

# %%
n_b = sp.symbols("N_b", positive=True, integer=True)
i = sp.symbols("i", positive=True, integer=True)
Te_even = n_b / sp.summation(n_b / (i * T), (i, 1, n_b))
display(sp.Eq(sp.Symbol("T_e"), sp.simplify(Te_even)))
ratio_1000 = float((T / Te_even).subs({n_b: 1000}).evalf())
print(f"N_b = 1000: T_e = T / {ratio_1000:.2f};  ln(1000) + 1 = {np.log(1000) + 1:.2f}")
assert 7.0 < ratio_1000 < 8.5

# %% [markdown]
# ## From packets of bandwidth-delay product to the model's units
#
# `models` works in SI: capacity in bit/s, RTT in seconds, packets of $M$ bytes (the argument
# `packet_bytes`), so $B = C \cdot \mathrm{RTT}/(8M)$ packets. The thesis's example (000 §1.3):
# 10 Gb/s, 100 ms, 1000-byte packets -> 125,000 packets.

# %%
C_bps, rtt_s, pkt = sp.symbols("C_bps rtt_s packet_bytes", positive=True)
B_packets = (C * RTT).subs({C: C_bps / (8 * pkt), RTT: rtt_s})
B_beta_packets = B_beta.subs({C: C_bps / (8 * pkt), RTT: rtt_s})
print(B_packets, "=", B_packets.subs({C_bps: 10e9, rtt_s: 0.1, pkt: 1000}))

# %% [markdown]
# ## Check against `models.rule_of_thumb`

# %%
rng = np.random.default_rng(1)
caps = rng.uniform(1e6, 4e11, 50)
rtts = rng.uniform(1e-3, 0.5, 50)
pkts = rng.uniform(64, 9000, 50)
betas = rng.uniform(0.05, 0.95, 50)

bdp_f = sp.lambdify((C_bps, rtt_s, pkt), B_packets, "numpy")
beta_f = sp.lambdify((C_bps, rtt_s, pkt, beta), B_beta_packets, "numpy")
assert np.allclose(bdp_f(caps, rtts, pkts), bdp_buffer_packets(caps, rtts, pkts))
assert np.allclose(beta_f(caps, rtts, pkts, betas), md_beta_buffer_packets(caps, rtts, pkts, betas))

te_f = sp.lambdify(Ti, Te, "numpy")
for _ in range(20):
    sample = rng.uniform(1e-3, 1.0, Nb)
    assert np.isclose(te_f(*sample), harmonic_mean_rtt_s(sample))
print("derivation and models agree at", 3 * 50 + 20, "sample points")
