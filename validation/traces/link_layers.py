"""Link-layer headers of a capture: where each packet's IP header starts.

The link types are those of the tcpdump.org registry (https://www.tcpdump.org/linktypes.html,
also IETF draft-ietf-opsawg-pcaplinktype). The headers walked here:

- Ethernet (1): the type field (IEEE 802.3), then any stack of VLAN tags (IEEE 802.1Q 0x8100,
  802.1ad 0x88A8, and the older 0x9100/0x9200 QinQ types), an MPLS label stack (RFC 3032
  §2.1: 4 bytes a label, the bottom one marked; the IP version is the first nibble after it)
  and a PPPoE session header (RFC 2516 §4: 6 bytes, then the PPP protocol number, RFC 1661 §2);
- Linux cooked captures SLL (113: 16 bytes, protocol type last) and SLL2 (276: 20 bytes,
  protocol type first), what ``tcpdump -i any`` writes (SLL2 on current Linux);
- raw IP (101, and 12 / 14 as some systems number it; 228 IPv4, 229 IPv6);
- BSD loopback (0 NULL: a 4-byte address family in the writer's byte order; 108 LOOP: in
  network order): the IP version is taken from the header after it;
- PPP (9: with or without the HDLC address and control bytes, RFC 1662 §3.1; 50 PPP in HDLC
  framing, also Cisco HDLC), PPP over Ethernet (51) and Cisco HDLC (104).

Anything else inside these headers (ARP, LLC, an IPX frame, a PPP control packet) is not IP
and is left out, as the readers leave out non-IP packets.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The link types read, with their tcpdump.org names.
LINK_NAMES: dict[int, str] = {
    0: "NULL (BSD loopback)",
    1: "EN10MB (Ethernet)",
    9: "PPP",
    12: "RAW (raw IP)",
    14: "RAW (raw IP)",
    50: "PPP_HDLC",
    51: "PPP_ETHER (PPPoE)",
    101: "RAW (raw IP)",
    104: "C_HDLC (Cisco HDLC)",
    108: "LOOP (OpenBSD loopback)",
    113: "LINUX_SLL (Linux cooked v1)",
    228: "IPV4 (raw IPv4)",
    229: "IPV6 (raw IPv6)",
    276: "LINUX_SLL2 (Linux cooked v2)",
}
#: Some link types met in captures that carry no IP this reader can use, named in its message.
OTHER_NAMES: dict[int, str] = {
    6: "IEEE802_5 (Token Ring)",
    10: "FDDI",
    105: "IEEE802_11 (Wi-Fi)",
    107: "FRELAY (Frame Relay)",
    119: "PRISM_HEADER (Wi-Fi)",
    127: "IEEE802_11_RADIO (Wi-Fi with radiotap)",
    195: "IEEE802_15_4",
    239: "NFLOG",
}

_PPPOE_SESSION = 0x8864
#: Headers walked inside one packet at most (tags, labels): a malformed packet stops there.
_MAX_LAYERS = 16


def link_name(link: int) -> str:
    """``link`` with its tcpdump.org name where known."""
    name = LINK_NAMES.get(link) or OTHER_NAMES.get(link)
    return f"{link} ({name})" if name else str(link)


def supported_list() -> str:
    """The link types read, for a message."""
    return ", ".join(f"{k} {v}" for k, v in sorted(LINK_NAMES.items()))


@njit(cache=True)
def _u16(buf, at):
    return (np.int64(buf[at]) << 8) | buf[at + 1]


@njit(cache=True)
def _version_at(buf, pos, end):
    """(pos, 4 or 6) when an IP header starts at ``pos``; (pos, 0) otherwise."""
    if pos >= end:
        return pos, 0
    version = buf[pos] >> 4
    if version == 4 or version == 6:
        return pos, np.int64(version)
    return pos, 0


@njit(cache=True)
def _ppp(buf, pos, end):
    """The IP header after a PPP protocol field at ``pos`` (RFC 1661 §2: 0x0021 IPv4, 0x0057
    IPv6; one byte when compressed, RFC 1661 §6.5)."""
    if pos >= end:
        return pos, 0
    if buf[pos] & 1:  # protocol field compression: one byte
        proto = np.int64(buf[pos])
        pos += 1
    else:
        if pos + 2 > end:
            return pos, 0
        proto = _u16(buf, pos)
        pos += 2
    if proto == 0x21:
        return pos, 4
    if proto == 0x57:
        return pos, 6
    return pos, 0


@njit(cache=True)
def ethertype_ip(buf, pos, end, ether):
    """The IP header of a payload of type ``ether`` at ``pos``: through VLAN tags, MPLS labels
    and a PPPoE session header; (pos, 0) when it is not IP."""
    for _ in range(_MAX_LAYERS):
        if ether == 0x0800:
            return pos, 4
        if ether == 0x86DD:
            return pos, 6
        if ether == 0x8100 or ether == 0x88A8 or ether == 0x9100 or ether == 0x9200:
            if pos + 4 > end:
                return pos, 0
            ether = _u16(buf, pos + 2)
            pos += 4
            continue
        if ether == 0x8847 or ether == 0x8848:
            for _ in range(_MAX_LAYERS):
                if pos + 4 > end:
                    return pos, 0
                bottom = buf[pos + 2] & 1
                pos += 4
                if bottom:
                    return _version_at(buf, pos, end)
            return pos, 0
        if ether == _PPPOE_SESSION:
            if pos + 6 > end:
                return pos, 0
            return _ppp(buf, pos + 6, end)
        return pos, 0
    return pos, 0


@njit(cache=True)
def ip_header(buf, d, end, link):
    """Where the IP header of the packet at ``buf[d:end]`` starts and its version (4 or 6);
    version 0 when the packet is not IP (or its link header is cut short)."""
    if link == 1:  # Ethernet
        if d + 14 > end:
            return d, 0
        return ethertype_ip(buf, d + 14, end, _u16(buf, d + 12))
    if link == 101 or link == 12 or link == 14 or link == 228 or link == 229:
        return _version_at(buf, d, end)
    if link == 0 or link == 108:
        return _version_at(buf, d + 4, end)
    if link == 113:
        if d + 16 > end:
            return d, 0
        return ethertype_ip(buf, d + 16, end, _u16(buf, d + 14))
    if link == 276:
        if d + 20 > end:
            return d, 0
        return ethertype_ip(buf, d + 20, end, _u16(buf, d))
    if link == 104:
        if d + 4 > end:
            return d, 0
        return ethertype_ip(buf, d + 4, end, _u16(buf, d + 2))
    if link == 51:
        return _ppp(buf, d + 6, end)
    if link == 9 or link == 50:
        if d + 2 > end:
            return d, 0
        if buf[d] == 0xFF and buf[d + 1] == 0x03:  # HDLC-like framing, RFC 1662 §3.1
            return _ppp(buf, d + 2, end)
        if (buf[d] == 0x0F or buf[d] == 0x8F) and d + 4 <= end:  # Cisco HDLC
            return ethertype_ip(buf, d + 4, end, _u16(buf, d + 2))
        return _ppp(buf, d, end)
    return d, 0
