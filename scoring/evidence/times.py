"""The range an evidence time (a manifest's, or the time a tool printed) must fall in.

A time outside it is refused with ``EvidenceTimeRefused`` (a ``BundleRejected``: the whole
upload is refused), naming the field and why. No clock here: the upload's receipt time is
passed in.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .archive import BundleRejected

# No GPU POC evidence predates it (CUDA itself is from 2007): an earlier time is a node whose
# clock was never set (1970, 0001-01-01…), and would make the evidence look ancient.
EARLIEST_EVIDENCE_TIME = datetime(2000, 1, 1, tzinfo=UTC)
# How far a node's clock may run ahead of the portal's: evidence timed later than the upload's
# receipt plus this was dated by a wrong clock (or on purpose, to never pass the evaluation's
# maximum evidence age). A day covers a node left on local time read as UTC (±14 h) with room.
CLOCK_SKEW_ALLOWANCE = timedelta(days=1)

MANIFEST_NAME = "manifest.json"


class EvidenceTimeRefused(BundleRejected):
    """An evidence time that cannot be converted to UTC, is before EARLIEST_EVIDENCE_TIME or
    after the upload's receipt plus CLOCK_SKEW_ALLOWANCE."""


def _shown(moment: datetime) -> str:
    return moment.isoformat()


def _skew_hours() -> int:
    return int(CLOCK_SKEW_ALLOWANCE.total_seconds() // 3600)


def manifest_time_check(moment: datetime, *, key: str, text: str) -> datetime:
    """``moment`` (``key`` of the manifest, written ``text``) in UTC; EvidenceTimeRefused when
    it has no UTC form (the calendar's edges, 0001-01-01 at +14:00) or is before
    EARLIEST_EVIDENCE_TIME."""
    try:
        utc = moment.astimezone(UTC)
    except (OverflowError, ValueError):
        raise EvidenceTimeRefused(
            f"{MANIFEST_NAME}: {key!r} ({text}) is out of range: it cannot be converted to UTC",
            code="manifest.time_out_of_range",
            params={"key": key, "text": text},
        ) from None
    if utc < EARLIEST_EVIDENCE_TIME:
        earliest = _shown(EARLIEST_EVIDENCE_TIME)
        raise EvidenceTimeRefused(
            f"{MANIFEST_NAME}: {key!r} ({text}) is before {earliest}: no GPU evidence is that "
            "old; check the node's clock",
            code="manifest.time_too_early",
            params={"key": key, "text": text, "earliest": earliest},
        )
    return utc


def manifest_times_check(
    started_at: datetime, finished_at: datetime, *, received_at: datetime
) -> None:
    """EvidenceTimeRefused when the manifest's start or finish is later than ``received_at``
    (when the portal received the upload, aware) plus CLOCK_SKEW_ALLOWANCE."""
    latest = received_at + CLOCK_SKEW_ALLOWANCE
    for key, moment in (("started_at", started_at), ("finished_at", finished_at)):
        if moment > latest:
            text, received = _shown(moment), _shown(received_at.astimezone(UTC))
            raise EvidenceTimeRefused(
                f"{MANIFEST_NAME}: {key!r} ({text}) is later than the upload was received "
                f"({received}) plus {_skew_hours()} hours; check the node's clock",
                code="manifest.time_in_future",
                params={"key": key, "text": text, "received": received, "hours": _skew_hours()},
            )


def tool_time_check(moment: datetime, *, file: str, received_at: datetime) -> datetime:
    """``moment`` (the time the tool that printed ``file`` says it ran, aware) in UTC;
    EvidenceTimeRefused when it has no UTC form, is before EARLIEST_EVIDENCE_TIME or later
    than ``received_at`` plus CLOCK_SKEW_ALLOWANCE."""
    try:
        utc = moment.astimezone(UTC)
    except (OverflowError, ValueError):
        raise EvidenceTimeRefused(
            f"{file!r}: the time the tool printed is out of range: it cannot be converted to UTC",
            code="time.tool_out_of_range",
            params={"file": file},
        ) from None
    text = _shown(utc)
    if utc < EARLIEST_EVIDENCE_TIME:
        earliest = _shown(EARLIEST_EVIDENCE_TIME)
        raise EvidenceTimeRefused(
            f"{file!r}: the time the tool printed ({text}) is before {earliest}: no GPU "
            "evidence is that old; check the node's clock",
            code="time.tool_too_early",
            params={"file": file, "text": text, "earliest": earliest},
        )
    if utc > received_at + CLOCK_SKEW_ALLOWANCE:
        received = _shown(received_at.astimezone(UTC))
        raise EvidenceTimeRefused(
            f"{file!r}: the time the tool printed ({text}) is later than the upload was "
            f"received ({received}) plus {_skew_hours()} hours; check the node's clock",
            code="time.tool_in_future",
            params={"file": file, "text": text, "received": received, "hours": _skew_hours()},
        )
    return utc
