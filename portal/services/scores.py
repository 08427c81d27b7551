"""Scores: verify claims against measurements and recompute a candidate's scores."""


def candidate_refresh(*, candidate_id: int) -> None:
    """Re-verify and re-score one candidate (filled in by the scoring adapter)."""
