"""Each rule and each traffic regime in one plain sentence, for the page and the command line."""

from __future__ import annotations

#: One sentence per rule: what the rule says, without symbols.
RULE_WORDS = {
    "rule_of_thumb": "one round-trip time of traffic at line rate (the bandwidth-delay "
    "product), what a single loss-based flow needs to keep the link busy",
    "md_beta": "the bandwidth-delay product scaled by how far this congestion control backs "
    "off after a loss",
    "sqrt_n": "the bandwidth-delay product divided by the square root of the number of flows: "
    "many unsynchronised flows smooth each other out",
    "tiny_buffers": "a few dozen packets, enough when senders are paced or sit behind slower "
    "access links so that packets arrive spread out",
    "paced": "the size paced senders need, a little above the tiny-buffers size",
    "transparent": "a buffer for the bursts of a link that is rarely full (short flows, low load)",
    "bscl": "the size at which the long-lived flows bottlenecked here keep the loss below "
    "the target (BSCL, for congested links)",
    "fpq": "the size from the flow-proportional queueing model of loss",
    "dctcp": "DCTCP's marking threshold (one seventh of the bandwidth-delay product) plus the "
    "burst of senders answering at once",
    "tcp_mm1b": "the size from a fixed point of TCP's rate and a finite queue's loss",
    "incast": "the burst of senders answering one request at once, each with its first window",
    "bbr": "BBR's probing queue, a quarter of the bandwidth-delay product",
    "aqm": "the standing queue the AQM aims for",
}

#: How the engine's regime reads in plain words.
REGIME_WORDS = {
    "transparent": "the link is rarely full, so the buffer only absorbs bursts",
    "elastic": "long-lived flows share the link and adapt their rate to its losses",
    "overload": "the offered load exceeds the capacity, so the queue stays full",
    "unknown": "the load was not given, so the engine cannot tell whether the link is often full",
}
