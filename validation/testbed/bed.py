"""A dumbbell of network namespaces running Linux's own TCP: build, run flows, measure, remove.

Three namespaces of the testbed's own (names carry a random tag): ``snd`` (the senders),
``rtr`` (the router) and ``rcv`` (the receiver), joined by two veth pairs. The router's
forwarding passes through a user-space process (:mod:`validation.testbed.forwarder`) by two
TUN devices and policy routes: the senders' packets through the *port*, the bottleneck, a
link of the given rate with a drop-tail buffer counted in packets as the simulator counts it;
the receiver's packets (the ACKs) through the *delay line*, which holds each flow's for its
RTT, so every flow has its own propagation delay (this kernel has no ``netem``; the
forwarder's docstring says why the port is not ``htb`` either). The senders, the receiver
and everything else are the kernel's. Segmentation and receive offloads are off on every
veth so that wire-size packets reach the port; the MTU is the simulator's packet with its
headers (1448 + 52 = 1500 bytes by default, the timestamp option on, as Linux sends it).

Measures after a warm-up (:class:`Measurement`), counted by the port between two signals:
utilization = IP bytes sent / (rate · time); loss = drops / arrivals; each sent packet's
wait before its transmission (mean and 99th percentile, as the simulator measures its
queueing delay); each flow's throughput (bytes sent from its source port); each flow's
congestion control as the kernel reports it and its smallest RTT sample (``ss -ti``); the
senders' retransmission timeouts, loss probes and recoveries (``TCP_COUNTERS``); how the
packets came to the port (the backlog each found, trains of packets sent back to back, of
ACKs let go together).

Removal: the namespaces' processes are killed and the namespaces deleted (with them every
veth and TUN device) when the :class:`Testbed` context ends, whatever ends it: a return, an
exception, Ctrl-C (SIGINT raises ``KeyboardInterrupt``), or SIGTERM / SIGHUP, which the
testbed turns into the same exception while it is built.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from validation.testbed import wakeups
from validation.testbed.endpoints import PROBE_HANDSHAKES

#: The namespaces' names begin with this (then the role and the tag).
NAME_PREFIX = "bzk"
#: The sink's port; the senders' source ports start at FIRST_SOURCE_PORT.
SINK_PORT = 5001
FIRST_SOURCE_PORT = 20_000
#: IP and TCP headers of a full segment (20 + 20 + the timestamp option's 12), bytes.
HEADER_BYTES = 52
#: Ports a run uses at most (each run of one testbed takes a fresh block: no TIME_WAIT clash).
PORTS_PER_RUN = 1000
#: The TUN devices' queues towards the forwarder, packets (more than any window here).
TUN_QUEUE_PACKETS = 100_000
TOOLS = ("ip", "tc", "ss", "ethtool")
_REPO = Path(__file__).resolve().parents[2]
#: The senders' TcpExt counters a measurement reports (their change over the measured time).
TCP_COUNTERS = (
    "TCPTimeouts",
    "TCPLossProbes",
    "TCPLostRetransmit",
    "TCPSackRecovery",
    "TCPFastRetrans",
    "TCPSpuriousRTOs",
)


class TestbedUnavailable(RuntimeError):
    """The machine cannot build the testbed (no root, no namespaces, a tool missing)."""

    __test__ = False  # not a test class, whatever its name


class TestbedError(RuntimeError):
    """A step of building or running the testbed failed."""

    __test__ = False  # not a test class, whatever its name


@dataclass(frozen=True)
class Flow:
    """One bulk TCP flow: its congestion control, RTT (two-way propagation, s), start (s)."""

    congestion_control: str
    rtt_s: float
    start_s: float = 0.0
    group: str = ""


@dataclass
class Measurement:
    """What one run measured after its warm-up (see the module docstring)."""

    capacity_bps: float
    buffer_packets: int
    measured_s: float
    utilization: float
    loss_rate: float
    drops: int
    packets_sent: int
    queue_delay_mean_s: float
    queue_delay_p99_s: float
    backlog_mean_packets: float
    flow_throughput_bps: list[float]
    flow_cc: list[str]
    flow_min_rtt_s: list[float]
    flows: list[Flow]
    forwarder_late: dict[str, float]
    other_drops: dict[str, int]
    probe_rtt_s: list[float]
    wall_s: float
    kernel: str = field(default_factory=lambda: os.uname().release)
    tcp_counters: dict[str, int] = field(default_factory=dict)
    #: How the data packets came to the port (the forwarder's docstring): ``backlog_found``
    #: (packets finding k packets there; k = buffer: dropped), ``trains`` (runs of packets
    #: back to back, by length) and ``ack_trains`` (the same for the ACKs the line lets go).
    arrival_counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def group_share(self, group: str) -> float:
        """Share of the flows' total throughput that ``group``'s flows got (a ratio)."""
        total = sum(self.flow_throughput_bps)
        mine = sum(
            bps for bps, f in zip(self.flow_throughput_bps, self.flows, strict=True)
            if f.group == group
        )  # fmt: skip
        return mine / total if total > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The measurement as plain JSON-ready values."""
        values = {k: v for k, v in self.__dict__.items() if k != "flows"}
        values["flows"] = [f.__dict__ for f in self.flows]
        return values


@dataclass
class Transfer:
    """One finite transfer alone on the idle link (:meth:`Testbed.transfer`).

    ``handshake_s``: ``connect``'s time; ``completion_s``: from the data's write, right after
    ``connect`` (the first segments leave with the handshake's last ACK), to the ACK of its
    last byte at the sender (``endpoints.transfer``); ``tcp_info``: the sender's ``TCP_INFO``
    fields at the end (segments in and out, cwnd, ssthresh, retransmissions, time limited by
    the receiver's window); ``drops``/``arrivals``: the bottleneck's while it ran."""

    flow: Flow
    packets: int
    handshake_s: float
    completion_s: float
    probe_rtt_s: float
    drops: int
    arrivals: int
    forwarder_late: dict[str, float]
    tcp_info: dict[str, float]
    other_drops: dict[str, int]
    kernel: str = field(default_factory=lambda: os.uname().release)

    @property
    def acks_per_segment(self) -> float:
        """ACKs the sender received per data segment it sent (the SYN-ACK not counted)."""
        segments = self.tcp_info["data_segs_out"]
        return (self.tcp_info["segs_in"] - 1) / segments if segments else float("nan")

    def as_dict(self) -> dict[str, Any]:
        """The transfer as plain JSON-ready values."""
        return {**self.__dict__, "flow": self.flow.__dict__}


def _run(args: Sequence[str], timeout_s: float = 30.0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(_REPO)}
    return subprocess.run(
        list(args), capture_output=True, text=True, timeout=timeout_s, check=False, env=env
    )


def _ok(*args: str) -> str:
    done = _run(args)
    if done.returncode != 0:
        raise TestbedError(f"{' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def unavailable_reason() -> str | None:
    """Why this machine cannot build the testbed, or None if it can (root, tools, netns)."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"the kernel testbed needs {', '.join(missing)} (iproute2, ethtool)"
    if os.geteuid() != 0:
        return "the kernel testbed needs root (it creates network namespaces)"
    if not os.path.exists("/dev/net/tun"):
        return "the kernel testbed needs /dev/net/tun (its delay line is a TUN device)"
    probe = f"{NAME_PREFIX}-probe-{uuid.uuid4().hex[:6]}"
    made = _run(["ip", "netns", "add", probe])
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    _run(["ip", "netns", "del", probe])
    return None


def _raise_interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt (as SIGINT does) in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise_interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


class Testbed:
    """The namespace dumbbell at ``capacity_bps`` with a drop-tail buffer of ``buffer_packets``.

    Use as a context manager; :meth:`run` runs flows and measures. ``mtu`` is the IP packet
    of a full segment (payload + headers). The namespaces are removed when the context ends.
    """

    __test__ = False  # not a test class, whatever its name

    def __init__(self, capacity_bps: float, buffer_packets: int, mtu: int = 1500) -> None:
        self.capacity_bps = float(capacity_bps)
        self.buffer_packets = int(buffer_packets)
        self.mtu = int(mtu)
        self.tag = uuid.uuid4().hex[:6]
        self.names = {role: f"{NAME_PREFIX}-{role}-{self.tag}" for role in ("snd", "rtr", "rcv")}
        self.devices = {
            "snd": f"s{self.tag}",  # sender's end
            "rtr_in": f"a{self.tag}",  # router, from the sender
            "rtr_out": f"b{self.tag}",  # router, to the receiver: the bottleneck
            "rcv": f"r{self.tag}",  # receiver's end
            "line": f"t{self.tag}",  # the delay line's TUN device
            "port": f"q{self.tag}",  # the bottleneck port's TUN device
        }
        self._made: list[str] = []
        self._runs = 0
        self._sink: subprocess.Popen[str] | None = None
        self._workdir = Path(tempfile.mkdtemp(prefix=f"{NAME_PREFIX}-{self.tag}-"))
        self._signals = _signals_interrupt()
        self._wakeups: int | None = None

    # -- building and removal -------------------------------------------------------------

    def __enter__(self) -> Testbed:
        self._signals.__enter__()
        self._wakeups = wakeups.hold_prompt_wakeups()
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill the namespaces' processes and delete the namespaces (idempotent)."""
        for name in reversed(self._made):
            pids = _run(["ip", "netns", "pids", name]).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            _run(["ip", "netns", "del", name])
        self._made.clear()
        if self._sink is not None:
            self._sink.kill()  # gone with its namespace already, as a rule
            try:
                self._sink.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            self._sink = None
        shutil.rmtree(self._workdir, ignore_errors=True)
        wakeups.release(self._wakeups)
        self._wakeups = None
        try:
            self._signals.__exit__(None, None, None)
        except (ValueError, RuntimeError):
            pass

    def _ns(self, role: str, *args: str) -> str:
        return _ok("ip", "netns", "exec", self.names[role], *args)

    def _build(self) -> None:
        reason = unavailable_reason()
        if reason is not None:
            raise TestbedUnavailable(reason)
        n, d = self.names, self.devices
        for role in ("snd", "rtr", "rcv"):
            _ok("ip", "netns", "add", n[role])
            self._made.append(n[role])
            _ok("ip", "-n", n[role], "link", "set", "lo", "up")
        _ok("ip", "link", "add", d["snd"], "netns", n["snd"], "type", "veth", "peer", "name",
            d["rtr_in"], "netns", n["rtr"])  # fmt: skip
        _ok("ip", "link", "add", d["rtr_out"], "netns", n["rtr"], "type", "veth", "peer", "name",
            d["rcv"], "netns", n["rcv"])  # fmt: skip
        for role, device, address in (
            ("snd", d["snd"], "10.78.1.1/24"),
            ("rtr", d["rtr_in"], "10.78.1.254/24"),
            ("rtr", d["rtr_out"], "10.78.2.254/24"),
            ("rcv", d["rcv"], "10.78.2.2/24"),
        ):
            _ok("ip", "-n", n[role], "link", "set", device, "mtu", str(self.mtu))
            _ok("ip", "-n", n[role], "addr", "add", address, "dev", device)
            _ok("ip", "-n", n[role], "link", "set", device, "up")
            self._ns(role, "ethtool", "-K", device, "tso", "off", "gso", "off", "gro", "off")
        _ok("ip", "-n", n["snd"], "route", "add", "default", "via", "10.78.1.254")
        _ok("ip", "-n", n["rcv"], "route", "add", "default", "via", "10.78.2.254")
        for role in ("snd", "rcv"):
            # Each run starts afresh: no ssthresh or RTT remembered from the previous one.
            self._ns(role, "sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1")
        # What comes from the senders goes through the port, what comes back through the line.
        for device, iif, table in (("port", "rtr_in", "101"), ("line", "rtr_out", "100")):
            tun = d[device]
            _ok("ip", "-n", n["rtr"], "tuntap", "add", "dev", tun, "mode", "tun")
            _ok("ip", "-n", n["rtr"], "link", "set", tun, "txqueuelen", str(TUN_QUEUE_PACKETS))
            _ok("ip", "-n", n["rtr"], "link", "set", tun, "up")
            _ok("ip", "-n", n["rtr"], "rule", "add", "iif", d[iif], "lookup", table,
                "priority", table)  # fmt: skip
            _ok("ip", "-n", n["rtr"], "route", "add", "default", "dev", tun, "table", table)
        for key in ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                    f"net.ipv4.conf.{d['line']}.rp_filter=0",
                    f"net.ipv4.conf.{d['port']}.rp_filter=0"):  # fmt: skip
            self._ns("rtr", "sysctl", "-qw", key)
        self._sink = self._spawn(
            "rcv", "-m", "validation.testbed.endpoints", "sink", "10.78.2.2", str(SINK_PORT)
        )

    def set_buffer(self, buffer_packets: int) -> None:
        """Set the bottleneck's drop-tail buffer (packets) for the next runs."""
        self.buffer_packets = int(buffer_packets)

    def _spawn(self, role: str, *args: str) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": str(_REPO)}
        return subprocess.Popen(
            ["ip", "netns", "exec", self.names[role], sys.executable, *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    # -- counters --------------------------------------------------------------------------

    def _other_drops(self) -> dict[str, int]:
        """Packets dropped anywhere but the bottleneck's queue: each device's drop counters."""
        total: dict[str, int] = {}
        for role, devices in (("snd", ("snd",)), ("rtr", ("rtr_in", "rtr_out", "line", "port")),
                              ("rcv", ("rcv",))):  # fmt: skip
            shown = json.loads(_ok("ip", "-n", self.names[role], "-s", "-j", "link", "show"))
            for link in shown:
                if link.get("ifname") in {self.devices[d] for d in devices}:
                    stats = link.get("stats64", link.get("stats", {}))
                    for way in ("rx", "tx"):
                        total[f"{link['ifname']} {way}"] = int(stats[way]["dropped"])
        return total

    def _tcp_counters(self) -> dict[str, int]:
        """The senders' namespace's TcpExt counters (``/proc/net/netstat``): timeouts, loss
        probes, lost retransmissions, recoveries."""
        lines = self._ns("snd", "cat", "/proc/net/netstat").splitlines()
        for names, values in zip(lines[0::2], lines[1::2], strict=False):
            if names.startswith("TcpExt:"):
                pairs = zip(names.split()[1:], values.split()[1:], strict=True)
                return {k: int(v) for k, v in pairs if k in TCP_COUNTERS}
        return {}

    def _flows_seen(self, ports: dict[int, int]) -> dict[int, dict[str, Any]]:
        """``ss -ti`` in the sender's namespace: per source port, cc and minrtt."""
        shown = self._ns("snd", "ss", "-tinH", "state", "established")
        seen: dict[int, dict[str, Any]] = {}
        lines = shown.splitlines()
        for head, info in zip(lines[0::2], lines[1::2], strict=False):
            local = head.split()[2]
            port = int(local.rsplit(":", 1)[1])
            if port not in ports:
                continue
            words = info.split()
            entry: dict[str, Any] = {"cc": words[0] if words else "?"}
            for word in words:
                if word.startswith("minrtt:"):
                    entry["minrtt_s"] = float(word.split(":")[1]) / 1e3
            seen[port] = entry
        return seen

    # -- a run -----------------------------------------------------------------------------

    def _ports(self, flows: Sequence[Flow]) -> tuple[dict[int, int], dict[int, int]]:
        """A fresh block of source ports for a run: the flows' and their RTT probes'."""
        first = FIRST_SOURCE_PORT + PORTS_PER_RUN * (self._runs % 40)
        self._runs += 1
        ports = {first + i: i for i in range(len(flows))}
        probes = {port + PORTS_PER_RUN // 2: i for port, i in ports.items()}
        return ports, probes

    @contextmanager
    def _forwarding(
        self, flows: Sequence[Flow], ports: dict[int, int]
    ) -> Iterator[tuple[subprocess.Popen[str], Path]]:
        """The router's forwarder, each port's packets delayed by its flow's RTT, for a run,
        and the file it writes its measures to when it stops (:meth:`_forwarder_measures`)."""
        stats_path = self._workdir / f"forwarder-{self._runs}.json"
        default_s = sum(f.rtt_s for f in flows) / len(flows)
        forwarder = self._spawn(
            "rtr", "-m", "validation.testbed.forwarder", self.devices["port"],
            self.devices["line"], f"{self.capacity_bps:.0f}", str(self.buffer_packets),
            f"{default_s:.6f}", str(stats_path),
            *(f"{p}={flows[i].rtt_s:.6f}" for p, i in ports.items()),
        )  # fmt: skip
        try:
            time.sleep(0.3)  # the forwarder opens its devices
            if forwarder.poll() is not None:
                error = forwarder.stderr.read() if forwarder.stderr else ""
                raise TestbedError(f"the forwarder did not start: {error}")
            yield forwarder, stats_path
        finally:
            forwarder.send_signal(signal.SIGTERM)
            try:
                forwarder.wait(timeout=10)
            except subprocess.TimeoutExpired:
                forwarder.kill()

    @staticmethod
    def _forwarder_measures(stats_path: Path) -> dict[str, Any]:
        """What the forwarder measured (:mod:`validation.testbed.forwarder`), once stopped."""
        if not stats_path.exists():
            raise TestbedError("the forwarder left no measures")
        measures: dict[str, Any] = json.loads(stats_path.read_text())
        return measures

    @staticmethod
    def _drops_between(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
        """The counters of :meth:`_other_drops` that moved, by how much."""
        return {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}

    def _probe(self, probes: dict[int, int], handshakes: int = PROBE_HANDSHAKES) -> list[float]:
        """Each probe port's round trip on the idle path, s: the least of ``handshakes``
        handshake times (``endpoints.probe``)."""
        return [float(v) for v in self._ns(
            "snd", sys.executable, "-m", "validation.testbed.endpoints", "probe",
            "10.78.2.2", str(SINK_PORT), str(handshakes), *map(str, probes),
        ).split()]  # fmt: skip

    def idle_rtts(self, flows: Sequence[Flow], handshakes: int = PROBE_HANDSHAKES) -> list[float]:
        """Each flow's round trip on the idle path, s, as a run measures it before its flows
        start (the least of ``handshakes`` handshakes; 1: one handshake's time)."""
        ports, probes = self._ports(flows)
        with self._forwarding(flows, ports | probes):
            return self._probe(probes, handshakes)

    def run(self, flows: Sequence[Flow], *, warmup_s: float, measure_s: float) -> Measurement:
        """Run ``flows`` through the bottleneck; measure from ``warmup_s`` for ``measure_s``."""
        started = time.monotonic()
        ports, probes = self._ports(flows)
        sender: subprocess.Popen[str] | None = None
        with self._forwarding(flows, ports | probes) as (forwarder, stats_path):
            try:
                probe_rtt_s = self._probe(probes)
                seconds = warmup_s + measure_s + 1.0
                specs = [
                    f"{p}:{flows[i].congestion_control}:{flows[i].start_s:.4f}"
                    for p, i in ports.items()
                ]
                sender = self._spawn(
                    "snd", "-m", "validation.testbed.endpoints", "send", "10.78.2.2",
                    str(SINK_PORT), f"{seconds:.3f}", *specs,
                )  # fmt: skip
                time.sleep(warmup_s)
                self._check_running(sender)
                before_other, before_tcp = self._other_drops(), self._tcp_counters()
                forwarder.send_signal(signal.SIGUSR1)
                time.sleep(measure_s)
                forwarder.send_signal(signal.SIGUSR2)
                after_tcp = self._tcp_counters()
                seen = self._flows_seen(ports)
                after_other = self._other_drops()
                try:
                    sender.wait(timeout=seconds + 30)
                except subprocess.TimeoutExpired as late:
                    raise TestbedError("the senders did not stop at the end of the run") from late
                self._check_running(sender)
            finally:
                if sender is not None and sender.poll() is None:
                    sender.kill()
                    sender.wait()
        counted = self._forwarder_measures(stats_path)
        other_drops = self._drops_between(before_other, after_other)
        measurement = self._measurement(
            flows, ports, counted, seen, other_drops, probe_rtt_s, time.monotonic() - started
        )
        measurement.tcp_counters = {k: n - before_tcp.get(k, 0) for k, n in after_tcp.items()}
        return measurement

    def transfer(self, flow: Flow, packets: int) -> Transfer:
        """One transfer of ``packets`` full segments with ``flow``'s congestion control and
        RTT, alone on the idle link (``flow.start_s`` is not used)."""
        ports, probes = self._ports([flow])
        with self._forwarding([flow], ports | probes) as (forwarder, stats_path):
            probe_rtt_s = self._probe(probes)[0]
            before_other = self._other_drops()
            forwarder.send_signal(signal.SIGUSR1)
            (port,) = ports
            shown = self._ns(
                "snd", sys.executable, "-m", "validation.testbed.endpoints", "transfer",
                "10.78.2.2", str(SINK_PORT), str(port), flow.congestion_control,
                str(packets * (self.mtu - HEADER_BYTES)),
            )  # fmt: skip
            forwarder.send_signal(signal.SIGUSR2)
            after_other = self._other_drops()
        counted = self._forwarder_measures(stats_path)
        measured = json.loads(shown)
        return Transfer(
            flow=flow,
            packets=packets,
            handshake_s=float(measured.pop("handshake_s")),
            completion_s=float(measured.pop("completion_s")),
            probe_rtt_s=probe_rtt_s,
            drops=int(counted["drops"]),
            arrivals=int(counted["arrivals"]),
            forwarder_late={k: float(v) for k, v in counted["late"].items()},
            tcp_info={k: float(v) for k, v in measured.items()},
            other_drops=self._drops_between(before_other, after_other),
        )

    @staticmethod
    def _check_running(sender: subprocess.Popen[str]) -> None:
        """Raise TestbedError if the senders' process ended with an error."""
        if sender.poll() not in (None, 0):
            error = sender.stderr.read().strip() if sender.stderr else ""
            raise TestbedError(f"the senders failed: {error.splitlines()[-1] if error else ''}")

    def _measurement(
        self,
        flows: Sequence[Flow],
        ports: dict[int, int],
        counted: dict[str, Any],
        seen: dict[int, dict[str, Any]],
        other_drops: dict[str, int],
        probe_rtt_s: list[float],
        wall_s: float,
    ) -> Measurement:
        measured_s = float(counted["end_s"]) - float(counted["start_s"])
        sent, drops = int(counted["sent"]), int(counted["drops"])
        arrivals = int(counted["arrivals"])
        wait, late = counted["wait"], counted["late"]
        by_port = {int(k): int(v) for k, v in counted["bytes_by_port"].items()}
        return Measurement(
            capacity_bps=self.capacity_bps,
            buffer_packets=self.buffer_packets,
            measured_s=measured_s,
            utilization=8.0 * int(counted["sent_bytes"]) / (self.capacity_bps * measured_s),
            loss_rate=drops / arrivals if arrivals else 0.0,
            drops=drops,
            packets_sent=sent,
            queue_delay_mean_s=float(wait["mean_s"]),
            queue_delay_p99_s=float(wait["p99_s"]),
            backlog_mean_packets=float(wait["mean_s"]) * sent / measured_s,  # Little's law
            flow_throughput_bps=[8.0 * by_port.get(port, 0) / measured_s for port in ports],
            flow_cc=[str(seen.get(port, {}).get("cc", "?")) for port in ports],
            flow_min_rtt_s=[float(seen.get(port, {}).get("minrtt_s", "nan")) for port in ports],
            flows=list(flows),
            forwarder_late={k: float(v) for k, v in late.items()},
            arrival_counts={
                name: {k: int(v) for k, v in counted.get(name, {}).items()}
                for name in ("backlog_found", "trains", "ack_trains")
            },
            other_drops=other_drops,
            probe_rtt_s=probe_rtt_s,
            wall_s=wall_s,
        )


def remains(tag: str) -> list[str]:
    """Namespaces, links and qdiscs of the root namespace whose names carry ``tag``."""
    found = [n for n in _run(["ip", "netns", "list"]).stdout.split() if tag in n]
    found += [
        f"link {line.split(':')[1].strip()}"
        for line in _run(["ip", "-o", "link", "show"]).stdout.splitlines()
        if tag in line
    ]
    found += [
        f"qdisc {line}" for line in _run(["tc", "qdisc", "show"]).stdout.splitlines() if tag in line
    ]
    return found
