"""The profile page: which e-mail notifications the signed-in user receives."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import capfirst
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from ..models import NotificationPreference
from ..services.notifications import (
    EVENTS,
    notification_preferences_get,
    notification_preferences_set,
)
from .common import form_status, require_form_methods


class PreferencesForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for event in EVENTS:
            self.fields[event] = forms.BooleanField(
                label=capfirst(NotificationPreference._meta.get_field(event).verbose_name),
                required=False,
            )
        site = dict(settings.LANGUAGES).get(settings.LANGUAGE_CODE, settings.LANGUAGE_CODE)
        self.fields["language"] = forms.ChoiceField(
            label=capfirst(NotificationPreference._meta.get_field("language").verbose_name),
            choices=[("", _("The site's language (%(name)s)") % {"name": site})]
            + [(code, name) for code, name in settings.LANGUAGES],
            required=False,
        )


@login_required
@require_form_methods
def notification_settings(request: HttpRequest) -> HttpResponse:
    preference = notification_preferences_get(user=request.user)
    initial = {e: getattr(preference, e) for e in EVENTS}
    # Never saved: offer the language the page is read in.
    initial["language"] = preference.language if preference.pk else get_language()
    form = PreferencesForm(initial=initial)
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            choices = {e: form.cleaned_data[e] for e in EVENTS}
            notification_preferences_set(
                user=request.user, choices=choices, language=form.cleaned_data["language"]
            )
            messages.success(request, _("Your notification settings are saved."))
            return redirect("notification-settings")
    return render(
        request,
        "portal/notification_settings.html",
        {"form": form, "email": request.user.email},
        status=form_status(form),
    )
