"""The test database's own flush (tests/testdb) leaves what Django's flush leaves."""

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command, get_commands
from django.db import connection

from portal.models import Evaluation

from .demo_snapshot import restore
from .testdb import tables_with_rows


def _filled() -> set[str]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        return set(tables_with_rows(cursor, tables))


@pytest.mark.django_db(transaction=True)
def test_the_flush_between_tests_empties_every_table_and_keeps_the_sequences(demo_snapshot):
    assert get_commands()["flush"] == "tests.testdb"
    restore(demo_snapshot)
    assert {"portal_evaluation", "portal_measurement", "auth_user"} <= _filled()
    highest = Evaluation.objects.order_by("-pk").first().pk

    # As pytest-django's transactional tests call it.
    call_command(
        "flush", verbosity=0, interactive=False, database="default", reset_sequences=False,
        allow_cascade=False, inhibit_post_migrate=False,
    )  # fmt: skip

    # Only what post_migrate writes again, as after Django's flush.
    assert _filled() == {"django_content_type", "auth_permission"}
    assert Permission.objects.filter(codename="edit_catalogue").exists()
    ContentType.objects.clear_cache()
    assert ContentType.objects.get_for_model(Evaluation).model == "evaluation"
    created = Evaluation.objects.create(
        name="After the flush", workload_profile="pretraining", required_total_gpus=8,
        required_gpu_memory_gib=80, duration_days=30,
    )  # fmt: skip
    assert created.pk > highest
