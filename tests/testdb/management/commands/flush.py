"""Django's ``flush`` for the test database: rows are deleted rather than tables truncated.

pytest-django empties the database with ``flush`` after every transactional test (every browser
and worker test). On PostgreSQL, TRUNCATE gives every table and index a new file: seconds for
the project's tables on a busy machine, though a test leaves rows in a few of them. Deleting
the rows of the tables that hold any takes a small fraction of that and leaves the same
database: every table empty, sequences where they were (the flush between tests never resets
them) and post_migrate sent as after Django's flush. Any other use (sequences reset, cascade, the
interactive prompt) is Django's command unchanged.
"""

import contextlib
from importlib import import_module

from django.apps import apps
from django.core.management.commands import flush
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections, transaction

from tests.testdb import tables_with_rows


class Command(flush.Command):
    def handle(self, **options):
        if (
            options["interactive"]
            or options.get("reset_sequences", True)
            or options.get("allow_cascade", False)
        ):
            return super().handle(**options)
        database = options["database"]
        connection = connections[database]
        # As Django's flush: every app's management module registers its signal handlers.
        for app_config in apps.get_app_configs():
            with contextlib.suppress(ImportError):
                import_module(".management", app_config.name)
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        # Foreign keys are deferred: they are checked at commit, when every table is empty.
        with transaction.atomic(using=database), connection.cursor() as cursor:
            for table in tables_with_rows(cursor, tables):
                cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")  # noqa: S608
        if tables and not options.get("inhibit_post_migrate", False):
            emit_post_migrate_signal(options["verbosity"], False, database)
