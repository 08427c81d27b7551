"""The scoring rubric as data: the versioned JSON in scoring/rubrics/, its model and loader."""

from .loader import (
    CURRENT_RUBRIC_VERSION,
    RUBRIC_VERSIONS,
    RULE_KINDS,
    STATUS_FACTOR_KEYS,
    load_rubric,
    load_rubric_text,
    parse_rubric,
    rubric_sha256,
    rubric_text,
)
from .model import (
    BooleanTable,
    ChoiceTable,
    FormProfile,
    LinearTable,
    Preset,
    Rubric,
    Rule,
    ScaleRules,
    StepTable,
    Table,
    V2Policy,
)

__all__ = [
    "CURRENT_RUBRIC_VERSION",
    "RUBRIC_VERSIONS",
    "RULE_KINDS",
    "STATUS_FACTOR_KEYS",
    "BooleanTable",
    "ChoiceTable",
    "FormProfile",
    "LinearTable",
    "Preset",
    "Rubric",
    "Rule",
    "ScaleRules",
    "StepTable",
    "Table",
    "V2Policy",
    "load_rubric",
    "load_rubric_text",
    "parse_rubric",
    "rubric_sha256",
    "rubric_text",
]
