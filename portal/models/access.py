"""Access granted or taken away: a user's staff, superuser and active status, groups and
permissions, and a group's permissions, each change with who made it (nobody for the command
line and the system) and when."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _


class AccessChange(models.Model):
    """One change of a user's or a group's access (an admin save or deletion; a save, deletion
    or group or permission change anywhere else): the access fields it changed, each with its
    value before and after. Written once by portal.services.access; never edited or deleted.
    The names are kept beside the keys, so a row still says whose access changed, and who
    changed it, after either user is deleted; no name: the command line or the system."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    group = models.ForeignKey(
        "auth.Group",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("group"),
    )
    # The username or the group's name when the change was made.
    subject = models.CharField(_("whose access"), max_length=150)
    action = models.CharField(_("action"), max_length=10)  # created, changed, deleted
    # [{"field": "is_staff", "before": false, "after": true}, {"field": "groups",
    # "before": ["Buyers"], "after": ["Buyers", "Catalogue"]}, …]; permissions as
    # "app_label.codename".
    changes = models.JSONField(_("changes"), default=list)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_by_name = models.CharField(_("changed by"), max_length=150, blank=True)
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("access change")
        verbose_name_plural = _("access changes")

    def __str__(self) -> str:
        return (
            f"{self.subject} ({self.changed_at:%Y-%m-%d %H:%M})"
            if self.changed_at
            else self.subject
        )

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise ValidationError(_("An access change record cannot be changed."))
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError(_("An access change record cannot be deleted."))
