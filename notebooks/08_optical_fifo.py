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
# # Optical FIFO buffers from fibre delay lines
#
# An all-optical router cannot write a packet to memory and read it back later: the only
# optical "memory" is a fibre delay line, which holds a packet for a fixed time. Ganjali's
# thesis (seed `000_9b46cc70677d86b3.txt`, §5.2) shows how to emulate a FIFO queue of
# $N - 1$ packets ($N = 2^n$) with only $O(\log N)$ delay lines and 2×2 switches, and how to
# trade more lines for less fibre. This notebook derives the counts of Theorems 4-6 from the
# construction, and runs the slot-level emulator of Algorithm A
# (`validation/simulator/optical_fifo.py`) on a small example.
#
# **Premises** (000 §5.2.1-5.2.3):
#
# 1. time is slotted, packets have one size, a line of length $L$ holds $L$ packets back to
#    back; at most one arrival and one departure request per slot;
# 2. the FIFO lines are $D_i$ of length $L_i = 2^{i-1}$, $i = 1, \dots, \log N$;
# 3. the waiting line $W$ holds an arrival until its predecessor reaches a tail; its waiting
#    time is below the longest line, $N/2$, and is realised by lines $D'_i$ of lengths
#    $1, 2, \dots, 2^{\log N - 2}$, one per bit of the waiting time (Thm 5);
# 4. each delay line has its own $2 \times 2$ switch, and one more switch sits at the
#    input/output ("the number of 2 × 2 switches in the proposed scheme is only 2 log N");
# 5. the linear design of Fig. 5.4(c) needs one line and one switch per packet.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from models.optical import FIBER_SPEED_MPS, optical_fifo_design
from validation.simulator.optical_fifo import emulate_optical_fifo, ideal_fifo

# %% [markdown]
# ## Theorems 4 and 5: $2 \log N - 1$ lines of total length $1.5 N - 2$
#
# The FIFO lines are a geometric series; so are the lines of $W$.

# %%
n, i, k = sp.symbols("n i k", integer=True, positive=True)
N = 2**n

fifo_length = sp.summation(2 ** (i - 1), (i, 1, n))
waiting_length = sp.summation(2 ** (i - 1), (i, 1, n - 1))
lines_k1 = n + (n - 1)
length_k1 = sp.simplify(fifo_length + waiting_length)
display(sp.Eq(sp.Symbol("FIFO length"), fifo_length))
display(sp.Eq(sp.Symbol("W length"), waiting_length))
display(sp.Eq(sp.Symbol("total length"), length_k1))
assert sp.simplify(fifo_length - (N - 1)) == 0  # the FIFO lines hold N - 1 packets
assert sp.simplify(length_k1 - (sp.Rational(3, 2) * N - 2)) == 0  # "1.5N" in the thesis

# %% [markdown]
# The waiting time is at most $N/2 - 1$ slots (Lemma 2): in binary it has $\log N - 1$ bits,
# hence $\log N - 1$ lines of $W$, and $W$'s length $N/2 - 1$ is exactly the largest waiting
# time. Together with the $\log N$ FIFO lines this is $2 \log N - 1$ lines (Thm 4).

# %%
assert sp.simplify(waiting_length - (N / 2 - 1)) == 0
sp.simplify(lines_k1)

# %% [markdown]
# ## Theorem 6: halving the longest lines
#
# Replacing every longest line by two half-length lines keeps the FIFO's $N - 1$ places but
# halves the longest line, hence the longest wait, hence $W$. After $k$ halvings
# ($K = 2^k$) the FIFO lines are $1, 2, \dots, 2^{n-k-2}$ plus $2K - 1$ lines of length
# $2^{n-k-1} = N/(2K)$, and $W$ has the lines $1, \dots, 2^{n-k-2}$.

# %%
K = 2**k
fifo_lines_k = (n - k - 1) + (2 * K - 1)
fifo_length_k = sp.summation(2 ** (i - 1), (i, 1, n - k - 1)) + (2 * K - 1) * 2 ** (n - k - 1)
waiting_lines_k = n - k - 1
waiting_length_k = sp.summation(2 ** (i - 1), (i, 1, n - k - 1))

lines_k = sp.expand(fifo_lines_k + waiting_lines_k)
length_k = sp.simplify(fifo_length_k + waiting_length_k)

thm6_lines = 2 * (n + K - k) - 3
thm6_length = N - 1 + (N - 2 * K) / (2 * K)
assert sp.simplify(sp.expand(fifo_length_k) - (N - 1)) == 0
assert sp.simplify(lines_k - thm6_lines) == 0
assert sp.simplify(sp.expand(length_k - thm6_length)) == 0
display(sp.Eq(sp.Symbol("lines"), thm6_lines))
display(sp.Eq(sp.Symbol("length"), thm6_length))

# %% [markdown]
# The switches follow the lines one for one, plus the input/output switch. Relative to the
# original design the halvings add $2^{k+1} - 2k - 2$ switches, as the thesis states
# ("the total number of switches added to the system would be $2^{k+1} - 2k - 2$"), while the
# extra fibre $(N - 2K)/(2K)$ is about $1/2^{k+1}$ of $N$.

# %%
switches_k = thm6_lines + 1
added = sp.simplify(switches_k - switches_k.subs(k, 0))
assert sp.simplify(added - (2 ** (k + 1) - 2 * k - 2)) == 0
added

# %% [markdown]
# The check values of docs/references.md: $N = 64$ gives 11 lines of total length 94 with $K = 1$, and 13
# lines of length 70 with $K = 4$.

# %%
for kk, expected in [(0, (11, 94)), (2, (13, 70))]:
    got = (int(thm6_lines.subs({n: 6, k: kk})), int(thm6_length.subs({n: 6, k: kk})))
    print(f"N = 64, K = {2**kk}: lines, length = {got}")
    assert got == expected

# %% [markdown]
# ## What the trade-off buys
#
# For $N = 1024$ (a FIFO of 1023 packets), every $K$ from 1 to $N/2$. Lengths are also shown
# in metres of fibre for 1500-byte packets at 10 Gb/s: one packet time is 1.2 µs, i.e.
# 244.8 m of fibre at 2.04·10⁸ m/s. The last point, $K = N/2$, is $N - 1$ lines of length 1:
# the linear design again.

# %%
designs = [optical_fifo_design(1023, tradeoff_k=2**kk) for kk in range(10)]
fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
ks = [d.tradeoff_k for d in designs]
ax[0].loglog(ks, [d.delay_lines for d in designs], "o-")
ax[0].set(xlabel="K", ylabel="delay lines (= switches − 1)", title="N = 1024")
ax[1].semilogx(ks, [d.total_fiber_m / 1e3 for d in designs], "o-")
ax[1].set(xlabel="K", ylabel="fibre (km) at 10 Gb/s, 1500 B", title="N = 1024")
fig.tight_layout()
plt.show()

# %% [markdown]
# Against the linear design of Fig. 5.4(c), which needs one line and one switch per packet:

# %%
buffers = np.unique(np.logspace(0, 5, 30).astype(int))
log_switches = [optical_fifo_design(int(b)).switches for b in buffers]
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.loglog(buffers, buffers, label="linear design (Fig. 5.4c)")
ax.loglog(buffers, log_switches, "o-", label="Algorithm A, K = 1")
ax.set(xlabel="buffer (packets)", ylabel="2×2 switches")
ax.legend()
plt.show()

# %% [markdown]
# ## Algorithm A at work
#
# A FIFO of 7 packets ($N = 8$): lines $D$ of lengths 1, 2, 4 and $W$ of lengths 1, 2.
# Arrivals every slot, departures from slot 8 on: the arrivals find their predecessor two
# places from the tail of the longest line and wait 3 slots in $W$, which then holds
# $N/2 = 4$ packets, the bound of Lemma 2. Each row of the picture is one place of a line
# (`D3[0]` is the head of `D3`, `D3[3]` its tail), each column the state after the switching
# at the end of a slot; the number is the packet. Packet 7 is dropped: the FIFO is full.

# %%
slots = 20
arrivals = [True] * 12 + [False] * (slots - 12)
departures = [False] * 8 + [True] * (slots - 8)
run = emulate_optical_fifo(arrivals, departures, 7, record_lines=True)
reference = ideal_fifo(arrivals, departures, 7)
print("departures (slot, packet):", run.trace.departures)
print("drops (slot, packet):     ", run.trace.drops)
print("same as ideal FIFO:", run.trace == reference)
print("W occupancy per slot:", run.waiting_occupancy.tolist())
print("waiting times:", run.waiting_times_slots.tolist())
assert run.trace == reference
assert run.waiting_occupancy.max() <= 8 // 2
assert run.max_entries_per_line.max() <= 1 and run.order1_at_head.all()

# %%
labels = [f"D{j + 1}[{d}]" for j, length in enumerate(run.fifo_line_lengths_packets)
          for d in range(length)]
labels += [f"W{j + 1}[{d}]" for j, length in enumerate(run.waiting_line_lengths_packets)
           for d in range(length)]
rows = []
for grid in run.snapshots:
    column = []
    for j, length in enumerate(run.fifo_line_lengths_packets + run.waiting_line_lengths_packets):
        column.extend(grid[j, :length].tolist())
    rows.append(column)
occupancy = np.array(rows).T  # position x slot, packet id or -1
fig, ax = plt.subplots(figsize=(10, 4))
ax.imshow(occupancy >= 0, aspect="auto", cmap="Greys", vmin=0, vmax=2)
for (r, c), pid in np.ndenumerate(occupancy):
    if pid >= 0:
        ax.text(c, r, str(pid), ha="center", va="center", fontsize=8)
ax.set_yticks(range(len(labels)), labels)
ax.set_xlabel("end of slot")
ax.set_title("Packets in the delay lines (FIFO of 7, N = 8)")
plt.show()

# %% [markdown]
# ## Check against `models.optical`
#
# The derived line count, total length and switch count, lambdified, against
# `optical_fifo_design` for every $N$ from 2 to 2¹⁴ and every admissible $K$, and the fibre
# length against the packet time times 2.04·10⁸ m/s.

# %%
lines_f = sp.lambdify((n, k), thm6_lines, "numpy")
length_f = sp.lambdify((n, k), thm6_length, "numpy")
switches_f = sp.lambdify((n, k), switches_k, "numpy")
derived, coded = [], []
for nn in range(1, 15):
    for kk in range(nn):
        d = optical_fifo_design(2**nn - 1, tradeoff_k=2**kk)
        derived.append([lines_f(nn, kk), length_f(nn, kk), switches_f(nn, kk)])
        coded.append([d.delay_lines, d.total_length_packets, d.switches])
assert np.allclose(derived, coded)

d = optical_fifo_design(63, packet_bytes=1500.0, capacity_bps=10e9)
assert np.isclose(d.total_fiber_m, 94 * 1500 * 8 / 10e9 * FIBER_SPEED_MPS)
print(f"checked {len(coded)} (N, K) designs; N = 64 at 10 Gb/s needs {d.total_fiber_m:,.0f} m")
