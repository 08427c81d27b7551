"""The portal's URLs plus the benches' floors: ``POST /bench/floor/`` (bench/http_import.py)
and ``GET /bench/trivial/`` (bench/pages.py, bench/scale.py).

The trivial view is a page that does nothing: a signed-in member's request through the whole
middleware stack (session, authentication, locale, CSRF, messages, the outage page) answered
with two bytes. /healthz/ was that floor until probes were answered before the middleware that
may need the database: it no longer is a page's path.

The floor endpoint is what an upload cannot do without: the same multipart POST through nginx
and gunicorn, authenticated by the same upload token (``Authorization: Bearer``), its body
read whole by Django's multipart parser, and one task published to the same Celery queue: a
no-op (an import of an upload that does not exist: its claim updates nothing). Nothing is
stored and nothing is parsed.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import include, path
from rest_framework import exceptions, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from bench.noop import NOOP_UPLOAD_ID
from portal.api.authentication import UploadTokenAuthentication
from portal.models import UploadToken
from portal.tasks import evidence_import_task


class FloorView(APIView):
    authentication_classes = [UploadTokenAuthentication]
    permission_classes = []
    parser_classes = [MultiPartParser]

    def post(self, request):
        if not isinstance(request.auth, UploadToken):
            raise exceptions.NotAuthenticated()
        received = request.data["file"].size
        evidence_import_task.delay(NOOP_UPLOAD_ID)
        return Response({"received": received}, status=status.HTTP_202_ACCEPTED)


@login_required
def trivial(request):
    return HttpResponse("ok", content_type="text/plain")


TRIVIAL = "/bench/trivial/"

urlpatterns = [
    path("bench/floor/", FloorView.as_view()),
    path(TRIVIAL.strip("/") + "/", trivial),
    path("", include("portal.urls")),
]
