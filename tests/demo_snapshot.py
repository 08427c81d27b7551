"""The demo data set for tests: built once per run by ``setup_demo``, put back per test by COPY.

``setup_demo`` loads the fixtures, scores three evaluations and imports four evidence bundles:
seconds per call, and most portal tests and every browser test start from it. The run calls the
real command once, inside a transaction that is rolled back, on a database where nothing but
the rows every migrated database has (content types, permissions) exists. It keeps what the
command wrote: every table it filled (``COPY ... TO STDOUT``), the media files it stored and
what it printed. A test then gets exactly those rows back with ``COPY ... FROM STDIN``, every
sequence set past them (as ``loaddata`` leaves it), the files back in its media folder and the
results cache empty, as it is for data nobody has read yet.

A database whose tables hold more than those migrated rows (a test that made its own rows
before asking for the demo) gets the real command instead: the copy is only ever restored
onto a database it can be restored onto exactly.
"""

import io
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction
from django.test.utils import override_settings

from .testdb import tables_with_rows


@dataclass(frozen=True)
class DemoSnapshot:
    tables: tuple[str, ...]  # every table of the project's models
    base: dict[str, bytes]  # the tables with rows before the demo: their COPY text
    base_digest: tuple[str, ...]
    demo: dict[str, bytes]  # the tables the demo fills: their COPY text
    files: dict[str, bytes]  # media files the demo stores, by name under MEDIA_ROOT
    output: str  # what setup_demo printed


def _quote(table: str) -> str:
    return connection.ops.quote_name(table)


def _digest(cursor, tables) -> tuple[str, ...]:
    """A digest of each table's rows, in ``tables`` order (one query)."""
    if not tables:
        return ()
    row_digest = "md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), ''))"
    digests = [f"(SELECT {row_digest} FROM {_quote(table)} t)" for table in tables]  # noqa: S608
    cursor.execute("SELECT " + ", ".join(digests))
    return tuple(cursor.fetchone())


def _copy_out(cursor, table: str) -> bytes:
    with cursor.cursor.copy(f"COPY {_quote(table)} TO STDOUT") as copy:
        return b"".join(bytes(chunk) for chunk in copy)


def _copy_in(cursor, table: str, data: bytes) -> None:
    with cursor.cursor.copy(f"COPY {_quote(table)} FROM STDIN") as copy:
        copy.write(data)


def sequences_reset(cursor, tables) -> None:
    """Every id sequence of ``tables`` to just past its highest id, as ``loaddata`` leaves it."""
    wanted = set(tables)
    models = [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.db_table in wanted
    ]
    statements = connection.ops.sequence_reset_sql(no_style(), models)
    if statements:
        cursor.execute("\n".join(statements))


def build() -> DemoSnapshot:
    """Run ``setup_demo`` once on the migrated rows alone and keep what it wrote."""
    tables = tuple(
        sorted(connection.introspection.django_table_names(only_existing=True, include_views=False))
    )
    media = Path(tempfile.mkdtemp(prefix="gpuportal-demo-media-"))
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            present = tables_with_rows(cursor, tables)
            base = {table: _copy_out(cursor, table) for table in present}
            # Ids from 1, as on a fresh database, whatever ran before.
            sequences_reset(cursor, tables)
            out = io.StringIO()
            with override_settings(MEDIA_ROOT=str(media)):
                call_command("setup_demo", stdout=out)
            changed = [t for t in present if _copy_out(cursor, t) != base[t]]
            if changed:
                raise RuntimeError(f"setup_demo changed rows it did not create, in {changed}")
            demo = {
                t: _copy_out(cursor, t) for t in tables_with_rows(cursor, tables) if t not in base
            }
            base_digest = _digest(cursor, list(base))
            transaction.set_rollback(True)
        files = {
            path.relative_to(media).as_posix(): path.read_bytes()
            for path in sorted(media.rglob("*"))
            if path.is_file()
        }
    finally:
        shutil.rmtree(media, ignore_errors=True)
    return DemoSnapshot(
        tables=tables,
        base=base,
        base_digest=base_digest,
        demo=demo,
        files=files,
        output=out.getvalue(),
    )


def base_restore(cursor, snapshot: DemoSnapshot) -> None:
    """The migrated rows (content types, permissions) back as the snapshot holds them, under
    its ids: a flush (after a transactional test) re-creates them under new ids, and the demo's
    rows point at the snapshot's. Only for a database holding no more than those rows."""
    if _digest(cursor, list(snapshot.base)) == snapshot.base_digest:
        return
    for table in tables_with_rows(cursor, snapshot.tables):
        cursor.execute(f"DELETE FROM {_quote(table)}")  # noqa: S608
    for table, data in snapshot.base.items():
        _copy_in(cursor, table, data)


def _restore_rows(snapshot: DemoSnapshot) -> bool:
    with transaction.atomic(), connection.cursor() as cursor:
        present = tables_with_rows(cursor, snapshot.tables)
        if not set(present) <= set(snapshot.base):
            return False
        base_restore(cursor, snapshot)
        for table, data in snapshot.demo.items():
            _copy_in(cursor, table, data)
        sequences_reset(cursor, [*snapshot.base, *snapshot.demo])
    return True


def restore(snapshot: DemoSnapshot) -> str:
    """The demo's rows and files, committed if the test's database commits; returns what
    ``setup_demo`` printed."""
    from django.contrib.contenttypes.models import ContentType

    if not _restore_rows(snapshot):
        out = io.StringIO()
        call_command("setup_demo", stdout=out)
        return out.getvalue()
    ContentType.objects.clear_cache()
    root = Path(settings.MEDIA_ROOT)
    for name, data in snapshot.files.items():
        path = root / name
        if not (path.is_file() and path.read_bytes() == data):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    # Cached results are keyed by a fingerprint of their inputs, and the restored rows carry
    # the same timestamps every time: a result cached by an earlier test would be served.
    cache.clear()
    return snapshot.output
