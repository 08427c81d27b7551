"""The demo data set: loaded once onto a database without it, never written over what exists."""

import json
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction
from simple_history.exceptions import NotHistoricalModelError
from simple_history.utils import get_history_manager_for_model

from ..models import Evaluation, Membership, Role
from .catalogue import candidate_versions_pin_missing, catalogue_permission
from .evaluations import member_add
from .scores import evaluation_rescore

FIXTURE_DIR = Path(settings.BASE_DIR) / "fixtures"
CHECKLIST_FIXTURE = "checklist"
DEMO_FIXTURE = "demo"

DEMO_USERS = (
    # username, password, full name, role in every demo evaluation
    ("procurement", "procure-gpus-2026", "Pat Procurement", Role.PROCUREMENT),
    ("manager", "decide-gpus-2026", "Morgan Manager", Role.MANAGER),
    ("engineer", "measure-gpus-2026", "Erin Engineer", Role.ENGINEER),
    ("viewer", "view-gpus-2026", "Vic Viewer", Role.VIEWER),
)


@dataclass(frozen=True)
class DemoLoad:
    """What ``demo_load`` did. ``loaded``: the demo's rows were written now. ``present``: the
    demo's evaluations were already there (left as they are). ``blocked``: rows that are not
    the demo's hold its ids ("portal.vendor 1", …), so nothing of the demo was written."""

    loaded: bool
    present: bool
    blocked: tuple[str, ...]
    checklist_loaded: bool
    users_created: tuple[str, ...]
    memberships_created: int


def _fixture_rows(name: str) -> dict[str, list]:
    """The fixture's primary keys by model label, in the fixture's order."""
    with (FIXTURE_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        objects = json.load(handle)
    rows: dict[str, list] = {}
    for obj in objects:
        rows.setdefault(obj["model"], []).append(obj["pk"])
    return rows


def _taken(rows: dict[str, list]) -> list[str]:
    """The fixture rows whose primary key some row of the database already holds."""
    taken = []
    for label, pks in rows.items():
        model = apps.get_model(label)
        existing = model._default_manager.filter(pk__in=pks).values_list("pk", flat=True)
        taken += [f"{label} {pk}" for pk in sorted(existing)]
    return taken


def _history_start(rows: dict[str, list]) -> None:
    """A "created" history row for each audited row just loaded: fixtures load raw, without
    history, and the audit trail starts from the demo's first state."""
    for label, pks in rows.items():
        model = apps.get_model(label)
        try:
            history = get_history_manager_for_model(model)
        except NotHistoricalModelError:
            continue
        instances = list(model._default_manager.filter(pk__in=pks).order_by("pk"))
        history.bulk_history_create(instances, batch_size=200)


def _load(name: str, rows: dict[str, list]) -> None:
    call_command("loaddata", name, verbosity=0)
    _history_start(rows)


def _users(*, evaluations: list[Evaluation], all_users: bool) -> tuple[tuple[str, ...], int]:
    """Create the demo logins that do not exist. A login created now, or every login when the
    demo was loaded now (``all_users``), becomes a member of ``evaluations``; an existing
    login's memberships, password and permissions are left as they are."""
    User = get_user_model()
    created_names, memberships = [], 0
    for username, password, full_name, role in DEMO_USERS:
        first, last = full_name.split(" ", 1)
        user, created = User.objects.get_or_create(
            username=username, defaults={"first_name": first, "last_name": last}
        )
        if created:
            created_names.append(username)
            user.set_password(password)
            user.save(update_fields=["password"])
            if role == Role.PROCUREMENT:
                # The demo's buyer also keeps the shared catalogue (the catalogue role).
                user.user_permissions.add(catalogue_permission())
        if not (created or all_users):
            continue
        for evaluation in evaluations:
            if not Membership.objects.filter(evaluation=evaluation, user=user).exists():
                member_add(evaluation=evaluation, user=user, role=role, by=None)
                memberships += 1
    return tuple(created_names), memberships


@transaction.atomic
def demo_load(*, users: bool = True) -> DemoLoad:
    """Load the checklist and the demo (three evaluations, their candidates and answers, four
    evidence bundles, scores) onto a database that holds none of their rows, and create the
    demo logins. A database that holds them already, or other rows under their ids, is left
    exactly as it is: only missing logins are created."""
    from ..demo import demo_evidence_load

    checklist = _fixture_rows(CHECKLIST_FIXTURE)
    checklist_loaded = not _taken(checklist)
    if checklist_loaded:
        _load(CHECKLIST_FIXTURE, checklist)
    demo = _fixture_rows(DEMO_FIXTURE)
    evaluation_ids = demo.get("portal.evaluation", [])
    taken = _taken(demo)
    present = Evaluation.objects.filter(pk__in=evaluation_ids).exists()
    loaded = not taken
    if loaded:
        _load(DEMO_FIXTURE, demo)
        # Fixtures load raw: pin each candidate to its offering as loaded (version 1).
        candidate_versions_pin_missing()
        for evaluation in Evaluation.objects.filter(pk__in=evaluation_ids).order_by("pk"):
            evaluation_rescore(evaluation=evaluation, verify=True)
        demo_evidence_load()
    created, memberships = (), 0
    if users:
        evaluations = list(Evaluation.objects.filter(pk__in=evaluation_ids).order_by("pk"))
        created, memberships = _users(evaluations=evaluations, all_users=loaded)
    return DemoLoad(
        loaded=loaded,
        present=present,
        blocked=() if loaded or present else tuple(taken),
        checklist_loaded=checklist_loaded,
        users_created=created,
        memberships_created=memberships,
    )
