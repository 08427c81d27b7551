"""Next steps of an evaluation: what is still missing before the ranking means something, in
order, each with a link for the roles that can act on it."""

from dataclasses import dataclass

from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import selectors
from ..models import (
    ChecklistItem,
    EvaluationStatus,
    EvidenceUpload,
    Offering,
    PocPlan,
    Role,
    UploadStatus,
    UploadToken,
)

# The questionnaire step lists this many candidates still to finish (in id order), each with
# its progress as its questionnaire page shows it; the rest are counted.
OPEN_CANDIDATES_SHOWN = 5


@dataclass(frozen=True)
class Step:
    key: str
    title: str
    text: str
    done: bool
    url: str = ""
    action: str = ""
    # A second link, always shown: the POC plan (its deadline and required runs).
    extra_url: str = ""
    extra_action: str = ""
    # Candidates still to act on (the first OPEN_CANDIDATES_SHOWN), and how many more there are.
    open_candidates: tuple["OpenCandidate", ...] = ()
    open_more: int = 0


@dataclass(frozen=True)
class OpenCandidate:
    """A candidate whose questionnaire is not finished: its name, its questionnaire's page and
    its progress (selectors.QuestionnaireProgress)."""

    name: str
    url: str
    progress: selectors.QuestionnaireProgress


@dataclass(frozen=True)
class _Candidate:
    """A candidate's id and name, its questionnaire progress and whether it has imported
    evidence."""

    pk: int
    name: str
    progress: selectors.QuestionnaireProgress
    has_evidence: bool


def next_steps(
    evaluation, membership, *, checklist_size: int | None = None, has_plan: bool | None = None
) -> list[Step]:
    """The set-up steps (candidates, questionnaire, upload tokens, POC evidence) with whether
    each is done; [] once the evaluation is decided. ``checklist_size`` (the number of
    checklist items) and ``has_plan`` (whether the evaluation has a POC plan) when the page
    has read them already."""
    if evaluation.status == EvaluationStatus.DECIDED:
        return []
    role = membership.role
    items = ChecklistItem.objects.count() if checklist_size is None else checklist_size
    if has_plan is None:
        has_plan = PocPlan.objects.filter(evaluation=evaluation).exists()
    # One row per candidate: its id, name, questionnaire counts and whether it has imported
    # evidence (a whole candidate row would carry its verification, kilobytes of JSON).
    # Subqueries per candidate rather than joins: joining answers and uploads multiplies them
    # (10 answers x 20 uploads per candidate), and the evidence needs only one done upload.
    imported = EvidenceUpload.objects.filter(candidate=OuterRef("pk"), status=UploadStatus.DONE)
    rows = (
        selectors.candidates_with_progress(evaluation.candidates.order_by("pk"))
        .annotate(has_evidence=Exists(imported))
        .values_list(
            "pk",
            "offering__vendor__name",
            "offering__name",
            "progress_answered",
            "progress_contradicted",
            "has_evidence",
        )
    )
    candidates = [
        _Candidate(
            pk,
            Offering.label(vendor, offering),
            selectors.QuestionnaireProgress(
                answered=answered, contradicted=contradicted, total=items
            ),
            has_evidence,
        )
        for pk, vendor, offering, answered, contradicted, has_evidence in rows
    ]
    first = candidates[0] if candidates else None
    # Not finished: an item still to answer, or one the evidence or a review contradicted.
    unfinished = [c for c in candidates if not c.progress.complete]
    without_evidence = [c for c in candidates if not c.has_evidence]
    tokens = UploadToken.objects.filter(evaluation=evaluation).exists()
    steps = [
        Step(
            "candidates",
            _("Add candidates"),
            _("Pick the offerings to compare from the catalogue, with node count and quote.")
            if not candidates
            else ngettext("%(n)s candidate added.", "%(n)s candidates added.", len(candidates))
            % {"n": len(candidates)},
            bool(candidates),
            reverse("candidate-add", args=[evaluation.pk]) if role == Role.PROCUREMENT else "",
            _("Add a candidate"),
        ),
        Step(
            "questionnaire",
            _("Send the questionnaire"),
            _("Ask each vendor the ten checklist questions and enter their answers.")
            if not candidates
            else ngettext(
                "%(n)s of %(total)s candidate has answered all %(items)s items.",
                "%(n)s of %(total)s candidates have answered all %(items)s items.",
                len(candidates),
            )
            % {
                "n": len(candidates) - len(unfinished),
                "total": len(candidates),
                "items": items,
            },
            bool(candidates) and not unfinished,
            reverse("candidate-questionnaire", args=[evaluation.pk, (unfinished or [first])[0].pk])
            if first
            else "",
            _("Open the questionnaire"),
            open_candidates=tuple(
                OpenCandidate(
                    c.name,
                    reverse("candidate-questionnaire", args=[evaluation.pk, c.pk]),
                    c.progress,
                )
                for c in unfinished[:OPEN_CANDIDATES_SHOWN]
            ),
            open_more=max(len(unfinished) - OPEN_CANDIDATES_SHOWN, 0),
        ),
        Step(
            "tokens",
            _("Issue upload tokens"),
            _(
                "Give each vendor's POC nodes an upload token, so that the collector can send "
                "its evidence without a portal login."
            ),
            tokens,
            reverse("upload-token-list", args=[evaluation.pk, first.pk])
            if first and role == Role.PROCUREMENT
            else "",
            _("Issue a token"),
        ),
        Step(
            "poc",
            _("Plan the POC and collect evidence"),
            _(
                "Agree a POC window with each vendor, run the collector and nccl-tests on the "
                "POC nodes, and upload the bundles: claims without evidence never count as "
                "verified."
            )
            if not candidates or without_evidence
            else _("Every candidate has imported evidence."),
            bool(candidates) and not without_evidence,
            reverse("candidate-evidence", args=[evaluation.pk, (without_evidence or [first])[0].pk])
            if first and role in (Role.ENGINEER, Role.PROCUREMENT)
            else "",
            _("Upload evidence"),
            reverse("evaluation-poc", args=[evaluation.pk]),
            _("Open the POC plan") if has_plan else _("Set the POC plan (deadline, required runs)"),
        ),
    ]
    return steps
