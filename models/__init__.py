"""Buffer-sizing models from the literature as pure functions of SI floats.

Every function takes plain floats (or NumPy arrays) whose unit is part of the name
(``capacity_bps``, ``rtt_s``, ``packet_bytes``, ``buffer_packets``) and cites its seed paper,
section and equation in its docstring. Nothing here does I/O or imports the rest of bufsize.
"""
