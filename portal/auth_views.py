"""The login and logout pages, and the limit on failed logins (django-axes).

After AXES_FAILURE_LIMIT failed attempts (default 10) for one username from one client address,
further attempts with that pair are refused with HTTP 429 for AXES_COOLOFF_TIME (default 5
minutes), even with the right password: guessing stays slow. The same username from another
address is not affected, so an attacker cannot lock the real user out. The client address is
REMOTE_ADDR, or the header the trusted proxy sets (TRUSTED_PROXY_IP_HEADER) when the request
comes from one of TRUSTED_PROXIES. Attempts are kept in the database (shared by every web
worker, independent of Redis); a successful login clears the pair's count.
"""

import ipaddress
import math

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.shortcuts import render
from django.utils.translation import ngettext


def _in_trusted_proxies(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for network in settings.TRUSTED_PROXIES:
        try:
            if ip in ipaddress.ip_network(network, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_ip(request) -> str:
    """The client's address: the trusted proxy's header when the request came through it."""
    remote = request.META.get("REMOTE_ADDR", "")
    header = settings.TRUSTED_PROXY_IP_HEADER
    if header and _in_trusted_proxies(remote):
        meta_key = "HTTP_" + header.upper().replace("-", "_")
        # X-Forwarded-For lists every hop; the last one was added by the trusted proxy.
        forwarded = [part.strip() for part in request.META.get(meta_key, "").split(",")]
        forwarded = [part for part in forwarded if part]
        if forwarded:
            try:
                return str(ipaddress.ip_address(forwarded[-1]))
            except ValueError:
                pass
    return remote


def login_username(request, credentials) -> str:
    """The username a failed attempt counts against, as the login form cleans it."""
    username = (credentials or {}).get("username")
    if username is None and request is not None:
        username = request.POST.get("username", "")
    return (username or "").strip().lower()


class LoginAttemptBackend(AxesStandaloneBackend):
    """Axes' backend; a call without a request (management commands, the test client's
    ``login()``) has no client to count against and passes through."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def locked_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed login attempts for this username. Try again in %(minutes)d minute.",
        "Too many failed login attempts for this username. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the login page again with the reason, 429 and Retry-After."""
    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else 300
    # An unbound form: binding it would check the password once more.
    form = AuthenticationForm(request, initial={"username": login_username(request, credentials)})
    form.full_clean()
    form.cleaned_data = {}
    form.add_error(None, locked_message(seconds))
    response = render(request, "registration/login.html", {"form": form}, status=429)
    response["Retry-After"] = str(seconds)
    return response


class LoginView(LoginView):
    redirect_authenticated_user = True


class LogoutView(auth_views.LogoutView):
    """Signing out is a POST with the CSRF token (a link or a prefetch must not sign anyone
    out). A GET, from a bookmark or an address typed, gets a page with the button that does
    it, instead of Django's 405 with an empty body; other methods stay a 405."""

    http_method_names = ["get", "head", "post", "options"]

    def get(self, request, *args, **kwargs):
        return render(request, "registration/logout_confirm.html")


# The old names, for code that imported them.
ThrottledLoginView = LoginView

__all__ = ["LoginAttemptBackend", "LoginView", "LogoutView", "ThrottledLoginView", "client_ip"]
