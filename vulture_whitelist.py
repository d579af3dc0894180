"""Names the dead-code check (vulture, ``make lint``) cannot see used: libraries read them.

Each line is reviewed: the name is read by a framework or a library, not by our code.
"""

from app.cli.lazy import LazyGroup
from app.jobs.tables import Base
from models import device
from models.recommend import rules
from models.recommend.result import DerivedInputs

LazyGroup.format_commands  # click calls it to write the command list of --help
Base.type_annotation_map  # SQLAlchemy's declarative base reads it
DerivedInputs.bottlenecked_flows_used  # serialized by to_dict (dataclasses.asdict)
_.typingctx  # noqa: F821  # numba passes it to every @intrinsic (validation/simulator/core.py)

# Constants written down with their source but not read by any code yet, on the day the check
# was added; the next change of their module uses them or removes them (and this line).
device.IOSXR_PACKET_UNIT_BYTES
rules.BBR_CWND_GAIN
