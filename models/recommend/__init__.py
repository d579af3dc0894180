"""The recommendation engine: every buffer-sizing rule for a port, checked, and one answer.

``recommend(LinkScenario(...), Targets(...))`` returns a :class:`Recommendation` (frozen
dataclasses; ``to_dict()`` for JSON). See docs/architecture.md, "The recommendation engine".
"""

from models.recommend.engine import recommend, traffic_model
from models.recommend.predictions import predict
from models.recommend.result import (
    Assumption,
    Curves,
    DerivedInputs,
    Prediction,
    Recommendation,
    RecommendedSize,
    RegimeInfo,
    RuleResult,
    Target,
    TargetCheck,
    TradeOff,
    WhatIf,
)
from models.recommend.scenario import MD_BETA, LinkScenario, Targets

__all__ = [
    "MD_BETA",
    "Assumption",
    "Curves",
    "DerivedInputs",
    "LinkScenario",
    "Prediction",
    "Recommendation",
    "RecommendedSize",
    "RegimeInfo",
    "RuleResult",
    "Target",
    "TargetCheck",
    "Targets",
    "TradeOff",
    "WhatIf",
    "predict",
    "recommend",
    "traffic_model",
]
