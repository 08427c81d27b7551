"""Warming the results read model: what a member's dashboard and the API read of an evaluation,
computed and stored (portal.selectors.cache_set: the cache and PostgreSQL) before anyone asks.

Run by the warming task (portal.tasks.results_warm_task) a short delay after a change of the
evaluation's results (portal.services.results.results_changed). It computes through the very
functions the dashboard and the API read with, so what it stores is what they would compute:
the ranking and its robustness, the API's ranking payload and, in every language and for
every role among the evaluation's members, the results fragment and the catalogue-change
notice. What is stored already (a member looked first) is read rather than computed again.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.utils import translation

from . import selectors
from .api.ranking import evaluation_ranking_data
from .models import Evaluation, Role
from .views import dashboard


def fragment_roles(evaluation: Evaluation) -> list[str]:
    """The roles the fragments are keyed by that the evaluation's members hold."""
    held = set(evaluation.memberships.values_list("role", flat=True))
    return [role for role in Role.values if role in held]


def evaluation_warm(evaluation_id: int) -> dict[str, float] | None:
    """Compute and store the evaluation's results as its members' views read them; returns
    the milliseconds of each part (None when the evaluation no longer exists)."""
    timings: dict[str, float] = {}
    started = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal started
        now = time.perf_counter()
        timings[name] = (now - started) * 1000
        started = now

    evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
    if evaluation is None:
        return None
    results_fp, catalogue_fp = selectors.results_fingerprints(evaluation)
    items = dashboard.checklist_items()
    roles = fragment_roles(evaluation)
    lap("inputs")
    ranking, _candidates = selectors.evaluation_ranking(
        evaluation=evaluation, fingerprint=results_fp, candidates=False
    )
    lap("ranking")
    selectors.evaluation_robustness(
        evaluation=evaluation,
        ranking=ranking,
        draws=dashboard.ROBUSTNESS_DRAWS,
        perturbation_pct=dashboard.ROBUSTNESS_PERTURBATION_PCT,
        seed=evaluation.pk,
        fingerprint=results_fp,
    )
    lap("robustness")
    evaluation_ranking_data(evaluation, fingerprint=results_fp)
    lap("api payload")
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            html = None
            for role in roles:
                # The fragment shows nothing role-bound: rendered once per language, stored
                # under each role's key.
                key = dashboard.results_fragment_key(
                    evaluation, role=role, matrix_all=False, fingerprint=results_fp, items=items
                )
                if selectors.cache_get(key) is None:
                    if html is None:
                        html = dashboard.render_results(
                            evaluation, fingerprint=results_fp, items=items
                        )
                    selectors.cache_set(key, html)
                dashboard.catalogue_html(evaluation, role=role, fingerprint=catalogue_fp)
    lap("fragments")
    return timings
