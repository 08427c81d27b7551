"""Admin pages for every model; audit history via django-simple-history."""

from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from .models import (
    Answer,
    Candidate,
    ChecklistItem,
    DecisionRecord,
    Evaluation,
    EvidenceUpload,
    Measurement,
    Membership,
    Offering,
    OfferingPrice,
    Score,
    UploadToken,
    Vendor,
    WorkerHeartbeat,
)


@admin.register(Vendor)
class VendorAdmin(SimpleHistoryAdmin):
    list_display = ["name", "mlps_level", "xinchuang", "iso27001", "regions"]
    list_filter = ["mlps_level", "xinchuang", "iso27001"]
    search_fields = ["name", "regions"]


class OfferingPriceInline(admin.TabularInline):
    model = OfferingPrice
    extra = 0


@admin.register(Offering)
class OfferingAdmin(SimpleHistoryAdmin):
    list_display = [
        "name",
        "vendor",
        "delivery_form",
        "gpu_model",
        "gpus_per_node",
        "fabric",
        "fabric_rate_gbit_s",
        "sla_availability_pct",
    ]
    list_filter = ["delivery_form", "fabric", "gpu_form_factor", "vendor"]
    search_fields = ["name", "vendor__name", "gpu_model"]
    list_select_related = ["vendor"]
    inlines = [OfferingPriceInline]


@admin.register(ChecklistItem)
class ChecklistItemAdmin(admin.ModelAdmin):
    list_display = ["number", "key", "title_en", "title_zh", "answer_type"]
    ordering = ["number"]


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


class CandidateInline(admin.TabularInline):
    model = Candidate
    extra = 0
    fields = ["offering", "node_count", "quoted_billing_model", "quoted_price_per_gpu"]
    autocomplete_fields = ["offering"]


@admin.register(Evaluation)
class EvaluationAdmin(SimpleHistoryAdmin):
    list_display = ["name", "workload_profile", "status", "required_total_gpus", "created_at"]
    list_filter = ["workload_profile", "status"]
    search_fields = ["name"]
    inlines = [MembershipInline, CandidateInline]


class AnswerInline(admin.StackedInline):
    model = Answer
    extra = 0
    fields = ["item", "claim", "value", "notes", "status", "verification_note", "evidence_ref"]


@admin.register(Candidate)
class CandidateAdmin(SimpleHistoryAdmin):
    list_display = ["__str__", "evaluation", "node_count", "quoted_billing_model"]
    list_filter = ["evaluation"]
    list_select_related = ["offering__vendor", "evaluation"]
    readonly_fields = ["knockouts", "scored_at"]
    inlines = [AnswerInline]


@admin.register(Answer)
class AnswerAdmin(SimpleHistoryAdmin):
    list_display = ["candidate", "item", "status"]
    list_filter = ["status", "item"]
    list_select_related = ["candidate__offering__vendor", "item"]


@admin.register(UploadToken)
class UploadTokenAdmin(SimpleHistoryAdmin):
    list_display = ["token_prefix", "candidate", "node_name", "expires_at", "revoked_at"]
    readonly_fields = ["token_prefix", "nonce", "created_at", "last_used_at"]
    exclude = ["token_hash"]


@admin.register(EvidenceUpload)
class EvidenceUploadAdmin(admin.ModelAdmin):
    list_display = ["original_name", "candidate", "node_name", "status", "created_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in EvidenceUpload._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Measurement)
class MeasurementAdmin(admin.ModelAdmin):
    list_display = ["candidate", "kind", "metric", "value", "unit", "node_name"]
    list_filter = ["kind"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ["candidate", "dimension", "value", "rubric_version", "computed_at"]
    list_filter = ["dimension"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(DecisionRecord)
class DecisionRecordAdmin(admin.ModelAdmin):
    """Decisions are recorded through the portal and can never be changed here."""

    list_display = ["evaluation", "candidate", "decided_by", "decided_at"]
    readonly_fields = [
        "evaluation",
        "candidate",
        "decided_by",
        "decided_at",
        "rationale",
        "snapshot",
    ]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["hostname", "seen_at"]
