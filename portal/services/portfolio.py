"""Workloads (the demand profile) and the portfolio proposal of a multi-workload evaluation.

Writes go through ``workload_create`` / ``workload_update`` / ``workload_delete``;
``portfolio_propose`` only reads: it maps the evaluation to a ``scoring.portfolio`` problem
(each workload scored as an evaluation of its own profile, GPUs, duration and weights) and
solves it. ``portfolio_decision_record`` records the proposed (or an edited) assignment as the
decision through ``services.evaluations.decision_record``; ``portfolio_export_rows`` gives its
rows to the exports.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from scoring import portfolio as pf
from scoring.api import score_candidate
from scoring.region import (
    EgressRates,
    Region,
    RegionError,
    RttMeasurement,
    egress_rate_cny_gib,
    latency_score,
    placement,
    with_latency,
)
from scoring.types import EvaluationSpec

from .. import adapters, portfolio_messages, selectors
from ..models import BillingModel, Candidate, Evaluation, Measurement, Workload
from ..models.evaluations import accepted_gpu_families
from .errors import ensure_current, ensure_not_decided
from .text import clean_text_fields
from .versions import values_version

# Default egress prices (CNY per GiB) while offerings do not state them per destination: public
# list prices of the large Chinese clouds for inter-region and internet egress are 0.3-0.8.
CROSS_VENDOR_CNY_GIB = Decimal("0.50")
EGRESS_RATES = EgressRates(
    cross_province_cny_gib=Decimal("0.30"), cross_border_cny_gib=Decimal("0.80")
)
WORKLOAD_FIELDS = (
    "name",
    "profile",
    "gpus",
    "peak_gpus",
    "peak_hours_per_day",
    "peak_days_per_week",
    "duration_days",
    "weights",
    "requirements",
    "min_score",
    "tolerates_preemption",
    "latency_target_ms",
    "latency_endpoints",
    "accepts_far_region",
    "data_exchange_gib_month",
)


def _not_decided(evaluation: Evaluation) -> None:
    """EvaluationDecided (a 409 in the API) when the evaluation is decided, read under a
    key-share lock of its row: a decision being recorded either committed first, and this
    sees it, or waits for this write to commit."""
    ensure_not_decided(evaluation, share_lock=True)


def _save(workload: Workload, by) -> Workload:
    clean_text_fields(workload)
    workload.full_clean()
    workload._history_user = by
    try:
        with transaction.atomic():
            workload.save()
    except IntegrityError:  # same name added concurrently
        raise ValidationError(
            {"name": _("This evaluation already has a workload with this name.")}
        ) from None
    return workload


@transaction.atomic
def workload_create(*, evaluation: Evaluation, by=None, **fields: Any) -> Workload:
    """Add a workload to the evaluation's demand profile (audited as ``by``'s change)."""
    _not_decided(evaluation)
    unknown = set(fields) - set(WORKLOAD_FIELDS)
    if unknown:
        raise ValidationError(
            _("Unknown workload fields: %(f)s") % {"f": ", ".join(sorted(unknown))}
        )
    return _save(Workload(evaluation=evaluation, **fields), by)


@transaction.atomic
def workload_update(*, workload: Workload, by=None, **fields: Any) -> Workload:
    workload = Workload.objects.select_for_update().select_related("evaluation").get(pk=workload.pk)
    _not_decided(workload.evaluation)
    unknown = set(fields) - set(WORKLOAD_FIELDS)
    if unknown:
        raise ValidationError(
            _("Unknown workload fields: %(f)s") % {"f": ", ".join(sorted(unknown))}
        )
    for name, value in fields.items():
        setattr(workload, name, value)
    return _save(workload, by)


@transaction.atomic
def workload_delete(*, workload: Workload, by=None) -> None:
    _not_decided(workload.evaluation)
    workload._history_user = by
    workload.delete()


def _region(country: str, province: str, zone: str = "") -> Region | None:
    if not country:
        return None
    try:
        return Region(country.upper(), province, zone)
    except RegionError:
        return None


def offering_region(offering) -> Region | None:
    return _region(offering.region_country, offering.region_province, offering.region_zone)


def _rtt_measurements(candidate_ids: list[int]) -> dict[int, list[RttMeasurement]]:
    """Parsed ``rtt`` evidence per candidate: one measurement per (upload, target)."""
    rows = Measurement.objects.filter(candidate_id__in=candidate_ids, kind="rtt").values(
        "candidate_id", "upload_id", "metric", "value", "node_name", "details"
    )
    grouped: dict[tuple[int, int, str], dict[str, float]] = {}
    for row in rows:
        details = row["details"] if isinstance(row["details"], dict) else {}
        target = str(details.get("target") or row["node_name"] or "")
        grouped.setdefault((row["candidate_id"], row["upload_id"], target), {})[row["metric"]] = (
            row["value"]
        )
    out: dict[int, list[RttMeasurement]] = {}
    for (candidate_id, _upload, target), metrics in sorted(grouped.items()):
        if "rtt_avg_ms" not in metrics:
            continue
        avg = metrics["rtt_avg_ms"]
        out.setdefault(candidate_id, []).append(
            RttMeasurement(
                target=target,
                rtt_avg_ms=avg,
                rtt_min_ms=metrics.get("rtt_min_ms", avg),
                rtt_max_ms=metrics.get("rtt_max_ms", avg),
                loss_pct=metrics.get("loss_pct", 0.0),
            )
        )
    return out


def _spec(evaluation: Evaluation, workload: Workload, gpus: int) -> EvaluationSpec:
    req = workload.requirements or {}
    return EvaluationSpec(
        workload_profile=workload.profile,
        required_total_gpus=gpus,
        required_gpu_memory_gib=req.get(
            "required_gpu_memory_gib", evaluation.required_gpu_memory_gib
        ),
        duration_days=workload.duration_days,
        expected_idle_days=0,
        budget_currency=evaluation.budget_currency,
        required_mlps_level=req.get("required_mlps_level", evaluation.required_mlps_level),
        require_xinchuang=req.get("require_xinchuang", evaluation.require_xinchuang),
        min_busbw_fraction=req.get("min_busbw_fraction", evaluation.min_busbw_fraction),
        weights=workload.weights or None,
        accepted_gpu_families=accepted_gpu_families(evaluation.accepted_gpu_models),
    )


@dataclass(frozen=True)
class OptionView:
    """What the page shows per (workload, candidate): score, latency note, TCO per model."""

    workload: str
    candidate: str
    score: float
    eligible: bool
    reason: str
    latency: str
    tco_by_model: tuple[tuple[str, Decimal], ...]


@dataclass(frozen=True)
class Proposal:
    result: pf.PortfolioResult
    labels: dict[str, str]
    options: tuple[OptionView, ...]
    currency: str


def _option(
    evaluation: Evaluation,
    workload: Workload,
    candidate: Candidate,
    base_input,
    home: Region | None,
    rtts: list[RttMeasurement],
    lang_zh: bool,
    rubric,
) -> tuple[pf.Option, OptionView]:
    offering = candidate.offering
    per_node = max(1, offering.gpus_per_node or 1)
    nodes = math.ceil(workload.gpus / per_node)
    wid, cid = workload.name, str(candidate.pk)
    reasons: list[tuple[str, str]] = []
    burst_hours = pf.burst_gpu_hours(
        gpus=workload.gpus,
        peak_gpus=workload.peak_gpus,
        peak_hours_per_day=workload.peak_hours_per_day,
        peak_days_per_week=workload.peak_days_per_week,
        days=workload.duration_days,
    )
    prices = {p.billing_model: p.price_per_gpu for p in base_input.effective_prices()}
    burst_price = prices.get("hourly")
    if workload.tolerates_preemption and "spot" in prices:
        burst_price = min(prices["spot"], burst_price or prices["spot"])
    need = workload.gpus
    if burst_hours and burst_price is None:
        # no hourly price for the peak: the peak is reserved for the whole duration
        nodes = math.ceil(workload.peak_gpus / per_node)
        need = workload.peak_gpus
        burst_hours = Decimal(0)
    sized = replace(base_input, node_count=nodes)
    # The requirement is the workload's GPUs, not the whole nodes they round up to: the TCO
    # then leaves the surplus out of the useful GPU-hours (expert review F2).
    spec = _spec(evaluation, workload, need)
    result = score_candidate(sized, spec, rubric=rubric)
    reasons.extend((k.reason_en, k.reason_zh) for k in result.knockouts)
    score = result.total
    latency_text = ""
    if workload.latency_sensitive:
        endpoints = [e.strip() for e in workload.latency_endpoints.split(",") if e.strip()]
        claimed = float(offering.rtt_ms) if offering.rtt_ms is not None else None
        latency = latency_score(
            target_ms=float(workload.latency_target_ms),
            measurements=rtts,
            endpoints=endpoints,
            claimed_ms=claimed,
        )
        score = with_latency(score, latency)
        latency_text = latency.zh if lang_zh else latency.en
    where = placement(
        residency=evaluation.data_residency,
        home=home,
        region=offering_region(offering),
        accepts_far_region=workload.accepts_far_region,
    )
    if not where.eligible:
        reasons.append((where.knockout_en, where.knockout_zh))
    if offering.currency != evaluation.budget_currency:
        reasons.append(
            (
                f"priced in {offering.currency}; "
                f"the portfolio compares {evaluation.budget_currency}",
                f"以 {offering.currency} 报价；组合按 {evaluation.budget_currency} 比较",
            )
        )
    tco: tuple[tuple[str, Decimal], ...] = ()
    if result.tco is not None:
        burst_cost = (burst_hours * burst_price) if burst_hours else Decimal(0)
        tco = tuple((m.billing_model, m.total + burst_cost) for m in result.tco.models)
    else:
        reasons.append(("no price for any billing model", "没有任何计费方式的价格"))
    eligible = not reasons
    en = "; ".join(r[0] for r in reasons)
    zh = "；".join(r[1] for r in reasons)
    option = pf.Option(wid, cid, score, tco, eligible=eligible, knockout_en=en, knockout_zh=zh)
    view = OptionView(wid, cid, score, eligible, zh if lang_zh else en, latency_text, tco)
    return option, view


def portfolio_propose(*, evaluation: Evaluation, lang_zh: bool = False) -> Proposal | None:
    """The best assignment of the evaluation's workloads to its candidates, beside the best
    single-vendor choice. None when the evaluation has fewer than one workload."""
    built = _problem(evaluation, lang_zh)
    if built is None:
        return None
    problem, labels, views = built
    if not problem.candidates:
        result = pf.solve(replace(problem, candidates=(), options=()))
    else:
        result = pf.solve(problem)
    return Proposal(result, labels, tuple(views), evaluation.budget_currency)


def _problem(
    evaluation: Evaluation, lang_zh: bool
) -> tuple[pf.PortfolioProblem, dict[str, str], list[OptionView]] | None:
    """The evaluation as a ``scoring.portfolio`` problem (None without workloads)."""
    workloads = list(evaluation.workloads.all())
    if not workloads:
        return None
    candidates = list(
        Candidate.objects.filter(evaluation=evaluation)
        .select_related(*adapters.CANDIDATE_SELECT)
        .prefetch_related(*adapters.CANDIDATE_PREFETCH)
        .order_by("pk")
    )
    home = _region(evaluation.home_country, evaluation.home_province)
    rtts = _rtt_measurements([c.pk for c in candidates])
    options, views, pf_candidates, labels = [], [], [], {}
    # a decided evaluation's plan is scored with its decision's own rubric, as its ranking is
    rubric = selectors.scoring_rubric(evaluation)
    for candidate in candidates:
        offering = candidate.offering
        region = offering_region(offering)
        cid = str(candidate.pk)
        labels[cid] = str(candidate)
        base_input = adapters.candidate_input(candidate)
        statuses = list(base_input.answers.values())
        pf_candidates.append(
            pf.Candidate(
                cid,
                offering.vendor.name,
                region.key if region else (offering.region or "?"),
                # the TCO's rule: a vendor-managed option counts once its cost is verified
                self_managed=pf.is_self_managed(base_input, rubric),
                label=str(candidate),
                # equal costs are decided as in the ranking (scoring.ranking.tie_key)
                refuted_claims=statuses.count("contradicted"),
                verified_claims=statuses.count("verified"),
            )
        )
        for workload in workloads:
            option, view = _option(
                evaluation,
                workload,
                candidate,
                base_input,
                home,
                rtts.get(candidate.pk, []),
                lang_zh,
                rubric,
            )
            options.append(option)
            views.append(view)
    regions = {}
    for candidate in candidates:
        region = offering_region(candidate.offering)
        if region:
            regions[region.key] = region
    region_rates = tuple(
        (a, b, egress_rate_cny_gib(regions[a], regions[b], EGRESS_RATES))
        for a, b in itertools.combinations(sorted(regions), 2)
    )
    flows = tuple(
        pf.DataFlow(a.name, b.name, min(a.data_exchange_gib_month, b.data_exchange_gib_month))
        for a, b in itertools.combinations(workloads, 2)
        if min(a.data_exchange_gib_month, b.data_exchange_gib_month) > 0
    )
    problem = pf.PortfolioProblem(
        workloads=tuple(
            pf.Workload(
                w.name,
                w.gpus,
                w.duration_days,
                w.profile,
                tolerates_preemption=w.tolerates_preemption,
                latency_sensitive=w.latency_sensitive,
                accepts_far_region=w.accepts_far_region,
                min_score=w.min_score,
            )
            for w in workloads
        ),
        candidates=tuple(pf_candidates),
        options=tuple(options),
        flows=flows,
        cross_vendor_cny_gib=CROSS_VENDOR_CNY_GIB,
        cross_region_cny_gib=EGRESS_RATES.cross_province_cny_gib,
        ops_capacity=evaluation.ops_capacity,
        ops_staff_cny_month=evaluation.ops_staff_cost_month,
        prefer_fewer_vendors_pct=evaluation.prefer_fewer_vendors_pct,
        region_rates=region_rates,
    )
    return problem, labels, views


PORTFOLIO_SETTING_FIELDS = (
    "ops_capacity",
    "ops_staff_cost_month",
    "data_residency",
    "home_country",
    "home_province",
    "prefer_fewer_vendors_pct",
)


def portfolio_settings_version(evaluation: Evaluation) -> str:
    """The version of the portfolio settings a page loaded."""
    return values_version([getattr(evaluation, name) for name in PORTFOLIO_SETTING_FIELDS])


@transaction.atomic
def evaluation_portfolio_settings_set(
    *, evaluation: Evaluation, by, expected_version: str | None = None, **fields: Any
) -> Evaluation:
    """Save the buyer-side portfolio inputs: ops capacity and staff rate, residency, home region,
    the fewer-vendors threshold. Only the fields given are written, on the row as stored.

    With ``expected_version`` (``portfolio_settings_version`` of the evaluation as the writer
    loaded it), settings saved since are not overwritten: StaleCopy."""
    evaluation = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    _not_decided(evaluation)
    ensure_current(
        stored=portfolio_settings_version(evaluation), expected=expected_version, current=evaluation
    )
    unknown = set(fields) - set(PORTFOLIO_SETTING_FIELDS)
    if unknown:
        raise ValidationError(_("Unknown settings: %(f)s") % {"f": ", ".join(sorted(unknown))})
    for name, value in fields.items():
        setattr(evaluation, name, value)
    evaluation.home_country = (evaluation.home_country or "").upper()
    if evaluation.home_country and _region(evaluation.home_country, "") is None:
        raise ValidationError({"home_country": _("Use a two-letter country code, e.g. CN.")})
    evaluation.full_clean()
    evaluation._history_user = by
    evaluation.save(update_fields=[*fields, "updated_at"])
    return evaluation


def _plan_dict(plan: pf.Plan, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "lines": [
            {
                "workload": line.workload_id,
                "candidate_id": int(line.candidate_id),
                "label": labels.get(line.candidate_id, line.label),
                "vendor": line.vendor,
                "region": line.region,
                "billing_model": line.billing_model,
                "tco": str(line.tco),
                "score": round(line.score, 2),
            }
            for line in plan.lines
        ],
        "workload_tco": str(plan.workload_tco),
        "egress": str(plan.egress_cny),
        "ops": str(plan.ops_cny),
        "total": str(plan.total),
        "vendors": list(plan.vendors),
    }


def portfolio_decision_snapshot(
    *, evaluation: Evaluation, assignment: dict[str, tuple[str, str | None]] | None = None
) -> dict[str, Any]:
    """What a portfolio decision records: every assignment (workload -> candidate + billing
    model, TCO per workload), the totals, the best single-vendor plan, the saving and the
    risks. ``assignment`` (workload name -> (candidate id, billing model or None)) records an
    edited assignment instead of the proposal; a bad one raises ``ValidationError``."""
    built = _problem(evaluation, lang_zh=False)
    if built is None:
        raise ValidationError(_("The evaluation has no workloads: record a single candidate."))
    problem, labels, _views = built
    lang_zh = (get_language() or "").startswith("zh")
    if assignment is not None:
        # Named here, in the reader's words ("missing inference, unknown -" was scoring's).
        names = [workload.workload_id for workload in problem.workloads]
        gaps = portfolio_messages.assignment_gaps(
            [name for name in names if name not in assignment],
            sorted(set(assignment) - set(names)),
        )
        if gaps:
            raise ValidationError({"assignment": gaps})
    try:
        result = pf.solve(problem)
        if assignment is None:
            if result.proposal is None:
                why = portfolio_messages.summary(result, labels, evaluation.budget_currency)
                raise ValidationError(
                    _("No portfolio can serve every workload: %(why)s") % {"why": why}
                )
            plan, risks = result.proposal, result.risks
        else:
            plan, risks = pf.evaluate_assignment(problem, assignment)
    except pf.PortfolioInputError as exc:
        raise ValidationError({"assignment": exc.zh if lang_zh else exc.en}) from exc
    single = result.single
    proposed = _plan_dict(result.proposal, labels) if result.proposal else None
    return {
        "edited": _plan_dict(plan, labels) != proposed,
        "method": result.method,
        "currency": evaluation.budget_currency,
        "plan": _plan_dict(plan, labels),
        "single": _plan_dict(single, labels) if single else None,
        "saving": str(single.total - plan.total) if single else None,
        "risks": portfolio_messages.risks_recorded(risks, evaluation.budget_currency),
    }


@transaction.atomic
def portfolio_decision_record(
    *,
    evaluation: Evaluation,
    rationale: str,
    by,
    assignment: dict[str, tuple[str, str | None]] | None = None,
):
    """Record the proposed (or an edited) portfolio as this round's decision, through
    ``decision_record``: the record's candidate is the assignment's largest line by TCO and
    the snapshot holds every assignment."""
    from .evaluations import decision_record

    locked = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    _not_decided(locked)
    snapshot = portfolio_decision_snapshot(evaluation=locked, assignment=assignment)
    main = max(snapshot["plan"]["lines"], key=lambda line: Decimal(line["tco"]))
    candidate = Candidate.objects.get(pk=main["candidate_id"], evaluation=locked)
    return decision_record(
        evaluation=locked, candidate=candidate, rationale=rationale, by=by, portfolio=snapshot
    )


def portfolio_export_rows(decision) -> list[list[Any]]:
    """Rows for the exports: a heading row, then one row per assignment of a portfolio
    decision, then the totals, the single-vendor comparison and the risks. [] when the
    decision is not a portfolio."""
    portfolio = (decision.snapshot or {}).get("portfolio") if decision else None
    if not portfolio:
        return []
    zh = (get_language() or "").startswith("zh")
    plan, currency = portfolio["plan"], portfolio["currency"]
    rows: list[list[Any]] = [
        [],
        [
            _("Portfolio decision"),
            _("Workload"),
            _("Candidate"),
            _("Billing model"),
            _("TCO"),
            _("Currency"),
            _("Score"),
        ],
    ]
    for line in plan["lines"]:
        rows.append(
            [
                "",
                line["workload"],
                line["label"],
                str(dict(BillingModel.choices).get(line["billing_model"], line["billing_model"])),
                line["tco"],
                currency,
                line["score"],
            ]
        )
    rows.append(["", _("Egress"), "", "", plan["egress"], currency, ""])
    rows.append(["", _("Operations staff"), "", "", plan["ops"], currency, ""])
    rows.append(["", _("Total"), "", "", plan["total"], currency, ""])
    if portfolio.get("single"):
        rows.append(
            [
                "",
                _("Best single vendor"),
                ", ".join(portfolio["single"]["vendors"]),
                "",
                portfolio["single"]["total"],
                currency,
                "",
            ]
        )
        rows.append(["", _("Saving"), "", "", portfolio["saving"], currency, ""])
    for risk in portfolio["risks"]:
        rows.append(["", _("Risk"), risk["zh"] if zh else risk["en"], "", "", "", ""])
    return rows
