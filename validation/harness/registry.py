"""Which function turns each dataset's rows into checks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from validation.datasets import Row
from validation.harness import auge_roberts, bscl, chapter3, slides, testbed
from validation.harness.plan import Check, Suite

Builder = Callable[[Sequence[Row], Suite], list[Check]]

BUILDERS: dict[str, Builder] = {
    "auge_roberts": auge_roberts.auge_roberts,
    "bscl_loss": bscl.loss,
    "bscl_table_1": bscl.table_1,
    "level3": testbed.level3,
    "oc3_slides": slides.oc3,
    "sprint_testbed": testbed.sprint,
    "thesis_ch3": chapter3.chapter3,
    "thesis_table_4_1": testbed.table_4_1,
    "thesis_table_4_2": testbed.table_4_2,
}
