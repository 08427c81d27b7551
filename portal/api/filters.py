"""Query filters of the list endpoints.

Ids are plain number filters over querysets already restricted to the evaluation in the URL:
another evaluation's id matches nothing, and says nothing about whether it exists. An id no row
can have (0, negative, beyond a bigint) is a 400 naming the filter, never a database error.
"""

import django_filters as filters
from django import forms
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from ..models import (
    Candidate,
    Dimension,
    EvaluationStatus,
    EvidenceUpload,
    Measurement,
    Offering,
    Score,
    UploadStatus,
    UploadToken,
    Vendor,
    WorkloadProfile,
)

# The largest bigint (PostgreSQL) and SQLite integer: a larger id overflows the query.
ID_MAX = 2**63 - 1


class IdField(forms.IntegerField):
    """An id as the database stores it: a whole number from 1 to ID_MAX."""

    def __init__(self, **kwargs):
        out_of_range = _("Not an id: ids are whole numbers from 1 to %(max)s.") % {"max": ID_MAX}
        kwargs["error_messages"] = {
            "min_value": out_of_range,
            "max_value": out_of_range,
            **kwargs.get("error_messages", {}),
        }
        super().__init__(min_value=1, max_value=ID_MAX, **kwargs)


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(filters.NumberFilter):
    """A whole-number id (``?candidate=12``); anything else is a 400 with the reason."""

    field_class = IdField


class PortalFilterSet(filters.FilterSet):
    """A FilterSet whose filters word their labels in the reader's language.

    Each instance works on copies of the class's filters, and a copy's label (generated from
    the model field for the filters named in Meta.fields) is worded when first read, in the
    language active then. But a form field built from the class's own filters before any
    model was known (the OpenAPI schema builds them) kept no label, and every copy inherited
    that field: its form then showed the field's name in English ("Mlps level"). Each
    instance drops the inherited field, so its own is built with its label."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for found in self.filters.values():
            found.__dict__.pop("_field", None)


class VendorFilter(PortalFilterSet):
    name = filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Vendor
        fields = ["name", "mlps_level", "xinchuang", "iso27001"]


class OfferingFilter(PortalFilterSet):
    vendor = IdFilter(field_name="vendor_id", label=_("vendor"))
    gpu_model = filters.CharFilter(lookup_expr="icontains")
    region = filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Offering
        fields = ["vendor", "delivery_form", "gpu_model", "gpu_form_factor", "fabric", "region"]


class EvaluationFilter(PortalFilterSet):
    status = filters.ChoiceFilter(choices=EvaluationStatus.choices)
    workload_profile = filters.ChoiceFilter(choices=WorkloadProfile.choices)


class CandidateFilter(PortalFilterSet):
    offering = IdFilter(field_name="offering_id", label=_("offering"))
    vendor = IdFilter(field_name="offering__vendor_id", label=_("vendor"))

    class Meta:
        model = Candidate
        fields = ["offering", "vendor"]


class UploadTokenFilter(PortalFilterSet):
    candidate = IdFilter(field_name="candidate_id", label=_("candidate"))
    revoked = filters.BooleanFilter(
        field_name="revoked_at", lookup_expr="isnull", exclude=True, label=_("revoked")
    )

    class Meta:
        model = UploadToken
        fields = ["candidate", "revoked"]


class UploadFilter(PortalFilterSet):
    candidate = IdFilter(field_name="candidate_id", label=_("candidate"))
    status = filters.ChoiceFilter(choices=UploadStatus.choices)

    class Meta:
        model = EvidenceUpload
        fields = ["candidate", "status", "node_name"]


class MeasurementFilter(PortalFilterSet):
    candidate = IdFilter(field_name="candidate_id", label=_("candidate"))
    upload = IdFilter(field_name="upload_id", label=_("evidence upload"))

    class Meta:
        model = Measurement
        fields = ["candidate", "upload", "kind", "metric", "node_name"]


class ScoreFilter(PortalFilterSet):
    candidate = IdFilter(field_name="candidate_id", label=_("candidate"))
    dimension = filters.ChoiceFilter(choices=Dimension.choices)

    class Meta:
        model = Score
        fields = ["candidate", "dimension"]
