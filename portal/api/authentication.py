"""Bearer upload tokens for the evidence endpoints (and nothing else)."""

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from ..models.evidence import TOKEN_PREFIX
from ..services.tokens import TokenError, upload_token_authenticate


class UploadTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer gpt_…``: request.auth is the UploadToken, the user anonymous.

    The user stays anonymous on purpose: an upload token never acts with its creator's rights,
    so only views that accept an UploadToken as ``request.auth`` let it through.
    """

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0] != self.keyword:
            return None
        if len(header) != 2 or not header[1].startswith(TOKEN_PREFIX):
            return None  # not an upload token: let other authenticators try
        try:
            token = upload_token_authenticate(header[1])
        except TokenError as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from exc
        return AnonymousUser(), token

    def authenticate_header(self, request):
        return self.keyword


class UploadTokenScheme(OpenApiAuthenticationExtension):
    """Describes upload tokens in the OpenAPI schema."""

    target_class = UploadTokenAuthentication
    name = "uploadToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An upload token (gpt_…) scoped to one candidate; evidence only.",
        }
