"""The squashed migration stands for exactly the migrations it replaces."""

import re
from pathlib import Path

from django.db.migrations.loader import MigrationLoader

MIGRATIONS = Path(__file__).resolve().parents[2] / "portal" / "migrations"


def test_the_squash_replaces_every_migration_up_to_0046_and_nothing_else():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    squashed = loader.disk_migrations["portal", "0001_squashed_0046"]
    on_disk = sorted(
        path.stem
        for path in MIGRATIONS.glob("0*.py")
        if re.match(r"00\d\d_", path.stem)
        and "squashed" not in path.stem
        and int(path.stem[:4]) <= 46
    )
    assert len(on_disk) == 46
    assert [name for _app, name in squashed.replaces] == on_disk
