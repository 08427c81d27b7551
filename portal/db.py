"""Database helpers the ORM lacks."""

import json
import time
from collections.abc import Sequence
from datetime import datetime

from django.db import connection, models

# Field classes (exactly these, not subclasses that may convert) and the Python types whose
# values their get_db_prep_save returns unchanged on PostgreSQL. copy_insert writes such
# values as they are: the conversion call costs more than the write, row by row.
_UNCHANGED = {
    models.CharField: (str, type(None)),
    models.TextField: (str, type(None)),
    models.FloatField: (float, type(None)),
    models.IntegerField: (int, type(None)),
    models.PositiveIntegerField: (int, type(None)),
    models.BigIntegerField: (int, type(None)),
    models.DateTimeField: (datetime, type(None)),  # aware only: see copy_insert
}
_KEYS = {models.AutoField, models.BigAutoField}


def _json_text(field: models.Field) -> bool:
    """Whether ``field`` stores what ``json.dumps`` gives (a JSONField without an encoder,
    which Django adapts as Jsonb(value, dumps=json.dumps)): copy_insert then writes that text
    itself, ``{}`` without a call for the empty dict most rows hold."""
    return type(field) is models.JSONField and field.encoder is None


def _unchanged(field: models.Field) -> tuple[type, ...]:
    if type(field) is models.ForeignKey and type(field.target_field) in _KEYS:
        return (int, type(None))
    return _UNCHANGED.get(type(field), ())


def copy_insert(model: type[models.Model], objects: Sequence[models.Model]) -> int:
    """Insert unsaved ``objects`` of ``model``; returns how many.

    On PostgreSQL through ``COPY … FROM STDIN``: for the hundred-odd measurements of an
    evidence import it costs about half of ``bulk_create``, whose parameters psycopg quotes
    one by one in Python. Elsewhere (SQLite, the embedded default) it is ``bulk_create``.
    Primary keys are not set on the objects, and no signals are sent (as with bulk_create).
    The statement is logged like any query when queries are logged (DEBUG, test captures).
    """
    if not objects:
        return 0
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objects, batch_size=500)
        return len(objects)
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    plain = [_unchanged(f) for f in fields]
    texts = [_json_text(f) for f in fields]
    # A field that computes its value when written (auto_now, a copied evaluation) gives it
    # through pre_save, as bulk_create asks it.
    computed = [type(f).pre_save is not models.Field.pre_save for f in fields]
    columns = list(zip(fields, plain, texts, computed, strict=True))

    def rows():
        for obj in objects:
            row = []
            for f, unchanged, as_json, by_field in columns:
                value = f.pre_save(obj, True) if by_field else getattr(obj, f.attname)
                if as_json and type(value) in (dict, list):
                    # COPY's text format: the column reads the JSON text as Jsonb would send it.
                    value = json.dumps(value) if value else ("{}" if type(value) is dict else "[]")
                elif type(value) not in unchanged or (
                    type(value) is datetime and value.tzinfo is None
                ):
                    value = f.get_db_prep_save(value, connection)
                row.append(value)
            yield row

    # A computed value may need a query (the evaluation of a candidate not loaded): never on
    # the connection while it is in COPY, where it would wait forever for the COPY to end.
    made = list(rows()) if any(computed) else rows()
    return _copy(model, fields, made, len(objects))


def copy_rows(model: type[models.Model], rows: Sequence[tuple]) -> int:
    """``copy_insert`` of rows given as tuples of column values, in the order of the model's
    concrete fields without the primary key, each already as COPY takes it: JSON columns as
    their JSON text, datetimes aware, ids for foreign keys. For callers that build many rows
    (an import's measurements): no object per row, no conversion per value. PostgreSQL only."""
    if not rows:
        return 0
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    return _copy(model, fields, rows, len(rows))


def _copy(model: type[models.Model], fields: list, rows, count: int) -> int:
    quote = connection.ops.quote_name
    sql = (
        f"COPY {quote(model._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in fields)}) FROM STDIN"
    )
    started = time.monotonic()
    # Errors come out as Django's (IntegrityError, OperationalError…), as from the ORM: the
    # import task retries on those.
    with (
        connection.cursor() as cursor,
        connection.wrap_database_errors,
        cursor.cursor.copy(sql) as copy,
    ):
        write = copy.write_row
        for row in rows:
            write(row)
    if connection.queries_logged:
        connection.queries_log.append(
            {"sql": f"{sql} -- {count} rows", "time": f"{time.monotonic() - started:.3f}"}
        )
    return count


_HISTORY_FIELDS = {"history_id", "history_date", "history_change_reason", "history_type"}


def _history_user_id(instance: models.Model) -> int | None:
    """The user simple_history would record for ``instance``'s creation: the one set on it
    (``_history_user``), else the request's authenticated user (its middleware's), else none."""
    from simple_history.models import HistoricalRecords

    user = getattr(instance, "_history_user", None)
    if user is None:
        request = getattr(HistoricalRecords.context, "request", None)
        user = getattr(request, "user", None)
        if user is not None and not user.is_authenticated:
            user = None
    return None if user is None else user.pk


def insert_with_history(instance: models.Model) -> None:
    """Insert the unsaved ``instance`` and, when its model keeps a django-simple-history
    record and history is enabled, the creation's history row, as ``instance.save()`` would.

    On PostgreSQL one statement writes both (the history row selected from the inserted one):
    an evidence upload's save was the ORM's compilation of two inserts, a historical model
    instance and its signals, a tenth of the upload request's CPU. No save signals are sent
    (no receiver of the models it is used for needs them; simple_history's is written here).
    Elsewhere it is ``instance.save()``."""
    from django.conf import settings

    if connection.vendor != "postgresql":
        instance.save()
        return
    meta = instance._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    values = [f.get_db_prep_save(f.pre_save(instance, add=True), connection) for f in fields]
    quote = connection.ops.quote_name
    # Identifiers from the models' metadata only, values as parameters.
    insert = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"  # noqa: S608
        f" VALUES ({', '.join(['%s'] * len(fields))})"
    )
    sql = f"{insert} RETURNING {quote(meta.pk.column)}"
    history = getattr(meta, "simple_history_manager_attribute", None)
    if history and getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
        from django.utils import timezone

        historical = getattr(type(instance), history).model
        own = historical._meta
        # The tracked columns come from the inserted row, the history's own from here.
        tracked = [
            f
            for f in own.concrete_fields
            if f.attname not in _HISTORY_FIELDS and f.attname != "history_user_id"
        ]
        user_type = own.get_field("history_user").db_type(connection)
        columns = [*(f.column for f in tracked), "history_date", "history_change_reason"]
        columns += ["history_type", "history_user_id"]
        sql = (
            f"WITH inserted AS ({insert} RETURNING *),"  # noqa: S608
            f" history AS (INSERT INTO {quote(own.db_table)}"
            f" ({', '.join(quote(column) for column in columns)})"
            f" SELECT {', '.join('inserted.' + quote(f.column) for f in tracked)},"
            f" %s::timestamptz, %s::varchar, '+', %s::{user_type} FROM inserted)"
            f" SELECT {quote(meta.pk.column)} FROM inserted"
        )
        values += [
            getattr(instance, "_history_date", None) or timezone.now(),
            getattr(instance, "_change_reason", None),
            _history_user_id(instance),
        ]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        instance.pk = cursor.fetchone()[0]
    instance._state.adding = False
    instance._state.db = connection.alias


def history_record_changes(
    model: type[models.Model], ids: Sequence[int], *, at: datetime, user_id: int | None = None
) -> None:
    """Write a "changed" history row for each row ``ids`` of ``model`` as it now stands, for
    changes made with ``update()`` (which simple_history does not see), stamped ``at``.

    On PostgreSQL one ``INSERT … SELECT`` whatever the number of rows (the history row selected
    from the row itself, as ``insert_with_history`` does); elsewhere simple_history's
    ``bulk_history_create``. Nothing when the model keeps no history or history is disabled."""
    from django.conf import settings

    meta = model._meta
    history = getattr(meta, "simple_history_manager_attribute", None)
    if not ids or not history or not getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
        return
    manager = getattr(model, history)
    if connection.vendor != "postgresql":
        manager.bulk_history_create(
            list(model.objects.filter(pk__in=ids)),
            update=True,
            default_date=at,
            default_user=None if user_id is None else _user(user_id),
        )
        return
    own = manager.model._meta
    tracked = [
        f
        for f in own.concrete_fields
        if f.attname not in _HISTORY_FIELDS and f.attname != "history_user_id"
    ]
    user_type = own.get_field("history_user").db_type(connection)
    quote = connection.ops.quote_name
    columns = [*(f.column for f in tracked), "history_date", "history_change_reason"]
    columns += ["history_type", "history_user_id"]
    with connection.cursor() as cursor:
        cursor.execute(
            # Identifiers from the models' metadata only, values as parameters.
            f"INSERT INTO {quote(own.db_table)} ({', '.join(quote(c) for c in columns)})"  # noqa: S608
            f" SELECT {', '.join('r.' + quote(f.column) for f in tracked)},"
            f" %s::timestamptz, NULL, '~', %s::{user_type}"
            f" FROM {quote(meta.db_table)} AS r WHERE r.{quote(meta.pk.column)} = ANY(%s)",
            [at, user_id, list(ids)],
        )


def _user(user_id: int):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=user_id)
