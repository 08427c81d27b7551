"""The vendor catalogue: vendors, their offerings and list prices, and the checklist."""

from rest_framework import serializers

from ... import models
from ...models import ChecklistItem, Offering, OfferingPrice, Vendor
from ...services.catalogue import offering_price_save, offering_save, vendor_save
from .base import CleanModelSerializer
from .fields import BillingModelField, CurrencyField, MlpsLevelField

VENDOR_FIELDS = (
    "id",
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
)

OFFERING_FIELDS = (
    "id",
    "vendor",
    "vendor_name",
    *(name for name in models.OFFERING_FIELDS if name != "vendor"),
    "prices",
    "created_at",
    "updated_at",
)


def _save_vendor(vendor, by):
    return vendor_save(vendor=vendor, by=by)


def _save_price(price, by):
    return offering_price_save(price=price, by=by)


def _save_offering(offering, by):
    return offering_save(offering=offering, by=by)


class VendorSerializer(CleanModelSerializer):
    mlps_level = MlpsLevelField(required=False)
    save_service = staticmethod(_save_vendor)

    class Meta:
        model = Vendor
        fields = VENDOR_FIELDS


class OfferingPriceSerializer(CleanModelSerializer):
    billing_model = BillingModelField()
    save_service = staticmethod(_save_price)

    class Meta:
        model = OfferingPrice
        fields = ("id", "billing_model", "price_per_gpu")


class PriceSummarySerializer(serializers.ModelSerializer):
    billing_model = BillingModelField(read_only=True)

    class Meta:
        model = OfferingPrice
        fields = ("id", "billing_model", "price_per_gpu")
        read_only_fields = fields


class OfferingSerializer(CleanModelSerializer):
    vendor_name = serializers.CharField(source="vendor.name", read_only=True)
    prices = PriceSummarySerializer(many=True, read_only=True)
    currency = CurrencyField(required=False)
    save_service = staticmethod(_save_offering)

    class Meta:
        model = Offering
        fields = OFFERING_FIELDS
        read_only_fields = ("created_at", "updated_at")


class ChecklistItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChecklistItem
        fields = (
            "number",
            "key",
            "title_en",
            "title_zh",
            "help_en",
            "help_zh",
            "answer_type",
            "choices",
            "dimensions",
            "evidence_kinds",
        )
        read_only_fields = fields
