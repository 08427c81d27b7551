"""Writes on evaluations: weights, requirements, candidates, answers and the decision record."""

import logging
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring import MODEL_REVISION
from scoring.api import preset_weights
from scoring.evidence import PARSER_VERSION
from scoring.rubric import loader as rubric_loader
from scoring.types import AhpError, AhpInconsistentError, WeightsError
from scoring.weights import ahp_weights, normalise_weights

from .. import selectors
from ..models import (
    REQUIREMENT_FIELDS,
    WEIGHT_FIELDS,
    Answer,
    AnswerAttachment,
    Candidate,
    ChecklistItem,
    DecisionRecord,
    DecisionReopening,
    Dimension,
    Evaluation,
    EvaluationStatus,
    EvidenceUpload,
    Measurement,
    Membership,
    Offering,
    PendingRefresh,
    Role,
    UploadToken,
    VerificationStatus,
)
from .attachments import attachment_type_check
from .errors import AnswerChanged, StaleCopy, ensure_current, ensure_not_decided
from .evidence import DISK_FULL_ERRNOS, StorageFull, evidence_reimport
from .evidence.storage import media_room_check
from .files import stored_files, stored_files_delete_on_commit
from .locks import candidate_lock_open
from .notifications import notify_decision_recorded
from .results import results_changed
from .scores import candidate_refresh, evaluation_rescore
from .text import clean_note, clean_text, clean_text_fields
from .versions import values_version

logger = logging.getLogger(__name__)

DIMENSIONS = tuple(d.value for d in Dimension)


def _not_decided(evaluation: Evaluation) -> None:
    ensure_not_decided(evaluation)


def _with_history_user(obj, user):
    # django-simple-history records who made the change from this attribute outside requests.
    obj._history_user = user
    return obj


@transaction.atomic
def evaluation_create(*, fields: Mapping[str, Any], by) -> Evaluation:
    """A new evaluation with the requirements in ``fields`` and its workload's preset weights;
    ``by`` becomes its procurement member."""
    evaluation = Evaluation(**fields, created_by=by)
    clean_text_fields(evaluation)
    preset = preset_weights(evaluation.workload_profile, rubric_version=evaluation.rubric_version)
    for dimension in DIMENSIONS:
        setattr(evaluation, f"weight_{dimension}", round(preset[dimension], 3))
    evaluation.full_clean()
    _with_history_user(evaluation, by).save()
    membership = Membership(evaluation=evaluation, user=by, role=Role.PROCUREMENT)
    _with_history_user(membership, by).save()
    return evaluation


def _keep_one_procurement(membership: Membership) -> None:
    others = Membership.objects.filter(
        evaluation_id=membership.evaluation_id, role=Role.PROCUREMENT
    ).exclude(pk=membership.pk)
    if membership.role == Role.PROCUREMENT and not others.exists():
        raise ValidationError({"role": _("An evaluation needs at least one procurement member.")})


@transaction.atomic
def member_add(*, evaluation: Evaluation, user, role: str, by) -> Membership:
    """Give ``user`` a role in the evaluation; refused when they already have one."""
    if Membership.objects.filter(evaluation=evaluation, user=user).exists():
        raise ValidationError({"user": _("This user is already a member of this evaluation.")})
    membership = Membership(evaluation=evaluation, user=user, role=role)
    membership.full_clean()
    try:
        with transaction.atomic():
            _with_history_user(membership, by).save()
    except IntegrityError:  # added concurrently
        raise ValidationError(
            {"user": _("This user is already a member of this evaluation.")}
        ) from None
    return membership


@transaction.atomic
def member_role_set(*, membership: Membership, role: str, by) -> Membership:
    """Change a member's role; the last procurement member keeps theirs, and nobody makes
    themselves a manager: the one who records the decision is never the one who granted
    them the right to (a second procurement member must)."""
    membership = Membership.objects.select_for_update(of=("self",)).get(pk=membership.pk)
    if role != membership.role:
        if role == Role.MANAGER and by is not None and by.pk == membership.user_id:
            raise ValidationError(
                {
                    "role": _(
                        "You cannot make yourself a manager: another procurement member "
                        "must grant the role, so that who decides is not who chose the "
                        "decider."
                    )
                }
            )
        if role != Role.PROCUREMENT:
            _keep_one_procurement(membership)
        membership.role = role
        membership.full_clean()
        _with_history_user(membership, by).save(update_fields=["role"])
    return membership


@transaction.atomic
def member_remove(*, membership: Membership, by) -> None:
    """Take a member's access away; the last procurement member stays."""
    membership = Membership.objects.select_for_update(of=("self",)).get(pk=membership.pk)
    _keep_one_procurement(membership)
    _with_history_user(membership, by).delete()


def weights_version(evaluation: Evaluation) -> str:
    """The version of the weights a page loaded: the six weights and the AHP matrix."""
    return values_version([evaluation.weights, evaluation.ahp_matrix])


# What evaluation_update writes unless told otherwise: the requirements form's fields and the
# status (draft or open). Not the weights, nor the portfolio settings: they have services of
# their own, and a requirements save must not write back a stale copy of them.
REQUIREMENT_UPDATE_FIELDS = (*REQUIREMENT_FIELDS, "status")


def requirements_version(evaluation: Evaluation) -> str:
    """The version of the requirements (and status) a page loaded."""
    return values_version([getattr(evaluation, name) for name in REQUIREMENT_UPDATE_FIELDS])


def _locked(evaluation: Evaluation) -> Evaluation:
    # The row as stored, held until the transaction ends: the version compared below cannot
    # move before the write commits, and a decision being recorded waits (or is seen). No key
    # update (the lock the UPDATE would take anyway): rows referencing the evaluation may
    # still be inserted meanwhile.
    locked = Evaluation.objects.select_for_update(no_key=True).get(pk=evaluation.pk)
    _not_decided(locked)
    return locked


# How far from 100 six direct weights in percent may sum and still make 100 (every writer:
# the weights page, the API's PUT, AHP): room for rounding to the stored 3 decimals (AHP
# weights store 16.667 x 6 = 100.002) and for typed thirds (3 x 33.33).
WEIGHTS_SUM_TOLERANCE = Decimal("0.05")
# A set of weights that sums to about 1 is fractions of 1 sent as percent.
FRACTIONS_SUM_TOLERANCE = Decimal("0.01")
HUNDRED = Decimal(100)


def weights_sum_problem(weights: Mapping[str, Any]) -> str | None:
    """Why six weights in percent cannot be saved as they are, in the reader's language (None
    when they make 100 within WEIGHTS_SUM_TOLERANCE). A missing dimension weighs 0."""
    total = sum((Decimal(str(weights.get(d, 0))) for d in DIMENSIONS), Decimal(0))
    if total <= 0:
        return _("At least one weight must be positive: all six weights are zero.")
    if abs(total - HUNDRED) <= WEIGHTS_SUM_TOLERANCE:
        return None
    shown = format(total.normalize(), "f")
    if abs(total - 1) <= FRACTIONS_SUM_TOLERANCE:
        return _(
            "Weights are percentages and must sum to 100; these sum to %(total)s. Did you send "
            "fractions? Multiply each by 100 (0.25 is 25)."
        ) % {"total": shown}
    return _(
        "Weights are percentages and must sum to 100 (within ±%(tolerance)s); these sum to "
        "%(total)s."
    ) % {"total": shown, "tolerance": format(WEIGHTS_SUM_TOLERANCE.normalize(), "f")}


def weights_error_message(exc: WeightsError) -> str:
    """Scoring's weights or AHP error in the reader's language, dimensions by their names
    (scoring's English text for an error without a known code)."""
    labels = {code: str(label) for code, label in Dimension.choices}
    params = exc.params

    def name(key: str) -> str:
        return labels.get(params.get(key), str(params.get(key, "")))

    match exc.code:
        case "weights.not_number":
            return _("The weight of %(dimension)s must be a number; got “%(value)s”.") % {
                "dimension": name("dimension"),
                "value": params.get("value"),
            }
        case "weights.negative":
            return _("The weight of %(dimension)s must not be negative; got %(value)s.") % {
                "dimension": name("dimension"),
                "value": params.get("value"),
            }
        case "weights.unknown":
            return _("Unknown dimension(s): %(unknown)s. The dimensions are %(dimensions)s.") % {
                "unknown": "、".join(params.get("unknown", [])),
                "dimensions": "、".join(labels.values()),
            }
        case "weights.none_positive":
            return _("At least one weight must be positive: all six weights are zero.")
        case "ahp.inconsistent" if "a" in params:
            return _(
                "The pairwise comparisons contradict each other too much (consistency ratio "
                "%(ratio)s, above %(max_ratio)s). The most inconsistent comparison is %(a)s vs "
                "%(b)s: you entered %(entered)s, the other comparisons imply about %(implied)s."
            ) % {
                **params,
                "ratio": f"{params['ratio']:.3f}",
                "max_ratio": f"{params['max_ratio']:.2f}",
                "a": name("a"),
                "b": name("b"),
            }
        case "ahp.inconsistent":
            return _(
                "The pairwise comparisons contradict each other too much (consistency ratio "
                "%(ratio)s, above %(max_ratio)s)."
            ) % {"ratio": f"{params['ratio']:.3f}", "max_ratio": f"{params['max_ratio']:.2f}"}
    return str(exc)


def weights_check(weights: Mapping[str, Any]) -> None:
    """Refuse six weights in percent that cannot be stored (ValidationError under "weights",
    in the reader's language): a negative or unknown one, none positive, or a sum other than
    100 within WEIGHTS_SUM_TOLERANCE (weights_sum_problem). The rule of every writer of
    weights: evaluation_weights_set (the weights page, the API, AHP) and evaluation_update
    (the admin)."""
    try:
        normalise_weights(weights)
    except WeightsError as exc:
        raise ValidationError({"weights": weights_error_message(exc)}) from exc
    problem = weights_sum_problem(weights)
    if problem:
        raise ValidationError({"weights": problem})


@transaction.atomic
def evaluation_weights_set(
    *,
    evaluation: Evaluation,
    weights: Mapping[str, Any],
    by,
    ahp_matrix: Sequence[Sequence[float]] | None = None,
    expected_version: str | None = None,
) -> Evaluation:
    """Save direct weights in percent: non-negative, the six making 100 within
    WEIGHTS_SUM_TOLERANCE (weights_sum_problem: anything else, fractions of 1 among them, is a
    ValidationError naming the sum, and nothing is stored); stored as given, 3 decimals, with
    the AHP matrix they came from (None for direct weights). Every writer goes through this
    rule, so that a reader (an auditor comparing two versions) sees one unit that adds up. A
    writer that offers scaling (the weights page) scales before it calls. Only the weights
    and the matrix are written, on the row as stored: other fields edited meanwhile stay.

    With ``expected_version`` (``weights_version`` of the evaluation as the writer loaded it),
    weights saved since are not overwritten: StaleCopy. Returns the evaluation as stored."""
    locked = _locked(evaluation)
    ensure_current(stored=weights_version(locked), expected=expected_version, current=locked)
    weights_check(weights)
    locked.ahp_matrix = [list(map(float, row)) for row in ahp_matrix] if ahp_matrix else None
    for dimension in DIMENSIONS:
        value = Decimal(str(weights.get(dimension, 0))).quantize(Decimal("0.001"))
        setattr(locked, f"weight_{dimension}", value)
    _with_history_user(locked, by).save(update_fields=[*WEIGHT_FIELDS, "ahp_matrix", "updated_at"])
    results_changed([locked.pk])
    return locked


def ahp_to_weights(matrix: Sequence[Sequence[Any]]) -> dict[str, float]:
    """AHP weights of the six dimensions in percent (summing to 100), the unit weights are
    stored in; ValidationError naming the worst comparison."""
    try:
        shares = ahp_weights(matrix, DIMENSIONS)
    except AhpInconsistentError as exc:
        raise ValidationError({"matrix": weights_error_message(exc)}) from exc
    except AhpError as exc:
        raise ValidationError({"matrix": str(exc)}) from exc
    return {d: share * 100 for d, share in shares.items()}


def evaluation_weights_from_ahp(
    *,
    evaluation: Evaluation,
    matrix: Sequence[Sequence[Any]],
    by,
    expected_version: str | None = None,
) -> Evaluation:
    return evaluation_weights_set(
        evaluation=evaluation,
        weights=ahp_to_weights(matrix),
        by=by,
        ahp_matrix=matrix,
        expected_version=expected_version,
    )


@transaction.atomic
def evaluation_update(
    *,
    evaluation: Evaluation,
    by,
    fields: Sequence[str] = REQUIREMENT_UPDATE_FIELDS,
    expected_version: str | None = None,
) -> Evaluation:
    """Save changed requirements (validated by the caller's form) and rescore every candidate.

    ``evaluation`` carries the new values; only ``fields`` of it (the requirements and the
    status unless told otherwise) are written, on the row as stored, so that weights or
    settings saved meanwhile stay. Weights among ``fields`` (the admin's form) are held to
    the rule of evaluation_weights_set: the six as they would be stored must pass
    ``weights_check`` (ValidationError under "weights", nothing written), and, being direct
    weights, they drop the AHP matrix unless ``fields`` writes it too. With
    ``expected_version`` (``requirements_version`` of the evaluation as the writer loaded it),
    requirements saved since are not overwritten: StaleCopy. Returns the evaluation as
    stored."""
    concrete = {f.name for f in Evaluation._meta.concrete_fields if not f.primary_key}
    unknown = set(fields) - concrete
    if unknown:
        raise ValueError(f"not fields of an evaluation: {', '.join(sorted(unknown))}")
    locked = _locked(evaluation)
    ensure_current(stored=requirements_version(locked), expected=expected_version, current=locked)
    age_before = locked.max_evidence_age_days
    for name in fields:
        setattr(locked, name, getattr(evaluation, name))
    clean_text_fields(locked, fields)
    if locked.status == EvaluationStatus.DECIDED:
        # Deciding is decision_record's, with its snapshot; never a field written here.
        raise ValidationError({"status": _("Record a decision to decide an evaluation.")})
    written = [*dict.fromkeys(fields)]
    if set(written) & set(WEIGHT_FIELDS):
        weights_check(locked.weights)
        if "ahp_matrix" not in written:
            locked.ahp_matrix = None
            written.append("ahp_matrix")
    locked.full_clean()
    _with_history_user(locked, by).save(update_fields=[*written, "updated_at"])
    # Another maximum evidence age changes which evidence is used: verify again.
    evaluation_rescore(evaluation=locked, verify=age_before != locked.max_evidence_age_days)
    return locked


@transaction.atomic
def candidate_add(
    *,
    evaluation: Evaluation,
    offering: Offering,
    node_count: int,
    by,
    quoted_billing_model: str = "",
    quoted_price_per_gpu: Decimal | None = None,
    notes: str = "",
) -> Candidate:
    _not_decided(evaluation)
    candidate = Candidate(
        evaluation=evaluation,
        offering=offering,
        node_count=node_count,
        quoted_billing_model=quoted_billing_model,
        quoted_price_per_gpu=quoted_price_per_gpu,
        notes=notes,
    )
    clean_text_fields(candidate)
    candidate.full_clean()
    _with_history_user(candidate, by).save()
    return candidate_refresh(candidate_id=candidate.pk)


# What a candidate's form edits: its offering, node count, quote and notes.
CANDIDATE_EDIT_FIELDS = ("offering_id", "node_count", "quoted_billing_model")
CANDIDATE_EDIT_FIELDS += ("quoted_price_per_gpu", "notes")


def candidate_version(candidate: Candidate) -> str:
    """The version of a candidate's editable fields (offering, nodes, quote, notes) as a
    page loaded them."""
    return values_version([getattr(candidate, name) for name in CANDIDATE_EDIT_FIELDS])


@transaction.atomic
def candidate_update(*, candidate: Candidate, by, expected_version: str | None = None) -> Candidate:
    """Save a candidate changed by a form (node count, quote) and rescore it.

    ``expected_version`` (candidate_version of the row as the page loaded it): a candidate
    saved by someone else since is not overwritten (StaleCopy, with the row stored now);
    None (a script) is not checked."""
    _not_decided(candidate.evaluation)
    if expected_version is not None:
        # One writer per candidate at a time: the version cannot move before this commits.
        candidate_lock_open(candidate.pk)
        stored = Candidate.objects.get(pk=candidate.pk)
        ensure_current(stored=candidate_version(stored), expected=expected_version, current=stored)
    clean_text_fields(candidate)
    candidate.full_clean()
    _with_history_user(candidate, by).save()
    return candidate_refresh(candidate_id=candidate.pk)


@transaction.atomic
def candidate_remove(*, candidate: Candidate, by) -> None:
    """Remove a candidate with everything it holds; its stored files (evidence uploads,
    answer attachments) are deleted from disk once the removal commits."""
    _not_decided(candidate.evaluation)
    files = stored_files(candidate_ids=[candidate.pk])
    _with_history_user(candidate, by).delete()
    stored_files_delete_on_commit(files)
    results_changed([candidate.evaluation_id])


@transaction.atomic
def answer_save(
    *,
    candidate: Candidate,
    item: ChecklistItem,
    by,
    claim: str = "",
    value: Any = None,
    notes: str = "",
    expected_version: str | None = None,
) -> Answer:
    """Save one questionnaire answer (a draft may be partial) and re-verify the candidate.

    With ``expected_version`` (services.answers.answer_version of the answer as the writer read
    it), an answer changed since is not overwritten: AnswerChanged."""
    from .answers import answer_version

    # One writer per candidate at a time, as answers_save: the version cannot move meanwhile
    # (and a decision being recorded waits, or this sees it).
    candidate_lock_open(candidate.pk)
    answer = Answer.objects.filter(candidate=candidate, item=item).first() or Answer(
        candidate=candidate, item=item
    )
    if expected_version is not None:
        stored = answer_version(answer if answer.pk else None)
        if stored != expected_version:
            raise AnswerChanged(stored)
    claim, notes = clean_note(claim), clean_text(notes, multiline=True)
    if answer.pk and (answer.claim, answer.value, answer.notes) == (claim, value, notes):
        # Nothing changes: no edit to record (no editor, no history row, no re-verification),
        # as the questionnaire's whole-form save skips an item left as it was.
        return answer
    answer_write(answer, claim=claim, value=value, notes=notes, by=by)
    candidate_refresh(candidate_id=candidate.pk)
    answer.refresh_from_db()
    return answer


def answer_write(answer: Answer, *, claim: str, value: Any, notes: str, by) -> None:
    """Save ``answer`` with what ``by`` entered (cleaned: services.text): its editor, and
    its claim's author (``claim_by``: the four-eyes rule of reviews) only where the claim's
    text or typed value changes; a status the evidence has not settled follows whether it is
    answered. The one write of the questionnaire's item save and its whole-form save."""
    claim = clean_note(claim)
    if answer.pk is None or (answer.claim, answer.value) != (claim, value):
        answer.claim_by = by
    answer.claim = claim
    answer.value = value
    answer.notes = clean_text(notes, multiline=True)
    answer.updated_by = by
    if answer.status not in (VerificationStatus.VERIFIED, VerificationStatus.CONTRADICTED):
        answer.status = (
            VerificationStatus.CLAIMED
            if answer.claim or value not in (None, "")
            else VerificationStatus.UNANSWERED
        )
    _with_history_user(answer, by).save()


MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024


@transaction.atomic
def answer_attachment_add(*, answer: Answer, uploaded_file, by) -> AnswerAttachment:
    """Keep a document backing an answer; refused when empty, above 20 MiB, or not a kind of
    file procurement keeps (services.attachments: told by its content, not its name alone)."""
    _not_decided(answer.candidate.evaluation)
    size = uploaded_file.size or 0
    if size == 0:
        raise ValidationError({"attachment": _("The file is empty.")})
    if size > MAX_ATTACHMENT_BYTES:
        raise ValidationError(
            {"attachment": _("Attachments are limited to %(mib)s MiB.") % {"mib": 20}}
        )
    attachment_type_check(uploaded_file)
    name = uploaded_file.name.replace("\\", "/").rsplit("/", 1)[-1][:255] or "attachment"
    attachment = AnswerAttachment(
        answer=answer, original_name=name, size_bytes=size, uploaded_by=by
    )
    _attachment_store(attachment, uploaded_file, size=size)
    try:
        attachment.save()
    except Exception:
        attachment.file.delete(save=False)
        raise
    return attachment


def _attachment_store(attachment: AnswerAttachment, uploaded_file, *, size: int) -> None:
    """Write the attachment's file, or refuse it (ValidationError on "attachment") with nothing
    left on disk when the media volume is full (operator review, stop 34: a 500, and the part
    written kept the disk full). The name on disk is a fresh random one, so what a full disk
    cut short there is this write's alone to delete."""
    full = ValidationError(
        {
            "attachment": _(
                "The portal's storage is full, so this file was not kept; the rest of your "
                "input is kept below. Attach it again later and tell the portal's operator."
            )
        }
    )
    try:
        media_room_check(size=size)
    except StorageFull as exc:
        raise full from exc
    field = attachment._meta.get_field("file")
    on_disk = field.generate_filename(attachment, attachment.original_name)
    try:
        attachment.file.name = field.storage.save(
            on_disk, uploaded_file, max_length=field.max_length
        )
    except OSError as exc:
        if exc.errno not in DISK_FULL_ERRNOS:
            raise
        logger.error("attachment storage full: %d bytes refused (%s)", size, on_disk)
        if field.storage.exists(on_disk):
            field.storage.delete(on_disk)
        raise full from exc


class CatalogueRowInUse(Exception):
    """A vendor or offering that other rows still need; the message says what to do."""


@transaction.atomic
def offering_delete(*, offering: Offering, by) -> None:
    """Delete an offering with its list prices, each deletion recorded as ``by``'s; refused
    while an evaluation holds it as a candidate."""
    if offering.candidacies.exists():
        raise CatalogueRowInUse(
            _("Evaluations still hold this offering as a candidate; remove it there first.")
        )
    for price in offering.prices.all():
        _with_history_user(price, by).delete()
    _with_history_user(offering, by).delete()


@transaction.atomic
def vendor_delete(*, vendor, by) -> None:
    """Delete a vendor, recorded as ``by``'s; refused while it has offerings."""
    if vendor.offerings.exists():
        raise CatalogueRowInUse(_("This vendor still has offerings; delete them first."))
    _with_history_user(vendor, by).delete()


def _revoke_all_tokens(evaluation: Evaluation, by) -> int:
    """Revoke every still-unrevoked upload token of the evaluation, each with a history row."""
    from django.utils import timezone

    tokens = list(UploadToken.objects.filter(evaluation=evaluation, revoked_at__isnull=True))
    if tokens:
        now = timezone.now()
        UploadToken.objects.filter(pk__in=[t.pk for t in tokens]).update(revoked_at=now)
        for token in tokens:
            token.revoked_at = now
        UploadToken.history.bulk_history_create(tokens, update=True, default_user=by)
    return len(tokens)


def _snapshot_evidence(evaluation: Evaluation) -> list[dict[str, Any]]:
    """The evidence the scores rest on, traceable to a node without the upload rows (an
    upload may be deleted after a reopening): each used upload's hashes, node, who sent it
    (user or token), node fingerprint and the files of the bundle that gave measurements.
    Only what was used (imported, of a checked origin, fresh enough), never failed, pending,
    unverified or stale uploads."""
    from .scores import usable_uploads

    ids = [u.pk for c in evaluation.candidates.order_by("pk") for u in usable_uploads(c)]
    files: dict[int, list[dict[str, str]]] = {}
    for upload_id, source_file, kind in (
        Measurement.objects.filter(upload_id__in=ids)
        .order_by("upload_id", "source_file", "kind")
        .values_list("upload_id", "source_file", "kind")
        .distinct()
    ):
        files.setdefault(upload_id, []).append({"file": source_file, "kind": kind})
    used = []
    for u in (
        EvidenceUpload.objects.filter(pk__in=ids)
        .select_related("uploaded_by", "token")
        .defer("report")
        .order_by("pk")
    ):
        used.append(
            {
                "upload_id": u.pk,
                "candidate_id": u.candidate_id,
                "sha256": u.sha256,
                "name": u.original_name,
                "node_name": u.node_name,
                "uploaded_by": u.uploaded_by.get_username() if u.uploaded_by else "",
                "token": (
                    {"id": u.token_id, "label": u.token.label, "node_name": u.token.node_name}
                    if u.token
                    else None
                ),
                "created_at": u.created_at.isoformat(),
                "origin": u.origin,
                "measured_at": u.measured_at.isoformat() if u.measured_at else None,
                "fingerprint": u.fingerprint,
                "parser_version": u.parser_version,
                # Not each measurement: an evaluation at fleet scale holds 10^5-10^6 of them,
                # too many to copy into every record. The figures the ranking read are in its
                # contributions; each rests on a file named here, of the bundle whose sha256
                # and parser version are kept, so its lines can be read again.
                "files": files.get(u.pk, []),
            }
        )
    return used


def _no_import_pending(evaluation: Evaluation) -> None:
    """A decision rests on every upload submitted before it: while one is still queued or being
    imported, the ranking can still move and its evidence would arrive after the decision, so
    the decision waits."""
    pending = selectors.evaluation_imports_pending(evaluation)
    if pending:
        raise ValidationError(
            ngettext(
                "%(count)s upload of this evaluation is still being imported and may move the "
                "ranking: record the decision once it is imported (the candidates' uploads "
                "pages show its progress).",
                "%(count)s uploads of this evaluation are still being imported and may move the "
                "ranking: record the decision once they are imported (the candidates' uploads "
                "pages show their progress).",
                pending,
            )
            % {"count": pending}
        )


def _pending_refreshes_run(evaluation: Evaluation) -> None:
    """A decision rests on every import: the candidates whose last imports left their
    re-verification to a pending refresh (services.scores) are refreshed now, in the
    decision's transaction, before the ranking is read."""
    from .scores import candidate_refresh_pending

    pending = (
        PendingRefresh.objects.filter(candidate__evaluation_id=evaluation.pk)
        .order_by("candidate_id")
        .values_list("candidate_id", flat=True)
    )
    for candidate_id in list(pending):
        candidate_refresh_pending(candidate_id=candidate_id)


def ranking_version(ranking) -> str:
    """The version of a ranking as a decision page shows it: each candidate's place, total
    (two places) and whether it is disqualified. A page carries it so that a decision is
    recorded on the figures its manager read (decision_record's ``expected_version``)."""
    return values_version(
        [[r.candidate_id, round(r.total, 2), bool(r.disqualified)] for r in ranking.results]
    )


class RankingChanged(StaleCopy):
    """The ranking moved since the decision page was read (an answer, a price, an import):
    nothing is recorded; the page shows the ranking as it is now, with the input kept."""

    def __init__(self, version: str, current):
        super().__init__(
            version,
            current=current,
            message=_(
                "The ranking changed since you opened this page (an answer, a price, weights "
                "or evidence changed), so the decision was not recorded. The choices below "
                "show the figures as they are now: check them, then record the decision again."
            ),
            code="ranking_changed",
        )


@transaction.atomic
def decision_record(
    *,
    evaluation: Evaluation,
    candidate: Candidate,
    rationale: str,
    by,
    portfolio: Mapping[str, Any] | None = None,
    expected_version: str | None = None,
) -> DecisionRecord:
    """Record the decision of this round, with a snapshot of scores, weights and evidence
    hashes; the evaluation becomes decided (frozen) and every upload token is revoked.

    ``portfolio`` (from ``services.portfolio.portfolio_decision_record``) records a portfolio:
    every workload's assignment is kept in the snapshot; ``candidate`` is its largest line,
    which may be disqualified as a single choice (each line passed its workload's knockouts).

    ``expected_version``: the ranking_version of the ranking the manager read; when the
    ranking computed here under the evaluation's lock differs, RankingChanged is raised and
    nothing is recorded (None, a script: not checked)."""
    evaluation = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    _not_decided(evaluation)
    if candidate.evaluation_id != evaluation.pk:
        raise ValidationError({"candidate": _("This candidate belongs to another evaluation.")})
    rationale = clean_note(rationale)
    if not rationale:
        raise ValidationError({"rationale": _("Explain the decision: the rationale is required.")})
    _no_import_pending(evaluation)
    _pending_refreshes_run(evaluation)
    text = rubric_loader.rubric_text(evaluation.rubric_version)
    ranking, _none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    stored = ranking_version(ranking)
    if expected_version is not None and expected_version != stored:
        raise RankingChanged(stored, ranking)
    result = next(r for r in ranking.results if r.candidate_id == candidate.pk)
    if result.disqualified and portfolio is None:
        raise ValidationError(
            {
                "candidate": _("A disqualified candidate cannot be chosen: %(why)s")
                % {"why": "; ".join(k.reason_en for k in result.knockouts)}
            }
        )
    snapshot = {
        "weights": {k: str(v) for k, v in evaluation.weights.items()},
        "ranking": [
            {
                "candidate_id": r.candidate_id,
                "label": r.label,
                "total": r.total,
                "scores": r.scores,
                "disqualified": r.disqualified,
                "knockouts": [k.as_dict() for k in r.knockouts],
                # Which rule gave which points, each measured one naming the evidence it read
                # (upload, node, file): the Score rows are rewritten by the next round.
                "contributions": {
                    d.dimension: [c.as_dict() for c in d.contributions] for d in r.dimensions
                },
            }
            for r in ranking.results
        ],
        "evidence": _snapshot_evidence(evaluation),
        # The scoring code and the parsers that produced the figures above (the rubric's
        # text is kept below): a later release that changes either can be told apart.
        "model_revision": MODEL_REVISION,
        "parser_version": PARSER_VERSION,
        "rubric_version": evaluation.rubric_version,
        # The exact rubric the ranking above was computed with: a decided evaluation is scored
        # with it (selectors.decided_rubric), whatever later releases ship as that version.
        "rubric_text": text,
        "rubric_sha256": rubric_loader.rubric_sha256(text),
    }
    if portfolio is not None:
        snapshot["portfolio"] = dict(portfolio)
    round_ = (
        evaluation.decisions.order_by("-round").values_list("round", flat=True).first() or 0
    ) + 1
    record = DecisionRecord.objects.create(
        evaluation=evaluation,
        candidate=candidate,
        round=round_,
        decided_by=by,
        rationale=rationale,
        snapshot=snapshot,
    )
    evaluation.status = EvaluationStatus.DECIDED
    _with_history_user(evaluation, by).save(update_fields=["status", "updated_at"])
    results_changed([evaluation.pk])
    _revoke_all_tokens(evaluation, by)
    notify_decision_recorded(record=record)
    return record


@transaction.atomic
def evaluation_reopen(*, evaluation: Evaluation, reason: str, by) -> DecisionReopening:
    """Reopen a decided evaluation for a new decision round; the reason is required and the
    reopening is kept in the audit trail. The decision set aside stays readable."""
    evaluation = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    if evaluation.status != EvaluationStatus.DECIDED:
        raise ValidationError(_("Only a decided evaluation can be reopened."))
    reason = clean_note(reason)
    if not reason:
        raise ValidationError(
            {"reason": _("Say why the evaluation is reopened: the reason is required.")}
        )
    record = evaluation.decisions.order_by("-round").first()
    reopening = DecisionReopening.objects.create(
        evaluation=evaluation, decision=record, reason=reason, reopened_by=by
    )
    evaluation.status = EvaluationStatus.OPEN
    _with_history_user(evaluation, by).save(update_fields=["status", "updated_at"])
    results_changed([evaluation.pk])
    # Evidence kept as decided while the parsers improved is parsed again for the new round.
    evidence_reimport(older_than_version=PARSER_VERSION, evaluation_id=evaluation.pk)
    return reopening
