"""The Augé-Roberts method (003 §5.1): φ(i) measured by simulation, fed to processor sharing.

"For given link capacity, buffer size and background load, we successively simulate a number
of permanent bottlenecked TCP flows. For each number i (between 1 and 100), we evaluate the
overall realized throughput φ(i) expressed as a fraction of residual capacity C(1−ρ_b). We
then derive the expected flow throughput γ by formula (1)." (003 §5.1)

φ is measured for i persistent flows over Poisson background packets at load ρ_b, for several
buffer sizes, and interpolated linearly in i between the measured points (constant beyond the
last). The bottlenecked flows see the residual capacity C(1−ρ_b); at total load ρ > ρ_b their
load on it is ρ' = (ρ − ρ_b)/(1 − ρ_b), so γ/C = (1 − ρ_b)·γ_PS(ρ'; φ), with γ_PS the
processor-sharing throughput of :func:`models.processor_sharing.ps_throughput_ratio` (003 eq.
1). γ is defined for ρ_b < ρ < ρ_b + (1 − ρ_b)·φ(∞) (003: "γ is only defined for loads greater
than the background load ρ_b and its value at that load is determined by φ(1)").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from models.processor_sharing import ps_throughput_ratio
from validation.harness.ns2 import NS2_DELACK_INTERVAL_S
from validation.simulator import Scenario, replication_seeds
from validation.sweeps import Task


@dataclass(frozen=True)
class PhiStudy:
    """One φ(i) study: 003 Fig. 3's set-up (C = 50 Mb/s, RTT 100 ms, ρ_b = 0.5, 1000 B)."""

    buffers: tuple[int, ...]
    flows: tuple[int, ...]
    replications: int
    duration_s: float
    warmup_s: float
    capacity_bps: float = 50e6
    background_load: float = 0.5
    rtt_s: float = 0.1
    seed: int = 2007

    def scenario(self, flows: int) -> Scenario:
        """i persistent SACK flows over Poisson background at ρ_b (003 §5.1)."""
        return Scenario(
            capacity_bps=self.capacity_bps,
            flows=flows,
            rtt_s=self.rtt_s,
            rtt_jitter_s=0.1 * self.rtt_s,
            access_bps=1e9,
            max_window_packets=65_536,
            packet_bytes=1000,
            header_bytes=0,  # "1000 bytes packets" (003 Fig. 3) on the wire
            delayed_ack_timeout_s=NS2_DELACK_INTERVAL_S,  # 003's ns2
            background_load=self.background_load,
            start_spread_s=2.0,
            duration_s=self.duration_s,
            warmup_s=self.warmup_s,
        )

    def tasks(self) -> list[tuple[int, int, Task]]:
        """(buffer, i, task) for every buffer, number of flows and replication."""
        seeds = replication_seeds(self.seed, self.replications)
        return [
            (b, i, Task(self.scenario(i), b, s))
            for b in self.buffers
            for i in self.flows
            for s in seeds
        ]


STUDIES = {
    # 003 Fig. 4 compares buffers; B = 20 (003 Fig. 3's base) and 625 (the BDP, 002 §IV).
    "quick": PhiStudy(
        buffers=(20, 625), flows=(1, 2, 4, 8), replications=2, duration_s=25.0, warmup_s=5.0
    ),
    "full": PhiStudy(
        buffers=(20, 100, 625),
        flows=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100),
        replications=3,
        duration_s=60.0,
        warmup_s=10.0,
    ),
}


def phi_table(flows: Sequence[int], phi: Sequence[float]) -> np.ndarray:
    """φ(1), ..., φ(max i) interpolated linearly between the measured points."""
    points = np.asarray(flows, dtype=float)
    values = np.clip(np.asarray(phi, dtype=float), 1e-6, 1.0)
    table: np.ndarray = np.interp(np.arange(1, int(points.max()) + 1), points, values)
    return table


def gamma_curve(
    flows: Sequence[int], phi: Sequence[float], background_load: float, loads: np.ndarray
) -> np.ndarray:
    """γ/C at total loads ``loads`` (NaN where γ is not defined), module docstring."""
    table = phi_table(flows, phi)
    residual = (loads - background_load) / (1.0 - background_load)
    ok = (residual > 0.0) & (residual < table[-1])
    out = np.full(loads.shape, np.nan)
    if ok.any():
        gamma = np.asarray(ps_throughput_ratio(residual[ok], phi=table), dtype=float)
        out[ok] = (1.0 - background_load) * gamma
    return out


def summarize(
    study: PhiStudy, results: Sequence[tuple[int, int, dict[str, float]]]
) -> dict[str, Any]:
    """φ(i) per buffer (mean over replications) and γ(ρ) per buffer, JSON-able."""
    residual_bps = study.capacity_bps * (1.0 - study.background_load)
    loads = np.linspace(study.background_load, 1.0, 101)[1:-1]
    curves: dict[str, Any] = {}
    for b in study.buffers:
        phi = []
        for i in study.flows:
            runs = [m for (bb, ii, m) in results if bb == b and ii == i]
            phi.append(float(np.mean([m["goodput_bps"] for m in runs])) / residual_bps)
        gamma = gamma_curve(study.flows, phi, study.background_load, loads)
        curves[str(b)] = {
            "phi": phi,
            "gamma": [None if not np.isfinite(g) else float(g) for g in gamma],
        }
    return {
        "source": "003 §5.1, Figs. 4-6; eq. 1",
        "capacity_bps": study.capacity_bps,
        "background_load": study.background_load,
        "rtt_s": study.rtt_s,
        "replications": study.replications,
        "flows": list(study.flows),
        "loads": loads.tolist(),
        "buffers": curves,
    }


def figure(summary: dict[str, Any]) -> go.Figure:
    """φ(i) against i and γ/C against ρ, one trace per buffer size (003 Figs. 4-6)."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("φ(i): fraction of residual capacity", "γ/C against load ρ"),
    )
    for b, curve in summary["buffers"].items():
        fig.add_trace(
            go.Scatter(
                x=summary["flows"],
                y=curve["phi"],
                mode="lines+markers",
                name=f"B = {b}",
                legendgroup=b,
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=summary["loads"],
                y=curve["gamma"],
                mode="lines",
                name=f"γ, B = {b}",
                legendgroup=b,
                showlegend=False,
            ),
            row=1,
            col=2,
        )
    fig.update_xaxes(type="log", title_text="bottlenecked flows i", row=1, col=1)
    fig.update_xaxes(title_text="load ρ", row=1, col=2)
    fig.update_layout(
        title=(
            f"Augé-Roberts φ(i) and γ(ρ): C = {summary['capacity_bps'] / 1e6:g} Mb/s, "
            f"ρ_b = {summary['background_load']:g}, RTT {summary['rtt_s'] * 1e3:g} ms"
        ),
        height=420,
    )
    return fig
