"""Base classes of the API views: authentication, parsers, pagination and evaluation scoping."""

from django.utils.translation import gettext as _
from rest_framework import exceptions, generics
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer

from ...permissions import CAN_VIEW
from ..pagination import Pagination
from ..parsers import LimitedJSONParser
from ..permissions import EvaluationMember


class ApiView(generics.GenericAPIView):
    """Personal API tokens (``Authorization: Token …``) for scripts, the session for browsers.

    Token authentication comes first so that an anonymous request gets 401 with a
    WWW-Authenticate header. Upload tokens (``Bearer gpt_…``) are not accepted here: they reach
    only the evidence endpoints.
    """

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]
    pagination_class = Pagination
    # Request serializers per method, for the browsable API's forms (the schema names them
    # explicitly with extend_schema); other methods use ``serializer_class``.
    input_serializers: dict = {}

    def get_serializer_class(self):
        request = getattr(self, "request", None)
        method = getattr(request, "method", None)
        if method in self.input_serializers:
            return self.input_serializers[method]
        return super().get_serializer_class()

    def output(self, *args, **kwargs):
        """The response serializer (``serializer_class``), whatever the request's method."""
        kwargs.setdefault("context", self.get_serializer_context())
        return self.serializer_class(*args, **kwargs)


class EvaluationScopedView(ApiView):
    """A view under /evaluations/<evaluation_pk>/: members only (404 otherwise), and per method
    the roles in ``roles`` (403 otherwise). ``self.evaluation`` and ``self.membership`` are set
    by the permission check before any handler runs."""

    permission_classes = [EvaluationMember]
    roles: dict[str, frozenset] = {"GET": CAN_VIEW}

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if hasattr(self, "evaluation"):
            context["evaluation"] = self.evaluation
            context["membership"] = self.membership
        return context

    @property
    def fake(self) -> bool:
        """True while drf-spectacular inspects the view to build the schema (no request user)."""
        return getattr(self, "swagger_fake_view", False)


def not_found(message: str | None = None) -> exceptions.NotFound:
    return exceptions.NotFound(message or _("Not found."))
