"""Spreadsheet-safe cells for the CSV and XLSX exports.

A cell a spreadsheet program would read as a formula (text starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return) is neutralised with a leading apostrophe, the OWASP advice
for CSV injection; in XLSX every text cell is also typed as a string, so no formula is ever
taken from user text. Numbers stay numbers, dates dates.
"""

import io
from datetime import date, datetime
from decimal import Decimal
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_TRIGGERS) else value


def safe_cell(value: Any) -> Any:
    """A value to write into a CSV or XLSX cell: numbers as numbers, anything else as
    neutralised text (None as an empty cell)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, int | float | datetime | date):
        return value
    return safe_text(str(value))


def xlsx_row(sheet, values) -> None:
    """Append a row whose text cells are typed strings (never formulas) and numbers numbers."""
    from openpyxl.cell.cell import Cell

    cells = []
    for value in values:
        value = safe_cell(value)
        cell = Cell(sheet, value=None)
        if isinstance(value, str):
            cell._value = value
            cell.data_type = "s"
        else:
            cell.value = value
        cells.append(cell)
    sheet.append(cells)


# --- The evaluation as a document: the sections the report and the multi-sheet XLSX share ---

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _zh() -> bool:
    from django.utils.translation import get_language

    return get_language() == "zh-hans"


def _weights_percent(evaluation) -> dict[str, float]:
    weights = {d: float(w) for d, w in evaluation.weights.items()}
    total = sum(weights.values()) or 1.0
    return {d: 100.0 * w / total for d, w in weights.items()}


def tco_assumptions(candidate, rubric) -> dict[str, str]:
    """What each billing model's TCO assumed rather than read from a statement or the evidence,
    in the reader's language, by billing model: spot's preemption risk (the delivery form's
    default unless a higher one is stated or a lower one verified) and its checkpoint/restart
    overhead; whether hourly capacity is released on idle days. ``candidate`` is the scoring
    core's CandidateInput (selectors.scoring_input), ``rubric`` the one the ranking used."""
    from django.utils.translation import gettext as _
    from django.utils.translation import pgettext

    from scoring.tco import releasable_hourly, spot_risk_pct

    def pct(value) -> str:
        return f"{value.normalize():f} %"

    offering = candidate.offering
    risk = spot_risk_pct(candidate, rubric)
    stated = offering.spot_preemption_risk_pct
    if stated is not None and risk == stated:
        spot = _("preemption risk %(risk)s (stated by the vendor)") % {"risk": pct(risk)}
    elif rubric.v2 is None:
        spot = _("no preemption risk (assumed: none stated; rubric v1 assumes none)")
    else:
        spot = _("preemption risk %(risk)s (assumed: the delivery form's default)") % {
            "risk": pct(risk)
        }
    if rubric.v2 is not None:
        spot += pgettext("between list items", "; ") + _(
            "checkpoint/restart overhead %(pct)s (assumed by the rubric)"
        ) % {"pct": pct(rubric.v2.spot_checkpoint_overhead_pct)}
    released = releasable_hourly(candidate, rubric)
    if released == offering.releasable_hourly:
        hourly = _("released on idle days (stated)") if released else _("idle days paid (stated)")
    elif released:
        hourly = _("released on idle days (assumed: the delivery form's usual case)")
    elif offering.releasable_hourly is None:
        hourly = _("idle days paid (assumed: the delivery form's usual case)")
    else:
        hourly = _(
            "idle days paid (assumed: a release by the hour is stated but counts once the cost "
            "statement is verified)"
        )
    return {"spot": spot, "hourly": hourly}


def reference_price_note(tco, gpu_model: str, rubric) -> str:
    """What the cost score compares: the cost per effective GPU-hour against the rubric's
    reference GPU-hour price for the GPU, labelled as the assumption it is ("" without a cost
    per effective GPU-hour)."""
    from django.utils.translation import gettext as _

    if tco is None or tco.cost_per_effective_gpu_hour is None:
        return ""
    from .views.display import tco_assumption_lines

    reference = rubric.reference_gpu_hour_price(gpu_model, tco.currency)
    note = _(
        "Cost score: %(cost)s %(currency)s per effective GPU-hour against a reference price of "
        "%(reference)s %(currency)s per GPU-hour for this GPU (assumed: the rubric's planning "
        "figure, not a market quote)."
    ) % {
        "cost": rounded_number(tco.cost_per_effective_gpu_hour, 2),
        "reference": rounded_number(reference, 2),
        "currency": tco.currency,
    }
    # What else the figure assumed (a GPU without its own reference price, surplus GPUs, the
    # SLA's floor, the collectives), each its own sentence: scoring words them as clauses.
    return " ".join((note, *map(_sentence, tco_assumption_lines(tco))))


def _sentence(clause: str) -> str:
    """A clause as a sentence: a capital first letter, a closing full stop (。 in Chinese)."""
    clause = clause.strip()
    if not clause:
        return clause
    if clause[0].isascii():
        clause = clause[0].upper() + clause[1:]
        return clause if clause.endswith((".", "!", "?")) else clause + "."
    return clause if clause.endswith(("。", "！", "？")) else clause + "。"


def rounded_number(value, digits: int, force_grouping: bool = True) -> str:
    """``value`` to ``digits`` places, grouped for the reader's language. Django's
    number_format cuts the digits beyond ``digits`` off instead of rounding (20.9690 read
    20.96 beside the 20.97 the dashboard shows): a float is rounded from its exact binary
    value, half to even, as Python's own formatting rounds it, and a Decimal half to even,
    as the TCO rounds cents."""
    from decimal import ROUND_HALF_EVEN, Decimal

    from django.utils.formats import number_format as django_number_format

    if value is None:
        return ""
    exact = value if isinstance(value, Decimal) else Decimal(value)
    if exact.is_finite():
        exact = exact.quantize(Decimal(1).scaleb(-digits), ROUND_HALF_EVEN)
    return django_number_format(exact, digits, force_grouping=force_grouping)


def report_sections(evaluation) -> dict[str, Any]:
    """Everything the printed report and the XLSX say beyond the dashboard, in the reader's
    language: TCO per billing model with components, break-even and budget; the checklist per
    candidate with its verification status and review; the evidence with hashes; the weights;
    the decision. Each section is (header, rows) with typed values."""
    from django.utils.translation import gettext as _

    from . import selectors
    from .charts.costs import component_names as chart_component_names
    from .models import (
        Answer,
        AnswerReview,
        BillingModel,
        Candidate,
        ChecklistItem,
        Dimension,
        EvidenceUpload,
        PocPlan,
        VerificationStatus,
    )
    from .people import person_shown
    from .views.display import answer_note, evidence_ref, poc_rows, tco_basis

    zh = _zh()
    # Chinese cells use full-width punctuation, as the pages do.
    sep, colon = ("；", "：") if zh else ("; ", ": ")
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    results = list(ranking.results)
    names = {r.candidate_id: r.label for r in results}
    dimension_labels = dict(Dimension.choices)
    billing_labels = dict(BillingModel.choices)
    weights = _weights_percent(evaluation)
    budget = float(evaluation.budget_total) if evaluation.budget_total else None

    ranking_rows = []
    dimension_rows = []
    for position, r in enumerate(results, start=1):
        ranking_rows.append(
            [
                "" if r.disqualified else position,
                r.label,
                round(r.total, 2),
                _("yes") if r.disqualified else _("no"),
                sep.join(k.reason_zh if zh else k.reason_en for k in r.knockouts),
            ]
        )
        for d in r.dimensions:
            rules = sep.join(
                f"{c.label_zh if zh else c.label_en}{colon}{c.points:g}/{c.max_points:g}"
                for c in d.contributions
            )
            # Each figure a rule read from the evidence names its upload, node and file.
            evidence = sep.join(
                f"{c.label_zh if zh else c.label_en}{colon}{evidence_ref(c.evidence_ref)}"
                for c in d.contributions
                if c.evidence_ref
            )
            weight = weights.get(d.dimension, 0.0)
            dimension_rows.append(
                [
                    r.label,
                    str(dimension_labels.get(d.dimension, d.dimension)),
                    round(d.score, 2),
                    round(weight, 1),
                    round(d.score * weight / 100.0, 2),
                    rules,
                    evidence,
                ]
            )

    component_names = []
    for r in results:
        for m in r.tco.models if r.tco else ():
            for name, _amount in m.components:
                if name not in component_names:
                    component_names.append(name)
    component_labels = chart_component_names()
    rubric = selectors.scoring_rubric(evaluation)
    tco_rows = []
    tco_reference = {}
    for r in results:
        if r.tco is None:
            continue
        scored = selectors.scoring_input(candidates[r.candidate_id])
        assumed = tco_assumptions(scored, rubric)
        tco_reference[r.label] = reference_price_note(r.tco, scored.offering.gpu_model, rubric)
        for m in r.tco.models:
            amounts = dict(m.components)
            basis = tco_basis(r.tco)
            tco_rows.append(
                [
                    r.label,
                    str(billing_labels.get(m.billing_model, m.billing_model)),
                    float(m.price_per_gpu),
                    float(m.billed_units),
                    *[float(amounts.get(n, 0)) for n in component_names],
                    float(m.total),
                    float(m.monthly),
                    m.currency,
                    _("yes") if m.billing_model == r.tco.recommended else "",
                    "" if budget is None else (_("yes") if float(m.total) <= budget else _("no")),
                    float(basis["availability"]),
                    basis["availability_label"],
                    float(basis["efficiency"]),
                    basis["efficiency_label"],
                    assumed.get(m.billing_model, ""),
                    "" if r.tco.break_even_used_days is None else float(r.tco.break_even_used_days),
                ]
            )
    tco_header = [
        _("Candidate"),
        _("Billing model"),
        _("Price per GPU"),
        _("Billed units per GPU"),
        *[str(component_labels.get(n, n)) for n in component_names],
        _("Total"),
        _("Per month"),
        _("Currency"),
        _("Recommended"),
        _("Within budget"),
        _("Availability"),
        _("Availability basis"),
        _("Efficiency"),
        _("Efficiency basis"),
        _("Assumed in this cost"),
        _("Break-even (used days)"),
    ]

    items = list(ChecklistItem.objects.order_by("number"))
    answers = {
        (a.candidate_id, a.item_id): a
        for a in Answer.objects.filter(candidate__in=candidates.keys()).only(
            "candidate_id",
            "item_id",
            "claim",
            "value",
            "status",
            "verification_note",
            "poc_shortfalls",
        )
    }
    reviews = {
        rv.answer_id: rv
        for rv in AnswerReview.objects.filter(
            answer__candidate__in=candidates.keys()
        ).select_related("reviewed_by")
    }
    status_labels = dict(VerificationStatus.choices)
    # The stored verification per candidate: an answer's note copied from it reads in Chinese;
    # its POC coverage gives the failed or missing runs.
    verifications = dict(
        Candidate.objects.filter(pk__in=candidates.keys()).values_list("pk", "verification")
    )
    verdicts = {pk: (v or {}).get("items") or {} for pk, v in verifications.items()}
    checklist_rows = []
    for r in results:
        for item in items:
            a = answers.get((r.candidate_id, item.pk))
            rv = reviews.get(a.pk) if a else None
            claim = (a.claim or ("" if a.value is None else str(a.value))) if a else ""
            status = a.status if a else VerificationStatus.UNANSWERED
            checklist_rows.append(
                [
                    r.label,
                    item.number,
                    item.title_zh if zh else item.title_en,
                    claim,
                    str(status_labels.get(status, status)),
                    answer_note(a, verdicts.get(r.candidate_id, {}).get(item.key)) if a else "",
                    person_shown(rv.reviewed_by) if rv else "",
                ]
            )

    evidence_rows = [
        [
            names.get(u.candidate_id, str(u.candidate_id)),
            # The number evidence references cite ("upload 12 · node · file").
            u.pk,
            u.original_name,
            u.node_name,
            u.get_status_display(),
            u.get_origin_display(),
            u.sha256,
            u.size_bytes,
            u.measured_at.replace(tzinfo=None) if u.measured_at else "",
            u.created_at.replace(tzinfo=None),
        ]
        for u in EvidenceUpload.objects.filter(candidate__in=candidates.keys())
        .only(
            "candidate_id",
            "original_name",
            "node_name",
            "status",
            "origin",
            "sha256",
            "size_bytes",
            "measured_at",
            "created_at",
        )
        .order_by("candidate_id", "created_at")
    ]

    plan = PocPlan.objects.filter(evaluation=evaluation).only("deadline").first()
    poc_table = poc_rows(
        [(r.label, (verifications.get(r.candidate_id) or {}).get("poc")) for r in results], plan
    )

    # Every round, the decisions set aside included with who reopened them, when and why: a
    # reader of the workbook sees that an earlier decision existed and the reason it was left.
    decision_rows = []
    for record in evaluation.decisions.select_related(
        "candidate__offering__vendor", "decided_by", "reopening__reopened_by"
    ).order_by("round"):
        reopening = getattr(record, "reopening", None)
        decision_rows.append(
            [
                record.round,
                record.chosen_label,
                person_shown(record.decided_by),
                record.decided_at.replace(tzinfo=None),
                record.rationale,
                person_shown(reopening.reopened_by) if reopening else "",
                reopening.reopened_at.replace(tzinfo=None) if reopening else None,
                reopening.reason if reopening else "",
            ]
        )
    return {
        "ranking": (
            [_("Rank"), _("Candidate"), _("Total"), _("Disqualified"), _("Knockouts")],
            ranking_rows,
        ),
        "dimensions": (
            [
                _("Candidate"),
                _("Dimension"),
                _("Score"),
                _("Weight (%)"),
                _("Contribution to the total"),
                _("Rules (points/maximum)"),
                _("Evidence"),
            ],
            dimension_rows,
        ),
        "tco": (tco_header, tco_rows),
        "tco_reference": tco_reference,
        "checklist": (
            [
                _("Candidate"),
                _("Item"),
                _("Question"),
                _("Claim"),
                _("Verification status"),
                _("Verification note"),
                _("Reviewed by"),
            ],
            checklist_rows,
        ),
        "evidence": (
            [
                _("Candidate"),
                _("Upload"),
                _("File"),
                _("Node"),
                _("Status"),
                _("Origin"),
                "SHA-256",
                _("Size (bytes)"),
                _("Measured at (UTC)"),
                _("Uploaded at (UTC)"),
            ],
            evidence_rows,
        ),
        "poc": poc_table,
        "weights": (
            [_("Dimension"), _("Weight (%)")],
            [[str(dimension_labels[d]), round(w, 1)] for d, w in weights.items()],
        ),
        "decision": (
            [
                _("Round"),
                _("Chosen candidate"),
                _("Decided by"),
                _("Decided at (UTC)"),
                _("Rationale"),
                _("Reopened by"),
                _("Reopened at (UTC)"),
                _("Reason for reopening"),
            ],
            decision_rows,
        ),
        "budget": budget,
        "currency": evaluation.budget_currency,
    }


def _sheet_titles() -> dict[str, str]:
    from django.utils.translation import gettext as _

    return {
        "ranking": _("Ranking"),
        "dimensions": _("Dimensions"),
        "tco": _("TCO by billing model"),
        "checklist": _("Checklist"),
        "evidence": _("Evidence"),
        "poc": _("POC shortfalls"),
        "weights": _("Weights"),
        "decision": _("Decision"),
    }


def evaluation_workbook(evaluation, *, ranking: tuple[list, list] | None = None) -> bytes:
    """The evaluation as a multi-sheet XLSX: typed cells (numbers, dates; text never taken as a
    formula), a bold frozen header, number formats and column widths, translated labels."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    sections = report_sections(evaluation)
    if ranking is not None:
        # The comparison (one row per candidate with vendor, offering, scores, cost, evidence
        # counts) is the fuller ranking sheet.
        sections["ranking"] = ranking
    workbook = Workbook()
    workbook.remove(workbook.active)
    for key, title in _sheet_titles().items():
        header, rows = sections[key]
        # Sheet titles: at most 31 characters, none of []:*?/\
        sheet = workbook.create_sheet(title=title[:31])
        xlsx_row(sheet, [str(h) for h in header])
        for row in rows:
            xlsx_row(sheet, row)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        sheet.freeze_panes = "A2"
        for column in sheet.iter_cols(min_row=2):
            for cell in column:
                if isinstance(cell.value, float):
                    cell.number_format = "#,##0.00"
                elif isinstance(cell.value, int) and not isinstance(cell.value, bool):
                    cell.number_format = "0"
                elif hasattr(cell.value, "year"):
                    cell.number_format = "yyyy-mm-dd hh:mm"
        for index, column in enumerate(sheet.iter_cols(), start=1):
            width = max((len(str(c.value)) for c in column if c.value is not None), default=8)
            sheet.column_dimensions[get_column_letter(index)].width = min(max(width + 2, 8), 60)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def export_filename(evaluation, what: str, ext: str) -> str:
    """A file name that says what the file is: portal, evaluation id and slug, content, date."""
    from django.utils import timezone
    from django.utils.text import slugify

    slug = slugify(evaluation.name)[:40] or "evaluation"
    return f"gpu-evaluation-{evaluation.pk}-{slug}-{what}-{timezone.now():%Y-%m-%d}.{ext}"


def report_document(evaluation) -> dict[str, Any]:
    """The report's sections grouped for the page (TCO and checklist per candidate)."""
    from itertools import groupby

    from django.utils.translation import gettext as _

    sections = report_sections(evaluation)
    tco_header, tco_rows = sections["tco"]
    checklist_header, checklist_rows = sections["checklist"]
    evidence_header, evidence_rows = sections["evidence"]
    tco_groups = []
    availability_column = tco_header.index(_("Availability"))

    def shown(value, column=0):
        if isinstance(value, float):
            # Availability reads to four places (0.9950 vs 0.9900), money and the rest to two.
            digits = 4 if column == availability_column else 2
            return rounded_number(value, digits)
        return value

    for name, rows in groupby(tco_rows, key=lambda r: r[0]):
        rows = list(rows)
        shown_rows = [[shown(v, i) for i, v in enumerate(r[:-1]) if i] for r in rows]
        tco_groups.append(
            {
                "name": name,
                "reference": sections["tco_reference"].get(name, ""),
                # Transposed for the page: one column per billing model, one line per figure
                # (twenty figures side by side do not fit a printed page's width).
                "models": [row[0] for row in shown_rows],
                "lines": [
                    (label, [row[i] for row in shown_rows])
                    for i, label in enumerate(tco_header[2:-1], start=1)
                ],
                "break_even": rows[0][-1] or None,
            }
        )
    return {
        "budget": sections["budget"],
        "currency": sections["currency"],
        "tco_header": tco_header[1:-1],
        "tco_groups": tco_groups,
        "checklist_header": checklist_header[1:],
        "checklist_groups": [
            {"name": name, "rows": [r[1:] for r in rows]}
            for name, rows in groupby(checklist_rows, key=lambda r: r[0])
        ],
        "evidence_header": evidence_header,
        "evidence_rows": evidence_rows,
        # The POC's failed or missing runs, without the stable codes (the XLSX keeps them).
        "poc_header": sections["poc"][0][:8],
        "poc_rows": [row[:8] for row in sections["poc"][1]],
        "weight_rows": sections["weights"][1],
    }
