"""Scores: verify claims against measurements and recompute a candidate's stored scores."""

import contextlib
import hashlib
import json
from collections import OrderedDict
from datetime import UTC, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from scoring import poc as poc_rules
from scoring.api import score_candidate
from scoring.verification import facts, verify_candidate, with_measured_dates
from scoring.verification._util import NodeMemo

from .. import adapters, selectors
from ..models import (
    Answer,
    AnswerReview,
    Candidate,
    Evaluation,
    EvaluationStatus,
    EvidenceOrigin,
    EvidenceSummary,
    EvidenceUpload,
    PendingRefresh,
    Score,
    UploadStatus,
    VerificationStatus,
)
from .locks import candidate_lock
from .results import results_changed

EVIDENCE_STATUSES = {VerificationStatus.VERIFIED, VerificationStatus.CONTRADICTED}
# The key of a candidate's stored verification holding the measurement time (ISO) of the
# oldest evidence it used (None: none dated or none used).
EVIDENCE_OLDEST_KEY = selectors.EVIDENCE_OLDEST_KEY
# The key of a candidate's stored verification holding the applying document reviews' verdicts.
REVIEWS_KEY = adapters.REVIEWS_KEY


def _answer_status(answer: Answer, verdict, review=None) -> tuple[str, str, str]:
    """The answer's status after verification: evidence decides where it can speak, then a
    second member's review of the documents (while the answer still says what was reviewed)."""
    if verdict is not None and verdict.status in EVIDENCE_STATUSES:
        return verdict.status, verdict.explanation_en, verdict.evidence_ref or ""
    if review is not None and review.applies_to(answer):
        return review.verdict, review.note, f"review:{review.pk}"
    # Evidence is silent (or gone): fall back to what the questionnaire says.
    status = VerificationStatus.CLAIMED if answer.claim.strip() else VerificationStatus.UNANSWERED
    note = verdict.explanation_en if verdict is not None else ""
    return status, note, ""


def usable_uploads(candidate: Candidate, now=None) -> list[EvidenceUpload]:
    """The evidence verification and scoring may use: imported, of a checked origin (never
    "unverified origin") and no older than the evaluation allows."""
    uploads = (
        EvidenceUpload.objects.filter(candidate=candidate, status=UploadStatus.DONE)
        .exclude(origin=EvidenceOrigin.UNVERIFIED)
        .only("pk", "status", "node_name", "measured_at", "created_at", "origin", "report")
        .order_by("pk")
    )
    now = now or timezone.now()
    return [u for u in uploads if not u.stale_for(candidate.evaluation, now)]


def _fresh_after(candidate: Candidate, now=None) -> str | None:
    """The ISO time before which evidence is stale for the evaluation (None: any age)."""
    days = candidate.evaluation.max_evidence_age_days
    if not days:
        return None
    return ((now or timezone.now()) - timedelta(days=days)).isoformat()


def _when(upload: EvidenceUpload, measured_at=None) -> str | None:
    when = measured_at or upload.measured_at or upload.created_at
    if when is None:
        return None
    if timezone.is_naive(when):
        when = timezone.make_aware(when)
    return when.astimezone(UTC).isoformat()


def _node(upload: EvidenceUpload, node_name: str = "") -> str:
    # As adapters.node_evidence names it: an upload without a node is a node of its own.
    return node_name or upload.node_name or f"upload {upload.pk}"


def _history(candidate_id: int):
    """Every usable-origin finished upload of the candidate, as (id, node, report, when)."""
    uploads = (
        EvidenceUpload.objects.filter(candidate_id=candidate_id, status=UploadStatus.DONE)
        .exclude(origin=EvidenceOrigin.UNVERIFIED)
        .only("pk", "node_name", "report", "measured_at", "created_at")
        .order_by("pk")
    )
    return [(u.pk, _node(u), u.report or (), _when(u)) for u in uploads.iterator(chunk_size=200)]


def full_summaries(candidate_id: int) -> dict[tuple[str, str], dict]:
    """The summaries per (node, kind) computed from every earlier report (the full
    re-verification's view of the evidence; what the kept summaries must equal)."""
    return facts.summary_entries(_history(candidate_id))


def full_evidence(candidate: Candidate, now=None):
    """NodeEvidence for verification, computed from every report (reference path)."""
    return facts.evidence_from_summaries(
        ((node, kind, summary) for (node, kind), summary in full_summaries(candidate.pk).items()),
        fresh_after=_fresh_after(candidate, now),
    )


class _DecodedSummaries:
    """Kept summaries decoded from their JSON text, by that text (least recently used out once
    their texts pass ``max_chars``): a refresh after an import decodes only the (node, kind)
    rows the import changed; the others' texts are the same as at the last refresh. Each text
    also gets its SHA-256, the node keys of incremental verification."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.chars = 0
        self._items: OrderedDict[str, tuple[dict, bytes]] = OrderedDict()

    def clear(self) -> None:
        self._items.clear()
        self.chars = 0

    def get(self, text: str) -> tuple[dict, bytes]:
        # Safe to share between threads (a threaded server's refreshes): another thread may
        # evict a text between two steps; the worst is a text decoded twice.
        found = self._items.get(text)
        if found is not None:
            with contextlib.suppress(KeyError):
                self._items.move_to_end(text)
            return found
        found = (json.loads(text), hashlib.sha256(text.encode()).digest())
        if len(text) <= self.max_chars and text not in self._items:
            self._items[text] = found
            self.chars += len(text)
            while self.chars > self.max_chars:
                try:
                    old, _value = self._items.popitem(last=False)
                except KeyError:
                    break
                self.chars -= len(old)
        return found


# Per worker process: about 20 kB of text per 8-GPU node, so some 200 nodes' summaries.
_DECODED = _DecodedSummaries(max_chars=4_000_000)
# The per-node verdicts of the nodes verified last (scoring.verification's NodeMemo).
_NODE_MEMO = NodeMemo(max_items=20_000)


def _kept_rows_keyed(candidate: Candidate) -> tuple[list[tuple[str, str, dict]], dict]:
    """The kept summaries as (node, kind, summary), and the SHA-256 of each one's JSON text by
    (node, kind). The rows are read as text and decoded here (as the JSON field would decode
    them), so that an unchanged row is not decoded again."""
    # In a set order: which of two equal files a measured figure names (the first of equals)
    # must not depend on where the rows happen to lie in the table (a rebuild moves them).
    texts = (
        EvidenceSummary.objects.filter(candidate_id=candidate.pk)
        .order_by("node_name", "kind")
        .values_list("node_name", "kind", Cast("summary", TextField()))
    )
    rows, digests = [], {}
    for node, kind, text in texts:
        summary, digest = _DECODED.get(text)
        rows.append((node, kind, summary))
        digests[(node, kind)] = digest
    return rows, digests


def _kept_rows(candidate: Candidate) -> list[tuple[str, str, dict]]:
    return _kept_rows_keyed(candidate)[0]


def _node_keys(rows, digests: dict, evidence) -> dict[str, tuple]:
    """A key per node for incremental verification: the digests of its summaries, which change
    whenever its evidence does. A node some of whose entries are left out as stale gets none
    (it is verified afresh)."""
    entries: dict[str, int] = {}
    keys: dict[str, list] = {}
    for node, kind, summary in rows:
        entries[node] = entries.get(node, 0) + len((summary or {}).get("entries") or ())
        keys.setdefault(node, []).append((kind, digests[(node, kind)]))
    used: dict[str, int] = {}
    for ev in evidence:
        used[ev.node_name] = used.get(ev.node_name, 0) + 1
    return {
        node: tuple(sorted(parts))
        for node, parts in keys.items()
        if used.get(node, 0) == entries[node]
    }


def kept_evidence(candidate: Candidate, now=None):
    """NodeEvidence for verification, read from the kept summaries (one row per node and kind)."""
    return facts.evidence_from_summaries(
        _kept_rows(candidate), fresh_after=_fresh_after(candidate, now)
    )


def _summary_rows(candidate_id: int, summaries: dict) -> list[EvidenceSummary]:
    return [
        EvidenceSummary(
            candidate_id=candidate_id,
            node_name=node[:200],
            kind=kind[:30],
            upload_id=max(int(e["upload_id"]) for e in summary["entries"]),
            summary=summary,
        )
        for (node, kind), summary in summaries.items()
        if summary.get("entries")
    ]


def evidence_summaries_rebuild(*, candidate_id: int) -> int:
    """Recompute the candidate's summaries from every report (after a deletion or a re-import
    that may take evidence away); returns how many. Run inside the caller's transaction."""
    EvidenceSummary.objects.filter(candidate_id=candidate_id).delete()
    rows = _summary_rows(candidate_id, full_summaries(candidate_id))
    EvidenceSummary.objects.bulk_create(rows)
    return len(rows)


def evidence_summaries_apply(*, candidate_id: int, uploads) -> None:
    """Apply newly imported uploads, given as (upload, node name, report, measured_at), to the
    candidate's summaries: only the (node, kind) rows they touch are read and written."""
    changes: dict[tuple[str, str], list] = {}
    for upload, node_name, report, measured_at in sorted(uploads, key=lambda u: u[0].pk):
        node = _node(upload, node_name)[:200]
        by_kind = facts.report_by_kind(report, upload_id=upload.pk, when=_when(upload, measured_at))
        for kind, entries in by_kind.items():
            changes.setdefault((node, kind[:30]), []).extend(entries)
    if not changes:
        return
    nodes = {node for node, _kind in changes}
    kinds = {kind for _node_name, kind in changes}
    existing = {
        (row.node_name, row.kind): row.summary
        for row in EvidenceSummary.objects.filter(
            candidate_id=candidate_id, node_name__in=nodes, kind__in=kinds
        ).only("node_name", "kind", "summary")
    }
    merged = {key: facts.summary_merge(existing.get(key), new) for key, new in changes.items()}
    _summaries_upsert(_summary_rows(candidate_id, merged))


def _jsonb_upsert(
    model, rows: list, *, columns: dict[str, str], unique: tuple[str, ...], stamp: str = ""
) -> None:
    """Insert or update ``rows`` of ``model`` by its ``unique`` columns, writing ``columns``
    (name -> PostgreSQL type; the unique ones included) and, when named, ``stamp`` set to now.

    On PostgreSQL one INSERT ... VALUES with a row of parameters per row, JSON values as
    their text: ``bulk_create(update_conflicts=True)`` sends a jsonb[] parameter (Django
    5.2's UNNEST insert) that psycopg quotes element by element in Python, a tenth of an
    import's CPU.
    Elsewhere (SQLite) it is that bulk_create. The names are the model's own, never input."""
    if not rows:
        return
    updated = [name for name in columns if name not in unique] + ([stamp] if stamp else [])
    if connection.vendor != "postgresql":
        if stamp:
            for row in rows:
                setattr(row, stamp, timezone.now())
        model.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=[name.removesuffix("_id") for name in unique],
            update_fields=[name.removesuffix("_id") for name in updated],
        )
        return
    # One row of parameters per row, each JSON value its own text: one json document of all
    # the rows (jsonb_to_recordset) had PostgreSQL parse each JSON value twice.
    values_row = ", ".join(f"%s::{kind}" for kind in columns.values())
    extra = []
    if stamp:
        values_row += ", %s::timestamptz"
        extra = [timezone.now()]
    params = []
    for row in rows:
        for name, kind in columns.items():
            value = getattr(row, name)
            if kind == "jsonb":
                value = json.dumps(value)
            elif kind == "text" and value is not None:
                value = str(value)  # a choice's value, not the enum member
            params.append(value)
        params += extra
    names = ", ".join(columns)
    # Identifiers from this module's constants and the model's table name only.
    sql = (
        f"INSERT INTO {model._meta.db_table} ({names}{', ' + stamp if stamp else ''})"  # noqa: S608
        f" VALUES {', '.join([f'({values_row})'] * len(rows))}"
        f" ON CONFLICT ({', '.join(unique)}) DO UPDATE SET "
        + ", ".join(f"{name} = EXCLUDED.{name}" for name in updated)
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _summaries_upsert(rows: list[EvidenceSummary]) -> None:
    """Insert or update summary rows by (candidate, node, kind)."""
    _jsonb_upsert(
        EvidenceSummary,
        rows,
        columns={
            "candidate_id": "bigint",
            "node_name": "text",
            "kind": "text",
            "upload_id": "bigint",
            "summary": "jsonb",
        },
        unique=("candidate_id", "node_name", "kind"),
    )


def _scores_upsert(rows: list[Score]) -> None:
    """Insert or update score rows by (candidate, dimension), stamped now."""
    _jsonb_upsert(
        Score,
        rows,
        columns={
            "candidate_id": "bigint",
            "dimension": "text",
            "value": "double precision",
            "contributions": "jsonb",
            "rubric_version": "text",
        },
        unique=("candidate_id", "dimension"),
        stamp="computed_at",
    )


def _verify(candidate: Candidate) -> None:
    rows, digests = _kept_rows_keyed(candidate)
    fresh_after = _fresh_after(candidate)
    evidence = facts.evidence_from_summaries(rows, fresh_after=fresh_after)
    # Incremental: the nodes whose summaries are unchanged since they were last verified (in
    # this process) reuse their per-node verdicts; the result is that of a full verification.
    report = verify_candidate(
        adapters.claims(candidate),
        evidence,
        memo=_NODE_MEMO,
        node_keys=_node_keys(rows, digests, evidence),
    )
    # Each verdict says when the evidence it cites was measured and what age the evaluation
    # allows: an output measured years ago is otherwise indistinguishable from today's.
    report = with_measured_dates(
        report, evidence, max_age_days=candidate.evaluation.max_evidence_age_days or None
    )
    measured = adapters.measured_facts(report, evidence)
    candidate.verification = adapters.verification_summary(report, measured, evidence)
    # When the oldest evidence used passes the evaluation's maximum age, the beat task
    # (evidence_expiry_rescore) verifies again without it.
    candidate.verification[EVIDENCE_OLDEST_KEY] = facts.oldest_used(rows, fresh_after=fresh_after)
    # The POC plan's coverage (issue #13): a required run missing at the deadline is failed.
    # It reads the usable uploads' reports, and only when the evaluation has a plan.
    from .poc import answer_with_poc, poc_findings, verification_entry

    poc = verification_entry(candidate, None)
    if poc is not None:
        candidate.verification["poc"] = poc
    # Failed runs contradict, runs missing at the deadline leave unverifiable, what they show.
    findings = poc_findings(poc)
    reviews = {r.answer_id: r for r in AnswerReview.objects.filter(answer__candidate=candidate)}
    # The document reviews that still apply, by item, whatever the evidence says: scoring
    # reads them for claims no node output can observe (the fabric's switch topology).
    candidate.verification[REVIEWS_KEY] = {
        answer.item.key: review.verdict
        for answer in candidate.answers.all()
        if (review := reviews.get(answer.pk)) is not None and review.applies_to(answer)
    }
    for answer in candidate.answers.all():
        status, note, ref = _answer_status(
            answer, report.items.get(answer.item.key), reviews.get(answer.pk)
        )
        found = answer_with_poc((status, note, ref), findings.get(answer.item.key))
        if (
            answer.status,
            answer.verification_note,
            answer.evidence_ref,
            answer.poc_shortfalls,
        ) != found:
            status, note, ref, shortfalls = found
            answer.status, answer.verification_note, answer.evidence_ref = status, note, ref
            answer.poc_shortfalls = shortfalls
            # Derived from evidence, not a person's edit: kept out of the audit trail, which
            # records what people changed (the uploads themselves are kept and listed).
            Answer.objects.filter(pk=answer.pk).update(
                status=status, verification_note=note, evidence_ref=ref, poc_shortfalls=shortfalls
            )


def _store_scores(candidate: Candidate) -> None:
    scored = adapters.candidate_input(candidate, prices=candidate.list_prices)
    result = score_candidate(
        scored,
        adapters.evaluation_spec(candidate.evaluation),
        rubric_version=candidate.evaluation.rubric_version,
    )
    # A contribution whose reference names the POC's failed or missing runs keeps them as
    # structure, for pages to word in the reader's language.
    findings = poc_rules.item_findings(scored.poc_shortfalls)
    # One upsert for the six rows instead of a SELECT and an UPDATE each.
    _scores_upsert(
        [
            Score(
                candidate=candidate,
                dimension=dimension.dimension,
                value=dimension.score,
                contributions=[
                    poc_rules.explained_contribution(c.as_dict(), findings)
                    if findings
                    else c.as_dict()
                    for c in dimension.contributions
                ],
                rubric_version=candidate.evaluation.rubric_version,
            )
            for dimension in result.dimensions
        ]
    )
    candidate.knockouts = [k.as_dict() for k in result.knockouts]
    candidate.scored_at = timezone.now()
    # Derived from evidence and answers, and kept out of the candidate's history: written
    # without save(), which added an audit row recording no change at every refresh (one
    # per import batch). The offering version is pinned by _load already.
    Candidate.objects.filter(pk=candidate.pk).update(
        verification=candidate.verification,
        knockouts=candidate.knockouts,
        scored_at=candidate.scored_at,
    )
    # The evaluation's results moved: a worker computes them again once the changes settle.
    results_changed([candidate.evaluation_id])


def _frozen(candidate: Candidate) -> bool:
    """A decided evaluation keeps the scores it was decided on: nothing rescored until reopened."""
    return candidate.evaluation.status == EvaluationStatus.DECIDED


def _lock(candidate_id: int) -> None:
    """Lock the candidate's row until the transaction ends, so that two imports finishing
    together rescore one after the other (services.locks: its evaluation is key-shared, so a
    decision waits for the rescore or the rescore for it; the candidate's row alone is locked)."""
    candidate_lock(candidate_id)


# What a refresh reads of a candidate: the live offering, its vendor and its list prices are
# not among them (use_pinned_offering replaces them by the pinned version's), so they are not
# joined or prefetched; a row without a pinned version reads its offering when pinning it.
_LOAD_SELECT = ("evaluation", "offering_version")
_LOAD_PREFETCH = tuple(p for p in adapters.CANDIDATE_PREFETCH if p != "offering__prices")


def _load(candidate_id: int, *, reverify: bool = False) -> Candidate:
    candidates = Candidate.objects.select_related(*_LOAD_SELECT).prefetch_related(*_LOAD_PREFETCH)
    if reverify:
        # Verification replaces the stored verification before anything reads it: decoding
        # the old one (it grows with the candidate's nodes) was a refresh's cost for nothing.
        candidates = candidates.defer("verification")
    candidate = candidates.get(pk=candidate_id)
    # Scored on the pinned version of its offering, never on the live catalogue row.
    candidate.use_pinned_offering()
    return candidate


def _locked(candidate_id: int) -> Candidate:
    _lock(candidate_id)
    return _load(candidate_id)


PENDING_STATUSES = (UploadStatus.QUEUED, UploadStatus.PROCESSING)


# No savepoint: inside an import's transaction it would cost two statements, and an error
# here fails that whole transaction anyway.
@transaction.atomic(savepoint=False)
def candidate_refresh(
    *,
    candidate_id: int,
    unless_pending: bool = False,
    rebuild: bool = False,
    locked: bool = False,
) -> Candidate | None:
    """Re-verify one candidate against all its evidence and store its six scores.

    With ``unless_pending`` (an import finishing) nothing is done while another upload of the
    candidate is queued or processing: the last import to finish refreshes. The check is a
    statement of its own run after the candidate's lock is granted, so under READ COMMITTED
    it sees everything committed before: of two imports finishing together the second sees
    the first as done and refreshes. Returns None when skipped. ``locked``: the caller's
    transaction holds the candidate's lock already (``_lock``), so it is not asked again.
    """
    if not locked:
        _lock(candidate_id)
    if (
        unless_pending
        and EvidenceUpload.objects.filter(
            candidate_id=candidate_id, status__in=PENDING_STATUSES
        ).exists()
    ):
        return None
    if rebuild:
        evidence_summaries_rebuild(candidate_id=candidate_id)
    candidate = _load(candidate_id, reverify=True)
    if _frozen(candidate):
        return candidate
    _verify(candidate)
    _store_scores(candidate)
    return candidate


# A pending refresh whose task has not run this long after it was due (its worker was killed,
# or Redis lost it) is run by the beat sweeper.
REFRESH_OVERDUE_S = 30


def candidate_refresh_after_import(*, candidate_id: int) -> Candidate | None:
    """An import's refresh, in its transaction with the candidate's lock held. Nothing while
    another upload of the candidate is queued or processing (the last import to finish
    refreshes) or while a refresh is pending already (it reads this import when it runs: it
    waits for this transaction's lock). When the candidate was refreshed less than
    EVIDENCE_REFRESH_INTERVAL_S ago, a pending refresh due that long after the last one is
    written in this transaction (so that a worker killed before it runs loses nothing: the
    sweeper runs it) and its task queued once this commits; otherwise it refreshes now.

    A burst of uploads of one candidate is thus verified and scored at most once per interval
    instead of once per import, and its last refresh reads every import before it: the
    results are those refreshing after each import would leave. Returns None when the
    refresh is left to another upload or to the pending refresh."""
    scored_at, busy, marked = (
        Candidate.objects.filter(pk=candidate_id)
        .order_by()
        .annotate(
            busy=Exists(
                EvidenceUpload.objects.filter(
                    candidate_id=OuterRef("pk"), status__in=PENDING_STATUSES
                )
            ),
            marked=Exists(PendingRefresh.objects.filter(candidate_id=OuterRef("pk"))),
        )
        .values_list("scored_at", "busy", "marked")
        .get()
    )
    if busy or marked:
        return None
    interval = timedelta(seconds=settings.EVIDENCE_REFRESH_INTERVAL_S)
    now = timezone.now()
    if interval and scored_at is not None and scored_at <= now < scored_at + interval:
        due = scored_at + interval
        PendingRefresh.objects.create(candidate_id=candidate_id, due_at=due)
        transaction.on_commit(lambda: _enqueue_refresh(candidate_id, due), robust=True)
        return None
    return candidate_refresh(candidate_id=candidate_id, locked=True)


def _enqueue_refresh(candidate_id: int, due) -> None:
    from ..tasks import candidate_refresh_task

    # Redis may be down: the pending refresh stays and the sweeper runs it once overdue.
    candidate_refresh_task.apply_async((candidate_id,), eta=due)


@transaction.atomic
def candidate_refresh_pending(*, candidate_id: int) -> Candidate | None:
    """Run the candidate's pending refresh, if it still has one (another run may have caught
    up already): re-verify and rescore it with every import committed so far, and drop the
    mark, in one transaction. Left to the import that finishes last while another upload of
    the candidate is queued or processing. Returns None when nothing was refreshed."""
    try:
        _lock(candidate_id)
    except Candidate.DoesNotExist:
        return None  # deleted meanwhile, and its mark with it
    deleted, _by_model = PendingRefresh.objects.filter(candidate_id=candidate_id).delete()
    if not deleted:
        return None
    return candidate_refresh(candidate_id=candidate_id, unless_pending=True, locked=True)


def pending_refreshes_overdue(*, now=None) -> list[int]:
    """Run the pending refreshes whose task is REFRESH_OVERDUE_S late (lost with a killed
    worker or a Redis outage); returns the candidates refreshed."""
    now = now or timezone.now()
    overdue = list(
        PendingRefresh.objects.filter(due_at__lt=now - timedelta(seconds=REFRESH_OVERDUE_S))
        .order_by("candidate_id")
        .values_list("candidate_id", flat=True)
    )
    return [
        candidate_id
        for candidate_id in overdue
        if candidate_refresh_pending(candidate_id=candidate_id) is not None
    ]


@transaction.atomic
def candidate_rescore(*, candidate_id: int) -> Candidate:
    """Store fresh scores after answers, prices or requirements changed (evidence unchanged)."""
    candidate = _locked(candidate_id)
    if not _frozen(candidate):
        _store_scores(candidate)
    return candidate


def evaluation_rescore(*, evaluation: Evaluation, verify: bool = False) -> int:
    """Rescore every candidate of an evaluation; returns how many."""
    ids = list(evaluation.candidates.values_list("pk", flat=True))
    for candidate_id in ids:
        if verify:
            candidate_refresh(candidate_id=candidate_id, rebuild=True)
        else:
            candidate_rescore(candidate_id=candidate_id)
    return len(ids)


def evidence_expiry_rescore(*, now=None) -> list[int]:
    """Verify and score again every candidate of an undecided evaluation whose evidence passed
    the evaluation's maximum age since it was last verified (time passing changes nothing
    else, so nothing else would). Decided evaluations keep the scores they were decided on.
    Returns the candidates refreshed; safe to run twice (a refreshed candidate no longer
    qualifies) and alongside imports (a candidate with uploads pending is left to them)."""
    due = selectors.evidence_expired_candidates(now=now, include_unknown=True)
    return [
        candidate_id
        for candidate_id in due
        if candidate_refresh(candidate_id=candidate_id, unless_pending=True) is not None
    ]
