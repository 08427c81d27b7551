"""The portal's URLs plus the floor of bench/http_import.py: ``POST /bench/floor/``.

The floor endpoint is what an upload cannot do without: the same multipart POST through nginx
and gunicorn, authenticated by the same upload token (``Authorization: Bearer``), its body
read whole by Django's multipart parser, and one task published to the same Celery queue: a
no-op (an import of an upload that does not exist: its claim updates nothing). Nothing is
stored and nothing is parsed.
"""

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


urlpatterns = [
    path("bench/floor/", FloorView.as_view()),
    path("", include("portal.urls")),
]
