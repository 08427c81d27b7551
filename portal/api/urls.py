"""Routes of the REST API (mounted at /api/v1/)."""

from django.urls import path

from . import evidence

urlpatterns = [
    path("evidence/", evidence.EvidenceUploadView.as_view(), name="api-evidence-upload"),
    path("evidence/nonce/", evidence.EvidenceNonceView.as_view(), name="api-evidence-nonce"),
    path("evidence/<int:pk>/", evidence.EvidenceDetailView.as_view(), name="api-evidence-detail"),
]
