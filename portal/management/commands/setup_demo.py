"""Load the checklist and the demo data set and create one demo user per role; a database
that already holds them is left unchanged.

What it prints is read by the person who starts the portal (``scripts/run.sh``), so every
line is given in both of the portal's languages, English first."""

from django.core.management.base import BaseCommand
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from portal.services.demo import DEMO_USERS, demo_load

__all__ = ["DEMO_USERS", "Command", "bilingual"]


def bilingual(message, **params) -> str:
    """``message`` (a lazy translation) in English, then " / " and in Chinese."""
    shown = []
    for language in ("en", "zh-hans"):
        with translation.override(language):
            shown.append(str(message) % params if params else str(message))
    return shown[0] if shown[1] == shown[0] else f"{shown[0]} / {shown[1]}"


_PRESENT = _("demo data already present; left unchanged")
_BLOCKED = _("demo data not loaded: other rows hold its ids (%(rows)s); nothing was changed")
_CREATED = _("created the missing demo logins: %(users)s")
_LOGINS = _("Demo logins (username / password / role):")


class Command(BaseCommand):
    help = (
        "Load fixtures/checklist.json and fixtures/demo.json onto a database without them and "
        "create the demo logins. Existing rows are never changed: to start over, delete the "
        "database (db.sqlite3 in the embedded mode)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-users", action="store_true", help="Load the data only; create no demo logins."
        )

    def handle(self, *args, **options):
        result = demo_load(users=not options["no_users"])
        if result.present:
            self.stdout.write(bilingual(_PRESENT))
        elif result.blocked:
            shown = ", ".join(result.blocked[:5]) + (", …" if len(result.blocked) > 5 else "")
            self.stderr.write(bilingual(_BLOCKED, rows=shown))
        if options["no_users"]:
            return
        if result.users_created and not result.loaded:
            self.stdout.write(bilingual(_CREATED, users=", ".join(result.users_created)))
        self.stdout.write(bilingual(_LOGINS))
        for username, password, _full_name, role in DEMO_USERS:
            self.stdout.write(f"  {username:<12} {password:<20} {bilingual(role.label)}")
