"""Pure-Python core of the GPU procurement portal: evidence parsing, verification and scoring.

Nothing in this package imports Django, DRF, Celery or Plotly; the portal reaches it through
``portal.adapters``.
"""
