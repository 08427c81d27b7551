"""Load the checklist and the demo data set and create one demo user per role (idempotent)."""

from io import StringIO

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from portal.demo import demo_evidence_load
from portal.models import Evaluation, Membership, Role
from portal.services.catalogue import candidate_versions_pin_missing, catalogue_permission
from portal.services.scores import evaluation_rescore

DEMO_USERS = (
    # username, password, full name, role in every demo evaluation
    ("procurement", "procure-gpus-2026", "Pat Procurement", Role.PROCUREMENT),
    ("manager", "decide-gpus-2026", "Morgan Manager", Role.MANAGER),
    ("engineer", "measure-gpus-2026", "Erin Engineer", Role.ENGINEER),
    ("viewer", "view-gpus-2026", "Vic Viewer", Role.VIEWER),
)


class Command(BaseCommand):
    help = "Load fixtures/checklist.json and fixtures/demo.json and create the demo logins."

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-users", action="store_true", help="Load the data only; create no demo logins."
        )

    @transaction.atomic
    def handle(self, *args, **options):
        call_command("loaddata", "checklist", "demo", verbosity=0)
        # Fixtures load without history rows: give each audited model that has none a
        # "created" row per object, so that the trail starts from the demo's first state
        # (a model that already has history, as on a second run, is left alone).
        call_command("populate_history", auto=True, verbosity=0, stdout=StringIO())
        # Fixtures load raw: pin each candidate to its offering as loaded (version 1).
        candidate_versions_pin_missing()
        for evaluation in Evaluation.objects.filter(pk__in=(1, 2, 16)):
            evaluation_rescore(evaluation=evaluation, verify=True)
        demo_evidence_load()
        if options["no_users"]:
            return
        User = get_user_model()
        evaluations = list(Evaluation.objects.filter(pk__in=(1, 2, 16)))
        for username, password, full_name, role in DEMO_USERS:
            first, last = full_name.split(" ", 1)
            user, created = User.objects.get_or_create(
                username=username, defaults={"first_name": first, "last_name": last}
            )
            if created:
                user.set_password(password)
                user.save(update_fields=["password"])
            if role == Role.PROCUREMENT:
                # The demo's buyer also keeps the shared catalogue (the catalogue role).
                user.user_permissions.add(catalogue_permission())
            for evaluation in evaluations:
                Membership.objects.get_or_create(
                    evaluation=evaluation, user=user, defaults={"role": role}
                )
        self.stdout.write("Demo logins (username / password / role):")
        for username, password, _full_name, role in DEMO_USERS:
            self.stdout.write(f"  {username:<12} {password:<20} {role.label}")
