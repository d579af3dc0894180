"""Names the dead-code check (vulture, ``make lint``) cannot see used: libraries read them.

Each line is reviewed: the name is read by a framework or a library, not by our code.
"""

from app.cli.lazy import LazyGroup
from app.jobs.tables import Base
from app.web.fields import FormField
from app.web.form import Submission
from app.web.view import ResultView
from models import device
from models.recommend import rules
from models.recommend.result import DerivedInputs, WhatIf
from validation.simulator.layout import CongestionControl
from validation.traces.estimate import FlowEstimate, TraceEstimates
from validation.traces.synthetic import SimulatedTrace
from validation.verify import SizeCheck

LazyGroup.format_commands  # click calls it to write the command list of --help
Base.type_annotation_map  # SQLAlchemy's declarative base reads it
DerivedInputs.bottlenecked_flows_used  # serialized by to_dict (dataclasses.asdict)
WhatIf.assumption  # serialized by to_dict (dataclasses.asdict)
FormField.help  # app/templates/index.html shows it under each input
FormField.under  # app/templates/index.html indents the input under the choice it refines
ResultView.sentence_packets  # the fields below are read by app/templates/index.html
ResultView.sentence_bytes
ResultView.sentence_ms
ResultView.governing_rule
ResultView.regime_reason
ResultView.regime_warning
Submission.device_needs  # app/templates/index.html says what the device configuration needs
FlowEstimate.flow_class  # the fields below are serialized by to_dict (dataclasses.asdict)
FlowEstimate.rtt_source
FlowEstimate.explained_reductions
FlowEstimate.unexplained_reductions
FlowEstimate.lbp_probability
TraceEstimates.link_rate_bps
TraceEstimates.rtt_sources
SimulatedTrace.lbp_flows  # the recorded truth of a synthetic trace, for whoever inspects it
SizeCheck.loss_rate_ci99  # serialized by to_dict (dataclasses.asdict)
SizeCheck.prediction_fates  # serialized by to_dict (dataclasses.asdict); the form reads it
CongestionControl.RENO  # read by name: layout.CC_CODES maps each congestion control's name
_.off  # noqa: F821  # dpkt's TCP header reads its data offset (validation/traces/synthetic.py)
pytestmark  # noqa: F821  # pytest reads a module's marks (tests/notebooks)
_.typingctx  # noqa: F821  # numba passes it to every @intrinsic (validation/simulator/core.py)

# Constants written down with their source but not read by any code yet, on the day the check
# was added; the next change of their module uses them or removes them (and this line).
device.IOSXR_PACKET_UNIT_BYTES
rules.BBR_CWND_GAIN
