"""The portal app's configuration."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = _("GPU procurement")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django import forms

        from . import (
            checks,  # noqa: F401 - registers the portal's system checks
            signals,
        )

        # Every change of a user's or a group's access is recorded (services.access).
        signals.connect()

        from .widgets import NumberTextInput

        # Every number the portal asks for (IntegerField, and DecimalField and FloatField,
        # which inherit its widget; model form fields too) is typed in a text box: a browser's
        # number box submits nothing for text it cannot read ("1,5", "1e309"), so an optional
        # field was silently cleared and a stored answer overwritten with nothing, and the
        # form could not say what was wrong. The server's field parses and explains instead,
        # and the page shows back what was typed.
        forms.IntegerField.widget = NumberTextInput

        from .numbers import install

        # ...and reads only ASCII digits (full-width digits, "1_000" and true are not numbers).
        install()
