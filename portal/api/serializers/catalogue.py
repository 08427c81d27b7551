"""The vendor catalogue: vendors, their offerings and list prices, and the checklist."""

from rest_framework import serializers

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
    "name",
    "description",
    "delivery_form",
    "gpu_model",
    "gpu_form_factor",
    "gpus_per_node",
    "gpu_memory_gib",
    "nvlink_topology",
    "mig_vgpu_profile",
    "mig_profile",
    "logical_cpus_per_node",
    "fabric",
    "fabric_rate_gbit_s",
    "nics_per_node",
    "oversubscription_ratio",
    "cross_rack_latency_us",
    "nvme_capacity_tib",
    "nvme_read_gbyte_s",
    "nvme_write_gbyte_s",
    "distributed_fs",
    "distributed_fs_bandwidth_gbyte_s",
    "data_preloading",
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
    "monitors_pcie_errors",
    "monitors_ecc",
    "monitors_thermal",
    "encryption_at_rest",
    "encryption_in_transit",
    "mfa",
    "audit_logs",
    "network_isolation",
    "data_wipe_policy",
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
    "sla_availability_pct",
    "sla_response_time_min",
    "sla_credit_pct",
    "sla_compensation",
    "hardware_replacement_hours",
    "support_24x7",
    "support_tier",
    "poc_window_days",
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
