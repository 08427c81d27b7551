"""The results read model's writes: entries stored in PostgreSQL (portal.selectors.cache_set
and cache_get call these) and the warming a change of an evaluation's results schedules.

Storing: one statement inserts the entry (nothing if a concurrent viewer stored the same key
first: a key always holds the same result) and deletes the evaluation's entries of the same
kind under any other fingerprint (the results of inputs that are no longer current), so the
table holds about one set of results per evaluation.

Warming: a service whose write moves an evaluation's results fingerprint calls
``results_changed``. After the commit it notes the change in Redis and, unless a warming of the
evaluation is already due, schedules one (a ``SET NX`` key with a TTL dedupes them), to run
RESULTS_WARM_DELAY_S after the last change; the task (portal.tasks.results_warm_task) then
computes what a member's dashboard and the API would read (portal.results_warm). Without
Redis (the embedded install, or Redis down) or without a worker (tasks run eagerly), nothing
is scheduled: the first view computes, as before.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from ..cache import REDIS_DOWN, ResilientRedisCache
from ..models import Candidate, ResultsEntry

logger = logging.getLogger(__name__)


def _store_sql(*, asynchronous: bool) -> str:
    """The statement that stores an entry and prunes (see the module's description).

    ``asynchronous``: the statement is its own transaction (autocommit), whose commit need
    not wait for the WAL to reach the disk (``set_config(..., true)`` sets it for that
    transaction alone): an entry lost in a crash is computed again."""
    table = connection.ops.quote_name(ResultsEntry._meta.db_table)

    def col(name: str) -> str:
        return connection.ops.quote_name(ResultsEntry._meta.get_field(name).column)

    evaluation, kind, fingerprint = col("evaluation"), col("kind"), col("fingerprint")
    values = "VALUES (%s, %s, %s, %s, %s, %s)"
    if asynchronous:
        values = (
            "SELECT %s, %s, %s, %s, %s, %s FROM "
            "(SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous"
        )
    return f"""
        WITH pruned AS (
            DELETE FROM {table}
            WHERE {evaluation} = %s AND {kind} = %s AND {fingerprint} <> %s
        )
        INSERT INTO {table}
            ({evaluation}, {col("key")}, {kind}, {fingerprint}, {col("payload")},
             {col("created_at")})
        {values}
        ON CONFLICT ({col("key")}) DO NOTHING
    """  # noqa: S608 - quoted identifiers from the model; every value a parameter


def results_entry_store(
    *, evaluation_id: int, key: str, kind: str, fingerprint: str, payload: bytes
) -> None:
    """Store a computed result (pickled and compressed: selectors.cache_set) under ``key``,
    pruning the evaluation's entries of ``kind`` under other fingerprints. Never fails its
    caller: a result that cannot be stored (the evaluation deleted meanwhile, the database
    away) is computed again when next read."""
    params = [
        evaluation_id, kind, fingerprint,
        evaluation_id, key, kind, fingerprint, payload, timezone.now(),
    ]  # fmt: skip
    try:
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            # One statement, one transaction: nothing to roll back if it fails.
            with connection.cursor() as cursor:
                cursor.execute(_store_sql(asynchronous=True), params)
            return
        # A savepoint when the caller is in a transaction, so that a failure leaves it usable.
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute(_store_sql(asynchronous=False), params)
                return
            ResultsEntry.objects.filter(evaluation_id=evaluation_id, kind=kind).exclude(
                fingerprint=fingerprint
            ).delete()
            ResultsEntry.objects.bulk_create(
                [
                    ResultsEntry(
                        evaluation_id=evaluation_id,
                        key=key,
                        kind=kind,
                        fingerprint=fingerprint,
                        payload=payload,
                    )
                ],
                ignore_conflicts=True,
            )
    except DatabaseError:
        logger.warning("results entry %s not stored", key, exc_info=True)


def results_entry_discard(*, key: str) -> None:
    """Delete the entry under ``key`` (it no longer unpickles: the next store replaces it)."""
    try:
        with transaction.atomic():
            ResultsEntry.objects.filter(key=key).delete()
    except DatabaseError:
        logger.warning("results entry %s not discarded", key, exc_info=True)


def results_entries_clear(*, evaluation_id: int | None = None) -> int:
    """Delete every stored result (of one evaluation): they are computed again when read."""
    entries = ResultsEntry.objects.all()
    if evaluation_id is not None:
        entries = entries.filter(evaluation_id=evaluation_id)
    return entries.delete()[0]


# --- warming --------------------------------------------------------------------------------

# Redis keys (in the cache's key space): when the evaluation's results last changed, and the
# warming due (its value: when the first change of the run was noted).
LAST_CHANGE_KEY = "results-warm:last:{}"
DUE_KEY = "results-warm:due:{}"

# Per process: when this process last noted a change of each evaluation (time.monotonic()). A
# run of changes (an import's batches, a rescore of every candidate) writes to Redis at most
# once per _note_interval() and evaluation: the warming runs RESULTS_WARM_DELAY_S (more than
# that) after the last change noted, so it reads the changes not noted. (One that commits
# while a warming already under way reads the data is left to the first view: a change never
# makes anything stale, its results are under a new fingerprint.)
_noted: dict[int, float] = {}


def _note_interval() -> float:
    return min(1.0, settings.RESULTS_WARM_DELAY_S / 2)


def _key_ttl() -> int:
    return int(settings.RESULTS_WARM_MAX_DELAY_S + settings.RESULTS_WARM_DELAY_S) + 60


def warm_redis():
    """(cache, redis client) for the warming's keys; None without Redis (a local-memory cache,
    or Redis marked down) or without a worker to run the task (tasks run eagerly)."""
    from ..celery import app

    backend = caches["default"]
    if not isinstance(backend, ResilientRedisCache) or backend._redis_down():
        return None
    if app.conf.task_always_eager:
        return None
    return backend, backend._cache.get_client(write=True)


def results_changed(evaluation_ids: Iterable[int | None]) -> None:
    """Have the results of these evaluations computed again by a worker after the commit (see
    the module's description). Costs nothing measurable in a write: a set of ids and, after the
    commit, at most one Redis round trip per evaluation and second."""
    ids = {pk for pk in evaluation_ids if pk}
    if ids:
        transaction.on_commit(lambda: _note_changes(ids), robust=True)


def results_changed_for_offerings(offering_ids: Iterable[int]) -> None:
    """``results_changed`` for every evaluation with a candidate of these offerings (read after
    the commit, and only when a warming can be scheduled)."""
    ids = list(offering_ids)

    def note() -> None:
        if ids and warm_redis() is not None:
            _note_changes(
                set(
                    Candidate.objects.filter(offering_id__in=ids)
                    .values_list("evaluation_id", flat=True)
                    .distinct()
                )
            )

    transaction.on_commit(note, robust=True)


def _note_changes(ids: set[int]) -> None:
    now = time.monotonic()
    due = [pk for pk in sorted(ids) if now - _noted.get(pk, float("-inf")) >= _note_interval()]
    if not due:
        return
    found = warm_redis()
    if found is None:
        return
    backend, client = found
    stamp = repr(time.time())
    try:
        pipe = client.pipeline(transaction=False)
        for pk in due:
            pipe.set(backend.make_key(LAST_CHANGE_KEY.format(pk)), stamp, ex=_key_ttl())
            pipe.set(backend.make_key(DUE_KEY.format(pk)), stamp, ex=_key_ttl(), nx=True)
        replies = pipe.execute()
    except REDIS_DOWN as exc:
        backend._mark_down(exc)
        return
    for pk in due:
        _noted[pk] = now
    for pk, scheduled in zip(due, replies[1::2], strict=True):
        if scheduled:
            _schedule(pk, settings.RESULTS_WARM_DELAY_S, backend, client)


def _schedule(evaluation_id: int, countdown: float, backend, client) -> None:
    from ..tasks import results_warm_task

    try:
        results_warm_task.apply_async(args=[evaluation_id], countdown=countdown)
    except Exception:
        # The broker is away: no warming (the first view computes); a later change tries again.
        logger.warning(
            "results warming of evaluation %s not scheduled", evaluation_id, exc_info=True
        )
        try:
            client.delete(backend.make_key(DUE_KEY.format(evaluation_id)))
        except REDIS_DOWN as exc:
            backend._mark_down(exc)


def results_warm_due(*, evaluation_id: int) -> str:
    """Run by the warming task: warm the evaluation's results now if RESULTS_WARM_DELAY_S have
    passed since its last change (or RESULTS_WARM_MAX_DELAY_S since the first of the run),
    else schedule the task again for then. Returns "warmed", "deferred" or "gone"."""
    from ..results_warm import evaluation_warm

    found = warm_redis()
    if found is not None:
        backend, client = found
        due_key = backend.make_key(DUE_KEY.format(evaluation_id))
        try:
            last, first = client.mget(
                [backend.make_key(LAST_CHANGE_KEY.format(evaluation_id)), due_key]
            )
            now = time.time()
            if last is not None and first is not None:
                wait = float(last) + settings.RESULTS_WARM_DELAY_S - now
                if wait > 0.05 and now - float(first) < settings.RESULTS_WARM_MAX_DELAY_S:
                    _schedule(evaluation_id, wait, backend, client)
                    return "deferred"
            # From here a change schedules another warming, which reads what this one missed.
            client.delete(due_key)
        except REDIS_DOWN as exc:
            backend._mark_down(exc)
    return "warmed" if evaluation_warm(evaluation_id) else "gone"
