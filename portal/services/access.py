"""Recording every change of access (models.AccessChange): a user's staff, superuser and active
status, groups and direct permissions, and a group's permissions, wherever it is made: the
admin, ``manage.py createsuperuser``, the shell, a data fix, a service.

portal.signals hands each save, deletion and membership change of a user or group (and the
reverse sides: ``group.user_set.add(…)``, ``permission.user_set.remove(…)``) to
``access_change_before`` and ``access_change_after``, which read what the database holds
before and after it, so a record says what was stored, not what a form meant. Who made it: the
``by`` of the enclosing ``access_change_batch`` (the admin opens one per request, so that a
save of the user form, which saves the user and then sets its groups and permissions, is one
record), else the signed-in user of the web request, else nobody: "system / command line".

Not seen: ``QuerySet.update()`` of the flags and bulk writes of the m2m tables, which send no
signals."""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.db import transaction

from ..models import AccessChange

USER_FIELDS = ("is_active", "is_staff", "is_superuser")
USER_SETS = ("groups", "user_permissions")
GROUP_FIELDS = ("permissions", "members")
# Where a batch keeps the state read before a change outside a batch: on the instance.
_PENDING = "_access_change_before"


def _permission_names(permissions) -> list[str]:
    return sorted(
        f"{app_label}.{codename}"
        for app_label, codename in permissions.values_list("content_type__app_label", "codename")
    )


def _is_group(obj) -> bool:
    from django.contrib.auth.models import Group

    return isinstance(obj, Group)


def user_access(user, parts=(*USER_FIELDS, *USER_SETS)) -> dict:
    """What ``user`` may do as stored now: the three status flags, group names and direct
    permissions ("app_label.codename"); only ``parts`` of them (each a query or less). All false
    and empty for a user not yet saved."""
    empty = {name: (False if name in USER_FIELDS else []) for name in parts}
    if user is None or user.pk is None:
        return empty
    from django.contrib.auth import get_user_model

    found = dict(empty)
    flags = [name for name in parts if name in USER_FIELDS]
    if flags:
        stored = get_user_model().objects.filter(pk=user.pk).values(*flags).first()
        if stored is None:
            return empty
        found.update({name: bool(stored[name]) for name in flags})
    if "groups" in parts:
        found["groups"] = sorted(user.groups.values_list("name", flat=True))
    if "user_permissions" in parts:
        found["user_permissions"] = _permission_names(user.user_permissions.all())
    return found


def group_access(group, parts=GROUP_FIELDS) -> dict:
    """A group's permissions as stored now, and its members (their access changes with it)."""
    if group is None or group.pk is None:
        return {name: [] for name in parts}
    from django.contrib.auth import get_user_model

    found = {}
    if "permissions" in parts:
        found["permissions"] = _permission_names(group.permissions.all())
    if "members" in parts:
        found["members"] = sorted(
            get_user_model().objects.filter(groups=group).values_list("username", flat=True)
        )
    return found


def _access(obj, parts=None, *, stored: bool = True) -> dict:
    """What ``obj`` (a user or a group) holds as stored now; with ``stored=False``, what one of
    its kind holds before it is created or after it is deleted: nothing."""
    if _is_group(obj):
        return group_access(obj if stored else None, parts or GROUP_FIELDS)
    return user_access(obj if stored else None, parts or (*USER_FIELDS, *USER_SETS))


def _diff(before: dict, after: dict, *, fields) -> list[dict]:
    return [
        {"field": name, "before": before.get(name), "after": after.get(name)}
        for name in fields
        if name in before and name in after and before[name] != after[name]
    ]


@transaction.atomic
def access_change_record(
    *,
    by,
    before: dict,
    after: dict | None = None,
    user=None,
    group=None,
    created: bool = False,
    deleted: bool = False,
) -> AccessChange | None:
    """Record what changed in the access of ``user`` (or ``group``) from ``before`` to ``after``
    (each read by ``user_access``/``group_access``; ``after`` is read now when not given), by
    ``by`` (None: the system or the command line). The fields compared are those both hold.
    None when nothing changed (a user's name or e-mail edited: not access). ``created``: the
    user or group was added by this change; ``deleted``: it was deleted, with all it held (a
    group's members are named, as they lost its permissions)."""
    if user is not None:
        fields = (*USER_FIELDS, *USER_SETS)
        if after is None:
            after = user_access(None) if deleted else user_access(user)
        subject = user.get_username()
    else:
        # Members join and leave a group on their own user's record; a deleted group's members
        # are named, as each lost what it granted.
        fields = GROUP_FIELDS if deleted else ("permissions",)
        if after is None:
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


@dataclass
class _Seen:
    obj: object
    before: dict
    created: bool = False
    deleted: bool = False


@dataclass
class _Batch:
    by: object
    seen: dict[tuple[str, int], _Seen] = field(default_factory=dict)

    def before(self, obj) -> None:
        key = ("group" if _is_group(obj) else "user", obj.pk)
        if obj.pk is not None and key not in self.seen:
            self.seen[key] = _Seen(obj, _access(obj))

    def after(self, obj, *, created: bool, deleted: bool) -> None:
        key = ("group" if _is_group(obj) else "user", obj.pk)
        if key not in self.seen:
            # Only a creation comes here unseen: nothing was stored before it.
            self.seen[key] = _Seen(obj, _access(obj, stored=not created))
        seen = self.seen[key]
        seen.obj = obj
        seen.created |= created
        seen.deleted |= deleted

    def write(self) -> None:
        for seen in self.seen.values():
            subject = "group" if _is_group(seen.obj) else "user"
            access_change_record(
                by=self.by,
                before=seen.before,
                **{subject: seen.obj},
                created=seen.created,
                deleted=seen.deleted,
            )


_BATCH: ContextVar[_Batch | None] = ContextVar("access_change_batch", default=None)


@contextmanager
def access_change_batch(*, by) -> Iterator[None]:
    """Within this, every access change of a user or group adds up to one record per user or
    group (what it held before the first change, what it holds at the end), made by ``by``,
    written at the end in the same transaction as the changes. A batch inside a batch is part
    of the outer one."""
    if _BATCH.get() is not None:
        yield
        return
    batch = _Batch(by)
    token = _BATCH.set(batch)
    try:
        with transaction.atomic():
            yield
            batch.write()
    finally:
        _BATCH.reset(token)


def _request_user():
    """The signed-in user of the web request being served (django-simple-history's middleware
    keeps the request), else None."""
    from simple_history.models import HistoricalRecords

    request = getattr(HistoricalRecords.context, "request", None)
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def access_change_before(*, subjects, parts=None) -> None:
    """Called before a change of the access of each of ``subjects`` (users or groups) that may
    touch ``parts`` of it (None: all): keeps what each holds now."""
    batch = _BATCH.get()
    for obj in subjects:
        if batch is not None:
            batch.before(obj)
        elif obj.pk is not None and not obj._state.adding:
            obj.__dict__[_PENDING] = _access(obj, parts)


def access_change_after(
    *, subjects, parts=None, created: bool = False, deleted: bool = False
) -> None:
    """Called after the change ``access_change_before`` saw: records it (or, in a batch, notes
    it for the batch's record). ``created``: ``subjects`` were inserted by it (nothing was
    stored before); ``deleted``: deleted by it."""
    batch = _BATCH.get()
    for obj in subjects:
        if batch is not None:
            batch.after(obj, created=created, deleted=deleted)
            continue
        before = obj.__dict__.pop(_PENDING, None)
        if before is None:
            if not created:
                continue  # its state before was not read (a save that began in a batch)
            before = _access(obj, parts, stored=False)
        after = _access(obj, parts, stored=not deleted)
        subject = "group" if _is_group(obj) else "user"
        access_change_record(
            by=_request_user(),
            before=before,
            after=after,
            **{subject: obj},
            created=created,
            deleted=deleted,
        )
