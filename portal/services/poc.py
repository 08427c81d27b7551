"""The POC test plan: saved by procurement (audited, refused when decided) and the coverage of
each candidate's required runs, read from its usable evidence."""

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import poc as plan_rules
from scoring.reference import claimed_gpu_facts

from ..models import Candidate, Evaluation, EvaluationStatus, PocCandidateNodes, PocPlan
from .errors import ensure_current, ensure_not_decided
from .text import clean_text
from .versions import values_version

MAX_NODE_NAME = 200
MAX_NODES = 10_000


def _with_history_user(obj, user):
    obj._history_user = user
    return obj


def _clean_names(value: Any, candidate: Candidate) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(n, str) for n in value):
        raise ValidationError(
            _("Node names of %(candidate)s must be a list of names.") % {"candidate": candidate}
        )
    names = [clean_text(n).strip() for n in value]
    names = list(dict.fromkeys(n for n in names if n))
    if len(names) > MAX_NODES or any(len(n) > MAX_NODE_NAME for n in names):
        raise ValidationError(_("Too many node names, or a name longer than 200 characters."))
    return names


def plan_spec(plan: PocPlan, candidate: Candidate) -> plan_rules.PlanSpec:
    evaluation = plan.evaluation
    return plan_rules.PlanSpec(
        workload_profile=evaluation.workload_profile,
        required_total_gpus=evaluation.required_total_gpus,
        gpus_per_node=candidate.offering.gpus_per_node,
        node_count=candidate.node_count,
        all_nodes_max=plan.all_nodes_max,
        sample_size=plan.sample_size,
    )


def poc_plan_version(plan: PocPlan | None) -> str:
    """The version of an evaluation's POC plan as a page loaded it: deadline, run sizes, the
    shared path and every candidate's node names (None: no plan yet)."""
    if plan is None or plan.pk is None:
        return values_version(None)
    names = dict(
        PocCandidateNodes.objects.filter(plan=plan)
        .order_by("candidate_id")
        .values_list("candidate_id", "node_names")
    )
    return values_version(
        [
            plan.deadline,
            plan.all_nodes_max,
            plan.sample_size,
            plan.shared_fs_path,
            {str(k): v for k, v in names.items()},
        ]
    )


@transaction.atomic
def poc_plan_save(
    *,
    evaluation: Evaluation,
    by,
    deadline: datetime,
    all_nodes_max: int = 2,
    sample_size: int = 4,
    shared_fs_path: str = "",
    node_names: Mapping[int, Sequence[str]] | None = None,
    seed: int | None = None,
    expected_version: str | None = None,
) -> PocPlan:
    """Create or change the evaluation's POC plan and re-draw each candidate's node sample from
    the plan's seed (a new plan draws a seed; an existing one keeps its own unless ``seed`` is
    given). ``node_names`` maps candidate ids to their node names; candidates left out keep
    theirs. Refused when the evaluation is decided; nothing is written on any error.

    ``expected_version`` (poc_plan_version as the page loaded it): a plan saved by someone else
    since is not overwritten (StaleCopy); None (a script) is not checked."""
    ensure_not_decided(evaluation)
    plan = PocPlan.objects.select_for_update().filter(evaluation=evaluation).first()
    if expected_version is not None:
        ensure_current(stored=poc_plan_version(plan), expected=expected_version, current=plan)
    if plan is None:
        plan = PocPlan(evaluation=evaluation, seed=secrets.randbits(48) if seed is None else seed)
    elif seed is not None:
        plan.seed = seed
    plan.deadline = deadline
    plan.all_nodes_max = all_nodes_max
    plan.sample_size = sample_size
    plan.shared_fs_path = (shared_fs_path or "").strip()
    plan.updated_by = by
    if plan.shared_fs_path and not plan.shared_fs_path.startswith("/"):
        raise ValidationError({"shared_fs_path": _("Give an absolute path, such as /shared.")})
    plan.full_clean()
    _with_history_user(plan, by).save()

    candidates = {c.pk: c for c in evaluation.candidates.select_related("offering")}
    node_names = dict(node_names or {})
    unknown = [key for key in node_names if key not in candidates]
    if unknown:
        raise ValidationError(
            _("Candidate %(ids)s is not in this evaluation.")
            % {"ids": ", ".join(str(k) for k in unknown)}
        )
    existing = {row.candidate_id: row for row in PocCandidateNodes.objects.filter(plan=plan)}
    for candidate_id, candidate in candidates.items():
        row = existing.get(candidate_id) or PocCandidateNodes(plan=plan, candidate=candidate)
        if candidate_id in node_names:
            row.node_names = _clean_names(node_names[candidate_id], candidate)
        sampled = plan_rules.sample_nodes(plan.seed, row.node_names, plan.sample_size)
        if row.pk is None or row.sampled_nodes != sampled or candidate_id in node_names:
            row.sampled_nodes = sampled
            _with_history_user(row, by).save()
    # The stored verification carries the coverage: refresh it with the new plan.
    from .scores import candidate_refresh

    for candidate_id in candidates:
        candidate_refresh(candidate_id=candidate_id)
    return plan


def shared_prefixes(plan: PocPlan) -> tuple[str, ...]:
    extra = (plan.shared_fs_path,) if plan.shared_fs_path else ()
    return extra + plan_rules.DEFAULT_SHARED_PREFIXES


def candidate_coverage(
    candidate: Candidate,
    *,
    plan: PocPlan | None = None,
    uploads=None,
    now: datetime | None = None,
) -> plan_rules.Coverage | None:
    """The candidate's required runs and which usable upload and node satisfied each; None when
    the evaluation has no plan. Uploads of unverified origin or older than allowed do not count."""
    if plan is None:
        plan = PocPlan.objects.filter(evaluation_id=candidate.evaluation_id).first()
    if plan is None:
        return None
    from .scores import usable_uploads

    row = PocCandidateNodes.objects.filter(candidate=candidate).first()
    sampled = row.sampled_nodes if row else []
    runs = plan_rules.required_runs(plan_spec(plan, candidate), sampled)
    if uploads is None:
        uploads = usable_uploads(candidate, now)
    evidence = [
        e
        for u in uploads
        for e in plan_rules.evidence_from_report(
            u.report or (), node_name=u.node_name or f"upload {u.pk}", upload_id=u.pk
        )
    ]
    return plan_rules.coverage(
        runs,
        evidence,
        deadline=plan.deadline,
        now=now or timezone.now(),
        shared_prefixes=shared_prefixes(plan),
        node_count=candidate.node_count,
        sampled=sampled,
        claimed_gpu=_claimed_gpu(candidate),
    )


def _claimed_gpu(candidate: Candidate) -> plan_rules.ClaimedGpu:
    """The GPU of the offering version the candidate is scored on, as runs are compared with."""
    version = candidate.offering_version if candidate.offering_version_id else None
    offering = version.as_offering() if version is not None else candidate.offering
    return plan_rules.ClaimedGpu(
        claimed_gpu_facts(offering.gpu_model, offering.gpu_memory_gib, offering.gpu_form_factor),
        offering.gpu_model,
    )


def verification_entry(candidate: Candidate, uploads) -> dict[str, Any] | None:
    """What the candidate's stored verification keeps of its coverage (the refresh path calls
    this after every import, plan change or candidate change): every run with its status and
    evidence, the counts, the failed runs and the fleet figures. Pages read it back through
    :func:`stored_coverage`, never re-reading the uploads."""
    coverage = candidate_coverage(candidate, uploads=uploads)
    if coverage is None:
        return None
    summary = coverage.as_dict()
    summary["failed_runs"] = [r["key"] for r in summary["runs"] if r["status"] == plan_rules.FAILED]
    return summary


def stored_coverage(
    candidate: Candidate, plan: PocPlan | None, now: datetime | None = None
) -> dict[str, Any] | None:
    """The candidate's coverage as stored by the last refresh, as it stands now (a run still
    missing after the deadline is failed). Falls back to computing it when nothing is stored."""
    if plan is None:
        return None
    now = now or timezone.now()
    stored = (candidate.verification or {}).get("poc")
    if not stored or "runs" not in stored:
        coverage = candidate_coverage(candidate, plan=plan, now=now)
        return coverage.as_dict() if coverage is not None else None
    return plan_rules.coverage_at(stored, deadline=plan.deadline, now=now)


def poc_findings(stored: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Per checklist item, what the stored coverage's failed or missing runs make of it."""
    return plan_rules.item_findings(plan_rules.shortfalls(stored))


def answer_with_poc(
    current: tuple[str, str, str], finding: Mapping[str, Any] | None
) -> tuple[str, str, str, list[dict[str, Any]]]:
    """An answer's (status, note, evidence reference, POC shortfalls) after the POC's finding
    on its item: the status :func:`scoring.poc.status_with_poc` gives, the note naming the
    runs, the failed run's evidence (else the plan) as the reference, and the runs as
    structure for pages to word. A contradiction from elsewhere stays (with no shortfalls)."""
    status = current[0]
    new_status = plan_rules.status_with_poc(status, finding)
    if finding is None or new_status == status == plan_rules.ITEM_CONTRADICTED:
        return (*current, [])
    ref = (finding["evidence_ref"] or "POC plan")[:300]
    return new_status, finding["explanation_en"], ref, list(finding["shortfalls"])


def poc_deadlines_apply(*, now: datetime | None = None) -> int:
    """Rescore the candidates of open evaluations whose POC deadline has passed since their
    last refresh: their runs still missing now count (unverifiable claims, knockouts), and the
    ranking, computed from the stored facts, changes with them. Returns how many candidates
    were refreshed; a second run finds nothing left to do."""
    from .scores import candidate_refresh

    now = now or timezone.now()
    refreshed = 0
    plans = PocPlan.objects.filter(deadline__lte=now).exclude(
        evaluation__status=EvaluationStatus.DECIDED
    )
    for plan in plans.only("pk", "evaluation_id"):
        # Only the candidates whose stored coverage predates the deadline (or that have none).
        due = (
            Candidate.objects.filter(evaluation_id=plan.evaluation_id)
            .exclude(verification__poc__deadline_passed=True)
            .values_list("pk", flat=True)
        )
        for candidate_id in list(due):
            candidate_refresh(candidate_id=candidate_id)
            refreshed += 1
    return refreshed


REMINDER_AHEAD = timedelta(days=2)


def poc_deadline_reminders_send(*, now: datetime | None = None) -> int:
    """Mail the procurement and engineer members of each open evaluation whose POC deadline is
    at most two days away, once per deadline, about every candidate whose required runs are not
    all covered yet. Returns the number of candidates reminded about. Safe to run twice (the
    plan is claimed with a conditional update before any mail is queued)."""
    from .notifications import notify_poc_deadline

    now = now or timezone.now()
    due = (
        PocPlan.objects.filter(deadline__gt=now, deadline__lte=now + REMINDER_AHEAD)
        .exclude(evaluation__status=EvaluationStatus.DECIDED)
        .select_related("evaluation")
    )
    reminded = 0
    for plan in due:
        if plan.reminded_for == plan.deadline:
            continue
        with transaction.atomic():
            claimed = (
                PocPlan.objects.filter(pk=plan.pk, deadline=plan.deadline)
                .exclude(reminded_for=plan.deadline)
                .update(reminded_for=plan.deadline)
            )
            if not claimed:
                continue  # another run reminded about this deadline, or it moved meanwhile
            for candidate in Candidate.objects.filter(evaluation=plan.evaluation).select_related(
                "offering__vendor"
            ):
                coverage = candidate_coverage(candidate, plan=plan, now=now)
                if coverage is not None and not coverage.complete:
                    notify_poc_deadline(
                        evaluation=plan.evaluation, candidate=candidate, deadline=plan.deadline
                    )
                    reminded += 1
    return reminded
