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
# # BSCL: buffer sizing for congested links
#
# Dhamdhere, Jiang and Dovrolis (seed `004_cb0749363e88d206.txt`) size the buffer of a link
# saturated by $N_b$ locally bottlenecked persistent (LBP) TCP flows under two constraints:
# keep the link busy (utilization, §III) and keep the loss rate below $\hat p$ (§IV). This notebook
# solves eq. 15 for $B$ (eq. 16), derives $K_p$ from eqs. 18-22 and finds the crossover $\tilde N_b$
# where the loss constraint takes over (eq. 23).
#
# **Premises** (004 §III.C, §IV):
#
# 1. a congestion event drops $\bar L \approx \alpha N_b$ packets (eq. 17), each from a flow
#    chosen at random, so a fraction $q = 1 - (1 - 1/N_b)^{\bar L}$ of the flows sees a loss
#    (eq. 13);
# 2. those flows halve their window, the others grow it by one segment $M$ (eq. 14);
# 3. before the event the buffer is full, $N_b W = C T + B$; at the least buffer it just
#    empties after the event, $N_b W' = C T$;
# 4. a flow's throughput follows the square-root law $R = 0.87\,M/(T\sqrt{p})$ (eq. 2);
# 5. heterogeneous RTTs enter through their harmonic mean $T_e$ (eq. 12); sizes are in bytes.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.bscl import (
    bscl_buffer,
    kp_packets,
    loss_buffer_bytes,
    loss_synchronization,
    utilization_buffer_bytes,
)

# %% [markdown]
# ## Eq. 15 -> eq. 16: the utilization term $B_\rho$

# %%
q, C, T, B, M, Nb = sp.symbols("q C T B M N_b", positive=True)
W = (C * T + B) / Nb  # mean window before the event (buffer full)
W_after = q * W / 2 + (1 - q) * (W + M)  # eq. 14
eq15 = sp.Eq(W_after, C * T / Nb)
display(eq15)
B_rho = sp.solve(eq15, B)[0]
display(sp.Eq(sp.Symbol("B_ρ"), sp.factor(B_rho)))
eq16 = (q * C * T - 2 * M * Nb * (1 - q)) / (2 - q)
assert sp.simplify(B_rho - eq16) == 0

# %% [markdown]
# Global synchronization, $q = 1$, gives back the bandwidth-delay product $C \cdot T$ (eq. 11); and
# $B_\rho$ falls as $q$ falls (partial synchronization needs less buffer):

# %%
assert sp.simplify(B_rho.subs(q, 1) - C * T) == 0
dB_dq = sp.simplify(sp.diff(B_rho, q))
display(sp.Eq(sp.Symbol("∂B_ρ/∂q"), dB_dq))  # positive for q in (0, 1]
alpha = sp.symbols("alpha", positive=True)
q_of_N = 1 - (1 - 1 / Nb) ** (alpha * Nb)  # eqs. 13 and 17
print("q as N_b → ∞:", sp.limit(q_of_N, Nb, sp.oo))

# %% [markdown]
# ## Eqs. 18-22: the loss term $B_p$ and $K_p$
#
# $N_b$ flows saturating the link, $N_b R = C$ (all in packets), give the loss rate of
# eq. 18. Holding it at $\hat p$ needs the RTT $T = T_p + T_q$ to grow with $N_b$ (eqs. 19-20);
# with the queueing delay at its maximum $B/C$, the buffer is eq. 21.

# %%
p, p_hat, Tp, Tq = sp.symbols("p phat T_p T_q", positive=True)
R = 0.87 / (T * sp.sqrt(p))  # eq. 2, packets per second
p_of_N = sp.solve(sp.Eq(Nb * R, C), p)[0]  # eq. 18
display(sp.Eq(sp.Symbol("p"), p_of_N))
T_needed = sp.solve(sp.Eq(p_of_N, p_hat), T)[0]
Tq_hat = sp.expand(T_needed - Tp)  # eq. 20 with T = T_p + T_q
B_p = sp.expand(C * Tq_hat)  # eq. 21, B ≈ C·T_q
Kp = sp.simplify(sp.diff(B_p, Nb))  # eq. 22: packets per flow
display(sp.Eq(sp.Symbol("B_p"), B_p), sp.Eq(sp.Symbol("K_p"), Kp))
print("K_p(1%) =", sp.N(Kp.subs(p_hat, 0.01), 3), "packets;  K_p(2%) =", sp.N(Kp.subs(p_hat, 0.02), 3))
assert sp.simplify(B_p - (Kp * Nb - C * Tp)) == 0

# %% [markdown]
# In bytes and with the LBP flows' share $C_e$ of the capacity and $T_e$ for $T_p$ (Fig. 4):
# $B_p = K_p N_b M - C_e T_e$, and $\hat B = \max\{B_\rho, B_p\}$ (eqs. 23, 26).

# %%
Ce, Te = sp.symbols("C_e T_e", positive=True)
B_rho_bytes = eq16.subs({C: Ce, T: Te})
B_p_bytes = Kp * Nb * M - Ce * Te

# %% [markdown]
# ## The crossover $\tilde N_b$
#
# $B_\rho$ flattens as $N_b$ grows ($q$ falls) while $B_p$ grows linearly, so they cross once. An
# example: 100 Mb/s, 90% of it used by LBP flows, $T_e$ = 100 ms, 1500-byte segments,
# $\hat p = 1\%$, $\alpha = 0.55$.

# %%
example = {Ce: 0.9 * 100e6 / 8, Te: 0.1, M: 1500, p_hat: 0.01, alpha: 0.55}
gap = (B_rho_bytes.subs(q, q_of_N) - B_p_bytes).subs(example)
N_cross = sp.nsolve(gap, Nb, 30)
print(f"Ñ_b = {float(N_cross):.2f} flows")

flows = np.arange(1, 201)
Brho_f = sp.lambdify(Nb, (B_rho_bytes.subs(q, q_of_N) / M).subs(example), "numpy")
Bp_f = sp.lambdify(Nb, (B_p_bytes / M).subs(example), "numpy")
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(flows, Brho_f(flows), label="B_ρ (utilization, eq. 16)")
ax.plot(flows, Bp_f(flows), label="B_p (loss, eq. 21)")
ax.plot(flows, np.maximum(np.maximum(Brho_f(flows), Bp_f(flows)), 0), "k", lw=2, label="BSCL")
ax.axvline(float(N_cross), color="grey", ls=":")
ax.axhline(float((Ce * Te / M).subs(example)), color="grey", lw=0.8, label="C_e·T_e")
ax.set(xlabel="LBP flows N_b", ylabel="buffer (packets)", ylim=(0, None))
ax.legend()
plt.show()

# %% [markdown]
# ## Check against `models.bscl`
#
# The model works with the capacity in bit/s ($C_e$ is `bottlenecked_share` × `capacity_bps`/8
# bytes/s) and replaces $B_\rho$ by $C \cdot T_e$ below 5 flows (004 §VII); the comparisons use
# $N_b \ge 5$ for the combined buffer.

# %%
rng = np.random.default_rng(7)
n = 60
caps = rng.uniform(1e6, 1e10, n)
frac = rng.uniform(0.5, 1.0, n)
rtts = rng.uniform(0.005, 0.5, n)
mss = rng.choice([536.0, 1460.0, 1500.0, 9000.0], n)
nbs = rng.uniform(5, 500, n)
phats = rng.uniform(0.001, 0.05, n)
alphas = rng.uniform(0.3, 0.9, n)

q_f = sp.lambdify((Nb, alpha), q_of_N, "numpy")
qs = q_f(nbs, alphas)
assert np.allclose(qs, loss_synchronization(nbs, alphas))
kp_f = sp.lambdify(p_hat, Kp, "numpy")
assert np.allclose(kp_f(phats), kp_packets(phats))

ce_bytes = caps * frac / 8
brho_f = sp.lambdify((q, Ce, Te, Nb, M), B_rho_bytes, "numpy")
bp_f = sp.lambdify((p_hat, Ce, Te, Nb, M), B_p_bytes, "numpy")
assert np.allclose(brho_f(qs, ce_bytes, rtts, nbs, mss),
                   utilization_buffer_bytes(qs, caps * frac, rtts, nbs, mss))
assert np.allclose(bp_f(phats, ce_bytes, rtts, nbs, mss),
                   loss_buffer_bytes(kp_f(phats), caps * frac, rtts, nbs, mss))

res = bscl_buffer(caps, frac, nbs, mss, phats, effective_rtt_s=rtts, sync_factor=alphas)
derived = np.maximum(np.maximum(brho_f(qs, ce_bytes, rtts, nbs, mss),
                                bp_f(phats, ce_bytes, rtts, nbs, mss)), 0)
assert np.allclose(derived, res.buffer_bytes)

res_ex = bscl_buffer(100e6, 0.9, 30, 1500.0, 0.01, effective_rtt_s=0.1, sync_factor=0.55)
assert np.isclose(float(N_cross), res_ex.crossover_flows, rtol=1e-6)
print("derivation and models agree at", 5 * n + 1, "sample points")
