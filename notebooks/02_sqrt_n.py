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
# # The $\sqrt{N}$ rule: many desynchronized flows
#
# Ganjali's thesis (seed `000_9b46cc70677d86b3.txt`, §2.2.2, eq. 2.2) summarizes Appenzeller,
# Keslassy and McKeown (SIGCOMM 2004): with $N$ desynchronized long-lived flows the buffer can
# shrink from $2T \cdot C$ to $2T \cdot C/\sqrt{N}$. This notebook derives the rule and
# Appenzeller's utilization bound
# $U \ge \mathrm{erf}\left(\frac{3\sqrt{3}}{2\sqrt{2}} \cdot \frac{B}{2T \cdot C/\sqrt{N}}\right)$
# from the central-limit argument.
#
# **Premises**:
#
# 1. each flow's window is a Reno sawtooth between $W_{\max}/2$ and $W_{\max}$, rising
#    linearly, so at a random time it is uniform on that interval;
# 2. the $N$ flows are independent (random start times and RTTs), so by the central limit
#    theorem their sum, the aggregate window $W$, is Gaussian;
# 3. the flows together fill the pipe: the mean aggregate window is about $2T \cdot C$ (the
#    buffer is small next to the pipe, so the $B/2$ of queue in the mean is neglected, as the
#    rule does);
# 4. the link is busy and nothing is dropped while $W$ stays within $B/2$ of its mean: the
#    queue then stays between empty and full.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from sympy.stats import E, Normal, Uniform, cdf, std

from models.sqrt_n import sqrt_n_buffer_packets, sqrt_n_utilization_lower_bound

# %% [markdown]
# ## One sawtooth
#
# The window of one flow is uniform on $[W_{\max}/2, W_{\max}]$: mean $3W_{\max}/4$, standard
# deviation $W_{\max}/(4\sqrt{3})$, i.e. $1/(3\sqrt{3})$ of its mean.

# %%
Wmax = sp.symbols("W_max", positive=True)
Wi = Uniform("W_i", Wmax / 2, Wmax)
mean_i, sd_i = sp.simplify(E(Wi)), sp.simplify(std(Wi))
display(sp.Eq(sp.Symbol("E[W_i]"), mean_i), sp.Eq(sp.Symbol("sd[W_i]"), sd_i))
assert sp.simplify(sd_i / mean_i - 1 / (3 * sp.sqrt(3))) == 0

# %% [markdown]
# ## The sum of $N$ sawtooths
#
# Independent flows: variances add, so the aggregate's standard deviation grows like $\sqrt{N}$
# while its mean grows like $N$. With the mean pinned at the pipe size $2T \cdot C$ (premise 3), the
# standard deviation is $2T \cdot C/(3\sqrt{3}\,\sqrt{N})$: $\sqrt{N}$ times smaller than a single
# flow carrying the whole link.

# %%
N, T, C, B = sp.symbols("N T C B", positive=True)
pipe = 2 * T * C
sd_sum = sp.sqrt(N) * sd_i
mean_sum = N * mean_i
sigma = sp.simplify((sd_sum / mean_sum) * pipe)  # scale so that the mean is the pipe
display(sp.Eq(sp.Symbol("σ_W"), sigma))
assert sp.simplify(sigma - pipe / (3 * sp.sqrt(3) * sp.sqrt(N))) == 0

# %% [markdown]
# ## Utilization
#
# The queue absorbs swings of $\pm B/2$ around its mean; the link stays fully used while
# $|W - E[W]| \le B/2$. For a Gaussian this probability is an error function.

# %%
Wagg = Normal("W", pipe, sigma)
F = cdf(Wagg)
U = sp.simplify(F(pipe + B / 2) - F(pipe - B / 2))
display(sp.Eq(sp.Symbol("U_lower"), U))
x = sp.symbols("x", positive=True)  # B in units of the rule 2TC/sqrt(N)
U_x = sp.simplify(U.subs(B, x * pipe / sp.sqrt(N)))
display(sp.Eq(sp.Symbol("U(x)"), U_x))
assert sp.simplify(U_x - sp.erf(3 * sp.sqrt(3) / (2 * sp.sqrt(2)) * x)) == 0
print("U at the rule (x = 1):", sp.N(U_x.subs(x, 1), 4))

# %% [markdown]
# So a buffer of $2T \cdot C/\sqrt{N}$ keeps the link at least 99.1% busy, whatever $N$ is; half of
# it gives about 80%, twice it more than 99.99%.

# %%
xs = np.linspace(0, 2.5, 200)
U_f = sp.lambdify(x, U_x, "scipy")
fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
ax[0].plot(xs, U_f(xs))
ax[0].axvline(1.0, color="grey", lw=0.8)
ax[0].set(xlabel="B / (2T·C/√N)", ylabel="utilization lower bound",
          title="Appenzeller's bound")
flows = np.logspace(0, 5, 100)
ax[1].loglog(flows, sqrt_n_buffer_packets(10e9, 0.25, flows, 1500.0), label="2T·C/√N")
ax[1].loglog(flows, np.full_like(flows, 10e9 * 0.25 / 12000), "--", label="2T·C")
ax[1].set(xlabel="flows N", ylabel="buffer (packets)", title="10 Gb/s, 250 ms, 1500 B")
ax[1].legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# Checks from the sources: the thesis's 10 Gb/s, 100 ms, 1000-byte example with 1000 flows
# ("around 3950" packets, 000 §1.3), and the slides' OC3 table (seed `001`): 100 flows ->
# 129 packets, 400 flows -> 65.

# %%
C_bps, rtt_s, pkt = sp.symbols("C_bps rtt_s packet_bytes", positive=True)
B_rule = (pipe / sp.sqrt(N)).subs({T: rtt_s / 2, C: C_bps / (8 * pkt)})
display(sp.Eq(sp.Symbol("B"), B_rule))
print("000 §1.3:", float(B_rule.subs({C_bps: 10e9, rtt_s: 0.1, pkt: 1000, N: 1000})))
for n_flows in (100, 400):
    print(f"OC3, {n_flows} flows:", float(B_rule.subs({C_bps: 155.52e6, rtt_s: 0.1, pkt: 1500,
                                                        N: n_flows})))

# %% [markdown]
# ## Check against `models.sqrt_n`

# %%
rng = np.random.default_rng(2)
caps = rng.uniform(1e6, 4e11, 50)
rtts = rng.uniform(1e-3, 0.5, 50)
pkts = rng.uniform(64, 9000, 50)
ns = rng.integers(1, 100000, 50).astype(float)
bufs = rng.uniform(0, 3, 50) * sqrt_n_buffer_packets(caps, rtts, ns, pkts)

B_f = sp.lambdify((C_bps, rtt_s, N, pkt), B_rule, "numpy")
U_full = U.subs({T: rtt_s / 2, C: C_bps / (8 * pkt)})
U_full_f = sp.lambdify((B, C_bps, rtt_s, N, pkt), U_full, "scipy")
assert np.allclose(B_f(caps, rtts, ns, pkts), sqrt_n_buffer_packets(caps, rtts, ns, pkts))
assert np.allclose(U_full_f(bufs, caps, rtts, ns, pkts),
                   sqrt_n_utilization_lower_bound(bufs, caps, rtts, ns, pkts))
print("derivation and models agree at 100 sample points")
