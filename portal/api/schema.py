"""The OpenAPI 3 schema and its two readers (Swagger UI, Redoc), served from the sidecar
package's static files: no CDN, so they work on an isolated network."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse, JsonResponse
from django.template import engines
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated


class StrictSerializerScheme(OpenApiSerializerExtension):
    """Bodies of strict serializers take no other property: the schema says so, so that
    generated clients (and schemathesis) do not send fields the API refuses."""

    target_class = "portal.api.serializers.base.StrictMixin"
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        schema["additionalProperties"] = False
        return schema


class DocsPermissionMixin:
    def get_permissions(self):
        if settings.API_DOCS_PUBLIC:
            return [AllowAny()]
        return [IsAuthenticated()]


class SchemaView(DocsPermissionMixin, SpectacularAPIView):
    """GET the schema (YAML, or JSON with ``?format=json`` / ``Accept: application/json``).

    A signed-in user (session or API token) only, unless API_DOCS_PUBLIC is on; an anonymous
    client gets 401 like the rest of the API."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]


class SignInPageMixin(DocsPermissionMixin):
    """The documentation pages send an anonymous visitor to the login page (unless
    API_DOCS_PUBLIC), rather than answering 401/403 to a browser."""

    def dispatch(self, request, *args, **kwargs):
        if (
            request.method in ("GET", "HEAD")
            and not settings.API_DOCS_PUBLIC
            and not request.user.is_authenticated
        ):
            return redirect_to_login(request.get_full_path())
        return super().dispatch(request, *args, **kwargs)


class SwaggerView(SignInPageMixin, SpectacularSwaggerSplitView):
    """Swagger UI; its start-up script is a separate request (no inline script, for the CSP)."""

    url_name = "api-schema"
    http_method_names = ["get", "head"]  # an HTML page: nothing to describe for OPTIONS


# drf-spectacular's Redoc page links web fonts from a CDN; this one keeps the system fonts.
REDOC_PAGE = engines["django"].from_string(
    """{% extends "drf_spectacular/redoc.html" %}{% block head %}
    <title>{{ title|default:"Redoc" }}</title>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>body { margin: 0; padding: 0; }</style>
    {% endblock head %}{% block body %}
    <div id="redoc-container"></div>
    <script src="{{ redoc_standalone }}"></script>
    <script nonce="{{ request.csp_nonce }}">
      Redoc.init(
        "{{ schema_url }}",
        {{ settings|default:"{}"|safe }},
        document.getElementById("redoc-container")
      )
    </script>
    {% endblock body %}"""
)


class RedocView(SignInPageMixin, SpectacularRedocView):
    url_name = "api-schema"
    http_method_names = ["get", "head"]

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        return HttpResponse(REDOC_PAGE.render(response.data, request))


@csrf_exempt
def api_not_found(request, path=""):
    """Unknown URLs under /api/v1/ answer JSON like every endpoint, with a hint for a missing
    trailing slash."""
    message = _("There is no API endpoint at %(path)s.") % {"path": request.path}
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != "api-not-found":
            message += " " + _("Did you mean %(path)s/ (with a trailing slash)?") % {
                "path": request.path
            }
    return JsonResponse({"detail": message}, status=404)
