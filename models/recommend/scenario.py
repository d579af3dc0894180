"""What the recommendation engine is asked: the link scenario and the operator's targets."""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass
from typing import Literal

from models import checks
from models.choices import AQMS, MEDIA, PRIORITIES, Aqm, CongestionControl, Medium, Priority
from models.errors import ParameterError

TargetSource = Literal["default", "user"]

#: Multiplicative-decrease factor β of each congestion control on a packet loss: the window
#: after a loss is β times the window before it. Reno halves (000 §2.1); CUBIC keeps 0.7
#: (RFC 9438 §4.6, β_cubic); BBR (v2 and later) keeps BBR.beta = 0.7 of its in-flight bound
#: on loss (IETF draft-ietf-ccwg-bbr, successor of draft-cardwell-iccrg-bbr-congestion-control,
#: §2.8 "Core Algorithm Design Parameters": "BBR.Beta: A constant specifying the default
#: multiplicative decrease to make upon each round trip during which the connection detects
#: packet loss (the value is 0.7)", read in the working group's editor's copy); DCTCP reacts to
#: a loss as Reno does (RFC 8257 §3.5, read: "A DCTCP sender MUST react to loss episodes in the
#: same way as conventional TCP"), its gentler α/2 cut applies to ECN marks only (§3.3).
MD_BETA: dict[str, float] = {"reno": 0.5, "cubic": 0.7, "bbr": 0.7, "dctcp": 0.5}

#: Each AQM's default target delay (the standing queue it aims for) and its control interval,
#: seconds, used when the scenario gives none. CoDel: TARGET 5 ms, INTERVAL 100 ms (RFC 8289
#: §4.3, "TARGET SHOULD be set to 5 ms for normal Internet traffic"; §4.2, "INTERVAL SHOULD have
#: a value of 100 ms"). PIE: QDELAY_REF 15 ms and T_UPDATE 15 ms (RFC 8033 §4.2, "The target
#: latency value, QDELAY_REF, SHOULD be set to 15 milliseconds", and T_UPDATE = 15 ms, the
#: period of the drop-probability update). DualQ Coupled AQM: the Classic queue's PI2 target
#: 15 ms and its update period Tupdate 16 ms (RFC 9332 Appendix A.1, Fig. 2, the example PI2
#: pseudocode's parameters; confirmed through quotations of the figure, as for the L4S ramp in
#: models/recommend/rules.py).
AQM_TARGET_S: dict[str, float] = {"codel": 0.005, "pie": 0.015, "dualq": 0.015}
AQM_INTERVAL_S: dict[str, float] = {"codel": 0.1, "pie": 0.015, "dualq": 0.016}

#: The congestion controls an unknown one is sized for: the loss-based senders of today's
#: hosts, Linux's default CUBIC (RFC 9438) and the Reno (RFC 5681) the classic rules were
#: derived for (000 §2.1). BBR and DCTCP are never assumed: they need a sender or a switch
#: configured for them.
UNKNOWN_CC_CANDIDATES: tuple[CongestionControl, ...] = ("reno", "cubic")

#: Initial window of today's hosts, packets (RFC 6928).
INITIAL_WINDOW_PACKETS = 10.0

#: Default targets (documented; ``source: default`` in the result). Utilization: "links behave
#: as if they run at 80-90% of their nominal rates" is the trade the small-buffer rules make
#: (000 ch. 1). Loss: "typically 1-2% for a saturated link" (004 §II). Delay: one effective RTT
#: of queueing, the most the rule of thumb itself adds (000 §2.1), applied unless the user sets
#: another bound.
DEFAULT_MIN_UTILIZATION = 0.9
DEFAULT_MAX_LOSS = 0.01


def aqm_times(
    aqm: str, aqm_target_s: float | None, aqm_interval_s: float | None
) -> tuple[float | None, float | None]:
    """The AQM's (target, interval), seconds: those given, else the RFC's (:data:`AQM_TARGET_S`,
    :data:`AQM_INTERVAL_S`); (None, None) without an AQM. ``ParameterError`` for a time that is
    not positive, a time given without an AQM, or a CoDel target not below its interval."""
    for name, value in (("aqm_target_s", aqm_target_s), ("aqm_interval_s", aqm_interval_s)):
        if value is None:
            continue
        checks.positive(name, value)
        if aqm == "none":
            raise ParameterError(
                name,
                "only with an AQM",
                "only an AQM has a target and an interval: set aqm to one of "
                f"{', '.join(a for a in AQMS if a != 'none')}, or leave {name} out",
            )
    if aqm == "none":
        return None, None
    target = aqm_target_s if aqm_target_s is not None else AQM_TARGET_S[aqm]
    interval = aqm_interval_s if aqm_interval_s is not None else AQM_INTERVAL_S[aqm]
    if aqm == "codel" and target >= interval:
        raise ParameterError(
            "aqm_target_s",
            f"< aqm_interval_s ({interval:g} s)",
            f"aqm_target_s must be below CoDel's interval aqm_interval_s ({interval:g} s), got "
            f"{target:g} s: CoDel drops once the queue has stayed above the target for one "
            "interval (RFC 8289 §4.4 puts the target at 5-10 % of it)",
        )
    return target, interval


@dataclass(frozen=True)
class LinkScenario:
    """A router or switch port and the traffic through it, in SI units.

    Parameters
    ----------
    capacity_bps : float
        Line rate of the port, bit/s.
    rtts_s : tuple of float
        Round-trip times of the flows, seconds: one value, or a sample of the flows' RTTs
        (their harmonic mean is the effective RTT, 004 eqs. 11-12).
    flows : int
        Total number of flows N through the port.
    packet_bytes : float
        Packet (maximum segment) size, bytes; 1500 by default (Ethernet MTU).
    bottlenecked_flows : int, optional
        N_b, the long-lived flows limited only by congestion at this port (004 §II.a).
    bottlenecked_share : float, optional
        Fraction (dimensionless, in (0, 1]) of the capacity those N_b flows carry (C_e/C).
    access_bps : float, optional
        Rate of the senders' access links, bit/s (the slowdown S = C/access, 000 Thm 2).
    peak_rate_bps : float, optional
        Largest rate a single flow can reach, bit/s (003 §3.2); by default the smaller of the
        access rate and the window-limited rate W/RTT when those are known.
    max_window_packets : float, optional
        Largest congestion window a flow may use, packets (>= 1).
    paced : bool
        Whether senders pace packets over the RTT (000 §3.4).
    congestion_control : one of :data:`models.choices.CONGESTION_CONTROLS`, optional
        Congestion control of the senders; sets the multiplicative decrease ``md_beta`` and
        the rules that apply (DCTCP's marking threshold, BBR's probing queue). None (the
        default) means not given: an unknown, never silently CUBIC; the engine sizes for each
        of :data:`UNKNOWN_CC_CANDIDATES` and recommends the larger size (see
        :func:`models.recommend.recommend`).
    load : float, optional
        Offered load ρ (dimensionless, fraction of capacity) in the flow-level sense of 003.
    medium : one of :data:`models.choices.MEDIA`
        Buffer technology; an all-optical buffer holds only a few dozen packets (000 §3.1).
    aqm : one of :data:`models.choices.AQMS`
        Active queue management on the port: CoDel (RFC 8289), PIE (RFC 8033) or the L4S
        DualQ Coupled AQM (RFC 9332). The AQM sets the standing queue; the buffer is the hard
        limit above it.
    aqm_target_s : float, optional
        The AQM's target queueing delay, seconds: CoDel's TARGET, PIE's QDELAY_REF, DualQ's
        Classic target. Only with an AQM; by default the RFC's (:data:`AQM_TARGET_S`).
    aqm_interval_s : float, optional
        The AQM's control interval, seconds: CoDel's INTERVAL (above the target for this long
        before it drops; longer than the target), PIE's T_UPDATE and DualQ's Tupdate (how often
        the drop probability is updated). Only with an AQM; by default the RFC's
        (:data:`AQM_INTERVAL_S`).
    incast_senders : int, optional
        Senders that answer one request at the same moment (datacenter partition/aggregate
        fan-in): their initial windows arrive as one burst.
    initial_window_packets : float
        Initial window of the senders, packets; 10 by default (RFC 6928).
    input_queued : bool
        Whether the switch is combined input-output queued with virtual output queues (CIOQ,
        000 §5.1) rather than output queued.
    speedup : float, optional
        Speedup of the switch fabric over the line rate (CIOQ); 2 assumed when not given.
    ports : int, optional
        Ports of the switch (CIOQ: one VOQ per output at each input).
    """

    capacity_bps: float
    rtts_s: tuple[float, ...]
    flows: int
    packet_bytes: float = 1500.0
    bottlenecked_flows: int | None = None
    bottlenecked_share: float | None = None
    access_bps: float | None = None
    peak_rate_bps: float | None = None
    max_window_packets: float | None = None
    paced: bool = False
    congestion_control: CongestionControl | None = None
    load: float | None = None
    medium: Medium = "electronic"
    aqm: Aqm = "none"
    aqm_target_s: float | None = None
    aqm_interval_s: float | None = None
    incast_senders: int | None = None
    initial_window_packets: float = INITIAL_WINDOW_PACKETS
    input_queued: bool = False
    speedup: float | None = None
    ports: int | None = None

    def __post_init__(self) -> None:
        checks.positive("capacity_bps", self.capacity_bps)
        if len(self.rtts_s) == 0:
            raise ParameterError(
                "rtts_s", "non-empty", "rtts_s must hold at least one round-trip time"
            )
        checks.positive("rtts_s", list(self.rtts_s))
        checks.integer_at_least("flows", self.flows, 1)
        checks.positive("packet_bytes", self.packet_bytes)
        if self.bottlenecked_flows is not None:
            checks.integer_at_least("bottlenecked_flows", self.bottlenecked_flows, 1)
            if self.bottlenecked_flows > self.flows:
                raise ParameterError(
                    "bottlenecked_flows",
                    f"<= flows ({self.flows})",
                    f"bottlenecked_flows must be <= flows ({self.flows}), "
                    f"got {self.bottlenecked_flows}",
                )
        if self.bottlenecked_share is not None:
            checks.in_range(
                "bottlenecked_share", self.bottlenecked_share, 0.0, 1.0, low_inclusive=False
            )
        if self.access_bps is not None:
            checks.positive("access_bps", self.access_bps)
        if self.peak_rate_bps is not None:
            checks.positive("peak_rate_bps", self.peak_rate_bps)
        if self.max_window_packets is not None:
            checks.at_least("max_window_packets", self.max_window_packets, 1.0)
        if self.load is not None:
            checks.positive("load", self.load)
        if self.congestion_control is not None:
            _check_congestion_control(self.congestion_control)
        if self.medium not in MEDIA:
            raise ParameterError.got("medium", " or ".join(f"{m!r}" for m in MEDIA), self.medium)
        if self.aqm not in AQMS:
            raise ParameterError.got("aqm", f"one of {', '.join(AQMS)}", self.aqm)
        aqm_times(self.aqm, self.aqm_target_s, self.aqm_interval_s)
        if self.incast_senders is not None:
            checks.integer_at_least("incast_senders", self.incast_senders, 1)
        checks.at_least("initial_window_packets", self.initial_window_packets, 1.0)
        if self.speedup is not None:
            checks.at_least("speedup", self.speedup, 1.0)
        if self.ports is not None:
            checks.integer_at_least("ports", self.ports, 2)

    @property
    def aqm_target(self) -> float | None:
        """The AQM's target delay, seconds: the one given, else the RFC's; None without AQM."""
        return aqm_times(self.aqm, self.aqm_target_s, self.aqm_interval_s)[0]

    @property
    def aqm_interval(self) -> float | None:
        """The AQM's control interval, seconds: the one given, else the RFC's; None without
        AQM."""
        return aqm_times(self.aqm, self.aqm_target_s, self.aqm_interval_s)[1]

    @property
    def md_beta(self) -> float:
        """Multiplicative-decrease factor β of the congestion control (dimensionless).

        Raises ``ValueError`` when the congestion control is not given: β is then unknown
        (the engine sizes for each of :data:`UNKNOWN_CC_CANDIDATES` instead).
        """
        if self.congestion_control is None:
            raise ValueError("congestion_control is not given: β is unknown")
        return MD_BETA[self.congestion_control]

    def with_congestion_control(self, cc: CongestionControl) -> LinkScenario:
        """This scenario with the senders' congestion control set to ``cc``."""
        # Only ``cc`` is new: checked alone, the other fields as this scenario's were (the
        # engine asks this for each candidate of every scenario without one).
        _check_congestion_control(cc)
        other = copy(self)
        object.__setattr__(other, "congestion_control", cc)
        return other


def _check_congestion_control(cc: str) -> None:
    """``ParameterError`` unless ``cc`` is one of the congestion controls sized for."""
    if cc not in MD_BETA:
        raise ParameterError(
            "congestion_control",
            f"one of {sorted(MD_BETA)}",
            f"congestion_control must be one of {sorted(MD_BETA)}, got {cc!r}",
        )


@dataclass(frozen=True)
class Targets:
    """What the operator wants from the port; a target left ``None`` takes its default.

    Parameters
    ----------
    min_utilization : float, optional
        Throughput as a fraction (dimensionless) of the most the traffic can carry through this
        port: of the capacity when the flows can saturate it, of the window-limited peak ρ·C
        otherwise (θ of 000 Thm 1). Default 0.9 (:data:`DEFAULT_MIN_UTILIZATION`).
    max_loss : float, optional
        Largest acceptable packet loss probability. Default 1% (:data:`DEFAULT_MAX_LOSS`).
    max_queueing_delay_s : float, optional
        Largest queueing delay B/C the port may add, seconds (004 eq. 24). Default: one
        effective RTT, so that targets the user did not give never push the buffer past the
        bandwidth-delay product.
    priority : one of :data:`models.choices.PRIORITIES`
        Which side to favour when a delay bound the user gave conflicts with utilization and
        loss targets the user gave. ``"throughput"`` follows 004 §V ("we assume that the
        utilization and loss rate requirements are more important than the maximum delay
        requirement").
    """

    min_utilization: float | None = None
    max_loss: float | None = None
    max_queueing_delay_s: float | None = None
    priority: Priority = "throughput"

    def __post_init__(self) -> None:
        if self.min_utilization is not None:
            if self.min_utilization == 1.0:
                raise ParameterError(
                    "min_utilization",
                    "< 1",
                    "min_utilization must be below 1 (100 %): the engine sizes for a share of "
                    "what the traffic can carry, and its utilization models reach 1 only in a "
                    "limit (the sqrt(N) erf bound, 000 §2.2.2; θ of 000 Thm 1); for a port that "
                    "never idles behind one flow, the rule of thumb C·T (000 §2.1) is listed in "
                    "every answer. Enter the share you need, e.g. 0.99 or 99.9%",
                )
            checks.probability("min_utilization", self.min_utilization)
        if self.max_loss is not None:
            checks.probability("max_loss", self.max_loss)
        if self.max_queueing_delay_s is not None:
            checks.positive("max_queueing_delay_s", self.max_queueing_delay_s)
        if self.priority not in PRIORITIES:
            bound = " or ".join(f"{p!r}" for p in PRIORITIES)
            raise ParameterError.got("priority", bound, self.priority)
