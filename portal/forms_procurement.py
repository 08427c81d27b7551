"""Forms of the procurement pages: catalogue filters, offering fieldsets and price formsets,
upload tokens, and mapping service errors onto the form that caused them."""

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.forms import BaseInlineFormSet, inlineformset_factory
from django.utils.translation import gettext_lazy as _

from .forms import (
    CandidateForm,
    LongTextarea,
    OfferingForm,
    OfferingPriceForm,
    VendorForm,
    loaded_version_field,
    sent_once_field,
)
from .models import (
    OFFERING_FIELDS,
    REQUIREMENT_FIELDS,
    BillingModel,
    DeliveryForm,
    Evaluation,
    EvaluationStatus,
    Offering,
    OfferingPrice,
    Role,
    Vendor,
)
from .services.catalogue import offering_version, vendor_version
from .services.evaluations import candidate_version, requirements_version
from .services.tokens import MAX_TOKEN_LIFETIME

# The offering form is long (about sixty claims); fieldsets follow the six dimensions so that
# a procurement officer can find a field where the vendor's datasheet puts it.
OFFERING_FIELDSETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (_("Offering"), ("vendor", "name", "description", "delivery_form")),
    (
        _("GPUs"),
        (
            "gpu_model",
            "gpu_form_factor",
            "gpus_per_node",
            "gpu_memory_gib",
            "nvlink_topology",
            "nvlink_domain_gpus",
            "mig_vgpu_profile",
            "mig_profile",
            "logical_cpus_per_node",
        ),
    ),
    (
        _("Network"),
        (
            "fabric",
            "fabric_rate_gbit_s",
            "nics_per_node",
            "oversubscription_ratio",
            "cross_rack_latency_us",
        ),
    ),
    (
        _("Storage"),
        (
            "nvme_capacity_tib",
            "nvme_read_gbyte_s",
            "nvme_write_gbyte_s",
            "distributed_fs",
            "distributed_fs_bandwidth_gbyte_s",
            "data_preloading",
        ),
    ),
    (
        _("Location and control"),
        (
            "region",
            "region_country",
            "region_province",
            "region_zone",
            "vendor_managed",
            "rtt_ms",
            "oob_management",
            "provisioning_time_min",
            "root_access",
            "custom_image",
            "driver_control",
            "nccl_tuning_control",
        ),
    ),
    (
        _("Stability"),
        ("monitors_pcie_errors", "monitors_ecc", "monitors_thermal"),
    ),
    (
        _("Security"),
        (
            "encryption_at_rest",
            "encryption_in_transit",
            "mfa",
            "audit_logs",
            "network_isolation",
            "data_wipe_policy",
        ),
    ),
    (
        _("Cost"),
        (
            "currency",
            "spot_preemption_risk_pct",
            "releasable_hourly",
            "min_commitment_days",
            "early_termination_fee",
            "storage_cost_month",
            "network_egress_cost_month",
            "support_cost_month",
            "licence_cost_gpu_month",
            "setup_fee",
            "setup_days",
        ),
    ),
    (
        _("Support"),
        (
            "sla_availability_pct",
            "sla_response_time_min",
            "sla_credit_pct",
            "sla_compensation",
            "hardware_replacement_hours",
            "support_24x7",
            "support_tier",
            "poc_window_days",
        ),
    ),
)


def offering_fieldsets(field_names: Iterable[str] = OFFERING_FIELDS):
    """(legend, names) for the given fields; a field added to the model later lands in
    "Other" instead of silently disappearing from the form and the detail page."""
    available = list(field_names)
    listed = {name for _legend, names in OFFERING_FIELDSETS for name in names}
    groups = [
        (legend, [n for n in names if n in available]) for legend, names in OFFERING_FIELDSETS
    ]
    rest = [n for n in available if n not in listed]
    if rest:
        groups.append((_("Other"), rest))
    return [(legend, names) for legend, names in groups if names]


class PageFormMixin:
    """CSS hooks for the page templates: required labels get a marker, invalid fields a frame."""

    required_css_class = "required"
    error_css_class = "has-error"


class VendorEditForm(PageFormMixin, VendorForm):
    # The vendor as the page loaded it: vendor_save refuses a save over another editor's newer
    # save, and the page keeps the input.
    loaded_version = loaded_version_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read before validation writes the posted values onto the instance.
        if self.instance.pk is not None:
            self.fields["loaded_version"].initial = vendor_version(self.instance)

    website = forms.URLField(
        label=Vendor._meta.get_field("website").verbose_name,
        max_length=Vendor._meta.get_field("website").max_length,
        required=False,
        assume_scheme="https",
    )


class CandidateEditForm(PageFormMixin, CandidateForm):
    # The candidate as the page loaded it: candidate_update refuses a save over someone else's
    # newer save (a quote negotiated meanwhile), and the page keeps the input (refuse_stale).
    loaded_version = loaded_version_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read before validation writes the posted values onto the instance.
        if self.instance.pk is not None:
            self.fields["loaded_version"].initial = candidate_version(self.instance)


class OfferingPriceEditForm(OfferingPriceForm):
    # No required marker: a row left empty is simply a billing model that is not offered.
    error_css_class = "has-error"


class OfferingEditForm(PageFormMixin, OfferingForm):
    """The offering form, rendered in fieldsets."""

    # The offering and its prices as the page loaded them: offering_save refuses a save over
    # another editor's newer save (prices put back), and the page keeps the input.
    loaded_version = loaded_version_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read before validation writes the posted values onto the instance.
        if self.instance.pk is not None:
            self.fields["loaded_version"].initial = offering_version(self.instance)

    def fieldsets(self):
        names = [name for name in self.fields if name != "loaded_version"]
        return [
            (legend, [self[name] for name in names]) for legend, names in offering_fieldsets(names)
        ]


class OfferingPriceFormSet(BaseInlineFormSet):
    """The list prices of one offering: at most one per billing model."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = _("Remove this price")

    def clean(self):
        # Before super().clean(): a duplicate then gets this message next to its field instead
        # of the generic formset-wide uniqueness error.
        seen: set[str] = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or not form.cleaned_data:
                continue
            if self.can_delete and self._should_delete_form(form):
                continue
            billing_model = form.cleaned_data.get("billing_model")
            if not billing_model:
                continue
            if billing_model in seen:
                form.add_error(
                    "billing_model",
                    _("This billing model already has a price: give one price per billing model."),
                )
            seen.add(billing_model)
        super().clean()


def offering_price_formset(*, offering: Offering | None, data=None):
    """The price formset of ``offering`` (None: a new one) with one empty row per billing model
    not priced yet, preset to that model; rows left empty are ignored."""
    priced = set(offering.prices.values_list("billing_model", flat=True)) if offering else set()
    missing = [b for b in BillingModel.values if b not in priced]
    formset_class = inlineformset_factory(
        Offering,
        OfferingPrice,
        form=OfferingPriceEditForm,
        formset=OfferingPriceFormSet,
        extra=len(missing),
        max_num=len(BillingModel.values),
        validate_max=True,
        can_delete=True,
        can_delete_extra=False,
    )
    return formset_class(
        data,
        instance=offering if offering is not None else Offering(),
        prefix="prices",
        initial=[{"billing_model": b} for b in missing],
    )


class OfferingFilterForm(forms.Form):
    """The filters of the offering list (GET); an invalid value filters nothing."""

    delivery_form = forms.ChoiceField(
        label=_("Delivery form"),
        required=False,
        choices=[("", _("All delivery forms")), *DeliveryForm.choices],
    )
    vendor = forms.ModelChoiceField(
        label=_("Vendor"),
        required=False,
        queryset=Vendor.objects.order_by("name"),
        empty_label=_("All vendors"),
    )

    def filter(self, queryset):
        if not self.is_valid():
            return queryset
        if self.cleaned_data.get("delivery_form"):
            queryset = queryset.filter(delivery_form=self.cleaned_data["delivery_form"])
        if self.cleaned_data.get("vendor"):
            queryset = queryset.filter(vendor=self.cleaned_data["vendor"])
        return queryset


class UploadTokenCreateForm(PageFormMixin, forms.Form):
    expires_in_days = forms.IntegerField(
        label=_("Expires in (days)"),
        min_value=1,
        max_value=MAX_TOKEN_LIFETIME.days,
        initial=7,
        help_text=_("From 1 to 90 days. Revoke the token as soon as the POC is over."),
    )
    node_name = forms.CharField(
        label=_("Node name"),
        max_length=200,
        required=False,
        help_text=_("Optional: the host name of the node that will use this token."),
    )
    label = forms.CharField(
        label=_("Label"),
        max_length=200,
        required=False,
        help_text=_("Optional: a note for yourself, such as the POC round."),
    )


def add_service_error(
    form: forms.BaseForm, exc: ValidationError, field_map: Mapping[str, str] | None = None
) -> None:
    """Show a service's ValidationError on ``form``: next to the field it names when the form
    has that field (after renaming through ``field_map``), otherwise above the form."""
    field_map = field_map or {}
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for key, errors in exc.error_dict.items():
        name = field_map.get(key, key)
        form.add_error(name if name in form.fields else None, errors)


DESCRIPTION_MAX = 20_000

# The minimum bus-bandwidth fraction is a share of 1 (0.80), and the dashboard shows it as "80 %":
# "80%" was refused with "enter the number without the % sign, for example 80", and 80 then
# with "ensure this value is less than or equal to 1". Both now name the fraction to type.
FRACTION_NOT_PERCENT = _(
    "Enter the share as a fraction of 1, not a percentage: %(plain)s for %(typed)s %%."
)
_PERCENT_TYPED = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*[%％]?\s*", re.ASCII)


def _as_fraction(typed: str) -> ValidationError | None:
    """The refusal naming the fraction meant by a percentage typed in a fraction field ("80%",
    or 80 once read), or None for other text."""
    found = _PERCENT_TYPED.fullmatch(typed)
    if found is None or not 0 <= (percent := Decimal(found.group(1))) <= 100:
        return None
    return ValidationError(
        FRACTION_NOT_PERCENT,
        code="invalid",
        params={
            "plain": format((percent / 100).normalize(), "f"),
            "typed": format(percent.normalize(), "f"),
        },
    )


class FractionField(forms.DecimalField):
    """A share of 1 typed as a fraction; a percentage typed instead is refused naming the
    fraction it means."""

    def to_python(self, value):
        if isinstance(value, str) and ("%" in value or "％" in value):
            hint = _as_fraction(value)
            if hint is not None:
                raise hint
        return super().to_python(value)

    def validate(self, value):
        super().validate(value)
        # Before the validators: "at most 1" alone does not say that 80 meant 0.80.
        if value is not None and 1 < value <= 100:
            raise _as_fraction(str(value))


class EvaluationEditForm(PageFormMixin, forms.ModelForm):
    """An evaluation's requirements; editing also moves it between draft and open (a decision
    is recorded on its own page)."""

    # The requirements as the page loaded them: evaluation_update refuses a save over someone
    # else's newer save, and the page keeps the input (forms.refuse_stale).
    loaded_version = loaded_version_field()

    class Meta:
        model = Evaluation
        fields = REQUIREMENT_FIELDS
        # On the form, not the model: the field's 0 default reads as a figure otherwise.
        help_texts = {
            "required_gpu_memory_gib": _(
                "Memory each GPU (or MIG slice) must have; smaller ones are disqualified. "
                "0: no minimum."
            ),
        }

    def __init__(self, *args, with_status: bool = False, creating: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        # Read before validation writes the posted values onto the instance.
        self.fields["loaded_version"].initial = requirements_version(self.instance)
        if creating:
            # A new evaluation's page, sent again (the back button): forms.sent_before.
            self.fields["sent_once"] = sent_once_field()
        # A text field of the model has no length of its own: refused past this, never stored.
        description = self.fields["description"]
        description.max_length = DESCRIPTION_MAX
        description.validators.append(MaxLengthValidator(DESCRIPTION_MAX))
        description.widget = LongTextarea(attrs=description.widget.attrs)
        fraction = self.fields["min_busbw_fraction"]
        self.fields["min_busbw_fraction"] = FractionField(
            label=fraction.label,
            help_text=fraction.help_text,
            required=fraction.required,
            max_digits=fraction.max_digits,
            decimal_places=fraction.decimal_places,
            min_value=0,
            max_value=1,
            widget=fraction.widget,
        )
        if with_status:
            self.fields["status"] = forms.ChoiceField(
                label=_("Status"),
                choices=[
                    (EvaluationStatus.DRAFT, EvaluationStatus.DRAFT.label),
                    (EvaluationStatus.OPEN, EvaluationStatus.OPEN.label),
                ],
                initial=self.instance.status,
            )

    def clean(self):
        data = super().clean()
        # Not requirements: cleaned_data goes to evaluation_create as the model's fields.
        data.pop("loaded_version", None)
        data.pop("sent_once", None)
        return data


class MemberAddForm(PageFormMixin, forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    # Least access by default: a role is raised on purpose.
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices, initial=Role.VIEWER)

    def clean_username(self):
        # As the user model stores names (NFKC: a name typed in full-width mode is the same
        # name); then, when no name matches exactly, the one active user whose name differs only
        # in case ("Engineer" for "engineer"), never a guess between several.
        model = get_user_model()
        username = model.normalize_username(self.cleaned_data["username"].strip())
        active = model.objects.filter(is_active=True)
        user = active.filter(username=username).first()
        if user is None:
            matches = list(active.filter(username__iexact=username)[:2])
            user = matches[0] if len(matches) == 1 else None
        if user is None:
            raise forms.ValidationError(_("No active user has this username."))
        return user


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)
