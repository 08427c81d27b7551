"""Access changed outside the admin is recorded too: ``manage.py createsuperuser``, the shell, a
service or a data fix that saves or deletes a user or group, or changes groups, user
permissions or a group's permissions from either side of the m2m. Made by nobody signed in, a
record says "system / command line" (EN and zh) on the admin's History and on an evaluation's
History. The admin's own changes are still one record each (tests/portal/test_access_changes.py),
including its bulk deletion."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal.models import AccessChange
from portal.services.catalogue import catalogue_permission

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db
User = get_user_model()


def _mark() -> int:
    return AccessChange.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def _since(mark: int):
    return list(AccessChange.objects.filter(pk__gt=mark).order_by("pk"))


def _fields(change: AccessChange) -> dict:
    return {c["field"]: (c["before"], c["after"]) for c in change.changes}


def _by_system(change: AccessChange) -> bool:
    return change.changed_by is None and change.changed_by_name == ""


def test_createsuperuser_on_the_command_line_records_the_grant():
    mark = _mark()
    call_command(
        "createsuperuser",
        "--noinput",
        "--username",
        "night-ops",
        "--email",
        "ops@example.com",
        stdout=io.StringIO(),
    )
    (change,) = _since(mark)
    user = User.objects.get(username="night-ops")
    assert (change.user, change.subject, change.action) == (user, "night-ops", "created")
    assert _fields(change) == {
        "is_active": (False, True),
        "is_staff": (False, True),
        "is_superuser": (False, True),
    }
    assert _by_system(change)


def test_a_flag_saved_in_code_is_recorded_and_other_saves_are_not(make_user):
    user = make_user("clerk")
    mark = _mark()
    user.is_staff = True
    user.save()
    user.is_active = False
    user.save(update_fields=["is_active"])
    (staff, inactive) = _since(mark)
    assert (staff.action, _fields(staff)) == ("changed", {"is_staff": (False, True)})
    assert _fields(inactive) == {"is_active": (True, False)}
    assert _by_system(staff) and _by_system(inactive)

    # Not access: a password, a name, a sign-in's last_login (which costs no extra query).
    mark = _mark()
    user.set_password("another-long-password-2")
    user.first_name = "Clerk"
    user.save()
    with CaptureQueriesContext(connection) as queries:
        user.save(update_fields=["last_login"])
    assert len(queries) == 1
    assert _since(mark) == []


def test_a_user_added_to_a_group_in_code_is_recorded_from_either_side(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    buyers = Group.objects.create(name="Buyers")
    mark = _mark()
    alice.groups.add(buyers)
    (change,) = _since(mark)
    assert (change.user, change.action) == (alice, "changed")
    assert _fields(change) == {"groups": ([], ["Buyers"])}
    assert _by_system(change)

    # From the group's side: one record per member, with the group named.
    mark = _mark()
    buyers.user_set.add(bob)
    buyers.user_set.clear()
    added, *cleared = _since(mark)
    assert (added.user, _fields(added)) == (bob, {"groups": ([], ["Buyers"])})
    assert {c.subject: _fields(c) for c in cleared} == {
        "alice": {"groups": (["Buyers"], [])},
        "bob": {"groups": (["Buyers"], [])},
    }

    # set() to what is there already changes nothing: nothing is recorded.
    alice.groups.set([buyers])
    mark = _mark()
    alice.groups.set([buyers])
    assert _since(mark) == []


def test_permissions_of_a_user_and_of_a_group_changed_in_code_are_recorded(make_user):
    user = make_user("keeper")
    group = Group.objects.create(name="Catalogue")
    permission = catalogue_permission()
    mark = _mark()
    user.user_permissions.add(permission)
    permission.user_set.remove(user)
    group.permissions.add(permission)
    permission.group_set.clear()
    granted, taken, group_granted, group_taken = _since(mark)
    assert _fields(granted) == {"user_permissions": ([], ["portal.edit_catalogue"])}
    assert _fields(taken) == {"user_permissions": (["portal.edit_catalogue"], [])}
    assert (group_granted.group, group_granted.subject) == (group, "Catalogue")
    assert _fields(group_granted) == {"permissions": ([], ["portal.edit_catalogue"])}
    assert _fields(group_taken) == {"permissions": (["portal.edit_catalogue"], [])}
    assert all(map(_by_system, (granted, taken, group_granted, group_taken)))


def test_a_user_or_group_deleted_in_code_is_recorded_with_what_it_held(make_user):
    staff = make_user("ops", is_staff=True)
    group = Group.objects.create(name="Ops")
    staff.groups.add(group)
    group.permissions.add(Permission.objects.get(codename="view_accesschange"))
    mark = _mark()
    group.delete()
    (gone,) = _since(mark)
    assert (gone.group, gone.subject, gone.action) == (None, "Ops", "deleted")
    assert _fields(gone) == {
        "permissions": (["portal.view_accesschange"], []),
        "members": (["ops"], []),
    }
    mark = _mark()
    staff.delete()
    (deleted,) = _since(mark)
    assert (deleted.user, deleted.subject, deleted.action) == (None, "ops", "deleted")
    assert _fields(deleted) == {"is_active": (True, False), "is_staff": (True, False)}


def test_a_change_rolled_back_leaves_no_record(make_user):
    user = make_user("temp")
    mark = _mark()
    with pytest.raises(RuntimeError), transaction.atomic():
        user.is_superuser = True
        user.save()
        raise RuntimeError("the data fix failed")
    assert _since(mark) == []
    assert not User.objects.get(username="temp").is_superuser


def test_the_admins_bulk_deletion_is_one_record_per_user_made_by_the_admin(client, make_user):
    root = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    client.force_login(root)
    doomed = [make_user("old-1", is_staff=True), make_user("old-2")]
    mark = _mark()
    response = client.post(
        reverse("admin:auth_user_changelist"),
        {"action": "delete_selected", "_selected_action": [u.pk for u in doomed], "post": "yes"},
    )
    assert response.status_code == 302
    records = _since(mark)
    assert sorted((c.subject, c.action) for c in records) == [
        ("old-1", "deleted"),
        ("old-2", "deleted"),
    ]
    assert all((c.changed_by, c.changed_by_name) == (root, "root") for c in records)


def test_the_history_pages_name_the_command_line(client, evaluation, members):
    viewer = members["viewer"]
    buyers = Group.objects.create(name="Buyers")
    viewer.groups.add(buyers)  # in the shell: nobody signed in

    root = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    client.force_login(root)
    page = client.get(reverse("admin:auth_user_history", args=[viewer.pk])).content.decode()
    row = page.split('<tr class="access-change">')[1].split("</tr>")[0]
    assert "system / command line" in row and "Buyers" in row
    listing = client.get(reverse("admin:portal_accesschange_changelist")).content.decode()
    assert "system / command line" in listing

    client.logout()
    assert client.login(username="engineer", password=PASSWORD)
    url = reverse("evaluation-history", args=[evaluation.pk])
    page = client.get(url, {"kind": "access"}).content.decode()
    assert "system / command line" in page and "Buyers" in page
    zh = client.get(url, {"kind": "access"}, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "系统／命令行" in zh
    assert "及其成员访问权限（工作人员、超级用户、组、权限）的每一次变更" in zh

    rows = client.get(f"/api/v1/evaluations/{evaluation.pk}/history/?kind=access").json()
    joined = next(r for r in rows["results"] if r["changes"][0]["field"] == "groups")
    assert (joined["user"], joined["action"]) == (None, "changed")
    assert (joined["changes"][0]["before"], joined["changes"][0]["after"]) == (None, "Buyers")


def test_a_change_made_in_a_web_request_names_its_signed_in_user(rf, make_user):
    """Outside the admin's batch, the request django-simple-history's middleware keeps gives the
    actor: a page or API view that changed access would be recorded as its user's."""
    from django.http import HttpResponse
    from simple_history.middleware import HistoryRequestMiddleware

    staff, clerk = make_user("lead", is_staff=True), make_user("clerk")
    buyers = Group.objects.create(name="Buyers")

    def view(request):
        clerk.groups.add(buyers)
        return HttpResponse()

    request = rf.post("/somewhere/")
    request.user = staff
    mark = _mark()
    HistoryRequestMiddleware(view)(request)
    (change,) = _since(mark)
    assert (change.user, change.changed_by, change.changed_by_name) == (clerk, staff, "lead")
