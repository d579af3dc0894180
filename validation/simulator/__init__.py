"""Packet-level discrete-event simulator of a dumbbell with one drop-tail bottleneck."""
