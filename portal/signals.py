"""Signal receivers: each change of a user's or a group's access (their saves and deletions, and
the groups, user_permissions and permissions m2m tables from either side) is handed to
portal.services.access, which records it. Connected in PortalConfig.ready()."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete, pre_save

from .services.access import USER_FIELDS, access_change_after, access_change_before

# Where an m2m change keeps the users or groups it touches between its pre_ and post_ signal.
_M2M_SUBJECTS = "_access_m2m_subjects"


def _saves_access(update_fields) -> bool:
    """A save that writes a flag; ``save(update_fields=["last_login"])`` (every sign-in) does
    not."""
    return update_fields is None or bool(set(update_fields) & set(USER_FIELDS))


def _user_pre_save(sender, instance, raw=False, update_fields=None, **kwargs):
    if not raw and _saves_access(update_fields):
        access_change_before(subjects=[instance], parts=USER_FIELDS)


def _user_post_save(sender, instance, created, raw=False, update_fields=None, **kwargs):
    if not raw and _saves_access(update_fields):
        access_change_after(subjects=[instance], parts=USER_FIELDS, created=created)


def _group_post_save(sender, instance, created, raw=False, **kwargs):
    # A new group grants nothing until permissions are added; in a batch (the admin's add page)
    # the record of those says "created".
    if created and not raw:
        access_change_after(subjects=[instance], parts=("permissions",), created=True)


def _pre_delete(sender, instance, **kwargs):
    access_change_before(subjects=[instance])


def _post_delete(sender, instance, **kwargs):
    access_change_after(subjects=[instance], deleted=True)


def _m2m_subjects(instance, reverse, model, pk_set, relation: str) -> list:
    """The users (or groups) whose ``relation`` a change of the m2m table touches: ``instance``
    from the forward side; from the reverse side (``group.user_set.add(…)``), the rows of
    ``pk_set``, or for a clear every one linked to ``instance`` now."""
    if not reverse:
        return [instance]
    if pk_set is not None:
        return list(model.objects.filter(pk__in=pk_set))
    return list(model.objects.filter(**{relation: instance}))


def _m2m_receiver(relation: str):
    def receiver(sender, instance, action, reverse, model, pk_set, **kwargs):
        if action in ("pre_add", "pre_remove", "pre_clear"):
            subjects = _m2m_subjects(instance, reverse, model, pk_set, relation)
            instance.__dict__[f"{_M2M_SUBJECTS}_{sender._meta.db_table}"] = subjects
            access_change_before(subjects=subjects, parts=(relation,))
        elif action in ("post_add", "post_remove", "post_clear"):
            subjects = instance.__dict__.pop(f"{_M2M_SUBJECTS}_{sender._meta.db_table}", [])
            access_change_after(subjects=subjects, parts=(relation,))

    return receiver


_user_groups_changed = _m2m_receiver("groups")
_user_permissions_changed = _m2m_receiver("user_permissions")
_group_permissions_changed = _m2m_receiver("permissions")


def _receivers():
    """(signal, receiver, sender, dispatch_uid) of each connection."""
    User = get_user_model()
    uid = "portal.access."
    yield pre_save, _user_pre_save, User, uid + "user_pre_save"
    yield post_save, _user_post_save, User, uid + "user_post_save"
    yield post_save, _group_post_save, Group, uid + "group_post_save"
    for model in (User, Group):
        name = model._meta.model_name
        yield pre_delete, _pre_delete, model, f"{uid}{name}_pre_delete"
        yield post_delete, _post_delete, model, f"{uid}{name}_post_delete"
    for through, receiver in (
        (User.groups.through, _user_groups_changed),
        (User.user_permissions.through, _user_permissions_changed),
        (Group.permissions.through, _group_permissions_changed),
    ):
        yield m2m_changed, receiver, through, uid + through.__name__


def connect() -> None:
    for signal, receiver, sender, uid in _receivers():
        signal.connect(receiver, sender=sender, dispatch_uid=uid)
