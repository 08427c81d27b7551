"""Load the checklist and the demo data set and create one demo user per role; a database
that already holds them is left unchanged."""

from django.core.management.base import BaseCommand

from portal.services.demo import DEMO_USERS, demo_load

__all__ = ["DEMO_USERS", "Command"]


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
            self.stdout.write("demo data already present; left unchanged")
        elif result.blocked:
            shown = ", ".join(result.blocked[:5]) + (", …" if len(result.blocked) > 5 else "")
            self.stderr.write(
                f"demo data not loaded: other rows hold its ids ({shown}); nothing was changed"
            )
        if options["no_users"]:
            return
        if result.users_created and not result.loaded:
            self.stdout.write(f"created the missing demo logins: {', '.join(result.users_created)}")
        self.stdout.write("Demo logins (username / password / role):")
        for username, password, _full_name, role in DEMO_USERS:
            self.stdout.write(f"  {username:<12} {password:<20} {role.label}")
