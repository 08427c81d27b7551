"""Routes of the REST API (mounted at /api/v1/)."""

from django.urls import path, re_path

from .. import converters  # noqa: F401  (registers the "id" converter)
from . import evidence, views
from .schema import api_not_found
from .views.poc import PocCoverageView, PocPlanView
from .views.portfolio import PortfolioDecisionView, PortfolioView, WorkloadDetail, WorkloadList

EVALUATION = "evaluations/<id:evaluation_pk>/"
CANDIDATE = EVALUATION + "candidates/<id:candidate_pk>/"
TOKENS = EVALUATION + "upload-tokens/"

urlpatterns = [
    path("evidence/", evidence.EvidenceUploadView.as_view(), name="api-evidence-upload"),
    path("evidence/nonce/", evidence.EvidenceNonceView.as_view(), name="api-evidence-nonce"),
    path("evidence/<id:pk>/", evidence.EvidenceDetailView.as_view(), name="api-evidence-detail"),
    path("me/", views.MeView.as_view(), name="api-me"),
    path("checklist/", views.ChecklistList.as_view(), name="api-checklist"),
    path("vendors/", views.VendorList.as_view(), name="api-vendor-list"),
    path("vendors/<id:pk>/", views.VendorDetail.as_view(), name="api-vendor-detail"),
    path("offerings/", views.OfferingList.as_view(), name="api-offering-list"),
    path("offerings/<id:pk>/", views.OfferingDetail.as_view(), name="api-offering-detail"),
    path(
        "offerings/<id:offering_pk>/prices/",
        views.OfferingPriceList.as_view(),
        name="api-offering-price-list",
    ),
    path(
        "offerings/<id:offering_pk>/prices/<id:price_pk>/",
        views.OfferingPriceDetail.as_view(),
        name="api-offering-price-detail",
    ),
    path("evaluations/", views.EvaluationList.as_view(), name="api-evaluation-list"),
    path(EVALUATION, views.EvaluationDetail.as_view(), name="api-evaluation-detail"),
    path(EVALUATION + "members/", views.MemberList.as_view(), name="api-member-list"),
    path(
        EVALUATION + "members/<id:member_pk>/",
        views.MemberDetail.as_view(),
        name="api-member-detail",
    ),
    path(EVALUATION + "candidates/", views.CandidateList.as_view(), name="api-candidate-list"),
    path(CANDIDATE, views.CandidateDetail.as_view(), name="api-candidate-detail"),
    path(
        CANDIDATE + "catalogue/",
        views.CandidateCatalogueView.as_view(),
        name="api-candidate-catalogue",
    ),
    path(
        CANDIDATE + "integrity/",
        views.CandidateIntegrityView.as_view(),
        name="api-candidate-integrity",
    ),
    path(CANDIDATE + "answers/", views.AnswerList.as_view(), name="api-answer-list"),
    path(CANDIDATE + "answers/<str:item>/", views.AnswerDetail.as_view(), name="api-answer-detail"),
    path(EVALUATION + "weights/", views.WeightsView.as_view(), name="api-weights"),
    path(EVALUATION + "poc-plan/", PocPlanView.as_view(), name="api-poc-plan"),
    path(CANDIDATE + "poc-coverage/", PocCoverageView.as_view(), name="api-poc-coverage"),
    path(TOKENS, views.UploadTokenList.as_view(), name="api-upload-token-list"),
    path(
        TOKENS + "<id:token_pk>/",
        views.UploadTokenDetail.as_view(),
        name="api-upload-token-detail",
    ),
    path(
        TOKENS + "<id:token_pk>/revoke/",
        views.UploadTokenRevoke.as_view(),
        name="api-upload-token-revoke",
    ),
    path(EVALUATION + "uploads/", views.UploadList.as_view(), name="api-upload-list"),
    path(
        EVALUATION + "uploads/<id:upload_pk>/",
        views.UploadDetail.as_view(),
        name="api-upload-detail",
    ),
    path(
        EVALUATION + "measurements/", views.MeasurementList.as_view(), name="api-measurement-list"
    ),
    path(EVALUATION + "scores/", views.ScoreList.as_view(), name="api-score-list"),
    path(EVALUATION + "ranking/", views.RankingView.as_view(), name="api-ranking"),
    path(EVALUATION + "robustness/", views.RobustnessView.as_view(), name="api-robustness"),
    path(EVALUATION + "decision/", views.DecisionView.as_view(), name="api-decision"),
    path(
        EVALUATION + "decision/reopen/",
        views.DecisionReopenView.as_view(),
        name="api-decision-reopen",
    ),
    path(EVALUATION + "history/", views.HistoryView.as_view(), name="api-history"),
    path(EVALUATION + "portfolio/", PortfolioView.as_view(), name="api-portfolio"),
    path(
        EVALUATION + "portfolio/decision/",
        PortfolioDecisionView.as_view(),
        name="api-portfolio-decision",
    ),
    path(EVALUATION + "workloads/", WorkloadList.as_view(), name="api-workload-list"),
    path(
        EVALUATION + "workloads/<id:workload_pk>/",
        WorkloadDetail.as_view(),
        name="api-workload-detail",
    ),
    # Last: anything else under /api/v1/ is a JSON 404, never an HTML page.
    re_path(r"^(?P<path>.*)$", api_not_found, name="api-not-found"),
]
