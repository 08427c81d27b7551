"""Admin pages for every model; audit history via django-simple-history."""

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from .audit import ACTION_LABELS, access_changed_by, access_changes
from .models import (
    WEIGHT_FIELDS,
    AccessChange,
    Answer,
    Candidate,
    ChecklistItem,
    DecisionRecord,
    DecisionReopening,
    Evaluation,
    EvaluationStatus,
    EvidenceDeletion,
    EvidenceUpload,
    Measurement,
    Membership,
    Offering,
    OfferingPrice,
    OfferingVersion,
    Score,
    UploadToken,
    Vendor,
    WorkerHeartbeat,
)
from .services.access import access_change_batch
from .services.catalogue import is_catalogue_editor, offering_save, vendor_save
from .services.evaluations import (
    CatalogueRowInUse,
    evaluation_update,
    offering_delete,
    vendor_delete,
    weights_check,
)
from .services.tokens import upload_token_revoke


class AuditedAdmin(SimpleHistoryAdmin):
    """History rows are read here, never reverted: a revert would write beside the services
    and rewrite what the audit trail says happened."""

    def revert_disabled(self, request, obj=None):
        return True

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        # django-simple-history only hides the revert button; a POST would still save the
        # old version beside the services (an un-revoked token, a changed decided row).
        if request.method != "GET":
            raise PermissionDenied(_("History is read-only."))
        return super().history_form_view(request, object_id, version_id, extra_context)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never added, changed or deleted here: the portal's services write these rows."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyInline:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class CatalogueAdmin(AuditedAdmin):
    """Catalogue rows: changed only by catalogue editors (staff or the catalogue role), each
    save through portal.services.catalogue (a new offering version, as on the pages and API);
    deleted only through the audited services, which refuse rows still in use."""

    def has_add_permission(self, request):
        return is_catalogue_editor(request.user) and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return is_catalogue_editor(request.user) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return is_catalogue_editor(request.user) and super().has_delete_permission(request, obj)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # bulk deletion would skip the services
        return actions


@admin.register(Vendor)
class VendorAdmin(CatalogueAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["name", "mlps_level", "xinchuang", "iso27001", "regions"]
    list_filter = ["mlps_level", "xinchuang", "iso27001"]
    search_fields = ["name", "regions"]

    def save_model(self, request, obj, form, change):
        vendor_save(vendor=obj, by=request.user)

    def delete_model(self, request, obj):
        try:
            vendor_delete(vendor=obj, by=request.user)
        except CatalogueRowInUse as exc:
            raise PermissionDenied(str(exc)) from None


class OfferingPriceInline(admin.TabularInline):
    model = OfferingPrice
    extra = 0

    def has_add_permission(self, request, obj=None):
        return is_catalogue_editor(request.user)

    def has_change_permission(self, request, obj=None):
        return is_catalogue_editor(request.user)

    def has_delete_permission(self, request, obj=None):
        return is_catalogue_editor(request.user)


@admin.register(Offering)
class OfferingAdmin(CatalogueAdmin):
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

    def save_model(self, request, obj, form, change):
        offering_save(offering=obj, by=request.user)

    def save_formset(self, request, form, formset, change):
        prices = formset.save(commit=False)
        offering_save(
            offering=form.instance,
            by=request.user,
            prices=prices,
            deleted_prices=formset.deleted_objects,
        )

    def delete_model(self, request, obj):
        try:
            offering_delete(offering=obj, by=request.user)
        except CatalogueRowInUse as exc:
            raise PermissionDenied(str(exc)) from None


@admin.register(ChecklistItem)
class ChecklistItemAdmin(ReadOnlyAdmin):
    """The checklist every evaluation answers, decided ones too, loaded from
    fixtures/checklist.json: its keys feed the scoring rules and its answer types and choices
    give stored answers their meaning, so a change here (unaudited, beside the services) would
    rescore or reword every decided evaluation's answers."""

    list_display = ["number", "key", "title_en", "title_zh", "answer_type"]
    ordering = ["number"]


class MembershipInline(ReadOnlyInline, admin.TabularInline):
    model = Membership
    extra = 0


class CandidateInline(ReadOnlyInline, admin.TabularInline):
    model = Candidate
    extra = 0
    fields = ["offering", "offering_version", "node_count", "quoted_billing_model"]
    readonly_fields = fields


class EvaluationAdminForm(forms.ModelForm):
    """Changed weights meet the service's rule (services.evaluations.weights_check) here too,
    so that a refusal is shown on the form; evaluation_update refuses them again under the
    row's lock."""

    def clean(self):
        cleaned = super().clean()
        if set(self.changed_data) & set(WEIGHT_FIELDS):
            weights = {name.removeprefix("weight_"): cleaned.get(name) for name in WEIGHT_FIELDS}
            # A weight its field refused has its own error, and six zeros the model's.
            if None not in weights.values() and any(weights.values()):
                try:
                    weights_check(weights)
                except ValidationError as exc:
                    self.add_error(None, exc.message_dict["weights"])
        return cleaned


@admin.register(Evaluation)
class EvaluationAdmin(AuditedAdmin):
    """Requirements and weights may be corrected here (through the service, which rescores and
    refuses decided evaluations); the status never: deciding and reopening are the managers'
    audited actions in the portal. Decided evaluations are read-only. Members and candidates
    are managed in the portal."""

    list_display = ["name", "workload_profile", "status", "required_total_gpus", "created_at"]
    list_filter = ["workload_profile", "status"]
    search_fields = ["name"]
    readonly_fields = ["status", "created_by"]
    inlines = [MembershipInline, CandidateInline]
    form = EvaluationAdminForm

    def has_add_permission(self, request):
        return False  # created in the portal, with its creator as procurement member

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.status == EvaluationStatus.DECIDED:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        # Only the fields changed in the form are written: the rest stays as stored now.
        columns = {f.name for f in Evaluation._meta.concrete_fields}
        changed = [name for name in form.changed_data if name in columns]
        evaluation_update(evaluation=obj, by=request.user, fields=changed)


class AnswerInline(ReadOnlyInline, admin.StackedInline):
    model = Answer
    extra = 0
    fields = ["item", "claim", "value", "notes", "status", "verification_note", "evidence_ref"]
    readonly_fields = fields


@admin.register(Candidate)
class CandidateAdmin(AuditedAdmin, ReadOnlyAdmin):
    list_display = ["__str__", "evaluation", "node_count", "quoted_billing_model"]
    list_filter = ["evaluation"]
    list_select_related = ["offering__vendor", "evaluation"]
    inlines = [AnswerInline]


@admin.register(Answer)
class AnswerAdmin(AuditedAdmin, ReadOnlyAdmin):
    list_display = ["candidate", "item", "status"]
    list_filter = ["status", "item"]
    list_select_related = ["candidate__offering__vendor", "item"]


@admin.register(UploadToken)
class UploadTokenAdmin(AuditedAdmin, ReadOnlyAdmin):
    """Tokens are issued in the portal; here they can only be revoked (through the audited
    service), never un-revoked."""

    list_display = ["token_prefix", "candidate", "node_name", "expires_at", "revoked_at"]
    exclude = ["token_hash", "nonce"]
    actions = ["revoke"]

    @admin.action(description=_("Revoke the selected upload tokens"))
    def revoke(self, request, queryset):
        for token in queryset:
            upload_token_revoke(token=token, by=request.user)


@admin.register(EvidenceUpload)
class EvidenceUploadAdmin(ReadOnlyAdmin):
    """Evidence is read-only here; it is never deleted outside the portal's services."""

    list_display = ["original_name", "candidate", "node_name", "status", "origin", "created_at"]
    list_filter = ["status", "origin"]


@admin.register(Measurement)
class MeasurementAdmin(ReadOnlyAdmin):
    list_display = ["candidate", "kind", "metric", "value", "unit", "node_name", "measured_at"]
    list_filter = ["kind"]


@admin.register(Score)
class ScoreAdmin(ReadOnlyAdmin):
    list_display = ["candidate", "dimension", "value", "rubric_version", "computed_at"]
    list_filter = ["dimension"]


@admin.register(EvidenceDeletion)
class EvidenceDeletionAdmin(ReadOnlyAdmin):
    list_display = ["original_name", "candidate", "sha256", "deleted_by", "deleted_at"]


@admin.register(DecisionReopening)
class DecisionReopeningAdmin(ReadOnlyAdmin):
    list_display = ["evaluation", "decision", "reopened_by", "reopened_at"]


@admin.register(OfferingVersion)
class OfferingVersionAdmin(ReadOnlyAdmin):
    list_display = ["offering", "number", "created_by", "created_at"]


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


class AccessAuditedAdmin:
    """A user's or a group's admin whose access changes are recorded (models.AccessChange,
    through services.access, from the model signals) as made by the admin's user: each request
    that may change access is one batch, so a save of the form (the row, then its groups and
    permissions) or a deletion is one record per user or group, written once. The object's
    History page lists them beside Django's log of the admin's actions."""

    access_of = "user"  # or "group"
    object_history_template = "admin/portal/access_object_history.html"

    def changeform_view(self, request, *args, **kwargs):
        if request.method != "POST":
            return super().changeform_view(request, *args, **kwargs)
        with access_change_batch(by=request.user):
            return super().changeform_view(request, *args, **kwargs)

    def delete_view(self, request, *args, **kwargs):
        if request.method != "POST":
            return super().delete_view(request, *args, **kwargs)
        with access_change_batch(by=request.user):
            return super().delete_view(request, *args, **kwargs)

    def changelist_view(self, request, *args, **kwargs):
        # Actions (delete the selected) and list editing post here.
        if request.method != "POST":
            return super().changelist_view(request, *args, **kwargs)
        with access_change_batch(by=request.user):
            return super().changelist_view(request, *args, **kwargs)

    def history_view(self, request, object_id, extra_context=None):
        key = "user_id" if self.access_of == "user" else "group_id"
        changes = AccessChange.objects.filter(**{key: object_id}).order_by("-changed_at", "-pk")
        rows = [
            (change, str(ACTION_LABELS.get(change.action, change.action)), access_changes(change))
            for change in changes[:200]
        ]
        extra = {**(extra_context or {}), "access_changes": rows}
        return super().history_view(request, object_id, extra_context=extra)


admin.site.unregister(get_user_model())
admin.site.unregister(Group)


@admin.register(get_user_model())
class UserAdmin(AccessAuditedAdmin, DjangoUserAdmin):
    access_of = "user"


@admin.register(Group)
class GroupAdmin(AccessAuditedAdmin, DjangoGroupAdmin):
    access_of = "group"


@admin.register(AccessChange)
class AccessChangeAdmin(ReadOnlyAdmin):
    """Every access change, newest first: whose, what before and after, and who made it (the
    command line or the system when nobody signed in did). Written by services.access; never
    changed or deleted."""

    list_display = ["changed_at", "subject", "kind", "action", "summary", "changed_by_shown"]
    list_filter = ["action", "changed_at"]
    search_fields = ["subject", "changed_by_name"]
    date_hierarchy = "changed_at"

    @admin.display(description=_("user or group"))
    def kind(self, obj):
        return _("group") if _is_group(obj) else _("user")

    @admin.display(description=_("changed by"), ordering="changed_by_name")
    def changed_by_shown(self, obj):
        return access_changed_by(obj)

    @admin.display(description=_("changes (before → after)"))
    def summary(self, obj):
        return "; ".join(
            f"{c.label}: {c.before or '—'} → {c.after or '—'}" for c in access_changes(obj)
        )


def _is_group(change) -> bool:
    return any(c.get("field") in ("permissions", "members") for c in change.changes or ())
