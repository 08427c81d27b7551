"""Claim verification: measured evidence checked against a candidate's claims.

``verify_candidate(claims, evidence)`` returns a VerificationReport: a status per checklist
item ("verified", "contradicted" or "unverifiable", never verified without evidence), the
all-reduce busbw fraction against the expected value, a bare-metal verdict with its signals
and confidence, and the faults the evidence shows. ``facts.measured_facts(report, evidence)``
turns the report into scoring's ``MeasuredFacts``.
"""

from . import facts
from .bare_metal import collect_signals, combine_signals, verify_bare_metal
from .facts import (
    best_busbw_curve,
    evidence_from_report,
    measured_facts,
    measured_from_summary,
    verification_summary,
)
from .model import (
    ITEM_KEYS,
    POINTS_TO_BARE_METAL,
    POINTS_TO_VIRTUAL,
    SEVERITY_ERROR,
    SEVERITY_WARNING,
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    STATUSES,
    VERDICT_BARE_METAL,
    VERDICT_UNCERTAIN,
    VERDICT_VIRTUALISED,
    BareMetalVerdict,
    Claims,
    Fault,
    ItemVerification,
    NodeEvidence,
    Signal,
    VerificationInputError,
    VerificationReport,
)
from .report import verify_candidate, with_measured_dates

__all__ = [
    "ITEM_KEYS",
    "POINTS_TO_BARE_METAL",
    "POINTS_TO_VIRTUAL",
    "SEVERITY_ERROR",
    "SEVERITY_WARNING",
    "STATUSES",
    "STATUS_CONTRADICTED",
    "STATUS_UNVERIFIABLE",
    "STATUS_VERIFIED",
    "VERDICT_BARE_METAL",
    "VERDICT_UNCERTAIN",
    "VERDICT_VIRTUALISED",
    "BareMetalVerdict",
    "Claims",
    "Fault",
    "ItemVerification",
    "NodeEvidence",
    "Signal",
    "VerificationInputError",
    "VerificationReport",
    "best_busbw_curve",
    "collect_signals",
    "combine_signals",
    "evidence_from_report",
    "facts",
    "measured_facts",
    "measured_from_summary",
    "verification_summary",
    "verify_bare_metal",
    "verify_candidate",
    "with_measured_dates",
]
