"""URL configuration of the portal."""

from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from . import (
    converters,  # noqa: F401  (registers the "id" converter)
    views_history,
)
from .api.schema import RedocView, SchemaView, SwaggerView
from .auth_views import LogoutView, ThrottledLoginView
from .metrics import metrics_view
from .views import (
    candidates,
    dashboard,
    decisions,
    errors,
    evaluations,
    favicon,
    health,
    notifications,
    portfolio,
    reviews,
)
from .views import poc as poc_views
from .views import weights as weights_views

urlpatterns = [
    path("", evaluations.evaluation_list, name="evaluation-list"),
    path("evaluations/<id:pk>/", dashboard.evaluation_detail, name="evaluation-detail"),
    path("evaluations/<id:pk>/results/", dashboard.evaluation_results, name="evaluation-results"),
    path("evaluations/<id:pk>/weights/", weights_views.weights, name="evaluation-weights"),
    path("evaluations/<id:pk>/poc-plan/", poc_views.poc_plan, name="evaluation-poc"),
    path("evaluations/<id:pk>/decision/", decisions.decision, name="evaluation-decision"),
    path("evaluations/<id:pk>/report/", decisions.report, name="evaluation-report"),
    path("evaluations/<id:pk>/report/pdf/", decisions.report_pdf, name="evaluation-report-pdf"),
    path(
        "evaluations/<id:pk>/report/pdf/<id:pdf_pk>/",
        decisions.report_pdf_status,
        name="evaluation-report-pdf-status",
    ),
    path(
        "evaluations/<id:pk>/report/pdf/<id:pdf_pk>/download/",
        decisions.report_pdf_download,
        name="evaluation-report-pdf-download",
    ),
    path("evaluations/<id:pk>/portfolio/", portfolio.portfolio, name="evaluation-portfolio"),
    path("evaluations/<id:pk>/export.<str:fmt>", decisions.export, name="evaluation-export"),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/",
        candidates.candidate_detail,
        name="candidate-detail",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/catalogue/",
        candidates.candidate_catalogue,
        name="candidate-catalogue",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/questionnaire/",
        candidates.questionnaire,
        name="candidate-questionnaire",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/questionnaire/<id:number>/",
        candidates.answer_update,
        name="answer-update",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/review/",
        reviews.candidate_review,
        name="candidate-review",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/evidence/",
        candidates.evidence_page,
        name="candidate-evidence",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/uploads/",
        candidates.upload_list,
        name="candidate-uploads",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/uploads/<id:upload_pk>/",
        candidates.upload_detail,
        name="candidate-upload-detail",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/uploads/<id:upload_pk>/report/",
        candidates.upload_report,
        name="candidate-upload-report",
    ),
    path(
        "evaluations/<id:pk>/attachments/<id:attachment_pk>/",
        candidates.attachment_download,
        name="attachment-download",
    ),
    path(
        "evaluations/<id:pk>/uploads/<id:upload_pk>/retract/",
        candidates.upload_retract,
        name="upload-retract",
    ),
    path(
        "evaluations/<id:pk>/uploads/<id:upload_pk>/download/",
        candidates.upload_download,
        name="upload-download",
    ),
    path(
        "accounts/login/",
        ThrottledLoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path(
        "accounts/notifications/", notifications.notification_settings, name="notification-settings"
    ),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path("", include("portal.urls_procurement")),
    path("api/v1/", include("portal.api.urls")),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/schema/swagger/", SwaggerView.as_view(), name="api-schema-swagger"),
    path("api/schema/redoc/", RedocView.as_view(), name="api-schema-redoc"),
    path(
        "evaluations/<id:pk>/history/",
        views_history.evaluation_history,
        name="evaluation-history",
    ),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("favicon.ico", favicon.favicon, name="favicon"),
    path("healthz/", health.healthz, name="healthz"),
    path("readyz/", health.readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
]


# JSON under /api/, translated pages elsewhere (portal.views.errors).
handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error

if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
