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
# # Shared-memory switches: dynamic queue thresholds
#
# A switch chip keeps one packet memory of $B$ bytes for all its queues. Under the dynamic
# threshold (DT) scheme of Choudhury and Hahne ("Dynamic queue length thresholds for
# shared-memory packet switches", IEEE/ACM ToN 6(2), 1998), "the maximum permissible length, for
# any individual queue at any instant of time, is proportional to the unused buffering in the
# switch": a queue admits an arrival while $q < \alpha (B - Q)$, $Q$ the memory in use. This
# notebook derives the steady state of $n$ congested queues, inverts it for the $\alpha$ that gives a
# queue a recommended size, and checks both against `models.shared_buffer`.
#
# **Premises**: the $n$ queues are overloaded (always backlogged) and are the only occupants of
# the memory; each grows until its length meets the threshold.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.shared_buffer import minimum_alpha, steady_queue_bytes, unallocated_bytes

# %% [markdown]
# ## Steady state: every congested queue at the threshold
#
# With $n$ equal queues of length $q$, $Q = n q$ and the threshold condition is
# $q = \alpha (B - n q)$.

# %%
q, alpha, B, n, S = sp.symbols("q alpha B n S", positive=True)
steady = sp.solve(sp.Eq(q, alpha * (B - n * q)), q)[0]
free = sp.simplify(B - n * steady)
display(sp.Eq(sp.Symbol("q"), steady))
display(sp.Eq(sp.Symbol("B - n q"), free))
assert sp.simplify(steady - alpha * B / (1 + n * alpha)) == 0
assert sp.simplify(free - B / (1 + n * alpha)) == 0

# %% [markdown]
# The share grows with $\alpha$ but never reaches $B/n$: "a small amount of buffer space is
# (intentionally) left unallocated".

# %%
assert sp.limit(steady, alpha, sp.oo) == B / n

# %% [markdown]
# ## The smallest $\alpha$ for a recommended size $S$
#
# $\alpha B/(1 + n \alpha) \ge S$ is linear in $\alpha$ once multiplied out: $\alpha (B - n S) \ge S$. When
# $n S < B$ the bound is $\alpha = S/(B - n S)$; when $n S \ge B$ no $\alpha$ suffices.

# %%
alpha_min = sp.solve(sp.Eq(steady, S), alpha)[0]
display(sp.Eq(sp.Symbol("alpha_min"), alpha_min))
assert sp.simplify(alpha_min - S / (B - n * S)) == 0

# %% [markdown]
# ## Against `models.shared_buffer`

# %%
f_steady = sp.lambdify((alpha, B, n), steady)
f_free = sp.lambdify((alpha, B, n), free)
f_alpha = sp.lambdify((S, B, n), alpha_min)
rng = np.random.default_rng(12)
for _ in range(200):
    a = float(2.0 ** rng.integers(-8, 8))
    memory = float(rng.uniform(1e5, 1e9))
    queues = int(rng.integers(1, 65))
    assert np.isclose(steady_queue_bytes(a, memory, queues), f_steady(a, memory, queues))
    assert np.isclose(unallocated_bytes(a, memory, queues), f_free(a, memory, queues))
    size = float(rng.uniform(1.0, memory / queues * 0.999))
    assert np.isclose(minimum_alpha(size, memory, queues), f_alpha(size, memory, queues))
print("steady state, unallocated memory and α_min agree with models.shared_buffer")

# %% [markdown]
# ## Each queue's share of a 64 MiB chip

# %%
memory = 64 * 2**20
exponents = np.arange(-8, 8)
fig, ax = plt.subplots(figsize=(6, 3.5))
for queues in (1, 4, 8, 32):
    shares = [steady_queue_bytes(2.0**k, memory, queues) / 2**20 for k in exponents]
    ax.plot(exponents, shares, marker="o", label=f"n = {queues}")
ax.set_xlabel("log2 α (SONiC dynamic_th)")
ax.set_ylabel("steady queue length (MiB)")
ax.set_yscale("log")
ax.legend()
ax.grid(True, which="both", alpha=0.3)
plt.show()
