"""The manager's dashboard: live ranking, charts, verification matrix; what-if weights."""

import dataclasses
import functools
import json
from collections.abc import Iterable
from decimal import Decimal
from html import escape

from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from scoring.reference import gpu_family_of
from scoring.robustness import Robustness

from .. import charts, selectors
from ..charts.base import candidate_colour
from ..charts.costs import billing_names
from ..forms import WhatIfWeightsForm
from ..models import ChecklistItem, Dimension, Offering, PocPlan, VerificationStatus
from ..permissions import CAN_DECIDE, CAN_EDIT, CAN_UPLOAD
from ..services.catalogue import evaluation_catalogue_changes
from ..services.poc import stored_coverage
from ..templatetags.portal_tags import num, pct
from . import display, guidance
from .common import member_evaluation

DIMENSIONS = tuple(d.value for d in Dimension)
ROBUSTNESS_DRAWS = 1000
ROBUSTNESS_PERTURBATION_PCT = 20.0
# Charts show the best-ranked candidates only: fifty lines or radar shapes cannot be read (the
# table above them lists everyone).
CHART_CANDIDATES = 10
RADAR_CANDIDATES = 6
# The verification matrix shows this many candidates (ranking order) unless ?matrix=all: at
# 200 candidates its 2,000 cells were a quarter of the page and 200 columns no one reads.
MATRIX_CANDIDATES = 50
# The cells rendered in Python (see results_context): the markup the template had per cell,
# filled with values escaped as the template's autoescaping does.
MATRIX_CELL = '<td><a class="cell status-{status}" href="{url}">{label}</a></td>'
SCORE_CELL = '<td class="num">{score}</td>'
FLIP_CELL = '<td class="num">{change} {unit}</td>'
FLIP_NONE_CELL = '<td class="num"><span title="{title}">{text}</span></td>'
# A row of the flips table (label escaped as it is put in; cells from FLIP_CELL and
# FLIP_NONE_CELL), with the whitespace the template's loop wrote.
FLIP_ROW = "\n    <tr><td>{label}</td>\n      {cells}\n    </tr>\n  "
# A ranking row (without its knockout reasons), as the template had it: 200 rows of template
# nodes were most of the results' render. Every value is escaped as it is put in.
RANKING_ROW = (
    '<tr class="{row_class}"><td>{rank}</td><td><a href="{url}">{name}</a></td>'
    '<td>{delivery_form}<br><small class="claim-{form_status}">{form_claim}</small></td>'
    '<td class="num total">{total}</td>{score_cells}'
    '<td class="num">{cost}{recommended}</td><td class="num">{first_share}</td>'
    '<td class="num nowrap">{answered}/{checklist_size}<br><small>{evidence}</small></td></tr>'
)
RECOMMENDED = (
    '<br><small class="recommended" title="{reason}">{label} — {reason}{commitment}</small>'
)
# django.utils.html.json_script's escapes, as (character, JSON escape) pairs.
JSON_SCRIPT_ESCAPES = (("&", "\\u0026"), ("<", "\\u003C"), (">", "\\u003E"))


@dataclasses.dataclass(frozen=True)
class WhatIf:
    """What-if weights read from the address: ``weights`` to rank with (None: the saved
    weights), and ``ignored``, why typed weights were set aside (empty when none were typed or
    they were used)."""

    weights: dict[str, Decimal] | None = None
    ignored: tuple[str, ...] = ()


def weights_from_query(request: HttpRequest) -> WhatIf:
    """What-if weights from ?w_<dimension>=…, checked by forms.WhatIfWeightsForm (the bounds
    the weights page saves): absent, the saved weights; refused, the saved weights and why."""
    if not any(request.GET.get(f"w_{d}") for d in DIMENSIONS):
        return WhatIf()
    form = WhatIfWeightsForm({f"w_{d}": request.GET.get(f"w_{d}", "") for d in DIMENSIONS})
    if not form.is_valid():
        return WhatIf(ignored=tuple(form.problems()))
    return WhatIf(weights=form.weights())


def what_if_ignored_html(ignored) -> SafeString:
    """The notice that typed what-if weights were set aside, with the reasons ("" when none)."""
    if not ignored:
        return SafeString()
    return render_to_string("portal/_what_if_ignored.html", {"reasons": ignored})


def _curves(candidates, results) -> dict[str, list[dict]]:
    """Bus bandwidth against message size: the best all_reduce sweep kept by verification."""
    curves = {}
    for r in results:
        # The read model keeps each candidate's curve aside (selectors.candidate_rows).
        curve = selectors.busbw_curve(candidates[r.candidate_id])
        if curve:
            curves[r.label] = curve
    return curves


# Below this many points between the first two qualified candidates the ranking says they are
# near-tied: the table shows totals to a tenth, and claims alone move a score by more (their
# credit, 0.7, is a planning figure).
NEAR_TIE_POINTS = 1.0


def _lead_margin(ranking, robustness: Robustness) -> dict | None:
    """How far the leader is ahead of the runner-up, and the smallest change of one weight
    that swaps them (from the flip thresholds of the weights shown): what a manager must say
    before choosing between two near-tied candidates. None with fewer than two qualified."""
    qualified = list(ranking.qualified)
    if len(qualified) < 2:
        return None
    leader, runner = qualified[0], qualified[1]
    # From the totals to two places, as the exports give them: the gap reads as their difference.
    gap = round(leader.total, 2) - round(runner.total, 2)
    swaps = [
        f
        for f in robustness.flips
        if f.other_id == runner.candidate_id
        and f.leader_id == leader.candidate_id
        and f.change_pp is not None
    ]
    swap = min(swaps, key=lambda f: abs(f.change_pp), default=None)
    return {
        "leader": leader.label,
        "runner": runner.label,
        "gap": num(gap, 2),
        "near_tie": gap < NEAR_TIE_POINTS,
        "dimension": None if swap is None else Dimension(swap.dimension).label,
        "change": None if swap is None else f"{swap.change_pp:+.1f}",
    }


def _charted_robustness(robustness: Robustness, labels: dict[int, str]):
    """The part of ``robustness`` the chart draws, and the labels of its candidates (ranking
    order): the first CHART_CANDIDATES, as on every chart of the page, and any other that
    ranked first in some draw; flips against those. At 200 candidates the whole analysis made
    a 350 kB figure (a heatmap row with six hover sentences per candidate) that no one could
    read; the page's flips table still lists every candidate."""
    stability = robustness.stability
    kept = set(list(labels)[:CHART_CANDIDATES])
    kept.update(i for i, share in stability.first_share.items() if share > 0)
    charted = dataclasses.replace(
        robustness,
        flips=tuple(f for f in robustness.flips if f.other_id in kept),
        stability=dataclasses.replace(
            stability,
            first_share={i: s for i, s in stability.first_share.items() if i in kept},
        ),
    )
    return charted, {i: label for i, label in labels.items() if i in kept}


def _json_script(value, element_id: str) -> SafeString:
    """Exactly what ``{{ value|json_script:element_id }}`` writes, escaped with str.replace:
    json_script's str.translate takes ~10 ms over the ~150 kB of figures of a page with 50
    candidates."""
    text = json.dumps(value, cls=DjangoJSONEncoder)
    for char, code in JSON_SCRIPT_ESCAPES:
        text = text.replace(char, code)
    # Safe: the JSON has no <, > or & left, as in json_script.
    safe_json = mark_safe(text)  # noqa: S308
    return format_html('<script id="{}" type="application/json">{}</script>', element_id, safe_json)


def _cells(html: Iterable[str]) -> SafeString:
    """Table cells whose values were escaped with ``escape`` as they were put in."""
    return mark_safe("".join(html))  # noqa: S308 - every value in them was escaped


def _row_texts() -> dict[str, str]:
    """The ranking rows' translated words, escaped once per page."""
    # Each msgid outside the f-strings: makemessages does not read calls inside them.
    disqualified = escape(_("disqualified"))
    no_evidence = escape(_("No evidence has verified or contradicted a claim yet."))
    return {
        "disqualified": f'<span class="badge bad">{disqualified}</span>',
        # The colon is the language's own (a full-width one in Chinese): part of the message.
        "recommended": escape(_("recommended: %(model)s")),
        "commitment": escape(_("Minimum commitment")),
        "verified": escape(_("verified by the evidence")),
        "contradicted": escape(
            _("contradicted by the evidence or a review: not counted as answered")
        ),
        "no_evidence": f'<span class="muted" title="{no_evidence}">—</span>',
        # The delivery form is the vendor's claim: said as the candidate page says it.
        "form_verified": escape(_("claimed; the evidence confirms it")),
        "form_contradicted": escape(_("claimed; the evidence contradicts it")),
        "form_claimed": escape(_("claimed; the evidence is not conclusive")),
        "form_no_evidence": escape(_("claimed; no evidence on it yet")),
    }


def _row_html(row: dict, checklist_size: int, texts: dict[str, str]) -> SafeString:
    """The ranking row of ``row`` (see RANKING_ROW)."""
    disqualified = row["disqualified"]
    recommended = ""
    if row.get("recommended"):
        commitment = row.get("commitment")
        recommended = RECOMMENDED.format(
            reason=escape(row["recommended_reason"]),
            label=texts["recommended"] % {"model": escape(row["recommended"])},
            commitment=f" · {texts['commitment']} {escape(commitment)}" if commitment else "",
        )
    if row["verified"] or row["contradicted"]:
        evidence = f'<span class="ok" title="{texts["verified"]}">✓ {row["verified"]}</span>'
        if row["contradicted"]:
            evidence += (
                f' <span class="bad" title="{texts["contradicted"]}">✗ {row["contradicted"]}</span>'
            )
    else:
        evidence = texts["no_evidence"]
    return _cells(
        [
            RANKING_ROW.format(
                row_class="disqualified" if disqualified else "",
                rank="—" if disqualified else row["rank"],
                url=escape(row["url"]),
                name=escape(row["name"]),
                delivery_form=escape(row["delivery_form"]),
                form_status=row["form_status"],
                form_claim=texts[f"form_{row['form_status']}"],
                total=texts["disqualified"] if disqualified else escape(row["total"]),
                score_cells=row["score_cells"],
                cost=escape(row["cost"]),
                recommended=recommended,
                first_share=escape(pct(row["first_share"])),
                answered=row["answered"],
                checklist_size=checklist_size,
                evidence=evidence,
            )
        ]
    )


def _ranking_body(rows: list[dict]) -> SafeString:
    """The ranking table's body: each row's HTML (``_row_html``) and, under a disqualified
    row, its knockout reasons (portal/_knockout_row.html, rendered for those rows alone)."""
    parts = []
    for row in rows:
        parts.append(f"\n    {row['html']}\n    ")
        if row["disqualified"]:
            parts.append(
                render_to_string(
                    "portal/_knockout_row.html",
                    {"row": row, "colspan": len(DIMENSIONS) + 6},
                )
            )
        parts.append("\n  ")
    return _cells(parts)


def _recommended(tco, rubric_version: str, lang_zh: bool, names: dict[str, str]) -> dict:
    """Rubric v2: the recommended billing model (apart from the cheapest), its reason and the
    recommended model's minimum-commitment cost, for the ranking table's cost cell.
    ``names``: charts.costs.billing_names()."""
    if tco is None or rubric_version == "1":
        return {}
    commitment = dict(tco.model(tco.recommended).components).get("commitment")
    return {
        "recommended": names.get(tco.recommended, tco.recommended),
        "recommended_reason": tco.recommended_reason[1 if lang_zh else 0],
        "commitment": f"{num(commitment, 0)} {tco.currency}" if commitment else "",
    }


# An id no candidate has, reversed once and replaced by each candidate's (see _candidate_urls).
_STAND_IN_ID = 987_654_320_123


def _candidate_urls(evaluation_id: int, candidate_ids: list[int]) -> dict[int, str]:
    """Each candidate's page URL: one reverse() with a stand-in id, filled in per candidate
    (200 reverse() calls were a few ms of a cold dashboard)."""
    parts = reverse("candidate-detail", args=[evaluation_id, _STAND_IN_ID]).split(str(_STAND_IN_ID))
    if len(parts) != 2:  # the stand-in also in the evaluation's part: reverse each one
        return {pk: reverse("candidate-detail", args=[evaluation_id, pk]) for pk in candidate_ids}
    before, after = parts
    return {pk: f"{before}{pk}{after}" for pk in candidate_ids}


def checklist_items() -> list[ChecklistItem]:
    """The checklist as the verification matrix shows it (numbers, keys, titles)."""
    return list(
        ChecklistItem.objects.only("number", "key", "title_en", "title_zh").order_by("number")
    )


def results_context(
    evaluation,
    *,
    weights=None,
    matrix_all: bool = False,
    fingerprint: str | None = None,
    items: list[ChecklistItem] | None = None,
) -> dict:
    """Everything the ranking, charts and matrix need, from a fixed number of queries.

    The cells of the matrix (items x candidates), of the flips table and the scores of the
    ranking are rendered here, and the ranking's other values formatted: template loops and
    lookups per cell (or format_html) cost more than the rest of the page at 50 candidates.
    ``fingerprint`` (selectors.results_fingerprint) and ``items`` (checklist_items) when the
    caller has read them already.
    """
    # One fingerprint of the inputs keys both cached results (it costs a query).
    if fingerprint is None:
        fingerprint = selectors.results_fingerprint(evaluation)
    ranking, candidates = selectors.evaluation_ranking(
        evaluation=evaluation, weights=weights, fingerprint=fingerprint
    )
    results = list(ranking.results)
    lang = get_language()
    # Computed once per request: the ranking table, the flips table and the chart share it.
    # Cached by the fingerprint of the inputs; a what-if keystroke reuses the saved weights'
    # stability draws (see selectors.evaluation_robustness).
    robustness = selectors.evaluation_robustness(
        evaluation=evaluation,
        ranking=ranking,
        draws=ROBUSTNESS_DRAWS,
        perturbation_pct=ROBUSTNESS_PERTURBATION_PCT,
        seed=evaluation.pk,
        what_if=weights is not None,
        fingerprint=fingerprint,
    )
    labels = {r.candidate_id: r.label for r in results}
    # Unpriced candidates go in with no cost, so that the chart names them instead of hiding.
    points = [
        (
            r.label,
            None
            if r.tco is None or r.tco.cost_per_effective_gpu_hour is None
            else float(r.tco.cost_per_effective_gpu_hour),
            r.total,
            r.disqualified,
            r.candidate_id,
        )
        for r in results[:CHART_CANDIDATES]
    ]
    currency = next((r.tco.currency for r in results if r.tco is not None), None)
    if items is None:
        items = checklist_items()
    # Built here rather than with {% url %} per row and cell.
    base_urls = _candidate_urls(evaluation.pk, [r.candidate_id for r in results])
    # Each label translated and escaped once, not once per cell.
    statuses = {
        value: (escape(value), escape(str(label))) for value, label in VerificationStatus.choices
    }
    unanswered = (escape("unanswered"), escape(_("Missing")))
    in_matrix = results if matrix_all else results[:MATRIX_CANDIDATES]
    columns = [
        (escape(base_urls[r.candidate_id]), candidates[r.candidate_id].answer_statuses)
        for r in in_matrix
    ]
    matrix = []
    for item in items:
        key = escape(item.key)
        cells = []
        for url, given in columns:
            status, label = statuses.get(given.get(item.key), unanswered)
            cells.append(MATRIX_CELL.format(status=status, url=f"{url}#item-{key}", label=label))
        matrix.append({"item": item, "cells": _cells(cells)})
    first_share = robustness.stability.first_share
    # get_<field>_display rebuilds and hashes the translated choices on every call.
    delivery_forms = {
        value: str(label) for value, label in Offering._meta.get_field("delivery_form").flatchoices
    }
    rubric = selectors.scoring_rubric(evaluation)
    rows = []
    lang_zh = (lang or "").startswith("zh")
    model_names = billing_names()  # translated once per page
    # One cell per distinct score (scores repeat across 1,200 cells at 200 candidates).
    score_cell = functools.cache(lambda score: SCORE_CELL.format(score=escape(num(score, 0))))
    # Counted as the questionnaire page counts them (one query for every candidate).
    progress = selectors.questionnaire_progress_by_candidate(
        evaluation=evaluation, total=len(items)
    )
    no_progress = selectors.QuestionnaireProgress(answered=0, contradicted=0, total=len(items))

    for index, r in enumerate(results, start=1):
        candidate = candidates[r.candidate_id]
        delivery_form = candidate.offering.delivery_form
        cost = None if r.tco is None else r.tco.cost_per_effective_gpu_hour
        answers = progress.get(r.candidate_id, no_progress)
        rows.append(
            {
                "rank": index,
                "result": r,
                "candidate": candidate,
                "url": base_urls[r.candidate_id],
                "name": str(candidate.offering),
                "disqualified": r.disqualified,
                "delivery_form": delivery_forms.get(delivery_form, delivery_form),
                "form_status": display.delivery_form_claim(
                    rubric, delivery_form, candidate.measured_summary or {}
                )["status"],
                "total": num(r.total, 1),
                "score_cells": _cells(score_cell(r.score(d)) for d in DIMENSIONS),
                "cost": "—" if cost is None else f"{num(cost, 2)} {r.tco.currency}",
                **_recommended(r.tco, evaluation.rubric_version, lang_zh, model_names),
                "first_share": first_share.get(r.candidate_id),
                # Items answered, not counting those contradicted, which are shown apart (✗).
                "answered": answers.answered,
                # How much of the questionnaire the evidence has spoken on, either way.
                "verified": list(candidate.answer_statuses.values()).count(
                    VerificationStatus.VERIFIED
                ),
                "contradicted": answers.contradicted,
            }
        )
    texts = _row_texts()
    for row in rows:
        row["html"] = _row_html(row, len(items), texts)
    rows_html = _ranking_body(rows)
    by_other: dict[int, dict[str, float | None]] = {}
    for flip in robustness.flips:
        by_other.setdefault(flip.other_id, {})[flip.dimension] = flip.change_pp
    # The template's msgid: "%" doubled, as makemessages writes it for {% translate %}.
    no_flip = FLIP_NONE_CELL.format(
        title=escape(_("none within 0–100 %%") % {}), text=escape(_("none"))
    )
    pp_unit = escape(pgettext("percentage points, after a number", "pp"))
    flip_cell = functools.cache(
        lambda change: (
            no_flip
            if change is None
            else FLIP_CELL.format(change=escape(num(change, 1)), unit=pp_unit)
        )
    )

    flips_table = [
        {
            "label": labels[other],
            "cells": _cells(flip_cell(changes.get(d)) for d in DIMENSIONS),
        }
        for other, changes in by_other.items()
    ]
    flips_html = _cells(
        FLIP_ROW.format(label=escape(flip["label"]), cells=flip["cells"]) for flip in flips_table
    )
    figures = {
        "radar": charts.radar(results[:RADAR_CANDIDATES], lang=lang),
        "contributions": charts.contributions_bars(
            results[:CHART_CANDIDATES], ranking.weights, lang=lang
        ),
        "tco": charts.tco_bars(
            results[:CHART_CANDIDATES],
            lang=lang,
            budget=float(evaluation.budget_total) if evaluation.budget_total else None,
            duration_days=evaluation.duration_days,
        ),
        "busbw": charts.busbw_curves(
            _curves(candidates, results[:CHART_CANDIDATES]),
            lang=lang,
            colours={r.label: candidate_colour(r.candidate_id) for r in results[:CHART_CANDIDATES]},
        ),
        "value": charts.value_for_money(points, currency=currency, lang=lang),
        "robustness": charts.robustness_bars(*_charted_robustness(robustness, labels), lang=lang),
    }
    return {
        "ranking": ranking,
        "rows": rows,
        "rows_html": rows_html,
        # Scored on evidence that has since passed the maximum age (until the beat task
        # verifies them again): the fingerprint holds the same list.
        "evidence_expired": [
            labels[pk]
            for pk in selectors.evidence_expired_candidates(evaluation=evaluation)
            if pk in labels
        ],
        "gpu_families": _gpu_families(results, candidates),
        "dimensions": [Dimension(d) for d in DIMENSIONS],
        "weights": ranking.weights,
        "robustness": robustness,
        "lead_margin": _lead_margin(ranking, robustness),
        "labels": labels,
        "flips_table": flips_table,
        "flips_html": flips_html,
        "matrix": matrix,
        "checklist_size": len(items),
        "matrix_candidates": [candidates[r.candidate_id] for r in in_matrix],
        "matrix_hidden": len(results) - len(in_matrix),
        "candidate_count": len(results),
        "figures": figures,
        "figure_scripts": {
            name: _json_script(figure, f"fig-{name}") for name, figure in figures.items()
        },
        "what_if": weights is not None,
    }


def _gpu_families(results, candidates) -> list[str]:
    """The GPU families of the ranked candidates, in ranking order, when there are several
    (else empty): the page then says that each cost score compares a quote with its own GPU's
    reference price, not the compute each GPU gives (an H20 quote is judged against an H20's
    price, an H100 quote against an H100's). A candidate the evaluation's accepted GPU models
    rule out is left out: the buyer has already said its family does not suit."""
    families: list[str] = []
    for result in results:
        if any(knockout.code == "gpu_model" for knockout in result.knockouts):
            continue
        model = candidates[result.candidate_id].offering.gpu_model
        family = gpu_family_of(model) or model
        if family not in families:
            families.append(family)
    return families if len(families) > 1 else []


def poc_plan(evaluation) -> PocPlan | None:
    return PocPlan.objects.filter(evaluation=evaluation).first()


def poc_panel(evaluation, plan: PocPlan | None) -> dict | None:
    """Each candidate's POC coverage in one line (None without a plan: ``poc_plan``)."""
    if plan is None:
        return None
    rows = []
    for candidate in evaluation.candidates.select_related("offering", "offering__vendor"):
        coverage = stored_coverage(candidate, plan)
        if coverage is not None:
            rows.append({"candidate": candidate, **coverage})
    return {"plan": plan, "rows": rows}


# --- cached fragments -----------------------------------------------------------------------
#
# The results (ranking, charts, flips, matrix) and the catalogue-change notice are rendered
# once per state of what they show and kept in the cache as HTML, so that a repeat view costs
# the fingerprint query rather than the read model's unpickling, the charts and ~25,000
# template nodes. Each key holds the fingerprint of every input shown (the evaluation's own
# fields, with its weights and status, each candidate's facts, answers and scoring time, its
# pinned version and the live catalogue), the checklist as shown, the language, the viewer's
# role and the request's options. The fragments are rendered without the request: nothing of
# the viewer's session (CSRF token, CSP nonce, user) can be cached inside them.

# Part of every fragment key: change it when a fragment's markup changes, so that a new
# release never serves fragments rendered by the previous one.
FRAGMENT_VERSION = "3"  # 3: chart texts escaped for Plotly (2: prices with their currency)


def results_html(
    evaluation,
    *,
    role: str,
    weights=None,
    matrix_all: bool = False,
    fingerprint=None,
    items: list[ChecklistItem] | None = None,
) -> SafeString:
    """portal/_evaluation_results.html for ``evaluation``, from the cache when its inputs,
    the checklist, the language and the viewer's role are those it was rendered for.

    What-if weights (typed, each keystroke a new set) are rendered each time rather than
    cached: a fragment is hundreds of kB at 200 candidates, and a typed set is rarely asked
    for twice (their ranking is still read from the read model)."""
    if fingerprint is None:
        fingerprint = selectors.results_fingerprint(evaluation)
    if items is None:
        items = checklist_items()
    if weights is not None:
        return _render_results(evaluation, weights, matrix_all, fingerprint, items)
    key = results_fragment_key(
        evaluation, role=role, matrix_all=matrix_all, fingerprint=fingerprint, items=items
    )
    html = selectors.cache_get(key)
    if html is None:
        html = _render_results(evaluation, weights, matrix_all, fingerprint, items)
        selectors.cache_set(key, str(html))
    # Safe: rendered by the template with autoescaping, as {% include %} would.
    return mark_safe(html)  # noqa: S308


def results_fragment_key(
    evaluation, *, role: str, matrix_all: bool, fingerprint: str, items: list[ChecklistItem]
) -> str:
    """The cache key of the results fragment (saved weights) in the active language."""
    return selectors.results_key(
        evaluation,
        "results-html",
        FRAGMENT_VERSION,
        get_language(),
        role,
        selectors.weights_key(None),
        matrix_all,
        [(i.number, i.key, i.title_en, i.title_zh) for i in items],
        fingerprint=fingerprint,
    )


def render_results(evaluation, *, fingerprint: str, items: list[ChecklistItem]) -> str:
    """The results fragment (saved weights, the matrix's first candidates) in the active
    language, rendered as ``results_html`` renders it for any role."""
    return str(_render_results(evaluation, None, False, fingerprint, items))


def _render_results(evaluation, weights, matrix_all, fingerprint, items) -> SafeString:
    context = results_context(
        evaluation, weights=weights, matrix_all=matrix_all, fingerprint=fingerprint, items=items
    )
    return render_to_string("portal/_evaluation_results.html", context)


def catalogue_fragment_key(evaluation, *, role: str, fingerprint: str) -> str:
    """The cache key of the catalogue-change notice in the active language."""
    return selectors.results_key(
        evaluation, "catalogue-html", FRAGMENT_VERSION, get_language(), role,
        fingerprint=fingerprint,
    )  # fmt: skip


def catalogue_html(evaluation, *, role: str, fingerprint: str) -> SafeString:
    """The catalogue-change notice ("" when no candidate's offering changed), cached under
    ``fingerprint`` (the second of selectors.results_fingerprints): a new upload or a review
    leaves it alone, a catalogue edit, an adoption or a kept version renews it."""
    key = catalogue_fragment_key(evaluation, role=role, fingerprint=fingerprint)
    html = selectors.cache_get(key)
    if html is None:
        changed = evaluation_catalogue_changes(evaluation)
        html = (
            render_to_string(
                "portal/_catalogue_changed.html",
                {"evaluation": evaluation, "catalogue_changed": changed},
            )
            if changed
            else ""
        )
        selectors.cache_set(key, html)
    return mark_safe(html)  # noqa: S308 - rendered with autoescaping


def _results_options(request: HttpRequest) -> tuple[dict, tuple[str, ...]]:
    """The results' options from the query, and why typed what-if weights were ignored."""
    what_if = weights_from_query(request)
    options = {"weights": what_if.weights, "matrix_all": request.GET.get("matrix") == "all"}
    return options, what_if.ignored


@login_required
@require_safe
def evaluation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    results_fp, catalogue_fp = selectors.results_fingerprints(evaluation)
    options, ignored = _results_options(request)
    role = membership.role
    # Read once for the next steps, the POC panel and the results.
    items = checklist_items()
    plan = poc_plan(evaluation)
    steps = guidance.next_steps(
        evaluation, membership, checklist_size=len(items), has_plan=plan is not None
    )
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "can_edit": role in CAN_EDIT,
        "can_upload": role in CAN_UPLOAD,
        "can_decide": role in CAN_DECIDE,
        "steps": steps,
        "catalogue_html": catalogue_html(evaluation, role=role, fingerprint=catalogue_fp),
        "poc_panel": poc_panel(evaluation, plan),
        "what_if": options["weights"] is not None,
        "what_if_ignored_html": what_if_ignored_html(ignored),
        "results_html": results_html(
            evaluation, role=role, fingerprint=results_fp, items=items, **options
        ),
    }
    return render(request, "portal/evaluation_detail.html", context)


@login_required
@require_safe
def evaluation_results(request: HttpRequest, pk: int) -> HttpResponse:
    """The ranking and charts alone (htmx), for what-if weights without a full reload; typed
    weights that were ignored are named above them."""
    evaluation, membership = member_evaluation(request, pk)
    options, ignored = _results_options(request)
    html = results_html(evaluation, role=membership.role, **options)
    return HttpResponse(what_if_ignored_html(ignored) + html)
