"""The README's panel of real links as the form's inputs: each example is a link to the page.

The page lists them under "Examples"; ``benchmarks/form_submit_time.py`` times each submit and
the browser tests open them. The figures each example gives are the README's "A panel of real
links" table (checked by hand in tests/models/test_panel.py).
"""

from __future__ import annotations

from urllib.parse import urlencode

from app.web.fields import FIELDS

#: (title, the inputs that differ from an empty form). Choices left out take their defaults.
PANEL: tuple[tuple[str, dict[str, str]], ...] = (
    (
        "Backbone, many short flows (10 Gb/s, 100 ms, 50,000 flows on 100 Mb/s access, load 0.6)",
        {
            "capacity": "10 Gbit/s",
            "rtt": "100 ms",
            "packet": "1500 B",
            "flows": "50000",
            "access": "100 Mbit/s",
            "load": "0.6",
        },
    ),
    (
        "Congested enterprise edge (1 Gb/s, RTTs 20/30/80 ms, 60 bottlenecked flows carrying 90 %)",
        {
            "capacity": "1 Gbit/s",
            "rtt": "20 ms, 30 ms, 80 ms",
            "packet": "1500 B",
            "flows": "60",
            "bottlenecked": "60",
            "share": "0.9",
            "loss": "0.01",
        },
    ),
    (
        "Home uplink with CoDel (20 Mb/s, 40 ms, 4 CUBIC flows)",
        {
            "capacity": "20 Mbit/s",
            "rtt": "40 ms",
            "packet": "1500 B",
            "flows": "4",
            "cc": "cubic",
            "aqm": "codel",
        },
    ),
    (
        "Datacenter leaf, DCTCP, 40-way incast (10 Gb/s, 100 µs)",
        {
            "capacity": "10 Gbit/s",
            "rtt": "100 us",
            "packet": "1500 B",
            "flows": "40",
            "cc": "dctcp",
            "incast": "40",
        },
    ),
    (
        "Optical core, paced hosts (40 Gb/s, 100 ms, 5,000 flows, 64 KB windows)",
        {
            "capacity": "40 Gbit/s",
            "rtt": "100 ms",
            "packet": "1500 B",
            "flows": "5000",
            "window": "43.69",
            "paced": "on",
            "medium": "optical",
        },
    ),
    (
        "Measured loss target (100 Mb/s, 100 ms, 100 bottlenecked Reno flows, loss 0.1 %)",
        {
            "capacity": "100 Mbit/s",
            "rtt": "100 ms",
            "packet": "1500 B",
            "flows": "100",
            "bottlenecked": "100",
            "cc": "reno",
            "loss": "0.001",
        },
    ),
    (
        "Satellite, GEO (50 Mb/s, 600 ms, 8 CUBIC flows)",
        {"capacity": "50 Mbit/s", "rtt": "600 ms", "packet": "1500 B", "flows": "8", "cc": "cubic"},
    ),
    (
        "Shared-buffer switch port (100 Gb/s, 20 µs, DCTCP, 100-way incast)",
        {
            "capacity": "100 Gbit/s",
            "rtt": "20 us",
            "packet": "1500 B",
            "flows": "100",
            "cc": "dctcp",
            "incast": "100",
        },
    ),
    (
        "BBR bottleneck (1 Gb/s, 50 ms, 20 BBR flows)",
        {"capacity": "1 Gbit/s", "rtt": "50 ms", "packet": "1500 B", "flows": "20", "cc": "bbr"},
    ),
    (
        "Thesis link, pacing unknown (10 Gb/s, 100 ms, 1,000 flows, 64 KB windows)",
        {
            "capacity": "10 Gbit/s",
            "rtt": "100 ms",
            "packet": "1000 B",
            "flows": "1000",
            "window": "64",
        },
    ),
)


def query(inputs: dict[str, str]) -> str:
    """The page's query string for these inputs (every field present, as the form sends it)."""
    values = {f.name: inputs.get(f.name, f.default if f.kind == "choice" else "") for f in FIELDS}
    values.update({k: v for k, v in inputs.items() if k not in values})
    return urlencode({k: v for k, v in values.items() if v})


#: (title, query string) of every example, for the page and the benchmark.
EXAMPLE_LINKS: tuple[tuple[str, str], ...] = tuple((title, query(i)) for title, i in PANEL)
