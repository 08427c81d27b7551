"""Recording access changes made in the admin: staff, superuser and active status, groups and
permissions of a user, and the permissions of a group (models.AccessChange).

The admin saves the user or group as Django does; what it changed in access is read from the
database before and after, so the record says what was stored, not what a form meant. Callers
read ``user_access``/``group_access`` before the change and hand it to ``access_change_record``
once the change (groups and permissions included) is saved."""

from django.db import transaction

from ..models import AccessChange

USER_FIELDS = ("is_active", "is_staff", "is_superuser")
USER_SETS = ("groups", "user_permissions")


def _permission_names(permissions) -> list[str]:
    return sorted(
        f"{app_label}.{codename}"
        for app_label, codename in permissions.values_list("content_type__app_label", "codename")
    )


def user_access(user) -> dict:
    """What ``user`` may do as stored now: the three status flags, group names and direct
    permissions ("app_label.codename"). All false and empty for a user not yet saved."""
    if user is None or user.pk is None:
        return {**dict.fromkeys(USER_FIELDS, False), **{name: [] for name in USER_SETS}}
    from django.contrib.auth import get_user_model

    stored = get_user_model().objects.filter(pk=user.pk).values(*USER_FIELDS).first() or {}
    return {
        **{name: bool(stored.get(name, False)) for name in USER_FIELDS},
        "groups": sorted(user.groups.values_list("name", flat=True)) if stored else [],
        "user_permissions": _permission_names(user.user_permissions.all()) if stored else [],
    }


def group_access(group) -> dict:
    """A group's permissions as stored now, and its members (their access changes with it)."""
    if group is None or group.pk is None:
        return {"permissions": [], "members": []}
    from django.contrib.auth import get_user_model

    return {
        "permissions": _permission_names(group.permissions.all()),
        "members": sorted(
            get_user_model().objects.filter(groups=group).values_list("username", flat=True)
        ),
    }


def _diff(before: dict, after: dict, *, fields) -> list[dict]:
    return [
        {"field": name, "before": before.get(name), "after": after.get(name)}
        for name in fields
        if before.get(name) != after.get(name)
    ]


@transaction.atomic
def access_change_record(
    *, by, before: dict, user=None, group=None, created: bool = False, deleted: bool = False
) -> AccessChange | None:
    """Record what changed in the access of ``user`` (or ``group``) since ``before`` (read by
    ``user_access``/``group_access`` before the change), by ``by``. None when nothing did (a
    user's name or e-mail edited: not access). ``created``: the user or group was added by
    this save; ``deleted``: it was deleted, with all it held (a group's members are named, as
    they lost its permissions)."""
    if user is not None:
        fields = (*USER_FIELDS, *USER_SETS)
        after = user_access(None) if deleted else user_access(user)
        subject = user.get_username()
    else:
        # Members join and leave a group on their own user's page (recorded there); a deleted
        # group's members are named, as each lost what it granted.
        fields = ("permissions", "members") if deleted else ("permissions",)
        after = group_access(None) if deleted else group_access(group)
        subject = group.name
    changes = _diff(before, after, fields=fields)
    if not changes:
        return None
    known = getattr(by, "pk", None) is not None
    return AccessChange.objects.create(
        user=None if deleted else user,
        group=None if deleted else group,
        subject=subject,
        action="deleted" if deleted else "created" if created else "changed",
        changes=changes,
        changed_by=by if known else None,
        changed_by_name=by.get_username() if known else "",
    )
