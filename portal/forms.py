"""Forms of the portal pages; validation messages are shown next to their fields."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Candidate, Evaluation, Offering, OfferingPrice, Vendor


class VendorForm(forms.ModelForm):
    website = forms.URLField(
        label=_("website"), max_length=200, required=False, assume_scheme="https"
    )

    class Meta:
        model = Vendor
        fields = [
            "name",
            "website",
            "contact_name",
            "contact_email",
            "contact_phone",
            "regions",
            "mlps_level",
            "xinchuang",
            "iso27001",
            "other_certifications",
            "notes",
        ]


OFFERING_FIELDS = [
    f.name
    for f in Offering._meta.get_fields()
    if getattr(f, "editable", False)
    and not f.auto_created
    and f.name not in ("id",)
    and f.concrete
    and not f.many_to_many
]


class OfferingForm(forms.ModelForm):
    class Meta:
        model = Offering
        fields = OFFERING_FIELDS


class OfferingPriceForm(forms.ModelForm):
    class Meta:
        model = OfferingPrice
        fields = ["billing_model", "price_per_gpu"]


class CandidateForm(forms.ModelForm):
    class Meta:
        model = Candidate
        fields = ["offering", "node_count", "quoted_billing_model", "quoted_price_per_gpu", "notes"]

    def __init__(self, *args, evaluation: Evaluation, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.evaluation = evaluation
        taken = evaluation.candidates.exclude(pk=self.instance.pk).values("offering_id")
        self.fields["offering"].queryset = Offering.objects.select_related("vendor").exclude(
            pk__in=taken
        )
        self.fields["offering"].error_messages["invalid_choice"] = _(
            "This offering is already a candidate of this evaluation, or does not exist."
        )
