"""Routes of the procurement pages (catalogue, candidates, upload tokens, collector download);
included at the root by portal/urls.py."""

from django.urls import path

from . import converters  # noqa: F401  (registers the "id" converter)
from .views import candidates_admin, catalogue, evaluations_admin, tokens

urlpatterns = [
    path("evaluations/new/", evaluations_admin.evaluation_create_view, name="evaluation-create"),
    path(
        "evaluations/<id:pk>/edit/", evaluations_admin.evaluation_edit_view, name="evaluation-edit"
    ),
    path(
        "evaluations/<id:pk>/members/",
        evaluations_admin.evaluation_members_view,
        name="evaluation-members",
    ),
    path("vendors/", catalogue.vendor_list, name="vendor-list"),
    path("vendors/new/", catalogue.vendor_create, name="vendor-create"),
    path("vendors/<id:vendor_pk>/edit/", catalogue.vendor_edit, name="vendor-edit"),
    path("vendors/<id:vendor_pk>/delete/", catalogue.vendor_delete_view, name="vendor-delete"),
    path("offerings/", catalogue.offering_list, name="offering-list"),
    path("offerings/new/", catalogue.offering_create, name="offering-create"),
    path("offerings/<id:offering_pk>/", catalogue.offering_detail, name="offering-detail"),
    path("offerings/<id:offering_pk>/edit/", catalogue.offering_edit, name="offering-edit"),
    path(
        "offerings/<id:offering_pk>/delete/",
        catalogue.offering_delete_view,
        name="offering-delete",
    ),
    path(
        "evaluations/<id:pk>/candidates/add/",
        candidates_admin.candidate_create,
        name="candidate-add",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/edit/",
        candidates_admin.candidate_edit,
        name="candidate-edit",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/remove/",
        candidates_admin.candidate_delete,
        name="candidate-remove",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/tokens/",
        tokens.upload_token_list,
        name="upload-token-list",
    ),
    path(
        "evaluations/<id:pk>/candidates/<id:candidate_pk>/tokens/<id:token_pk>/revoke/",
        tokens.upload_token_revoke_view,
        name="upload-token-revoke",
    ),
    path("collector/collect.py", tokens.collector_script, name="collector-script"),
]
