"""The login page with a limit on failed attempts per username and client address.

After LOGIN_FAILURE_LIMIT failed attempts (default 10) within LOGIN_FAILURE_WINDOW_S seconds
(default 300) for one username from one address, further attempts are refused with a form error
and HTTP 429 until the window ends, even with the right password: guessing stays slow. A
successful login clears the count. Counts live in the default cache, so they are shared by the
web workers only when the cache is (Redis, say); with the per-process default each worker
counts for itself.
"""

import hashlib
import math
import time

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.utils.translation import ngettext


def _limit() -> int:
    return getattr(settings, "LOGIN_FAILURE_LIMIT", 10)


def _window_s() -> int:
    return getattr(settings, "LOGIN_FAILURE_WINDOW_S", 300)


class LoginThrottle:
    """Failed-login counter of one (username, client address) pair in a fixed window."""

    def __init__(self, request, username: str):
        address = request.META.get("REMOTE_ADDR", "")
        ident = f"{username.strip().lower()}|{address}".encode()
        self.key = "login-failures:" + hashlib.sha256(ident).hexdigest()

    def _state(self) -> tuple[int, float]:
        count, reset_at = cache.get(self.key, (0, 0.0))
        if reset_at <= time.time():
            return 0, 0.0
        return count, reset_at

    def retry_after(self) -> int | None:
        """Seconds until attempts are allowed again, or None while they are."""
        count, reset_at = self._state()
        if count >= _limit():
            return max(1, math.ceil(reset_at - time.time()))
        return None

    def failed(self) -> None:
        count, reset_at = self._state()
        now = time.time()
        if count == 0:
            reset_at = now + _window_s()
        cache.set(self.key, (count + 1, reset_at), timeout=max(1, math.ceil(reset_at - now)))

    def clear(self) -> None:
        cache.delete(self.key)


def locked_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed login attempts for this username. Try again in %(minutes)d minute.",
        "Too many failed login attempts for this username. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


class ThrottledFormMixin:
    """For an AuthenticationForm: refuses to check a password while the username is locked
    out from this address, counts failures and clears the count on success."""

    retry_after: int | None = None

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        throttle = LoginThrottle(self.request, username)
        self.retry_after = throttle.retry_after()
        if self.retry_after is not None:
            raise ValidationError(locked_message(self.retry_after), code="throttled")
        try:
            cleaned = super().clean()
        except ValidationError:
            throttle.failed()
            self.retry_after = throttle.retry_after()
            raise
        # Only a password that was checked and accepted clears the count (an empty password
        # is a form error, not a success).
        if self.get_user() is not None:
            throttle.clear()
        return cleaned


class ThrottledAuthenticationForm(ThrottledFormMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottledFormMixin, AdminAuthenticationForm):
    """The same limit for the admin's login page: ``admin.site.login_form = …``."""


class ThrottledLoginView(LoginView):
    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.retry_after is not None and form.has_error("__all__", code="throttled"):
            response.status_code = 429
            response["Retry-After"] = str(form.retry_after)
        return response


__all__ = [
    "LoginThrottle",
    "ThrottledAdminAuthenticationForm",
    "ThrottledAuthenticationForm",
    "ThrottledLoginView",
]
