"""Every grant made in the admin is traced to the person who made it: a user's staff,
superuser and active status, groups and permissions (the catalogue role among them), a group's
permissions, and a deletion of either, each recorded with the values before and after, who and
when. An auditor reads them on the user's or group's History page in the admin, in the admin's
list of access changes, and in the History (page and API) of each evaluation the user is a
member of. The records cannot be changed or deleted."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.urls import reverse

from portal.models import AccessChange
from portal.services.catalogue import catalogue_permission, is_catalogue_editor

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(db):
    return get_user_model().objects.create_superuser(
        "root", "root@example.com", "pw-123456789", first_name="Robin", last_name="Root"
    )


@pytest.fixture
def admin_client(client, root):
    client.force_login(root)
    return client


def _user_form(user, **changes) -> dict:
    """What the admin's user form posts for ``user`` as stored, with ``changes``."""
    data = {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "groups": [g.pk for g in user.groups.all()],
        "user_permissions": [p.pk for p in user.user_permissions.all()],
    }
    for flag in ("is_active", "is_staff", "is_superuser"):
        if getattr(user, flag):
            data[flag] = "on"
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def _change(client, user, **changes):
    url = reverse("admin:auth_user_change", args=[user.pk])
    response = client.post(url, _user_form(user, **changes))
    assert response.status_code == 302, response.content.decode()[:2000]


def _fields(change: AccessChange) -> dict:
    return {c["field"]: (c["before"], c["after"]) for c in change.changes}


def _mark() -> int:
    """The newest record now: the fixtures' users and grants are recorded too."""
    return AccessChange.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def _since(mark: int):
    return AccessChange.objects.filter(pk__gt=mark).order_by("pk")


def test_granting_staff_superuser_a_group_and_the_catalogue_role_is_recorded(
    admin_client, root, members
):
    viewer = members["viewer"]
    editors = Group.objects.create(name="Catalogue editors")
    mark = _mark()
    _change(
        admin_client,
        viewer,
        is_staff="on",
        is_superuser="on",
        groups=[editors.pk],
        user_permissions=[catalogue_permission().pk],
    )
    viewer.refresh_from_db()
    assert viewer.is_staff and viewer.is_superuser and is_catalogue_editor(viewer)
    change = _since(mark).get()  # one record: the row, its groups and permissions together
    assert (change.user, change.subject, change.action) == (viewer, "viewer", "changed")
    assert (change.changed_by, change.changed_by_name) == (root, "root")
    assert _fields(change) == {
        "is_staff": (False, True),
        "is_superuser": (False, True),
        "groups": ([], ["Catalogue editors"]),
        "user_permissions": ([], ["portal.edit_catalogue"]),
    }

    # Taken away again: the values before are what the first change granted.
    viewer.refresh_from_db()
    mark = _mark()
    _change(admin_client, viewer, is_superuser=None, groups=[], user_permissions=[])
    latest = _since(mark).get()
    assert _fields(latest) == {
        "is_superuser": (True, False),
        "groups": (["Catalogue editors"], []),
        "user_permissions": (["portal.edit_catalogue"], []),
    }


def test_a_user_added_in_the_admin_is_recorded_as_created(admin_client, root):
    mark = _mark()
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "newbuyer",
            "password1": "a-long-enough-password-1",
            "password2": "a-long-enough-password-1",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    change = _since(mark).get()
    assert (change.subject, change.action, change.changed_by) == ("newbuyer", "created", root)
    assert _fields(change) == {"is_active": (False, True)}


def test_a_save_that_changes_no_access_records_nothing(admin_client, members):
    mark = _mark()
    _change(admin_client, members["engineer"], email="engineer@example.com", first_name="Eng")
    assert get_user_model().objects.get(username="engineer").email == "engineer@example.com"
    assert not _since(mark).exists()


def test_a_groups_permissions_and_its_deletion_are_recorded(admin_client, members):
    group = Group.objects.create(name="Buyers")
    members["procurement"].groups.add(group)
    mark = _mark()
    url = reverse("admin:auth_group_change", args=[group.pk])
    response = admin_client.post(
        url, {"name": "Buyers", "permissions": [catalogue_permission().pk]}
    )
    assert response.status_code == 302
    change = _since(mark).get()
    assert (change.group, change.subject, change.action) == (group, "Buyers", "changed")
    assert _fields(change) == {"permissions": ([], ["portal.edit_catalogue"])}

    delete = reverse("admin:auth_group_delete", args=[group.pk])
    mark = _mark()
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    gone = _since(mark).get()
    assert (gone.group, gone.subject, gone.action) == (None, "Buyers", "deleted")
    assert _fields(gone) == {
        "permissions": (["portal.edit_catalogue"], []),
        "members": (["procurement"], []),
    }


def test_deleting_a_staff_user_records_what_they_held(admin_client, make_user):
    staff = make_user("ops", is_staff=True)
    delete = reverse("admin:auth_user_delete", args=[staff.pk])
    mark = _mark()
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    change = _since(mark).get()
    assert (change.user, change.subject, change.action) == (None, "ops", "deleted")
    assert _fields(change) == {"is_active": (True, False), "is_staff": (True, False)}


def test_the_records_cannot_be_changed_or_deleted(admin_client, members):
    mark = _mark()
    _change(admin_client, members["viewer"], is_staff="on")
    change = _since(mark).get()
    change.changes = []
    with pytest.raises(ValidationError):
        change.save()
    with pytest.raises(ValidationError):
        change.delete()
    url = reverse("admin:portal_accesschange_change", args=[change.pk])
    assert admin_client.post(url, {}).status_code == 403
    assert _since(mark).get().changes != []


def test_the_admin_shows_them_on_the_users_history_and_in_its_list(admin_client, members):
    _change(admin_client, members["viewer"], is_staff="on")
    history = admin_client.get(reverse("admin:auth_user_history", args=[members["viewer"].pk]))
    page = history.content.decode()
    row = page.split('<tr class="access-change">')[1].split("</tr>")[0]
    assert "root" in row
    assert "<strong>staff status</strong>: <del>no</del> → <ins>yes</ins>" in row
    listing = admin_client.get(reverse("admin:portal_accesschange_changelist")).content.decode()
    assert "staff status: no → yes" in listing and "viewer" in listing


def test_an_evaluations_history_shows_its_members_access_changes(
    admin_client, client, evaluation, members
):
    group = Group.objects.create(name="Buyers")
    members["procurement"].groups.add(group)
    mark = _mark()
    _change(admin_client, members["viewer"], is_staff="on")
    admin_client.post(
        reverse("admin:auth_group_change", args=[group.pk]),
        {"name": "Buyers", "permissions": [catalogue_permission().pk]},
    )
    # Someone in no evaluation of the reader's: not in this evaluation's history.
    outsider = get_user_model().objects.get(username="outsider")
    _change(admin_client, outsider, is_staff="on")
    assert _since(mark).count() == 3

    client.logout()
    assert client.login(username="engineer", password=PASSWORD)
    url = reverse("evaluation-history", args=[evaluation.pk])
    page = client.get(url, {"kind": "access"}).content.decode()
    assert page.count("Access of a member (staff, superuser, groups, permissions)") >= 2
    assert "Robin Root (root)" in page
    assert "staff status" in page and "<del>no</del> → <ins>yes</ins>" in page
    assert "group Buyers" in page and "portal.edit_catalogue" in page
    assert "outsider" not in page

    rows = client.get(f"/api/v1/evaluations/{evaluation.pk}/history/?kind=access").json()
    results = rows["results"]
    assert {r["object_label"] for r in results} >= {"group Buyers"}
    staff = next(r for r in results if r["changes"][0]["field"] == "is_staff")
    assert (staff["user"], staff["action"]) == ("root", "changed")
    assert (staff["changes"][0]["before"], staff["changes"][0]["after"]) == ("no", "yes")

    zh = client.get(url, {"kind": "access"}, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "成员的访问权限（工作人员、超级用户、组、权限）" in zh
    assert "用户组 Buyers" in zh
