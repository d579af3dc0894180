"""The testbed's idle RTT probe (``endpoints.probe``) on loopback: several handshakes from one
source port, each aborted so that the port is free again at once."""

from __future__ import annotations

import math
import shutil
import socket
import subprocess
import threading

import pytest

from tests.ports import free_port
from validation.testbed.endpoints import probe


def test_the_probe_makes_its_handshakes_from_one_port_and_leaves_no_time_wait() -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    address, port = listener.getsockname()
    peers: list[int] = []

    def accept(count: int) -> None:
        for _ in range(count):
            connection, peer = listener.accept()
            peers.append(peer[1])
            connection.close()

    source = free_port()
    acceptor = threading.Thread(target=accept, args=(3,), daemon=True)
    acceptor.start()
    with listener:
        (rtt_s,) = probe(address, port, [source], handshakes=3)
        acceptor.join(timeout=10)
    assert peers == [source] * 3
    # Loopback's round trip (the kernel's sample, in µs): well under 0.1 s.
    assert math.isfinite(rtt_s) and 0.0 <= rtt_s < 0.1
    if shutil.which("ss") is None:
        pytest.fail("iproute2's ss is needed to see the sockets left behind")
    # Aborted, not closed: no socket of the probe's port is left in TIME_WAIT (a FIN from the
    # probe's side would leave one for 60 s, and the next connect from the port would fail).
    left = subprocess.run(
        ["ss", "-Htan", "state", "time-wait", f"( sport = :{source} )"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert left.strip() == ""
