"""ns-2's settings that the rows reproducing an ns-2 simulation take instead of today's defaults.

The simulator's defaults are today's hosts' (Linux; :class:`validation.simulator.FlowGroup`).
Where a paper's figures come from ns-2 (000 ch. 3, 001's OC3 "ns2" column, 002-003, 004 §VII:
"We evaluated the BSCL scheme using NS-2 simulations", with "NewReno, Delayed ACKs, the SACK
option", Appendix), the paper is the authority and its simulator's receiver is used.
"""

from __future__ import annotations

#: ns-2's delayed-ACK receiver holds an ACK at most 100 ms: ``Agent/TCPSink/DelAck set
#: interval_ 100ms`` (ns-2.35, tcl/lib/ns-default.tcl; the same for ``Sack1/DelAck`` and
#: FullTcp's ``interval_ 0.1``), where Linux holds it 40 ms (``TCP_DELACK_MIN``) and the
#: simulator's default does the same.
NS2_DELACK_INTERVAL_S = 0.1
