"""The profile page: which e-mail notifications the signed-in user receives."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from ..models import NotificationPreference
from ..services.notifications import (
    EVENTS,
    notification_preferences_get,
    notification_preferences_set,
)
from .common import form_status


class PreferencesForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for event in EVENTS:
            self.fields[event] = forms.BooleanField(
                label=capfirst(NotificationPreference._meta.get_field(event).verbose_name),
                required=False,
            )


@login_required
def notification_settings(request: HttpRequest) -> HttpResponse:
    preference = notification_preferences_get(user=request.user)
    form = PreferencesForm(initial={e: getattr(preference, e) for e in EVENTS})
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            notification_preferences_set(user=request.user, choices=form.cleaned_data)
            messages.success(request, _("Your notification settings are saved."))
            return redirect("notification-settings")
    return render(
        request,
        "portal/notification_settings.html",
        {"form": form, "email": request.user.email},
        status=form_status(form),
    )
