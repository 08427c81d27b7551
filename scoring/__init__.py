"""Pure-Python core of the GPU procurement portal: evidence parsing, verification and scoring.

Nothing in this package imports Django, DRF, Celery or Plotly; the portal reaches it through
``portal.adapters``.
"""

# Shown on decision pages in every language: name it without status words (claimed,
# verified, contradicted...), which read there as untranslated codes.
# Bumped whenever scoring code (not only a rubric's JSON, whose digest is read too) changes
# a figure for the same inputs: the portal keys its stored results by it, so results computed
# by an earlier model are never served as current.
MODEL_REVISION = "2026-12-06i.ascend-nodes-are-accelerator-nodes"
