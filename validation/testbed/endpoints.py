"""The testbed's traffic: bulk TCP flows from the sender's namespace to a sink in the receiver's.

Run inside a namespace::

    python -m validation.testbed.endpoints sink ADDRESS PORT
    python -m validation.testbed.endpoints send ADDRESS PORT SECONDS FLOW...
    python -m validation.testbed.endpoints probe ADDRESS PORT HANDSHAKES SOURCE_PORT...
    python -m validation.testbed.endpoints transfer ADDRESS PORT SOURCE_PORT CC BYTES

where each ``FLOW`` is ``SOURCE_PORT:CONGESTION_CONTROL:START_S``. Each flow binds its own
source port (the delay line keys its delay on it), sets ``TCP_CONGESTION`` on its socket
before connecting, starts ``START_S`` after the sender does, and keeps its socket's send
buffer full until ``SECONDS`` after the sender started, and then aborts (what it had not
yet sent is discarded, not left to drain into the next run). The sink reads every connection to
its end. The kernel does the rest: Linux's congestion control, SACK, delayed ACKs, pacing.

``transfer`` is one finite transfer instead (:func:`transfer`): connect, write ``BYTES``,
time until the receiver has acknowledged the last of them, close; it prints what it measured
as one JSON line.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import struct
import sys
import termios
import threading
import time
from typing import Any

#: Bytes handed to the kernel per send call.
_CHUNK = b"\0" * 65536
#: Byte offset of ``tcpi_rtt`` (µs) in Linux's ``struct tcp_info`` (include/uapi/linux/tcp.h:
#: eight one-byte fields, then 32-bit fields of which tcpi_rtt is the sixteenth).
_TCPI_RTT_OFFSET = 8 + 15 * 4
#: Fields of Linux's ``struct tcp_info`` (include/uapi/linux/tcp.h) a transfer reports: name,
#: byte offset, ``struct`` format (after the eight one-byte fields, 24 32-bit ones, four 64-bit).
_TCPI_FIELDS = (
    ("snd_ssthresh", 76, "I"),
    ("snd_cwnd", 80, "I"),
    ("total_retrans", 100, "I"),
    ("segs_out", 136, "I"),
    ("segs_in", 140, "I"),
    ("data_segs_out", 156, "I"),
    ("busy_time_us", 168, "Q"),
    ("rwnd_limited_us", 176, "Q"),
    ("sndbuf_limited_us", 184, "Q"),
)
_TCPI_BYTES = 192
#: How often a transfer asks whether its last byte is acknowledged, s.
_POLL_S = 2e-4
#: The senders' and the sink's socket buffers, bytes (``SO_SNDBUFFORCE``/``SO_RCVBUFFORCE``,
#: Linux's option numbers; root may exceed ``wmem_max``/``rmem_max``): seconds of a flow, so
#: that neither end's program limits it when a busy machine leaves it unscheduled for a while.
#: Measured on this machine (load 11-17 on 2 cores, one Reno flow, 20 Mbit/s, 50 ms, a buffer
#: of 8 packets): with the sink's autotuned buffer the flow lost 1.2-3.3 % and carried
#: 11-30 % of the link (the sink's reads came late, the window closed, and each late read
#: reopened it at once: a burst of a window's worth into 8 packets of buffer); with 8 MiB,
#: see ``ss -ti``'s rwnd_limited, which the sanity checks read.
_BUFFER_BYTES = 8 * 2**20
_SO_SNDBUFFORCE = 32
_SO_RCVBUFFORCE = 33
#: Handshakes per port in the idle RTT probe, of which the least counts (:func:`probe`).
PROBE_HANDSHAKES = 5
#: How long a flow keeps retrying its connection while the sink starts, s.
_CONNECT_PATIENCE_S = 15.0


def sink(address: str, port: int) -> None:
    """Accept connections on ``address:port`` and read each to its end, forever."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, _BUFFER_BYTES)
    listener.bind((address, port))
    listener.listen(1024)

    def drain(connection: socket.socket) -> None:
        with connection:
            while connection.recv(1 << 20):
                pass

    while True:
        connection, _ = listener.accept()
        threading.Thread(target=drain, args=(connection,), daemon=True).start()


def _connect(address: str, port: int, source_port: int, cc: str) -> socket.socket:
    """A connection from ``source_port`` with ``cc``, retried while the sink starts."""
    deadline = time.monotonic() + _CONNECT_PATIENCE_S
    while True:
        connection = socket.socket()
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        connection.setsockopt(socket.SOL_SOCKET, _SO_SNDBUFFORCE, _BUFFER_BYTES)
        connection.bind(("0.0.0.0", source_port))
        try:
            connection.connect((address, port))
            return connection
        except ConnectionRefusedError:
            connection.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _abort_on_close(connection: socket.socket) -> None:
    """Make closing ``connection`` an abort: an RST, the unsent data discarded and no
    ``TIME_WAIT`` left (``SO_LINGER`` on with a zero timeout)."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _flow(
    address: str, port: int, source_port: int, cc: str, start_at: float, end_at: float
) -> None:
    time.sleep(max(0.0, start_at - time.monotonic()))
    connection = _connect(address, port, source_port, cc)
    with connection:
        try:
            while (left_s := end_at - time.monotonic()) > 0:
                # A flow starved by its own timeouts must not outlive the run.
                connection.settimeout(left_s)
                connection.sendall(_CHUNK)
        except TimeoutError:
            pass
        # Abort: the data still in the send buffer must not run into the next run.
        _abort_on_close(connection)


def send(address: str, port: int, seconds: float, flows: list[str]) -> None:
    """Run the flows (``SOURCE_PORT:CC:START_S`` each) for ``seconds`` from now."""
    begun = time.monotonic()
    failures: list[str] = []

    def guarded(*args: Any) -> None:
        try:
            _flow(*args)
        except OSError as error:
            failures.append(f"flow from port {args[2]} ({args[3]}): {error}")

    threads = []
    for spec in flows:
        source_port, cc, start_s = spec.split(":")
        threads.append(
            threading.Thread(
                target=guarded,
                args=(address, port, int(source_port), cc, begun + float(start_s), begun + seconds),
                daemon=True,
            )
        )
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise SystemExit("; ".join(failures))


def transfer(
    address: str, port: int, source_port: int, cc: str, size_bytes: int, timeout_s: float = 20.0
) -> dict[str, float]:
    """One finite transfer of ``size_bytes``: its handshake and completion times, s, and the
    sender's ``TCP_INFO`` at its end (:data:`_TCPI_FIELDS`).

    ``handshake_s`` is ``connect``'s time (SYN to SYN-ACK). ``completion_s`` runs from the
    write of the data, at once after ``connect`` returns (the first segments leave with the
    handshake's last ACK), to the moment the sender's queue (``TIOCOUTQ``: bytes written and
    not yet acknowledged) is empty, i.e. the ACK of the last byte has come back: from the
    first data packet to the ACK of the last, as the simulator times a flow. The queue is
    polled every :data:`_POLL_S`."""
    began = time.monotonic()
    connection = _connect(address, port, source_port, cc)
    with connection:
        connected = time.monotonic()
        connection.sendall(b"\0" * size_bytes)
        queued = bytearray(4)
        while True:
            fcntl.ioctl(connection, termios.TIOCOUTQ, queued)
            done = time.monotonic()
            if int.from_bytes(queued, sys.byteorder) == 0:
                break
            if done - connected > timeout_s:
                raise TimeoutError(f"{size_bytes} bytes not acknowledged in {timeout_s:g} s")
            time.sleep(_POLL_S)
        info = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCPI_BYTES)
    measured: dict[str, float] = {
        "handshake_s": connected - began,
        "completion_s": done - connected,
    }
    for name, offset, kind in _TCPI_FIELDS:
        measured[name] = float(struct.unpack_from(kind, info, offset)[0])
    return measured


def probe(
    address: str, port: int, source_ports: list[int], handshakes: int = PROBE_HANDSHAKES
) -> list[float]:
    """The idle path's round trip from each source port, s: the least of ``handshakes``
    handshake times, one after another.

    Each is the kernel's own sample (``tcpi_rtt`` of ``TCP_INFO`` once ``connect`` returns:
    the SYN to SYN-ACK time); the delay line holds the SYN-ACK for the port's delay. Each
    connection is aborted (RST, no ``TIME_WAIT``) so that the next can use the same port.
    The least is kept, as TCP keeps the least RTT it has sampled for a path's propagation
    delay (Linux's ``tcp_min_rtt``; RACK.min_RTT, RFC 8985 §6.2 step 1): the first
    handshakes through the idle path came back 1.5-2 ms late (the four 16-24 ms paths of the
    testbed's test, 16 ms probed at 17.5-18.1 ms, then 16.1-16.6 ms), which the sanity
    check's 1 ms refused in 10 of 12 rounds on the idle machine and 12 of 12 with two
    processes spinning beside it; the least of five was 0.16-0.30 ms over in all 24 rounds
    (``studies/testbed_refusals.py``)."""
    rtts_s = [float("nan")] * len(source_ports)

    def one(index: int) -> None:
        samples_s = []
        for _ in range(handshakes):
            with socket.socket() as connection:
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                connection.bind(("0.0.0.0", source_ports[index]))
                connection.connect((address, port))
                info = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
                samples_s.append(struct.unpack_from("I", info, _TCPI_RTT_OFFSET)[0] / 1e6)
                _abort_on_close(connection)
        rtts_s[index] = min(samples_s)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(source_ports))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return rtts_s


def _real_time() -> None:
    """Run at a real-time priority (below the forwarder's) where allowed (root).

    A program preempted while it is inside ``send`` or ``recv`` holds its socket's lock, and
    the kernel queues the segments that arrive meanwhile until it lets go: ACKs then leave
    the receiver, or are acted on by the sender, in one lump. Measured on this machine (load
    11-16 on 2 cores, one Reno flow, 20 Mbit/s, 50 ms, 8 packets of buffer, at normal
    priority): the receiver's ACKs paused up to 45 ms and then acknowledged 17 segments at
    once, the sender answered with 18 segments in 35 µs, and the flow lost 1.2-3.3 % and
    carried 11-41 % of the link (three runs of each of two settings)."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(5))
    except (PermissionError, OSError):
        pass


def main(argv: list[str]) -> None:
    """``sink ADDRESS PORT``, ``probe ADDRESS PORT HANDSHAKES SOURCE_PORT...`` (prints the
    RTTs, one a line), ``transfer ADDRESS PORT SOURCE_PORT CC BYTES`` (prints a JSON line) or ``send
    ADDRESS PORT SECONDS FLOW...``."""
    role, address, port, *rest = argv
    _real_time()
    if role == "sink":
        sink(address, int(port))
    elif role == "probe":
        handshakes, *source_ports = rest
        for rtt_s in probe(address, int(port), [int(p) for p in source_ports], int(handshakes)):
            print(f"{rtt_s:.6f}")
    elif role == "transfer":
        source_port, cc, size_bytes = rest
        print(json.dumps(transfer(address, int(port), int(source_port), cc, int(size_bytes))))
    else:
        send(address, int(port), float(rest[0]), rest[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
