"""The address browsers ask for an icon whatever the page says: /favicon.ico."""

from django.http import HttpRequest, HttpResponseRedirect
from django.templatetags.static import static
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """A redirect to the static icon (its hashed name when the manifest is on), so that a
    browser, a feed reader or a bookmark that asks /favicon.ico gets it instead of a 404 in
    every log; pages name the SVG and the ICO in base.html."""
    return HttpResponseRedirect(static("portal/favicon.ico"))
