"""Reads that decide visibility: every query for evaluation data goes through the user here."""

import copyreg
import functools
import hashlib
import json
import logging
import pickle
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.db.models import Count, Min, OuterRef, Prefetch, Q, QuerySet, Subquery, TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast, Coalesce
from django.http import Http404
from django.urls import reverse

from .models import (
    Answer,
    Candidate,
    Evaluation,
    EvidenceDeletion,
    EvidenceUpload,
    Membership,
    Score,
    VerificationStatus,
)


def evaluation_list(*, user) -> QuerySet[Evaluation]:
    """Evaluations the user is a member of, with the user's role and the candidate count."""
    if not user.is_authenticated:
        return Evaluation.objects.none()
    return (
        Evaluation.objects.filter(memberships__user=user)
        .annotate(candidate_count=Count("candidates", distinct=True))
        .prefetch_related(
            Prefetch(
                "memberships",
                queryset=Membership.objects.filter(user=user),
                to_attr="my_memberships",
            )
        )
        .order_by("-created_at", "name")
    )


def membership_get(*, user, evaluation: Evaluation) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(user=user, evaluation=evaluation).first()


def evaluation_get(*, user, pk: int) -> tuple[Evaluation, Membership]:
    """The evaluation and the user's membership; 404 for non-members (no existence leak)."""
    if not user.is_authenticated:
        raise Http404
    membership = (
        Membership.objects.select_related("evaluation").filter(user=user, evaluation_id=pk).first()
    )
    if membership is None:
        raise Http404
    return membership.evaluation, membership


def candidate_list(*, user, evaluation: Evaluation) -> QuerySet[Candidate]:
    """The evaluation's candidates with offering, vendor, scores, upload count and
    questionnaire progress in a fixed number of queries."""
    if membership_get(user=user, evaluation=evaluation) is None:
        return Candidate.objects.none()
    candidates = (
        Candidate.objects.filter(evaluation=evaluation)
        .select_related("offering", "offering__vendor", "offering_version")
        .prefetch_related(
            "offering__prices",
            Prefetch("scores", queryset=Score.objects.order_by("dimension")),
        )
        .annotate(upload_count=Count("uploads", distinct=True))
    )
    # The questionnaire's counts (progress_answered, progress_contradicted), as every page.
    return candidates_with_progress(candidates)


@dataclass(frozen=True)
class QuestionnaireProgress:
    """Where procurement stands with a candidate's questionnaire: ``answered`` items hold a
    claim (text or typed value) that nothing contradicts; ``contradicted`` items were refuted
    by the evidence or a document review and are not done (the claim is to be taken up with
    the vendor, with or without a claim typed); the rest of ``total`` still await an answer."""

    answered: int
    contradicted: int
    total: int

    @property
    def to_answer(self) -> int:
        return self.total - self.answered - self.contradicted

    @property
    def complete(self) -> bool:
        """Every item answered, none contradicted."""
        return self.answered >= self.total


def _progress_counts() -> dict[str, Count]:
    """The one rule every page counts a questionnaire by (``QuestionnaireProgress``), as
    aggregates over a candidate's Answer rows: ``contradicted``, the rows whose status is
    contradicted (by the evidence or a document review); ``answered``, the other rows with a
    claim typed (text or typed value).

    Read from what was typed, not from the status alone: evidence verifies the offering's
    catalogue claims, so an item whose claim is still empty (notes only) can carry a verdict,
    and it still awaits an answer."""
    contradicted = Q(status=VerificationStatus.CONTRADICTED)
    typed = ~Q(claim="") | (Q(value__isnull=False) & ~Q(value=""))
    return {
        "answered": Count("pk", filter=typed & ~contradicted),
        "contradicted": Count("pk", filter=contradicted),
    }


def questionnaire_progress(*, candidate: Candidate, total: int) -> QuestionnaireProgress:
    """The candidate's questionnaire progress out of ``total`` checklist items (one query)."""
    counts = Answer.objects.filter(candidate=candidate).aggregate(**_progress_counts())
    return QuestionnaireProgress(
        answered=counts["answered"], contradicted=counts["contradicted"], total=total
    )


def candidates_with_progress(candidates: QuerySet[Candidate]) -> QuerySet[Candidate]:
    """``candidates`` annotated with ``progress_answered`` and ``progress_contradicted``
    (``questionnaire_progress``'s counts), each a subquery per candidate rather than a join:
    joined answers would multiply any other relation the caller counts or joins."""
    annotations = {}
    for name, count in _progress_counts().items():
        per_candidate = (
            Answer.objects.filter(candidate=OuterRef("pk"))
            .order_by()
            .values("candidate")
            .annotate(n=count)
            .values("n")[:1]
        )
        annotations[f"progress_{name}"] = Coalesce(Subquery(per_candidate), 0)
    return candidates.annotate(**annotations)


def questionnaire_progress_by_candidate(
    *, evaluation: Evaluation, total: int
) -> dict[int, QuestionnaireProgress]:
    """Every candidate's ``questionnaire_progress`` in ``evaluation``, by candidate id, out of
    ``total`` checklist items (one query, however many candidates)."""
    rows = candidates_with_progress(Candidate.objects.filter(evaluation=evaluation)).values_list(
        "pk", "progress_answered", "progress_contradicted"
    )
    return {
        pk: QuestionnaireProgress(answered=answered, contradicted=contradicted, total=total)
        for pk, answered, contradicted in rows.order_by("pk")
    }


# The columns a read-model candidate is built from: the candidate's own (``verification``
# deferred), its pinned version's facts, vendor facts and list prices, and the parts of its
# verification the read model uses.
_CANDIDATE_COLUMNS = tuple(
    f.attname for f in Candidate._meta.concrete_fields if f.attname != "verification"
)
_CANDIDATE_FIELD_NAMES = frozenset(_CANDIDATE_COLUMNS)
_VERSION_COLUMNS = (
    "offering_version__offering_id",
    "version_facts",
    "version_vendor_facts",
    "version_prices",
    "measured_summary",
    "busbw_curve",
    "poc_summary",
    "reviews_summary",
)


def candidates_for_scoring(*, evaluation: Evaluation) -> list[Candidate]:
    """Everything scoring reads for an evaluation's candidates, in a fixed number of queries.

    Each candidate comes with its pinned offering version's offering and vendor (as unsaved
    rows: never save them), its evaluation (the one given),
    ``answer_statuses``: {checklist item key: status} in checklist order, and
    ``list_prices``: its pinned version's (billing model, price per GPU) pairs in
    billing-model order. Answers are read as columns rather than as model rows (with their
    items): at 50 candidates those rows cost more than the scoring itself.

    Of ``verification`` (deferred: reading it loads it) only what the read model uses is read:
    ``measured_summary`` (its "measured" facts, what scoring reads), ``poc_summary`` (the POC
    coverage whose failed runs scoring applies), ``reviews_summary`` (the verdicts of the
    document reviews that still apply, which scoring reads for review-only claims) and
    ``busbw_curve`` (the curve the dashboard draws). The rest (more than half of the 9.5 kB
    of JSON a candidate of bench/pages.py carries: the per-item verdicts) was decoded on every
    cold dashboard.
    """
    return candidates_from_rows(evaluation, candidate_rows(evaluation))


def _json_text(expression) -> Cast:
    """``expression`` (jsonb) read as its JSON text: the text PostgreSQL sends for jsonb
    anyway, left undecoded (see ``candidate_rows``)."""
    return Cast(expression, output_field=TextField())


# The parts of a candidate's stored verification the read model keeps (see _VERSION_COLUMNS).
_VERIFICATION_PARTS = ("measured", "busbw_curve", "poc", "reviews")


def _version_query(evaluation: Evaluation):
    """The candidates' rows without their answers (see ``candidate_rows``), through the ORM."""
    parts = dict(zip(_VERSION_COLUMNS[4:], _VERIFICATION_PARTS, strict=True))
    return (
        evaluation.candidates.annotate(
            version_facts=_json_text("offering_version__facts"),
            version_vendor_facts=_json_text("offering_version__vendor_facts"),
            version_prices=_json_text("offering_version__prices"),
            **{name: _json_text(KeyTransform(key, "verification")) for name, key in parts.items()},
        )
        .order_by("pk")
        .values_list(*_CANDIDATE_COLUMNS, *_VERSION_COLUMNS)
    )


def _postgresql_version_sql() -> str:
    """``_version_query``'s rows in one statement of PostgreSQL that reads each candidate's
    stored verification once.

    Each ``verification -> key`` of the ORM's query decompresses the whole stored value
    (about 9 kB of JSON, TOASTed), so its three parts cost three decompressions per
    candidate: most of the query's time at 200 candidates. Here the value is decompressed
    once in a subquery (``|| '{}'`` makes a copy in memory; ``OFFSET 0`` keeps the subquery
    from being merged into the outer query, which would read the stored value again per part).
    A JSON object is unchanged by ``|| '{}'``; anything else (null, an array) becomes an
    array, of which ``->`` reads NULL, as of the original.
    """
    quote = connection.ops.quote_name
    candidate = Candidate._meta
    version = Candidate._meta.get_field("offering_version").related_model._meta
    own = [
        quote(f.column) for f in candidate.concrete_fields if f.attname in _CANDIDATE_FIELD_NAMES
    ]
    inner_own = ", ".join(f"c.{column}" for column in own)
    outer_own = ", ".join(f"s.{column}" for column in own)

    def vcol(name: str) -> str:
        return f"v.{quote(version.get_field(name).column)}"

    parts = ", ".join(f"CAST(s.ver -> '{key}' AS TEXT)" for key in _VERIFICATION_PARTS)
    return f"""
        SELECT {outer_own}, s.version_offering_id, CAST(s.version_facts AS TEXT),
            CAST(s.version_vendor_facts AS TEXT), CAST(s.version_prices AS TEXT), {parts}
        FROM (
            SELECT {inner_own}, {vcol("offering")} AS version_offering_id,
                {vcol("facts")} AS version_facts, {vcol("vendor_facts")} AS version_vendor_facts,
                {vcol("prices")} AS version_prices,
                c.{quote(candidate.get_field("verification").column)} || '{{}}'::jsonb AS ver
            FROM {quote(candidate.db_table)} c
            LEFT JOIN {quote(version.db_table)} v
                ON {vcol("id")} = c.{quote(candidate.get_field("offering_version").column)}
            WHERE c.{quote(candidate.get_field("evaluation").column)} = %s
            OFFSET 0
        ) s
        ORDER BY s.{quote(candidate.pk.column)}
    """  # noqa: S608 - quoted identifiers from the models and constant keys; the id a parameter


_version_sql: list[str] = []


def _version_rows(evaluation: Evaluation) -> list[tuple]:
    """``_version_query(evaluation)``'s rows: on PostgreSQL by ``_postgresql_version_sql``
    (its candidate columns converted as the ORM converts them: the knockouts' JSON decoded)."""
    if connection.vendor != "postgresql":
        return list(_version_query(evaluation))
    if not _version_sql:
        _version_sql.append(_postgresql_version_sql())
    with connection.cursor() as cursor:
        cursor.execute(_version_sql[0], [evaluation.pk])
        rows = cursor.fetchall()
    fields = [f for f in Candidate._meta.concrete_fields if f.attname in _CANDIDATE_FIELD_NAMES]
    converted = [
        (index, f.get_col(Candidate._meta.db_table), converters)
        for index, f in enumerate(fields)
        if (converters := f.get_db_converters(connection))
    ]
    if not converted:
        return rows
    result = []
    for row in rows:
        row = list(row)
        for index, column, converters in converted:
            for convert in converters:
                row[index] = convert(row[index], column, connection)
        result.append(tuple(row))
    return result


def candidate_rows(evaluation: Evaluation) -> list[tuple]:
    """The rows ``candidates_from_rows`` builds the candidates from: plain values (columns,
    the JSON columns as their JSON text, the answers' statuses), which is also what the read
    model caches.

    The JSON is decoded by ``candidates_from_rows``, not here: the read model caches these
    rows, and 200 candidates' decoded facts, measured summaries and curves (about 650 kB of
    small dicts) took ~9 ms to pickle on every cold dashboard, their text a fraction of one.
    """
    rows = _version_rows(evaluation)
    facts_at = len(_CANDIDATE_COLUMNS) + 1
    if any(row[facts_at] is None for row in rows):
        # A row older than versioning pins its offering as it is now (a write), then reads again.
        for candidate in evaluation.candidates.filter(offering_version__isnull=True):
            candidate.use_pinned_offering()
        rows = _version_rows(evaluation)
    statuses: dict[int, dict[str, str]] = {row[0]: {} for row in rows}
    for candidate_id, key, status in (
        Answer.objects.filter(candidate__evaluation=evaluation)
        .order_by("candidate_id", "item__number")
        .values_list("candidate_id", "item__key", "status")
    ):
        # A candidate added between the two queries is not in this snapshot: skip its answers.
        if candidate_id in statuses:
            statuses[candidate_id][key] = status
    return [(*row, statuses[row[0]]) for row in rows]


def candidates_from_rows(evaluation: Evaluation, rows: list[tuple]) -> list[Candidate]:
    """Read-model candidates (see ``candidates_for_scoring``) from ``candidate_rows``."""
    from .models.vendors import offering_from_facts, price_pairs

    width = len(_CANDIDATE_COLUMNS)
    db = evaluation._state.db or "default"
    candidates = []
    for row in rows:
        candidate = Candidate.from_db(db, _CANDIDATE_FIELD_NAMES, row[:width])
        offering_id, facts, vendor_facts, prices, measured, curve, poc, reviews, answers = row[
            width:
        ]
        # The JSON columns' text (candidate_rows): a SQL NULL, or a JSON null, is None. The
        # curve stays text until busbw_curve() reads it: the dashboard draws ten curves, and
        # 200 decoded ones were a third of the JSON decoded here.
        facts, vendor_facts, prices, measured, poc, reviews = (
            None if text is None else json.loads(text)
            for text in (facts, vendor_facts, prices, measured, poc, reviews)
        )
        candidate.evaluation = evaluation
        # Scored on the version of its offering it pinned, never on the live catalogue row: a
        # catalogue edit changes no evaluation until it adopts the new version.
        candidate.offering = offering_from_facts(offering_id, facts, vendor_facts)
        candidate.list_prices = price_pairs(prices)
        candidate.measured_summary = measured
        candidate.busbw_curve_json = curve
        candidate.poc_summary = poc
        candidate.reviews_summary = reviews
        # A fresh dict per build: a reader may not change the cached rows through it.
        candidate.answer_statuses = dict(answers)
        candidates.append(candidate)
    return candidates


def busbw_curve(candidate: Candidate) -> list | None:
    """The best all_reduce curve (bus bandwidth against message size) that verification kept
    for a read-model candidate (``candidates_from_rows``), decoded from its JSON text on each
    call (a fresh list: a reader may change it)."""
    text = candidate.busbw_curve_json
    return None if text is None else json.loads(text)


logger = logging.getLogger(__name__)

# --- the results read model -----------------------------------------------------------------
#
# Pages and the API read the live ranking and its robustness through here. Both are computed
# from the stored facts and kept in the Django cache under the fingerprint of every input they
# read (portal.api.ranking.ranking_fingerprint: one light query), so a cached answer is the one
# a fresh computation would give. The cache is an accelerator only: when it fails (Redis down)
# the answer is computed and served all the same.

RESULTS_CACHE_SECONDS = 600
_CACHE_VERSION = "results-v5"


# Rankings hold read-only mappings (MappingProxyType), which pickle cannot store by default;
# they pickle as the plain dict they show, and unpickle read-only again.
def read_only(mapping: dict) -> MappingProxyType:
    return MappingProxyType(mapping)


copyreg.pickle(MappingProxyType, lambda proxy: (read_only, (dict(proxy),)))


def weights_key(weights) -> str:
    """The part of a cache key that names ``weights`` (None: the saved weights)."""
    if weights is None:
        return "saved"
    return ",".join(f"{k}={float(v)!r}" for k, v in sorted(dict(weights).items()))


# What the results are computed and rendered by: the scoring core, the portal's code, its
# templates and translations. Part of every key, so that a release that computes or renders
# differently never reads what the previous one stored (the PostgreSQL tier outlives it).
_CODE_DIRS = ("scoring", "portal", "templates", "locale")
_CODE_SUFFIXES = frozenset((".py", ".html", ".mo", ".yaml", ".yml", ".json", ".toml", ".txt"))


@functools.cache
def code_version() -> str:
    """A digest of the code the results depend on (read once per process)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for top in _CODE_DIRS:
        for path in sorted((root / top).rglob("*")):
            if (
                path.suffix in _CODE_SUFFIXES
                and "__pycache__" not in path.parts
                and "migrations" not in path.parts
                and path.is_file()
            ):
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _key_parts(key: str) -> tuple[int, str, str] | None:
    """(evaluation id, code and input fingerprint, kind) of a ``results_key``; None for a key
    of another form."""
    parts = key.split(":")
    if len(parts) != 6 or parts[0] != _CACHE_VERSION or not parts[1].isdigit():
        return None
    _version, evaluation_id, code, fingerprint, kind, _digest = parts
    return int(evaluation_id), f"{code}:{fingerprint}", kind


def _loads(blob, key: str):
    """The value pickled in ``blob``; None when it no longer unpickles (a class renamed or
    removed since it was stored): a miss, never an error."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        return None
    try:
        return pickle.loads(blob)  # noqa: S301 - written by this application only (cache_set)
    except Exception:
        logger.warning("results entry %s no longer unpickles: recomputed", key, exc_info=True)
        return None


def results_entry_payload(key: str) -> bytes | None:
    """The pickled result stored in PostgreSQL under ``key`` (None: none; b"" when it no
    longer decompresses). The table holds it compressed (``cache_set``): a dashboard fragment
    of 200 candidates is ~300 kB of HTML, which PostgreSQL sent as ~600 kB of hex after
    decompressing its own TOAST copy (~6 ms), and a tenth of that compressed."""
    from .models import ResultsEntry

    row = ResultsEntry.objects.filter(key=key).values_list("payload", flat=True).first()
    if row is None:
        return None
    try:
        return zlib.decompress(row)
    except zlib.error:
        return b""


def cache_get(key: str):
    """The result stored under ``key``: from the Django cache, else from PostgreSQL (then put
    back in the Django cache); None when neither has it or it no longer unpickles.

    Both tiers hold the value pickled once, by ``cache_set``: a result read from PostgreSQL
    goes back to the cache as the same bytes."""
    try:
        blob = cache.get(key)
    except Exception:
        logger.warning("results cache unavailable (get %s)", key, exc_info=True)
        blob = None
    if blob is not None:
        value = _loads(blob, key)
        if value is not None:
            return value
    parts = _key_parts(key)
    if parts is None or not settings.RESULTS_TABLE:
        return None
    try:
        blob = results_entry_payload(key)
    except DatabaseError:
        logger.warning("results table unavailable (get %s)", key, exc_info=True)
        return None
    if blob is None:
        return None
    value = _loads(blob, key) if blob else None
    if value is None:
        from .services.results import results_entry_discard

        results_entry_discard(key=key)
        return None
    _cache_put(key, blob)
    return value


def _cache_put(key: str, blob: bytes) -> None:
    try:
        cache.set(key, blob, RESULTS_CACHE_SECONDS)
    except Exception:
        logger.warning("results cache unavailable (set %s)", key, exc_info=True)


def cache_set(key: str, value, *, durable: bool = True) -> None:
    """Store ``value`` under ``key`` in the Django cache and, when ``durable`` (and ``key`` is
    a ``results_key``), in PostgreSQL. A result asked for once (what-if weights, an API
    client's own robustness parameters) is kept in the Django cache alone."""
    blob = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    _cache_put(key, blob)
    parts = _key_parts(key) if durable and settings.RESULTS_TABLE else None
    if parts is None:
        return
    from .services.results import results_entry_store

    evaluation_id, fingerprint, kind = parts
    results_entry_store(
        evaluation_id=evaluation_id,
        key=key,
        kind=kind,
        fingerprint=fingerprint,
        # Compressed fast (level 1: ~1.5 ms for 300 kB of HTML); see results_entry_payload.
        payload=zlib.compress(blob, 1),
    )


def results_fingerprint(evaluation: Evaluation) -> str:
    """The fingerprint of every input of ``evaluation``'s results (one query): a page that
    reads several results computes it once and passes it on as ``fingerprint``."""
    from .api.ranking import ranking_fingerprint

    return ranking_fingerprint(evaluation)


# The PDF's own format: raised when the report's rendering changes in a way a PDF made before
# should not be handed out any more (2: links made absolute against PORTAL_BASE_URL).
REPORT_PDF_FORMAT = "2"


def report_pdf_fingerprint(evaluation: Evaluation, fingerprint: str | None = None) -> str:
    """What a report PDF of ``evaluation`` is made of: its results (``fingerprint``, the
    results_fingerprint when already computed), the PDF format and the portal address its
    links point to. A PDF whose stored fingerprint differs is out of date, and never handed
    out as the current one."""
    if fingerprint is None:
        fingerprint = results_fingerprint(evaluation)
    parts = (fingerprint, REPORT_PDF_FORMAT, settings.PORTAL_BASE_URL)
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def report_pdf_current(*, evaluation: Evaluation, language: str, fingerprint: str):
    """The newest PDF made of ``evaluation``'s report as it is (``fingerprint``: its
    report_pdf_fingerprint) in ``language``, or None."""
    from .models import PdfStatus, ReportPdf

    return (
        ReportPdf.objects.filter(
            evaluation=evaluation, language=language, status=PdfStatus.DONE, fingerprint=fingerprint
        )
        .exclude(file="")
        .order_by("-finished_at", "-pk")
        .first()
    )


def report_pdf_get(*, user, evaluation: Evaluation, language: str):
    """The report PDF to show ``user`` on the report page: their own request while it is
    queued or rendering; otherwise the newest PDF of the report as it is now in ``language``
    (anyone's: asking for one again hands that one out), else their own latest (failed, or
    made before a change: ``out_of_date``). None when there is none."""
    from .models import PdfStatus, ReportPdf

    own = ReportPdf.objects.filter(evaluation=evaluation, requested_by=user).first()
    if own is not None and own.status in (PdfStatus.QUEUED, PdfStatus.RENDERING):
        return own
    fingerprint = report_pdf_fingerprint(evaluation)
    current = report_pdf_current(evaluation=evaluation, language=language, fingerprint=fingerprint)
    if current is not None:
        current.out_of_date = False
        return current
    if own is not None and own.status == PdfStatus.DONE:
        own.out_of_date = own.fingerprint != fingerprint
    return own


def results_fingerprints(evaluation: Evaluation) -> tuple[str, str]:
    """``results_fingerprint(evaluation)`` and the fingerprint of the evaluation's
    catalogue-change notice, from the same query."""
    from .api.ranking import fingerprints

    return fingerprints(evaluation)


def results_key(evaluation: Evaluation, kind: str, *parts, fingerprint: str | None = None) -> str:
    """The cache key of a result of ``evaluation`` (``kind``: what it is, a short name; the
    ``parts``: its parameters) under the fingerprints of the code and of its inputs."""
    if fingerprint is None:
        fingerprint = results_fingerprint(evaluation)
    digest = hashlib.sha256(repr((kind, *parts)).encode()).hexdigest()[:32]
    return f"{_CACHE_VERSION}:{evaluation.pk}:{code_version()}:{fingerprint}:{kind}:{digest}"


def decided_rubric(evaluation: Evaluation):
    """The rubric a decided evaluation was decided with: the exact text its decision recorded,
    so that revising the packaged rubric file moves no recorded ranking, report or export.
    None while the evaluation is not decided, for a decision recorded before the text was kept,
    or when the text no longer reads (the pages then say the figures differ from the record)."""
    from scoring.rubric import load_rubric_text
    from scoring.types import RubricError

    record = evaluation.decision
    text = (record.snapshot or {}).get("rubric_text") if record is not None else None
    if not text:
        return None
    try:
        return load_rubric_text(text)
    except RubricError:
        logger.warning(
            "decision %s: its recorded rubric no longer loads; scored with the packaged one",
            record.pk,
            exc_info=True,
        )
        return None


def scoring_rubric(evaluation: Evaluation):
    """The rubric the evaluation is scored with: its decision's own while it is decided
    (``decided_rubric``), else the packaged rubric of its version. Every page, export and plan
    of one evaluation reads this one."""
    from scoring.rubric import load_rubric

    return decided_rubric(evaluation) or load_rubric(evaluation.rubric_version)


def scoring_input(candidate: Candidate):
    """The scoring core's CandidateInput of a candidate as ``candidates_for_scoring`` (or
    ``evaluation_ranking``) gives it: what its ranking was computed from."""
    from .adapters import candidate_input

    return candidate_input(
        candidate,
        answers=candidate.answer_statuses,
        prices=candidate.list_prices,
        summary={
            "measured": candidate.measured_summary,
            "poc": candidate.poc_summary,
            "reviews": candidate.reviews_summary,
        },
    )


def _compute_ranking(*, evaluation: Evaluation, weights=None, rows=None):
    """(ranking, candidates by id) from ``rows`` (``candidate_rows``, read when None)."""
    from scoring.api import score_candidates

    from .adapters import evaluation_spec

    if rows is None:
        rows = candidate_rows(evaluation)
    candidates = {c.pk: c for c in candidates_from_rows(evaluation, rows)}
    ranking = score_candidates(
        [scoring_input(c) for c in candidates.values()],
        evaluation_spec(evaluation, weights=weights),
        rubric_version=evaluation.rubric_version,
        rubric=decided_rubric(evaluation),
        # The read model is cached (pickled) whole, contributions included: build them now,
        # through the memoised per-candidate engine, rather than after the numpy kernel.
        explain=True,
    )
    return ranking, candidates


def evaluation_ranking(
    *,
    evaluation: Evaluation,
    weights=None,
    use_cache: bool = True,
    fingerprint=None,
    candidates: bool = True,
):
    """The live ranking of an evaluation (optionally with what-if weights) and its candidates
    (as ``candidates_for_scoring`` gives them, by id; None with ``candidates=False``, for a
    caller that reads the ranking alone: a cached ranking then builds no candidates).

    Computed from the stored facts, or read from the cache under their fingerprint, so it can
    never be stale; the Score rows are the persisted record of the same computation.
    """
    if not use_cache:
        ranking, built = _compute_ranking(evaluation=evaluation, weights=weights)
        return ranking, built if candidates else None
    # "ranking-rows": the cached value is (ranking, candidate rows); the name differs from
    # the earlier (ranking, candidates) entries so that no release reads the other's.
    key = results_key(evaluation, "ranking-rows", weights_key(weights), fingerprint=fingerprint)
    cached = cache_get(key)
    if cached is not None:
        ranking, rows = cached
        if not candidates:
            return ranking, None
        return ranking, {c.pk: c for c in candidates_from_rows(evaluation, rows)}
    # The candidates are cached as the plain rows they were built from, not as model
    # instances: at 200 candidates those pickled in 40 ms (470 kB), each Offering and Vendor
    # through Model.__reduce__; the rows pickle in C and build again in a few ms.
    rows = candidate_rows(evaluation)
    ranking, built = _compute_ranking(evaluation=evaluation, weights=weights, rows=rows)
    # What-if weights (each keystroke a new set) stay in the Django cache alone.
    cache_set(key, (ranking, rows), durable=weights is None)
    return ranking, built if candidates else None


def evaluation_robustness(
    *,
    evaluation: Evaluation,
    ranking,
    weights=None,
    draws: int = 1000,
    perturbation_pct: float = 20.0,
    seed: int = 0,
    what_if: bool = False,
    fingerprint: str | None = None,
    durable: bool = True,
):
    """The robustness of ``ranking`` (flip thresholds and seeded rank stability), cached under
    the fingerprint of the inputs, the weights and the analysis' parameters.

    ``what_if``: an answer to what-if weights being typed. Its flip thresholds are computed
    for the typed weights (cheap), but the rank stability (``draws`` seeded draws) is the one
    around the saved weights, computed once and cached: a keystroke never reruns the draws.
    ``durable``: kept in PostgreSQL too (``cache_set``); False for parameters a client chose.
    """
    from scoring.api import robustness as robustness_of
    from scoring.robustness import Robustness, weight_flip_thresholds

    weights = dict(ranking.weights if weights is None else weights)
    params = (draws, float(perturbation_pct), seed)
    if what_if:
        # The saved weights' ranking alone (its candidates are not read here).
        saved, _none = evaluation_ranking(
            evaluation=evaluation, fingerprint=fingerprint, candidates=False
        )
        stability = evaluation_robustness(
            evaluation=evaluation,
            ranking=saved,
            draws=draws,
            perturbation_pct=perturbation_pct,
            seed=seed,
            fingerprint=fingerprint,
        ).stability
        flips = weight_flip_thresholds(ranking, weights)
        leader = ranking.leader
        return Robustness(
            leader_id=None if leader is None else leader.candidate_id,
            flips=flips,
            stability=stability,
        )
    key = results_key(
        evaluation, "robustness", weights_key(weights), params, fingerprint=fingerprint
    )
    cached = cache_get(key)
    if cached is not None:
        return cached
    result = robustness_of(
        ranking, weights, draws=draws, perturbation_pct=perturbation_pct, seed=seed
    )
    cache_set(key, result, durable=durable)
    return result


# The key of a candidate's stored verification holding the measurement time (ISO) of the
# oldest evidence it used (services.scores writes it at each verification).
EVIDENCE_OLDEST_KEY = "evidence_oldest_at"


def evidence_expired_candidates(
    *, evaluation: Evaluation | None = None, now=None, include_unknown: bool = False
) -> list[int]:
    """Candidates of undecided evaluations with a maximum evidence age whose oldest evidence
    used at their last verification has since passed that age (one query). With
    ``include_unknown``, also those verified before the time was kept (or never verified)."""
    from datetime import timedelta

    from django.db.models import BooleanField, ExpressionWrapper
    from django.db.models.fields.json import KT
    from django.utils import timezone

    from .models import EvaluationStatus

    candidates = Candidate.objects.filter(evaluation__max_evidence_age_days__gt=0).exclude(
        evaluation__status=EvaluationStatus.DECIDED
    )
    if evaluation is not None:
        if not evaluation.max_evidence_age_days or evaluation.status == EvaluationStatus.DECIDED:
            return []
        candidates = candidates.filter(evaluation_id=evaluation.pk)
    rows = candidates.annotate(
        oldest=KT(f"verification__{EVIDENCE_OLDEST_KEY}"),
        known=ExpressionWrapper(
            Q(verification__has_key=EVIDENCE_OLDEST_KEY), output_field=BooleanField()
        ),
    ).values_list("pk", "evaluation__max_evidence_age_days", "known", "oldest")
    now = now or timezone.now()
    due = []
    for candidate_id, days, known, oldest in rows.order_by("pk"):
        if not known:
            if include_unknown:
                due.append(candidate_id)
        else:
            when = _stored_time(oldest)
            if when is not None and when < now - timedelta(days=days):
                due.append(candidate_id)
    return due


def _stored_time(value):
    """A time kept as ISO text in a JSON column, or None for none. A JSON null reads as None
    on PostgreSQL but as the text "null" on SQLite (the embedded mode), which
    datetime.fromisoformat refused: every page of an evaluation with a maximum evidence age
    answered 500 there while a candidate had no dated evidence. Text that is no time at all
    is none either, never an error on a page."""
    from datetime import datetime

    if not isinstance(value, str) or not value or value == "null":
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def evaluation_imports_pending(evaluation: Evaluation) -> int:
    """Uploads of the evaluation still queued or being imported (a decision waits for them)."""
    from .models import EvidenceUpload, UploadStatus

    return EvidenceUpload.objects.filter(
        candidate__evaluation_id=evaluation.pk,
        status__in=[UploadStatus.QUEUED, UploadStatus.PROCESSING],
    ).count()


def import_backlog() -> dict[str, int | float | None]:
    """The import queue as the database holds it: uploads queued and processing now, and how
    long the oldest queued one has waited since it was queued (seconds; None when none waits)."""
    from django.utils import timezone

    from .models import EvidenceUpload, UploadStatus

    counts = EvidenceUpload.objects.filter(
        status__in=(UploadStatus.QUEUED, UploadStatus.PROCESSING)
    ).aggregate(
        queued=Count("pk", filter=Q(status=UploadStatus.QUEUED)),
        processing=Count("pk", filter=Q(status=UploadStatus.PROCESSING)),
        oldest=Min("queued_at", filter=Q(status=UploadStatus.QUEUED)),
    )
    oldest = counts["oldest"]
    return {
        "queued": counts["queued"],
        "processing": counts["processing"],
        "oldest_queued_s": (
            None if oldest is None else round((timezone.now() - oldest).total_seconds(), 1)
        ),
    }


def overdue_since(now=None) -> tuple:
    """(queued before, processing since before): an upload queued or processing since before
    these moments is overdue, two sweeps of slack included (see overdue_uploads)."""
    from datetime import timedelta

    from django.utils import timezone

    now = now or timezone.now()
    slack = timedelta(seconds=2 * settings.EVIDENCE_SWEEP_INTERVAL_S)
    return (
        now - timedelta(seconds=settings.EVIDENCE_SWEEP_QUEUED_FOR_S) - slack,
        now - timedelta(seconds=settings.EVIDENCE_IMPORT_LEASE_S) - slack,
    )


def upload_overdue(upload, *, since: tuple) -> bool:
    """Whether ``upload`` waits longer than the sweeper allows (``since``: overdue_since())."""
    queued_before, held_before = since
    if upload.status == "queued":
        return (upload.queued_at or upload.created_at) < queued_before
    if upload.status == "processing":
        return upload.started_at is not None and upload.started_at < held_before
    return False


def overdue_uploads() -> dict[str, int]:
    """Uploads beat's sweeper should have sent again by now, two sweeps of slack included:
    queued (since they last entered the queue) longer than EVIDENCE_SWEEP_QUEUED_FOR_S,
    processing longer than
    EVIDENCE_IMPORT_LEASE_S. A count that stays up while the queue is empty means the sweeper
    (beat) is not running; with a long queue, the workers are behind or gone."""
    from .models import EvidenceUpload, UploadStatus

    queued_before, held_before = overdue_since()
    counts = EvidenceUpload.objects.aggregate(
        queued=Count("pk", filter=Q(status=UploadStatus.QUEUED, queued_at__lt=queued_before)),
        processing=Count(
            "pk", filter=Q(status=UploadStatus.PROCESSING, started_at__lt=held_before)
        ),
    )
    return {
        str(UploadStatus.QUEUED): counts["queued"],
        str(UploadStatus.PROCESSING): counts["processing"],
    }


def decision_evidence(records, evaluation) -> list[list[dict]]:
    """The evidence lines of each of ``records`` (decision records of ``evaluation``), each
    line with where it came from today: ``url`` of its upload's page while that upload is
    still in the evaluation with the same sha256, else ``deleted`` (the deletion record: who
    and when) or ``gone`` (no longer in the portal: its candidate was removed, or a record too
    old to name its upload has no upload of that sha256 left). Only uploads of ``evaluation``
    are linked, whatever a snapshot says; the upload's page checks membership again. Two
    queries for all the records."""
    lists = [list((getattr(r, "snapshot", None) or {}).get("evidence") or []) for r in records]
    entries = [e for found in lists for e in found if isinstance(e, dict)]

    def number(entry) -> int | None:
        upload_id = entry.get("upload_id")
        return upload_id if isinstance(upload_id, int) else None

    ids = {number(e) for e in entries} - {None}
    hashes = {e.get("sha256") for e in entries if number(e) is None and e.get("sha256")}
    if not entries:
        return [[] for _r in records]
    live, by_hash = {}, {}
    for pk, candidate_id, sha256, node_name in (
        EvidenceUpload.objects.filter(
            Q(pk__in=ids) | Q(sha256__in=hashes), candidate__evaluation=evaluation
        )
        .order_by("pk")
        .values_list("pk", "candidate_id", "sha256", "node_name")
    ):
        live[pk] = (candidate_id, sha256)
        by_hash.setdefault(sha256, []).append((pk, candidate_id, node_name))

    def by_content(entry: dict) -> tuple[int, int]:
        """(upload id, candidate id) of an upload of the entry's sha256: the same bytes may be
        an upload of each of several nodes (and candidates), so the entry's own candidate and
        node first, then the oldest."""
        pk, candidate_id, _node = min(
            by_hash[entry["sha256"]],
            key=lambda u: (u[1] != entry.get("candidate_id"), u[2] != entry.get("node_name")),
        )
        return pk, candidate_id

    deleted = {
        d.upload_id: d
        for d in EvidenceDeletion.objects.filter(
            upload_id__in=ids - set(live), candidate__evaluation=evaluation
        ).select_related("deleted_by")
    }

    def line(entry: dict) -> dict:
        upload_id = number(entry)
        found = live.get(upload_id)
        if upload_id is None and by_hash.get(entry.get("sha256")):
            upload_id, candidate_id = by_content(entry)
            found = (candidate_id, entry["sha256"])
        url = ""
        if found is not None and found[1] == entry.get("sha256"):
            url = reverse("candidate-upload-detail", args=[evaluation.pk, found[0], upload_id])
        return {
            **entry,
            "upload_number": upload_id,
            "url": url,
            "deleted": None if url else deleted.get(upload_id),
            "gone": not url and upload_id not in deleted,
        }

    return [[line(e) for e in found if isinstance(e, dict)] for found in lists]
