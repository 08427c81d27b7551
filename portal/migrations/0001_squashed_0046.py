"""The schema of migrations 0001 to 0046 in one migration, for new databases.

Django applies it to a database none of 0001-0046 has touched (a new deployment, the embedded
mode's first start, the tests), and counts it as applied where all of them are; a database
part of the way keeps taking the old ones. Made with makemigrations from the models, then the
PostgreSQL-only statements of 0035, 0036 and 0042 added at the end. The data migrations among
the old ones are left out: they rewrite rows, and a new database has none. One state instead
of forty-six saves the embedded mode's first start some ten seconds of model rendering.
"""

import django.core.validators
import django.db.models.deletion
import django.db.models.functions.math
import django.db.models.lookups
import django.utils.timezone
import portal.models.documents
import portal.models.evaluations
import portal.models.evidence
import re
import simple_history.models
from decimal import Decimal
from django.conf import settings
from django.db import migrations, models

from ._postgresql import (
    MEASUREMENT_EVALUATION_BACKWARD,
    MEASUREMENT_EVALUATION_FORWARD,
    UPLOAD_EVALUATION_BACKWARD,
    UPLOAD_EVALUATION_FORWARD,
    postgresql_only,
    set_compression,
)


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("portal", "0001_initial"),
        ("portal", "0002_answer_attachments"),
        ("portal", "0003_membership_history"),
        ("portal", "0004_scoring_rubric_v2"),
        ("portal", "0005_portfolio_workloads_region_ops"),
        ("portal", "0006_evidence_upload_history"),
        ("portal", "0007_evaluation_ahp_matrix"),
        ("portal", "0008_decision_rounds_and_reopening"),
        ("portal", "0009_offering_versions"),
        ("portal", "0010_evidence_origin_fingerprint_freshness"),
        ("portal", "0011_evidence_deletion"),
        ("portal", "0012_evidence_upload_history_origin"),
        ("portal", "0013_evidence_page_indexes"),
        ("portal", "0014_poc_plan"),
        ("portal", "0015_evidence_summary"),
        ("portal", "0016_early_termination_fee_unanswered"),
        ("portal", "0017_review_notification_report_pdf"),
        ("portal", "0018_poc_plan_reminded_for"),
        ("portal", "0019_upload_error_code"),
        ("portal", "0020_offering_mig_instances_per_gpu"),
        ("portal", "0021_offering_support_tier_unanswered"),
        ("portal", "0022_answer_poc_shortfalls"),
        ("portal", "0023_offering_provisioning_time_unanswered"),
        ("portal", "0024_report_pdf_fingerprint"),
        ("portal", "0025_bounded_quantities"),
        ("portal", "0026_workload_history"),
        ("portal", "0027_results_entry"),
        ("portal", "0028_pending_refresh"),
        ("portal", "0029_notification_language"),
        ("portal", "0030_offering_oversubscription_not_stated"),
        ("portal", "0031_measurement_redundant_indexes"),
        ("portal", "0032_evaluation_accepted_gpu_models"),
        ("portal", "0033_checklist_claim_units_guidance"),
        ("portal", "0034_evaluation_weights_percent"),
        ("portal", "0035_evidenceupload_evaluation"),
        ("portal", "0036_measurement_evaluation"),
        ("portal", "0037_offering_nvlink_domain_gpus"),
        ("portal", "0038_min_busbw_fraction_help_text"),
        ("portal", "0039_offering_nvme_capacity_help"),
        ("portal", "0040_answer_claim_by"),
        ("portal", "0041_evaluation_budget_positive"),
        ("portal", "0042_json_lz4_compression"),
        ("portal", "0043_clean_stored_text"),
        ("portal", "0044_form_factor_superchip"),
        ("portal", "0045_workload_bounds"),
        ("portal", "0046_candidate_import_failure_mailed_at"),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Candidate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "catalogue_kept",
                    models.CharField(
                        blank=True,
                        editable=False,
                        help_text="The catalogue state procurement chose not to adopt (its hash).",
                        max_length=64,
                        verbose_name="catalogue changes kept out",
                    ),
                ),
                (
                    "node_count",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(100000),
                        ],
                        verbose_name="node count",
                    ),
                ),
                (
                    "quoted_billing_model",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("hourly", "Hourly (per GPU-hour)"),
                            ("monthly", "Monthly (per GPU-month)"),
                            ("yearly", "Yearly (per GPU-year)"),
                            ("spot", "Spot / preemptible (per GPU-hour)"),
                        ],
                        max_length=10,
                        verbose_name="quoted billing model",
                    ),
                ),
                (
                    "quoted_price_per_gpu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=4,
                        help_text="Overrides the list price of the quoted billing model.",
                        max_digits=14,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="quoted price per GPU",
                    ),
                ),
                ("notes", models.TextField(blank=True, verbose_name="notes")),
                (
                    "knockouts",
                    models.JSONField(
                        blank=True,
                        default=list,
                        editable=False,
                        help_text="Must-haves this candidate fails, from the last scoring run.",
                        verbose_name="knockouts",
                    ),
                ),
                (
                    "verification",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        editable=False,
                        help_text="Measured facts, bare-metal verdict and faults from the last verification.",
                        verbose_name="verification",
                    ),
                ),
                ("scored_at", models.DateTimeField(blank=True, editable=False, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "import_failure_mailed_at",
                    models.DateTimeField(blank=True, editable=False, null=True),
                ),
            ],
            options={
                "verbose_name": "candidate",
                "verbose_name_plural": "candidates",
                "ordering": ["evaluation", "offering__vendor__name", "offering__name"],
            },
        ),
        migrations.CreateModel(
            name="ChecklistItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveSmallIntegerField(unique=True, verbose_name="number")),
                ("key", models.SlugField(unique=True, verbose_name="key")),
                ("title_en", models.CharField(max_length=200, verbose_name="title (English)")),
                ("title_zh", models.CharField(max_length=200, verbose_name="title (Chinese)")),
                ("help_en", models.TextField(blank=True, verbose_name="guidance (English)")),
                ("help_zh", models.TextField(blank=True, verbose_name="guidance (Chinese)")),
                (
                    "answer_type",
                    models.CharField(
                        choices=[
                            ("text", "Text"),
                            ("number", "Number"),
                            ("boolean", "Yes / no"),
                            ("choice", "Choice"),
                        ],
                        max_length=10,
                        verbose_name="answer type",
                    ),
                ),
                (
                    "choices",
                    models.JSONField(blank=True, default=list, verbose_name="answer choices"),
                ),
                (
                    "dimensions",
                    models.JSONField(
                        default=list,
                        help_text="Dimensions this item feeds.",
                        verbose_name="dimensions fed",
                    ),
                ),
                (
                    "evidence_kinds",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="Evidence that can verify it.",
                        verbose_name="evidence kinds",
                    ),
                ),
            ],
            options={
                "verbose_name": "checklist item",
                "verbose_name_plural": "checklist items",
                "ordering": ["number"],
            },
        ),
        migrations.CreateModel(
            name="Offering",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "delivery_form",
                    models.CharField(
                        choices=[
                            ("bare_metal", "Bare metal"),
                            ("passthrough_vm", "PCIe passthrough VM"),
                            ("vgpu", "vGPU"),
                            ("mig", "MIG instance"),
                            ("container", "Container on shared GPUs"),
                        ],
                        max_length=20,
                        verbose_name="delivery form",
                    ),
                ),
                ("gpu_model", models.CharField(max_length=100, verbose_name="GPU model")),
                (
                    "gpu_form_factor",
                    models.CharField(
                        choices=[
                            ("sxm", "SXM"),
                            ("pcie", "PCIe"),
                            (
                                "other",
                                "Other: a superchip (GH200, GB200) or another maker's module",
                            ),
                        ],
                        max_length=10,
                        verbose_name="GPU form factor",
                    ),
                ),
                (
                    "gpus_per_node",
                    models.PositiveSmallIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(64),
                        ],
                        verbose_name="GPUs per node",
                    ),
                ),
                (
                    "gpu_memory_gib",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(10000),
                        ],
                        verbose_name="GPU memory (GiB)",
                    ),
                ),
                (
                    "nvlink_topology",
                    models.CharField(
                        choices=[
                            ("full_mesh", "Full mesh (all-to-all, NVSwitch)"),
                            ("grouped", "Grouped (pairs or hybrid cube mesh)"),
                            ("none", "None (PCIe only)"),
                        ],
                        max_length=20,
                        verbose_name="NVLink topology",
                    ),
                ),
                (
                    "nvlink_domain_gpus",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="GPUs joined in one NVLink domain across nodes: 72 for a GB200 NVL72 rack (18 trays of 4), 32 for GH200 NVL32. A multiple of the GPUs per node, at least one node; leave blank when NVLink stays inside the node.",
                        null=True,
                        validators=[django.core.validators.MaxValueValidator(100000)],
                        verbose_name="NVLink domain (GPUs)",
                    ),
                ),
                (
                    "mig_vgpu_profile",
                    models.CharField(
                        blank=True,
                        help_text="For example 3g.40gb or A100-8C; empty for whole GPUs.",
                        max_length=50,
                        verbose_name="MIG / vGPU profile",
                    ),
                ),
                (
                    "mig_profile",
                    models.CharField(
                        blank=True,
                        help_text="MIG instances only, for example 3g.40gb, or 2x3g.40gb for two instances per GPU (checked against the GPU's 7 compute slices and its memory); GPUs per node then counts instances. Scored in full-GPU equivalents.",
                        max_length=20,
                        validators=[
                            django.core.validators.RegexValidator(
                                re.compile(
                                    "^(?:([1-9][0-9]?)\\s*[x×]\\s*)?([1-7])g\\.([1-9][0-9]{0,3})gb(\\+me)?$"
                                ),
                                "A MIG profile looks like 3g.40gb: compute slices (1-7), then memory in GB; the instances per GPU may come first, as in 2x3g.40gb.",
                            )
                        ],
                        verbose_name="MIG profile",
                    ),
                ),
                (
                    "logical_cpus_per_node",
                    models.PositiveIntegerField(
                        blank=True, null=True, verbose_name="logical CPUs per node"
                    ),
                ),
                (
                    "fabric",
                    models.CharField(
                        choices=[
                            ("infiniband", "InfiniBand"),
                            ("roce", "RoCE"),
                            ("ethernet", "Ethernet (TCP)"),
                            ("none", "None"),
                        ],
                        max_length=20,
                        verbose_name="fabric",
                    ),
                ),
                (
                    "fabric_rate_gbit_s",
                    models.PositiveIntegerField(
                        default=0,
                        help_text="HDR = 200, NDR = 400.",
                        verbose_name="rate per port (Gbit/s)",
                    ),
                ),
                (
                    "nics_per_node",
                    models.PositiveSmallIntegerField(
                        default=0, verbose_name="compute NICs (rails) per node"
                    ),
                ),
                (
                    "oversubscription_ratio",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="1 = non-blocking fat-tree; 2 = 2:1. Leave blank when the vendor does not state it: a blank ratio scores no points, never those of a non-blocking fabric.",
                        max_digits=5,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("1"))],
                        verbose_name="oversubscription ratio",
                    ),
                ),
                (
                    "cross_rack_latency_us",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="cross-rack latency (µs)",
                    ),
                ),
                (
                    "nvme_capacity_tib",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        help_text="Per node, in binary TiB, not the decimal TB drives are sold in (1 TB = 0.9095 TiB): eight 3.84 TB drives are 27.94 TiB.",
                        max_digits=8,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="local NVMe capacity (TiB)",
                    ),
                ),
                (
                    "nvme_read_gbyte_s",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="NVMe read (GB/s)",
                    ),
                ),
                (
                    "nvme_write_gbyte_s",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="NVMe write (GB/s)",
                    ),
                ),
                (
                    "distributed_fs",
                    models.CharField(
                        blank=True,
                        help_text="Lustre, GPFS, CephFS…; empty if none.",
                        max_length=100,
                        verbose_name="distributed file system",
                    ),
                ),
                (
                    "distributed_fs_bandwidth_gbyte_s",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="distributed FS aggregate bandwidth (GB/s)",
                    ),
                ),
                (
                    "data_preloading",
                    models.BooleanField(default=False, verbose_name="data preloading / caching"),
                ),
                (
                    "region",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="region / data centre"
                    ),
                ),
                (
                    "region_country",
                    models.CharField(
                        blank=True, max_length=2, verbose_name="region country (ISO code)"
                    ),
                ),
                (
                    "region_province",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="region province or city"
                    ),
                ),
                (
                    "region_zone",
                    models.CharField(blank=True, max_length=50, verbose_name="region zone"),
                ),
                (
                    "vendor_managed",
                    models.BooleanField(
                        default=False,
                        help_text="The vendor operates the machines (platform-managed); no buyer ops team.",
                        verbose_name="vendor-managed option",
                    ),
                ),
                (
                    "rtt_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="RTT from our site (ms)",
                    ),
                ),
                (
                    "oob_management",
                    models.BooleanField(
                        default=False, verbose_name="out-of-band management (IPMI/BMC)"
                    ),
                ),
                (
                    "provisioning_time_min",
                    models.PositiveIntegerField(
                        blank=True,
                        default=None,
                        help_text="Empty: unanswered. 0 is an answer: capacity available at once.",
                        null=True,
                        verbose_name="provisioning time (min)",
                    ),
                ),
                ("root_access", models.BooleanField(default=False, verbose_name="root access")),
                (
                    "custom_image",
                    models.BooleanField(default=False, verbose_name="custom OS image"),
                ),
                (
                    "driver_control",
                    models.BooleanField(default=False, verbose_name="driver version control"),
                ),
                (
                    "nccl_tuning_control",
                    models.BooleanField(default=False, verbose_name="control over NCCL tuning"),
                ),
                (
                    "monitors_pcie_errors",
                    models.BooleanField(default=False, verbose_name="monitors PCIe link errors"),
                ),
                (
                    "monitors_ecc",
                    models.BooleanField(default=False, verbose_name="alerts on ECC errors"),
                ),
                (
                    "monitors_thermal",
                    models.BooleanField(
                        default=False,
                        verbose_name="temperature/power monitoring with throttling protection",
                    ),
                ),
                (
                    "encryption_at_rest",
                    models.BooleanField(default=False, verbose_name="encryption at rest"),
                ),
                (
                    "encryption_in_transit",
                    models.BooleanField(default=False, verbose_name="encryption in transit"),
                ),
                (
                    "mfa",
                    models.BooleanField(default=False, verbose_name="multi-factor authentication"),
                ),
                (
                    "audit_logs",
                    models.BooleanField(default=False, verbose_name="operation audit logs"),
                ),
                (
                    "network_isolation",
                    models.CharField(
                        choices=[
                            ("none", "None"),
                            ("vlan", "VLAN"),
                            ("vxlan", "VXLAN"),
                            ("dedicated", "Dedicated physical network"),
                        ],
                        default="none",
                        max_length=20,
                        verbose_name="network isolation",
                    ),
                ),
                (
                    "data_wipe_policy",
                    models.CharField(
                        choices=[
                            ("none", "None stated"),
                            ("logical", "Logical wipe"),
                            ("certified", "Certified wipe (e.g. NIST 800-88) with a certificate"),
                        ],
                        default="none",
                        max_length=20,
                        verbose_name="data-wipe policy",
                    ),
                ),
                (
                    "currency",
                    models.CharField(
                        choices=[("CNY", "Chinese yuan (CNY)"), ("USD", "US dollar (USD)")],
                        default="CNY",
                        max_length=3,
                        verbose_name="currency",
                    ),
                ),
                (
                    "spot_preemption_risk_pct",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="Empty: the rubric's default for the delivery form.",
                        max_digits=5,
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("99.99")),
                        ],
                        verbose_name="spot preemption risk (%)",
                    ),
                ),
                (
                    "releasable_hourly",
                    models.BooleanField(
                        blank=True,
                        help_text="Whether hourly capacity can be handed back on idle days. Empty: the rubric's default for the delivery form (bare metal: no, so idle days are paid).",
                        null=True,
                        verbose_name="can be released by the hour",
                    ),
                ),
                (
                    "min_commitment_days",
                    models.PositiveIntegerField(
                        default=0, verbose_name="minimum commitment (days)"
                    ),
                ),
                (
                    "early_termination_fee",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        default=None,
                        help_text="Leave empty when the contract states none: the rest of the commitment is paid.",
                        max_digits=14,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="early-termination fee",
                    ),
                ),
                (
                    "storage_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="storage cost per month",
                    ),
                ),
                (
                    "network_egress_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="network egress cost per month",
                    ),
                ),
                (
                    "support_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="support cost per month",
                    ),
                ),
                (
                    "licence_cost_gpu_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="licence cost per GPU-month (vGPU)",
                    ),
                ),
                (
                    "setup_fee",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="one-off setup fee",
                    ),
                ),
                (
                    "setup_days",
                    models.PositiveIntegerField(
                        default=0, verbose_name="setup days paid before use"
                    ),
                ),
                (
                    "sla_availability_pct",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        help_text="Empty: no availability SLA (unanswered).",
                        max_digits=6,
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("100")),
                        ],
                        verbose_name="SLA availability (%)",
                    ),
                ),
                (
                    "sla_response_time_min",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Empty: no response time committed (unanswered).",
                        null=True,
                        verbose_name="hardware-fault response time (min)",
                    ),
                ),
                (
                    "sla_credit_pct",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=5,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("100")),
                        ],
                        verbose_name="SLA credit on breach (percent of monthly fee)",
                    ),
                ),
                (
                    "sla_compensation",
                    models.TextField(blank=True, verbose_name="compensation terms"),
                ),
                (
                    "hardware_replacement_hours",
                    models.PositiveIntegerField(
                        blank=True, null=True, verbose_name="hardware replacement (hours)"
                    ),
                ),
                ("support_24x7", models.BooleanField(default=False, verbose_name="7×24 support")),
                (
                    "support_tier",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("dedicated_team", "Dedicated customer-success team"),
                            ("named_contact", "Named technical contact"),
                            ("ticket_queue", "Shared ticket queue"),
                        ],
                        default="",
                        help_text="Empty: the support question is unanswered (0 points, never the lowest tier).",
                        max_length=20,
                        verbose_name="support tier",
                    ),
                ),
                (
                    "poc_window_days",
                    models.PositiveIntegerField(default=0, verbose_name="POC window (days)"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name": "offering",
                "verbose_name_plural": "offerings",
                "ordering": ["vendor__name", "name"],
                "permissions": [("edit_catalogue", "Can edit the shared vendor catalogue")],
            },
        ),
        migrations.CreateModel(
            name="WorkerHeartbeat",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("hostname", models.CharField(max_length=255, unique=True)),
                ("seen_at", models.DateTimeField()),
            ],
            options={
                "verbose_name": "worker heartbeat",
                "verbose_name_plural": "worker heartbeats",
            },
        ),
        migrations.CreateModel(
            name="Answer",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("claim", models.TextField(blank=True, verbose_name="claim")),
                ("value", models.JSONField(blank=True, null=True, verbose_name="typed value")),
                ("notes", models.TextField(blank=True, verbose_name="notes")),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("unanswered", "Unanswered"),
                            ("claimed", "Claimed"),
                            ("verified", "Verified"),
                            ("contradicted", "Contradicted"),
                            ("unverifiable", "Unverifiable"),
                        ],
                        default="unanswered",
                        max_length=15,
                        verbose_name="verification status",
                    ),
                ),
                (
                    "verification_note",
                    models.TextField(blank=True, verbose_name="verification note"),
                ),
                (
                    "evidence_ref",
                    models.CharField(blank=True, max_length=300, verbose_name="evidence reference"),
                ),
                (
                    "poc_shortfalls",
                    models.JSONField(blank=True, default=list, verbose_name="POC shortfalls"),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "claim_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="claim written by",
                    ),
                ),
                (
                    "updated_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="answers",
                        to="portal.candidate",
                    ),
                ),
                (
                    "item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="answers",
                        to="portal.checklistitem",
                    ),
                ),
            ],
            options={
                "verbose_name": "answer",
                "verbose_name_plural": "answers",
                "ordering": ["candidate", "item__number"],
            },
        ),
        migrations.CreateModel(
            name="AnswerAttachment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "file",
                    models.FileField(
                        max_length=300,
                        upload_to=portal.models.evaluations.attachment_path,
                        verbose_name="file",
                    ),
                ),
                ("original_name", models.CharField(max_length=255, verbose_name="original name")),
                ("size_bytes", models.PositiveBigIntegerField(verbose_name="size (bytes)")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "answer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attachments",
                        to="portal.answer",
                    ),
                ),
                (
                    "uploaded_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "answer attachment",
                "verbose_name_plural": "answer attachments",
                "ordering": ["created_at"],
            },
        ),
        migrations.CreateModel(
            name="PendingRefresh",
            fields=[
                (
                    "candidate",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="portal.candidate",
                    ),
                ),
                ("due_at", models.DateTimeField(verbose_name="refresh due at")),
            ],
            options={
                "verbose_name": "pending refresh",
                "verbose_name_plural": "pending refreshes",
            },
        ),
        migrations.CreateModel(
            name="DecisionRecord",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("round", models.PositiveSmallIntegerField(default=1, verbose_name="round")),
                ("decided_at", models.DateTimeField(auto_now_add=True)),
                ("rationale", models.TextField(verbose_name="rationale")),
                (
                    "snapshot",
                    models.JSONField(
                        default=dict,
                        help_text="Scores, weights and evidence hashes at decision.",
                        verbose_name="snapshot",
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "decided_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "decision record",
                "verbose_name_plural": "decision records",
                "ordering": ["evaluation", "round"],
            },
        ),
        migrations.CreateModel(
            name="Evaluation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "workload_profile",
                    models.CharField(
                        choices=[
                            ("pretraining", "Pre-training"),
                            ("finetuning", "Fine-tuning"),
                            ("inference", "Inference"),
                            ("development", "Development"),
                        ],
                        max_length=20,
                        verbose_name="workload profile",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("draft", "Draft"), ("open", "Open"), ("decided", "Decided")],
                        default="draft",
                        max_length=10,
                        verbose_name="status",
                    ),
                ),
                (
                    "required_total_gpus",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(1000000),
                        ],
                        verbose_name="total GPUs required",
                    ),
                ),
                (
                    "required_gpu_memory_gib",
                    models.PositiveIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(10000)],
                        verbose_name="GPU memory required (GiB)",
                    ),
                ),
                (
                    "duration_days",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(3653),
                        ],
                        verbose_name="duration (days)",
                    ),
                ),
                (
                    "expected_idle_days",
                    models.PositiveIntegerField(default=0, verbose_name="expected idle days"),
                ),
                (
                    "budget_total",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=16,
                        null=True,
                        validators=[portal.models.evaluations.positive_budget],
                        verbose_name="maximum budget",
                    ),
                ),
                (
                    "budget_currency",
                    models.CharField(
                        choices=[("CNY", "Chinese yuan (CNY)"), ("USD", "US dollar (USD)")],
                        default="CNY",
                        max_length=3,
                        verbose_name="budget currency",
                    ),
                ),
                (
                    "required_mlps_level",
                    models.PositiveSmallIntegerField(
                        choices=[
                            (0, "None"),
                            (1, "MLPS level 1"),
                            (2, "MLPS level 2"),
                            (3, "MLPS level 3"),
                            (4, "MLPS level 4"),
                        ],
                        default=0,
                        verbose_name="MLPS level required",
                    ),
                ),
                (
                    "require_xinchuang",
                    models.BooleanField(default=False, verbose_name="Xinchuang required"),
                ),
                (
                    "max_evidence_age_days",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Evidence measured longer ago is flagged and not used. Empty: no limit.",
                        null=True,
                        verbose_name="maximum evidence age (days)",
                    ),
                ),
                (
                    "accepted_gpu_models",
                    models.CharField(
                        blank=True,
                        default="",
                        help_text="The GPU models the evaluation accepts, separated by commas (for example H100, H200, B200); other models are disqualified. Empty: any model.",
                        max_length=200,
                        validators=[portal.models.evaluations.validate_gpu_models],
                        verbose_name="accepted GPU models",
                    ),
                ),
                (
                    "min_busbw_fraction",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="For example 0.80: a health check. The measured all-reduce bus bandwidth ÷ what the candidate's own declared system (its GPUs, NVLink, NICs x rate and nodes) should reach; a candidate below it is disqualified. The size of the fabric is not judged here: the cost and network dimensions price it.",
                        max_digits=4,
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("1")),
                        ],
                        verbose_name="minimum measured bus-bandwidth fraction",
                    ),
                ),
                (
                    "rubric_version",
                    models.CharField(
                        choices=[("1", "v1"), ("2", "v2")],
                        default="2",
                        editable=False,
                        help_text="The scoring rubric this evaluation is scored with; recorded decisions replay with it. Moving to a newer rubric is an explicit, audited action.",
                        max_length=20,
                        verbose_name="rubric version",
                    ),
                ),
                (
                    "ops_capacity",
                    models.CharField(
                        choices=[
                            ("none", "None (no operations staff)"),
                            ("small_team", "Small team"),
                            ("platform_team", "Platform team"),
                        ],
                        default="platform_team",
                        max_length=20,
                        verbose_name="operations capacity",
                    ),
                ),
                (
                    "ops_staff_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=12,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="operations staff cost per engineer-month",
                    ),
                ),
                (
                    "data_residency",
                    models.CharField(
                        choices=[
                            ("none", "No residency requirement"),
                            ("mainland_china", "Data stays in mainland China"),
                        ],
                        default="none",
                        max_length=20,
                        verbose_name="data residency",
                    ),
                ),
                (
                    "home_country",
                    models.CharField(
                        blank=True, max_length=2, verbose_name="home country (ISO code)"
                    ),
                ),
                (
                    "home_province",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="home province or city"
                    ),
                ),
                (
                    "prefer_fewer_vendors_pct",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=5,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("100")),
                        ],
                        verbose_name="prefer fewer vendors within (%)",
                    ),
                ),
                (
                    "weight_stability",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: stability",
                    ),
                ),
                (
                    "weight_network",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: network",
                    ),
                ),
                (
                    "weight_storage",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: storage",
                    ),
                ),
                (
                    "weight_security",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: security",
                    ),
                ),
                (
                    "weight_cost",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: cost",
                    ),
                ),
                (
                    "weight_support",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: support",
                    ),
                ),
                (
                    "ahp_matrix",
                    models.JSONField(blank=True, null=True, verbose_name="AHP comparison matrix"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "evaluation",
                "verbose_name_plural": "evaluations",
                "ordering": ["-created_at", "name"],
            },
        ),
        migrations.CreateModel(
            name="DecisionReopening",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("reason", models.TextField(verbose_name="reason")),
                ("reopened_at", models.DateTimeField(auto_now_add=True)),
                (
                    "decision",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="reopening",
                        to="portal.decisionrecord",
                    ),
                ),
                (
                    "reopened_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="reopenings",
                        to="portal.evaluation",
                    ),
                ),
            ],
            options={
                "verbose_name": "decision reopening",
                "verbose_name_plural": "decision reopenings",
                "ordering": ["evaluation", "reopened_at"],
            },
        ),
        migrations.AddField(
            model_name="decisionrecord",
            name="evaluation",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="decisions",
                to="portal.evaluation",
            ),
        ),
        migrations.AddField(
            model_name="candidate",
            name="evaluation",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="candidates",
                to="portal.evaluation",
            ),
        ),
        migrations.CreateModel(
            name="EvidenceDeletion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("upload_id", models.PositiveBigIntegerField(verbose_name="upload id")),
                ("original_name", models.CharField(max_length=255, verbose_name="original name")),
                ("sha256", models.CharField(max_length=64)),
                ("status", models.CharField(max_length=12, verbose_name="status")),
                (
                    "measurement_count",
                    models.PositiveIntegerField(default=0, verbose_name="measurements deleted"),
                ),
                ("reason", models.TextField(verbose_name="reason")),
                ("deleted_at", models.DateTimeField(auto_now_add=True)),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "deleted_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "evidence deletion",
                "verbose_name_plural": "evidence deletions",
                "ordering": ["-deleted_at"],
            },
        ),
        migrations.CreateModel(
            name="EvidenceUpload",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "file",
                    models.FileField(
                        max_length=300,
                        upload_to=portal.models.evidence.upload_path,
                        verbose_name="file",
                    ),
                ),
                ("original_name", models.CharField(max_length=255, verbose_name="original name")),
                ("sha256", models.CharField(max_length=64)),
                ("size_bytes", models.PositiveBigIntegerField(verbose_name="size (bytes)")),
                (
                    "node_name",
                    models.CharField(blank=True, max_length=200, verbose_name="node name"),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("processing", "Processing"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=12,
                        verbose_name="status",
                    ),
                ),
                ("error", models.TextField(blank=True, verbose_name="error")),
                (
                    "error_code",
                    models.CharField(blank=True, max_length=60, verbose_name="error code"),
                ),
                (
                    "error_params",
                    models.JSONField(blank=True, default=dict, verbose_name="error parameters"),
                ),
                (
                    "report",
                    models.JSONField(blank=True, default=list, verbose_name="per-file report"),
                ),
                (
                    "parser_version",
                    models.CharField(blank=True, max_length=20, verbose_name="parser version"),
                ),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                (
                    "origin",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("", "Not yet checked"),
                            ("collector", "Collector (nonce verified)"),
                            ("unverified", "Unverified origin"),
                            ("by_hand", "Uploaded by hand"),
                        ],
                        default="",
                        help_text="Collector: the bundle carried its upload token's nonce. Unverified: it did not (shown, never used). By hand: a member uploaded it through the page.",
                        max_length=12,
                        verbose_name="origin",
                    ),
                ),
                (
                    "measured_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the tools ran (from the outputs or the manifest), not the upload.",
                        null=True,
                        verbose_name="measured at",
                    ),
                ),
                (
                    "fingerprint",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="GPU UUIDs and serials, board and system serials, HCA GUIDs, MACs.",
                        verbose_name="node fingerprint",
                    ),
                ),
                ("task_id", models.CharField(blank=True, editable=False, max_length=64)),
                ("claim_token", models.CharField(blank=True, editable=False, max_length=32)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="uploads",
                        to="portal.candidate",
                    ),
                ),
                (
                    "evaluation",
                    portal.models.evidence.CandidateEvaluationField(
                        db_index=False,
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "uploaded_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "evidence upload",
                "verbose_name_plural": "evidence uploads",
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="EvidenceSummary",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("node_name", models.CharField(max_length=200, verbose_name="node")),
                ("kind", models.CharField(max_length=30, verbose_name="evidence kind")),
                ("summary", models.JSONField(default=dict)),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "upload",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="portal.evidenceupload",
                    ),
                ),
            ],
            options={
                "verbose_name": "evidence summary",
                "verbose_name_plural": "evidence summaries",
            },
        ),
        migrations.CreateModel(
            name="HardwareIdentifier",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("kind", models.CharField(max_length=20, verbose_name="kind")),
                ("value", models.CharField(max_length=200, verbose_name="value")),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "upload",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="hardware",
                        to="portal.evidenceupload",
                    ),
                ),
            ],
            options={
                "verbose_name": "hardware identifier",
                "verbose_name_plural": "hardware identifiers",
            },
        ),
        migrations.CreateModel(
            name="HistoricalAnswer",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("claim", models.TextField(blank=True, verbose_name="claim")),
                ("value", models.JSONField(blank=True, null=True, verbose_name="typed value")),
                ("notes", models.TextField(blank=True, verbose_name="notes")),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("unanswered", "Unanswered"),
                            ("claimed", "Claimed"),
                            ("verified", "Verified"),
                            ("contradicted", "Contradicted"),
                            ("unverifiable", "Unverifiable"),
                        ],
                        default="unanswered",
                        max_length=15,
                        verbose_name="verification status",
                    ),
                ),
                (
                    "verification_note",
                    models.TextField(blank=True, verbose_name="verification note"),
                ),
                (
                    "evidence_ref",
                    models.CharField(blank=True, max_length=300, verbose_name="evidence reference"),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "claim_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="claim written by",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "item",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.checklistitem",
                    ),
                ),
                (
                    "updated_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical answer",
                "verbose_name_plural": "historical answers",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalAnswerReview",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        choices=[("verified", "Verified"), ("contradicted", "Contradicted")],
                        max_length=15,
                        verbose_name="verdict",
                    ),
                ),
                ("note", models.TextField(verbose_name="review note")),
                ("claim_reviewed", models.TextField(blank=True, verbose_name="claim reviewed")),
                (
                    "value_reviewed",
                    models.JSONField(blank=True, null=True, verbose_name="typed value reviewed"),
                ),
                (
                    "reviewed_at",
                    models.DateTimeField(blank=True, editable=False, verbose_name="reviewed at"),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "answer",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.answer",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "reviewed_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical answer review",
                "verbose_name_plural": "historical answer reviews",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalEvaluation",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "workload_profile",
                    models.CharField(
                        choices=[
                            ("pretraining", "Pre-training"),
                            ("finetuning", "Fine-tuning"),
                            ("inference", "Inference"),
                            ("development", "Development"),
                        ],
                        max_length=20,
                        verbose_name="workload profile",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("draft", "Draft"), ("open", "Open"), ("decided", "Decided")],
                        default="draft",
                        max_length=10,
                        verbose_name="status",
                    ),
                ),
                (
                    "required_total_gpus",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(1000000),
                        ],
                        verbose_name="total GPUs required",
                    ),
                ),
                (
                    "required_gpu_memory_gib",
                    models.PositiveIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(10000)],
                        verbose_name="GPU memory required (GiB)",
                    ),
                ),
                (
                    "duration_days",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(3653),
                        ],
                        verbose_name="duration (days)",
                    ),
                ),
                (
                    "expected_idle_days",
                    models.PositiveIntegerField(default=0, verbose_name="expected idle days"),
                ),
                (
                    "budget_total",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=16,
                        null=True,
                        validators=[portal.models.evaluations.positive_budget],
                        verbose_name="maximum budget",
                    ),
                ),
                (
                    "budget_currency",
                    models.CharField(
                        choices=[("CNY", "Chinese yuan (CNY)"), ("USD", "US dollar (USD)")],
                        default="CNY",
                        max_length=3,
                        verbose_name="budget currency",
                    ),
                ),
                (
                    "required_mlps_level",
                    models.PositiveSmallIntegerField(
                        choices=[
                            (0, "None"),
                            (1, "MLPS level 1"),
                            (2, "MLPS level 2"),
                            (3, "MLPS level 3"),
                            (4, "MLPS level 4"),
                        ],
                        default=0,
                        verbose_name="MLPS level required",
                    ),
                ),
                (
                    "require_xinchuang",
                    models.BooleanField(default=False, verbose_name="Xinchuang required"),
                ),
                (
                    "max_evidence_age_days",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Evidence measured longer ago is flagged and not used. Empty: no limit.",
                        null=True,
                        verbose_name="maximum evidence age (days)",
                    ),
                ),
                (
                    "accepted_gpu_models",
                    models.CharField(
                        blank=True,
                        default="",
                        help_text="The GPU models the evaluation accepts, separated by commas (for example H100, H200, B200); other models are disqualified. Empty: any model.",
                        max_length=200,
                        validators=[portal.models.evaluations.validate_gpu_models],
                        verbose_name="accepted GPU models",
                    ),
                ),
                (
                    "min_busbw_fraction",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="For example 0.80: a health check. The measured all-reduce bus bandwidth ÷ what the candidate's own declared system (its GPUs, NVLink, NICs x rate and nodes) should reach; a candidate below it is disqualified. The size of the fabric is not judged here: the cost and network dimensions price it.",
                        max_digits=4,
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("1")),
                        ],
                        verbose_name="minimum measured bus-bandwidth fraction",
                    ),
                ),
                (
                    "rubric_version",
                    models.CharField(
                        choices=[("1", "v1"), ("2", "v2")],
                        default="2",
                        editable=False,
                        help_text="The scoring rubric this evaluation is scored with; recorded decisions replay with it. Moving to a newer rubric is an explicit, audited action.",
                        max_length=20,
                        verbose_name="rubric version",
                    ),
                ),
                (
                    "ops_capacity",
                    models.CharField(
                        choices=[
                            ("none", "None (no operations staff)"),
                            ("small_team", "Small team"),
                            ("platform_team", "Platform team"),
                        ],
                        default="platform_team",
                        max_length=20,
                        verbose_name="operations capacity",
                    ),
                ),
                (
                    "ops_staff_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=12,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="operations staff cost per engineer-month",
                    ),
                ),
                (
                    "data_residency",
                    models.CharField(
                        choices=[
                            ("none", "No residency requirement"),
                            ("mainland_china", "Data stays in mainland China"),
                        ],
                        default="none",
                        max_length=20,
                        verbose_name="data residency",
                    ),
                ),
                (
                    "home_country",
                    models.CharField(
                        blank=True, max_length=2, verbose_name="home country (ISO code)"
                    ),
                ),
                (
                    "home_province",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="home province or city"
                    ),
                ),
                (
                    "prefer_fewer_vendors_pct",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=5,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("100")),
                        ],
                        verbose_name="prefer fewer vendors within (%)",
                    ),
                ),
                (
                    "weight_stability",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: stability",
                    ),
                ),
                (
                    "weight_network",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: network",
                    ),
                ),
                (
                    "weight_storage",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: storage",
                    ),
                ),
                (
                    "weight_security",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: security",
                    ),
                ),
                (
                    "weight_cost",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: cost",
                    ),
                ),
                (
                    "weight_support",
                    models.DecimalField(
                        decimal_places=3,
                        default=Decimal("1"),
                        help_text="Percent; normalised to sum 100 when scored.",
                        max_digits=7,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="weight: support",
                    ),
                ),
                (
                    "ahp_matrix",
                    models.JSONField(blank=True, null=True, verbose_name="AHP comparison matrix"),
                ),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical evaluation",
                "verbose_name_plural": "historical evaluations",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalMembership",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("procurement", "Procurement"),
                            ("manager", "Manager"),
                            ("engineer", "Engineer"),
                            ("viewer", "Viewer"),
                        ],
                        max_length=20,
                        verbose_name="role",
                    ),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical membership",
                "verbose_name_plural": "historical memberships",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalPocPlan",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "deadline",
                    models.DateTimeField(
                        help_text="A required run still missing at this time counts as failed.",
                        verbose_name="deadline",
                    ),
                ),
                (
                    "all_nodes_max",
                    models.PositiveIntegerField(
                        default=2,
                        help_text="The multi-node all_reduce and alltoall span every node of the candidate up to this count (at least 2).",
                        validators=[
                            django.core.validators.MinValueValidator(2),
                            django.core.validators.MaxValueValidator(4096),
                        ],
                        verbose_name="nodes for the multi-node runs",
                    ),
                ),
                (
                    "sample_size",
                    models.PositiveIntegerField(
                        default=4,
                        help_text="How many of each candidate's nodes are picked at random to report.",
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(1024),
                        ],
                        verbose_name="sampled nodes per candidate",
                    ),
                ),
                (
                    "seed",
                    models.BigIntegerField(
                        help_text="Recorded so that anyone can recompute which nodes were picked.",
                        verbose_name="sampling seed",
                    ),
                ),
                (
                    "shared_fs_path",
                    models.CharField(
                        blank=True,
                        help_text="fio runs under this path count as shared file system runs.",
                        max_length=200,
                        verbose_name="shared file system path",
                    ),
                ),
                ("updated_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "updated_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical POC plan",
                "verbose_name_plural": "historical POC plans",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalUploadToken",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "node_name",
                    models.CharField(blank=True, max_length=200, verbose_name="node name"),
                ),
                ("label", models.CharField(blank=True, max_length=200, verbose_name="label")),
                ("token_hash", models.CharField(db_index=True, editable=False, max_length=64)),
                ("token_prefix", models.CharField(editable=False, max_length=12)),
                ("nonce", models.CharField(editable=False, max_length=64)),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("expires_at", models.DateTimeField(verbose_name="expires at")),
                (
                    "revoked_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="revoked at"),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical upload token",
                "verbose_name_plural": "historical upload tokens",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalVendor",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(db_index=True, max_length=200, verbose_name="name")),
                ("website", models.URLField(blank=True, verbose_name="website")),
                (
                    "contact_name",
                    models.CharField(blank=True, max_length=200, verbose_name="contact name"),
                ),
                (
                    "contact_email",
                    models.EmailField(blank=True, max_length=254, verbose_name="contact e-mail"),
                ),
                (
                    "contact_phone",
                    models.CharField(blank=True, max_length=50, verbose_name="contact phone"),
                ),
                (
                    "regions",
                    models.CharField(
                        blank=True,
                        help_text="Comma-separated regions served.",
                        max_length=300,
                        verbose_name="regions",
                    ),
                ),
                (
                    "mlps_level",
                    models.PositiveSmallIntegerField(
                        choices=[
                            (0, "None"),
                            (1, "MLPS level 1"),
                            (2, "MLPS level 2"),
                            (3, "MLPS level 3"),
                            (4, "MLPS level 4"),
                        ],
                        default=0,
                        help_text="Multi-Level Protection Scheme (等保) certification level.",
                        verbose_name="MLPS level",
                    ),
                ),
                (
                    "xinchuang",
                    models.BooleanField(default=False, verbose_name="Xinchuang compliant"),
                ),
                (
                    "iso27001",
                    models.BooleanField(default=False, verbose_name="ISO 27001 certified"),
                ),
                (
                    "other_certifications",
                    models.CharField(
                        blank=True, max_length=300, verbose_name="other certifications"
                    ),
                ),
                ("notes", models.TextField(blank=True, verbose_name="notes")),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical vendor",
                "verbose_name_plural": "historical vendors",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalWorkload",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=100, verbose_name="name")),
                (
                    "profile",
                    models.CharField(
                        choices=[
                            ("pretraining", "Pre-training"),
                            ("finetuning", "Fine-tuning"),
                            ("inference", "Inference"),
                            ("development", "Development"),
                        ],
                        max_length=20,
                        verbose_name="workload profile",
                    ),
                ),
                (
                    "gpus",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(1000000),
                        ],
                        verbose_name="GPUs",
                    ),
                ),
                (
                    "peak_gpus",
                    models.PositiveIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(1000000)],
                        verbose_name="peak GPUs",
                    ),
                ),
                (
                    "peak_hours_per_day",
                    models.PositiveSmallIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(24)],
                        verbose_name="peak hours per day",
                    ),
                ),
                (
                    "peak_days_per_week",
                    models.PositiveSmallIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(7)],
                        verbose_name="peak days per week",
                    ),
                ),
                (
                    "duration_days",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(3653),
                        ],
                        verbose_name="duration (days)",
                    ),
                ),
                (
                    "weights",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Empty: the profile's preset weights.",
                        verbose_name="weights",
                    ),
                ),
                (
                    "requirements",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Overrides of the evaluation's requirements for this workload.",
                        verbose_name="requirements",
                    ),
                ),
                (
                    "min_score",
                    models.FloatField(
                        default=0,
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(100),
                        ],
                        verbose_name="minimum score",
                    ),
                ),
                (
                    "tolerates_preemption",
                    models.BooleanField(default=False, verbose_name="tolerates pre-emption"),
                ),
                (
                    "latency_target_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="Set for latency-sensitive workloads such as inference.",
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0.01"))],
                        verbose_name="latency target RTT (ms)",
                    ),
                ),
                (
                    "latency_endpoints",
                    models.CharField(
                        blank=True,
                        help_text="Comma-separated RTT targets that must meet the latency target.",
                        max_length=300,
                        verbose_name="latency endpoints",
                    ),
                ),
                (
                    "accepts_far_region",
                    models.BooleanField(default=False, verbose_name="accepts a farther region"),
                ),
                (
                    "data_exchange_gib_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=12,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="data exchanged with the other workloads (GiB/month)",
                    ),
                ),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "historical workload",
                "verbose_name_plural": "historical workloads",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="Measurement",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("kind", models.CharField(max_length=30, verbose_name="evidence kind")),
                ("metric", models.CharField(max_length=80, verbose_name="metric")),
                ("value", models.FloatField(verbose_name="value")),
                ("unit", models.CharField(blank=True, max_length=30, verbose_name="unit")),
                ("node_name", models.CharField(blank=True, max_length=200, verbose_name="node")),
                (
                    "source_file",
                    models.CharField(blank=True, max_length=255, verbose_name="source file"),
                ),
                ("line", models.PositiveIntegerField(blank=True, null=True, verbose_name="line")),
                ("details", models.JSONField(blank=True, default=dict, verbose_name="details")),
                (
                    "measured_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="measured at"),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="measurements",
                        to="portal.candidate",
                    ),
                ),
                (
                    "evaluation",
                    portal.models.evidence.CandidateEvaluationField(
                        db_constraint=False,
                        db_index=False,
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "upload",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="measurements",
                        to="portal.evidenceupload",
                    ),
                ),
            ],
            options={
                "verbose_name": "measurement",
                "verbose_name_plural": "measurements",
                "ordering": ["upload", "kind", "metric"],
            },
        ),
        migrations.CreateModel(
            name="Membership",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("procurement", "Procurement"),
                            ("manager", "Manager"),
                            ("engineer", "Engineer"),
                            ("viewer", "Viewer"),
                        ],
                        max_length=20,
                        verbose_name="role",
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "membership",
                "verbose_name_plural": "memberships",
                "ordering": ["evaluation", "role", "user"],
            },
        ),
        migrations.AddField(
            model_name="evaluation",
            name="members",
            field=models.ManyToManyField(
                related_name="evaluations", through="portal.Membership", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.CreateModel(
            name="NotificationPreference",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "import_failed",
                    models.BooleanField(default=True, verbose_name="an evidence import failed"),
                ),
                (
                    "poc_deadline",
                    models.BooleanField(
                        default=True, verbose_name="a POC deadline is two days away"
                    ),
                ),
                (
                    "decision_recorded",
                    models.BooleanField(default=True, verbose_name="a decision was recorded"),
                ),
                (
                    "catalogue_changed",
                    models.BooleanField(
                        default=True, verbose_name="a catalogue change affects an open evaluation"
                    ),
                ),
                (
                    "language",
                    models.CharField(
                        blank=True, default="", max_length=10, verbose_name="e-mail language"
                    ),
                ),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="notification_preference",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "notification preference",
                "verbose_name_plural": "notification preferences",
            },
        ),
        migrations.CreateModel(
            name="HistoricalOfferingPrice",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "billing_model",
                    models.CharField(
                        choices=[
                            ("hourly", "Hourly (per GPU-hour)"),
                            ("monthly", "Monthly (per GPU-month)"),
                            ("yearly", "Yearly (per GPU-year)"),
                            ("spot", "Spot / preemptible (per GPU-hour)"),
                        ],
                        max_length=10,
                        verbose_name="billing model",
                    ),
                ),
                (
                    "price_per_gpu",
                    models.DecimalField(
                        decimal_places=4,
                        help_text="Per GPU-hour (hourly, spot), per GPU-month (monthly), per GPU-year (yearly).",
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="price per GPU",
                    ),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "offering",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.offering",
                        verbose_name="offering",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical offering price",
                "verbose_name_plural": "historical offering prices",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.AddField(
            model_name="candidate",
            name="offering",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="candidacies",
                to="portal.offering",
            ),
        ),
        migrations.CreateModel(
            name="OfferingPrice",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "billing_model",
                    models.CharField(
                        choices=[
                            ("hourly", "Hourly (per GPU-hour)"),
                            ("monthly", "Monthly (per GPU-month)"),
                            ("yearly", "Yearly (per GPU-year)"),
                            ("spot", "Spot / preemptible (per GPU-hour)"),
                        ],
                        max_length=10,
                        verbose_name="billing model",
                    ),
                ),
                (
                    "price_per_gpu",
                    models.DecimalField(
                        decimal_places=4,
                        help_text="Per GPU-hour (hourly, spot), per GPU-month (monthly), per GPU-year (yearly).",
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="price per GPU",
                    ),
                ),
                (
                    "offering",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="prices",
                        to="portal.offering",
                        verbose_name="offering",
                    ),
                ),
            ],
            options={
                "verbose_name": "offering price",
                "verbose_name_plural": "offering prices",
                "ordering": ["offering", "billing_model"],
            },
        ),
        migrations.CreateModel(
            name="OfferingVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(verbose_name="version")),
                ("facts", models.JSONField(verbose_name="offering facts")),
                ("vendor_facts", models.JSONField(verbose_name="vendor facts")),
                ("prices", models.JSONField(default=list, verbose_name="list prices")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "offering",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="portal.offering",
                    ),
                ),
            ],
            options={
                "verbose_name": "offering version",
                "verbose_name_plural": "offering versions",
                "ordering": ["offering", "-number"],
            },
        ),
        migrations.CreateModel(
            name="HistoricalCandidate",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "catalogue_kept",
                    models.CharField(
                        blank=True,
                        editable=False,
                        help_text="The catalogue state procurement chose not to adopt (its hash).",
                        max_length=64,
                        verbose_name="catalogue changes kept out",
                    ),
                ),
                (
                    "node_count",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(100000),
                        ],
                        verbose_name="node count",
                    ),
                ),
                (
                    "quoted_billing_model",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("hourly", "Hourly (per GPU-hour)"),
                            ("monthly", "Monthly (per GPU-month)"),
                            ("yearly", "Yearly (per GPU-year)"),
                            ("spot", "Spot / preemptible (per GPU-hour)"),
                        ],
                        max_length=10,
                        verbose_name="quoted billing model",
                    ),
                ),
                (
                    "quoted_price_per_gpu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=4,
                        help_text="Overrides the list price of the quoted billing model.",
                        max_digits=14,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="quoted price per GPU",
                    ),
                ),
                ("notes", models.TextField(blank=True, verbose_name="notes")),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "offering",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.offering",
                    ),
                ),
                (
                    "offering_version",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        editable=False,
                        help_text="The version of the offering's facts and prices this candidate is scored on.",
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.offeringversion",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical candidate",
                "verbose_name_plural": "historical candidates",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.AddField(
            model_name="candidate",
            name="offering_version",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                help_text="The version of the offering's facts and prices this candidate is scored on.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="candidacies",
                to="portal.offeringversion",
            ),
        ),
        migrations.CreateModel(
            name="PocPlan",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "deadline",
                    models.DateTimeField(
                        help_text="A required run still missing at this time counts as failed.",
                        verbose_name="deadline",
                    ),
                ),
                (
                    "all_nodes_max",
                    models.PositiveIntegerField(
                        default=2,
                        help_text="The multi-node all_reduce and alltoall span every node of the candidate up to this count (at least 2).",
                        validators=[
                            django.core.validators.MinValueValidator(2),
                            django.core.validators.MaxValueValidator(4096),
                        ],
                        verbose_name="nodes for the multi-node runs",
                    ),
                ),
                (
                    "sample_size",
                    models.PositiveIntegerField(
                        default=4,
                        help_text="How many of each candidate's nodes are picked at random to report.",
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(1024),
                        ],
                        verbose_name="sampled nodes per candidate",
                    ),
                ),
                (
                    "seed",
                    models.BigIntegerField(
                        help_text="Recorded so that anyone can recompute which nodes were picked.",
                        verbose_name="sampling seed",
                    ),
                ),
                (
                    "shared_fs_path",
                    models.CharField(
                        blank=True,
                        help_text="fio runs under this path count as shared file system runs.",
                        max_length=200,
                        verbose_name="shared file system path",
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("reminded_for", models.DateTimeField(blank=True, editable=False, null=True)),
                (
                    "evaluation",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="poc_plan",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "updated_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "POC plan",
                "verbose_name_plural": "POC plans",
            },
        ),
        migrations.CreateModel(
            name="PocCandidateNodes",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "node_names",
                    models.JSONField(blank=True, default=list, verbose_name="node names"),
                ),
                (
                    "sampled_nodes",
                    models.JSONField(blank=True, default=list, verbose_name="sampled nodes"),
                ),
                (
                    "candidate",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="poc_nodes",
                        to="portal.candidate",
                    ),
                ),
                (
                    "plan",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="candidates",
                        to="portal.pocplan",
                    ),
                ),
            ],
            options={
                "verbose_name": "POC nodes of a candidate",
                "verbose_name_plural": "POC nodes of candidates",
            },
        ),
        migrations.CreateModel(
            name="HistoricalPocCandidateNodes",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                (
                    "node_names",
                    models.JSONField(blank=True, default=list, verbose_name="node names"),
                ),
                (
                    "sampled_nodes",
                    models.JSONField(blank=True, default=list, verbose_name="sampled nodes"),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "plan",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.pocplan",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical POC nodes of a candidate",
                "verbose_name_plural": "historical POC nodes of candidates",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="ReportPdf",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "language",
                    models.CharField(default="en", max_length=10, verbose_name="language"),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("rendering", "Rendering"),
                            ("done", "Ready"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=10,
                        verbose_name="status",
                    ),
                ),
                (
                    "file",
                    models.FileField(
                        blank=True,
                        max_length=300,
                        upload_to=portal.models.documents.report_pdf_path,
                        verbose_name="file",
                    ),
                ),
                (
                    "size_bytes",
                    models.PositiveBigIntegerField(default=0, verbose_name="size (bytes)"),
                ),
                ("error", models.TextField(blank=True, verbose_name="error")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "fingerprint",
                    models.CharField(blank=True, max_length=64, verbose_name="fingerprint"),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="report_pdfs",
                        to="portal.evaluation",
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "report PDF",
                "verbose_name_plural": "report PDFs",
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="ResultsEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200, unique=True)),
                ("kind", models.CharField(max_length=40)),
                ("fingerprint", models.CharField(max_length=200)),
                ("payload", models.BinaryField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "evaluation",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="results_entries",
                        to="portal.evaluation",
                    ),
                ),
            ],
            options={
                "verbose_name": "computed result",
                "verbose_name_plural": "computed results",
            },
        ),
        migrations.CreateModel(
            name="Score",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "dimension",
                    models.CharField(
                        choices=[
                            ("stability", "Stability"),
                            ("network", "Network"),
                            ("storage", "Storage"),
                            ("security", "Security"),
                            ("cost", "Cost"),
                            ("support", "Support"),
                        ],
                        max_length=10,
                        verbose_name="dimension",
                    ),
                ),
                (
                    "value",
                    models.FloatField(
                        validators=[
                            django.core.validators.MinValueValidator(0.0),
                            django.core.validators.MaxValueValidator(100.0),
                        ],
                        verbose_name="score",
                    ),
                ),
                ("contributions", models.JSONField(default=list, verbose_name="contributions")),
                ("rubric_version", models.CharField(max_length=20, verbose_name="rubric version")),
                ("computed_at", models.DateTimeField(auto_now=True)),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="scores",
                        to="portal.candidate",
                    ),
                ),
            ],
            options={
                "verbose_name": "score",
                "verbose_name_plural": "scores",
                "ordering": ["candidate", "dimension"],
            },
        ),
        migrations.CreateModel(
            name="UploadToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "node_name",
                    models.CharField(blank=True, max_length=200, verbose_name="node name"),
                ),
                ("label", models.CharField(blank=True, max_length=200, verbose_name="label")),
                ("token_hash", models.CharField(editable=False, max_length=64, unique=True)),
                ("token_prefix", models.CharField(editable=False, max_length=12)),
                ("nonce", models.CharField(editable=False, max_length=64)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("expires_at", models.DateTimeField(verbose_name="expires at")),
                (
                    "revoked_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="revoked at"),
                ),
                ("last_used_at", models.DateTimeField(blank=True, editable=False, null=True)),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="upload_tokens",
                        to="portal.candidate",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "evaluation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="upload_tokens",
                        to="portal.evaluation",
                    ),
                ),
            ],
            options={
                "verbose_name": "upload token",
                "verbose_name_plural": "upload tokens",
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="HistoricalEvidenceUpload",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("file", models.TextField(max_length=300, verbose_name="file")),
                ("original_name", models.CharField(max_length=255, verbose_name="original name")),
                ("sha256", models.CharField(max_length=64)),
                ("size_bytes", models.PositiveBigIntegerField(verbose_name="size (bytes)")),
                (
                    "node_name",
                    models.CharField(blank=True, max_length=200, verbose_name="node name"),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("processing", "Processing"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=12,
                        verbose_name="status",
                    ),
                ),
                ("error", models.TextField(blank=True, verbose_name="error")),
                (
                    "error_code",
                    models.CharField(blank=True, max_length=60, verbose_name="error code"),
                ),
                (
                    "error_params",
                    models.JSONField(blank=True, default=dict, verbose_name="error parameters"),
                ),
                (
                    "origin",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("", "Not yet checked"),
                            ("collector", "Collector (nonce verified)"),
                            ("unverified", "Unverified origin"),
                            ("by_hand", "Uploaded by hand"),
                        ],
                        default="",
                        help_text="Collector: the bundle carried its upload token's nonce. Unverified: it did not (shown, never used). By hand: a member uploaded it through the page.",
                        max_length=12,
                        verbose_name="origin",
                    ),
                ),
                (
                    "measured_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the tools ran (from the outputs or the manifest), not the upload.",
                        null=True,
                        verbose_name="measured at",
                    ),
                ),
                (
                    "fingerprint",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="GPU UUIDs and serials, board and system serials, HCA GUIDs, MACs.",
                        verbose_name="node fingerprint",
                    ),
                ),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.candidate",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "uploaded_by",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "token",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.uploadtoken",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical evidence upload",
                "verbose_name_plural": "historical evidence uploads",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.AddField(
            model_name="evidenceupload",
            name="token",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="uploads",
                to="portal.uploadtoken",
            ),
        ),
        migrations.CreateModel(
            name="Vendor",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, unique=True, verbose_name="name")),
                ("website", models.URLField(blank=True, verbose_name="website")),
                (
                    "contact_name",
                    models.CharField(blank=True, max_length=200, verbose_name="contact name"),
                ),
                (
                    "contact_email",
                    models.EmailField(blank=True, max_length=254, verbose_name="contact e-mail"),
                ),
                (
                    "contact_phone",
                    models.CharField(blank=True, max_length=50, verbose_name="contact phone"),
                ),
                (
                    "regions",
                    models.CharField(
                        blank=True,
                        help_text="Comma-separated regions served.",
                        max_length=300,
                        verbose_name="regions",
                    ),
                ),
                (
                    "mlps_level",
                    models.PositiveSmallIntegerField(
                        choices=[
                            (0, "None"),
                            (1, "MLPS level 1"),
                            (2, "MLPS level 2"),
                            (3, "MLPS level 3"),
                            (4, "MLPS level 4"),
                        ],
                        default=0,
                        help_text="Multi-Level Protection Scheme (等保) certification level.",
                        verbose_name="MLPS level",
                    ),
                ),
                (
                    "xinchuang",
                    models.BooleanField(default=False, verbose_name="Xinchuang compliant"),
                ),
                (
                    "iso27001",
                    models.BooleanField(default=False, verbose_name="ISO 27001 certified"),
                ),
                (
                    "other_certifications",
                    models.CharField(
                        blank=True, max_length=300, verbose_name="other certifications"
                    ),
                ),
                ("notes", models.TextField(blank=True, verbose_name="notes")),
            ],
            options={
                "verbose_name": "vendor",
                "verbose_name_plural": "vendors",
                "ordering": ["name"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("mlps_level__gte", 0), ("mlps_level__lte", 4)),
                        name="vendor_mlps_level_0_4",
                    )
                ],
            },
        ),
        migrations.AddField(
            model_name="offering",
            name="vendor",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="offerings",
                to="portal.vendor",
                verbose_name="vendor",
            ),
        ),
        migrations.CreateModel(
            name="HistoricalOffering",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "delivery_form",
                    models.CharField(
                        choices=[
                            ("bare_metal", "Bare metal"),
                            ("passthrough_vm", "PCIe passthrough VM"),
                            ("vgpu", "vGPU"),
                            ("mig", "MIG instance"),
                            ("container", "Container on shared GPUs"),
                        ],
                        max_length=20,
                        verbose_name="delivery form",
                    ),
                ),
                ("gpu_model", models.CharField(max_length=100, verbose_name="GPU model")),
                (
                    "gpu_form_factor",
                    models.CharField(
                        choices=[
                            ("sxm", "SXM"),
                            ("pcie", "PCIe"),
                            (
                                "other",
                                "Other: a superchip (GH200, GB200) or another maker's module",
                            ),
                        ],
                        max_length=10,
                        verbose_name="GPU form factor",
                    ),
                ),
                (
                    "gpus_per_node",
                    models.PositiveSmallIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(64),
                        ],
                        verbose_name="GPUs per node",
                    ),
                ),
                (
                    "gpu_memory_gib",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(10000),
                        ],
                        verbose_name="GPU memory (GiB)",
                    ),
                ),
                (
                    "nvlink_topology",
                    models.CharField(
                        choices=[
                            ("full_mesh", "Full mesh (all-to-all, NVSwitch)"),
                            ("grouped", "Grouped (pairs or hybrid cube mesh)"),
                            ("none", "None (PCIe only)"),
                        ],
                        max_length=20,
                        verbose_name="NVLink topology",
                    ),
                ),
                (
                    "nvlink_domain_gpus",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="GPUs joined in one NVLink domain across nodes: 72 for a GB200 NVL72 rack (18 trays of 4), 32 for GH200 NVL32. A multiple of the GPUs per node, at least one node; leave blank when NVLink stays inside the node.",
                        null=True,
                        validators=[django.core.validators.MaxValueValidator(100000)],
                        verbose_name="NVLink domain (GPUs)",
                    ),
                ),
                (
                    "mig_vgpu_profile",
                    models.CharField(
                        blank=True,
                        help_text="For example 3g.40gb or A100-8C; empty for whole GPUs.",
                        max_length=50,
                        verbose_name="MIG / vGPU profile",
                    ),
                ),
                (
                    "mig_profile",
                    models.CharField(
                        blank=True,
                        help_text="MIG instances only, for example 3g.40gb, or 2x3g.40gb for two instances per GPU (checked against the GPU's 7 compute slices and its memory); GPUs per node then counts instances. Scored in full-GPU equivalents.",
                        max_length=20,
                        validators=[
                            django.core.validators.RegexValidator(
                                re.compile(
                                    "^(?:([1-9][0-9]?)\\s*[x×]\\s*)?([1-7])g\\.([1-9][0-9]{0,3})gb(\\+me)?$"
                                ),
                                "A MIG profile looks like 3g.40gb: compute slices (1-7), then memory in GB; the instances per GPU may come first, as in 2x3g.40gb.",
                            )
                        ],
                        verbose_name="MIG profile",
                    ),
                ),
                (
                    "logical_cpus_per_node",
                    models.PositiveIntegerField(
                        blank=True, null=True, verbose_name="logical CPUs per node"
                    ),
                ),
                (
                    "fabric",
                    models.CharField(
                        choices=[
                            ("infiniband", "InfiniBand"),
                            ("roce", "RoCE"),
                            ("ethernet", "Ethernet (TCP)"),
                            ("none", "None"),
                        ],
                        max_length=20,
                        verbose_name="fabric",
                    ),
                ),
                (
                    "fabric_rate_gbit_s",
                    models.PositiveIntegerField(
                        default=0,
                        help_text="HDR = 200, NDR = 400.",
                        verbose_name="rate per port (Gbit/s)",
                    ),
                ),
                (
                    "nics_per_node",
                    models.PositiveSmallIntegerField(
                        default=0, verbose_name="compute NICs (rails) per node"
                    ),
                ),
                (
                    "oversubscription_ratio",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="1 = non-blocking fat-tree; 2 = 2:1. Leave blank when the vendor does not state it: a blank ratio scores no points, never those of a non-blocking fabric.",
                        max_digits=5,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("1"))],
                        verbose_name="oversubscription ratio",
                    ),
                ),
                (
                    "cross_rack_latency_us",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="cross-rack latency (µs)",
                    ),
                ),
                (
                    "nvme_capacity_tib",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        help_text="Per node, in binary TiB, not the decimal TB drives are sold in (1 TB = 0.9095 TiB): eight 3.84 TB drives are 27.94 TiB.",
                        max_digits=8,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="local NVMe capacity (TiB)",
                    ),
                ),
                (
                    "nvme_read_gbyte_s",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="NVMe read (GB/s)",
                    ),
                ),
                (
                    "nvme_write_gbyte_s",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="NVMe write (GB/s)",
                    ),
                ),
                (
                    "distributed_fs",
                    models.CharField(
                        blank=True,
                        help_text="Lustre, GPFS, CephFS…; empty if none.",
                        max_length=100,
                        verbose_name="distributed file system",
                    ),
                ),
                (
                    "distributed_fs_bandwidth_gbyte_s",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="distributed FS aggregate bandwidth (GB/s)",
                    ),
                ),
                (
                    "data_preloading",
                    models.BooleanField(default=False, verbose_name="data preloading / caching"),
                ),
                (
                    "region",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="region / data centre"
                    ),
                ),
                (
                    "region_country",
                    models.CharField(
                        blank=True, max_length=2, verbose_name="region country (ISO code)"
                    ),
                ),
                (
                    "region_province",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="region province or city"
                    ),
                ),
                (
                    "region_zone",
                    models.CharField(blank=True, max_length=50, verbose_name="region zone"),
                ),
                (
                    "vendor_managed",
                    models.BooleanField(
                        default=False,
                        help_text="The vendor operates the machines (platform-managed); no buyer ops team.",
                        verbose_name="vendor-managed option",
                    ),
                ),
                (
                    "rtt_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="RTT from our site (ms)",
                    ),
                ),
                (
                    "oob_management",
                    models.BooleanField(
                        default=False, verbose_name="out-of-band management (IPMI/BMC)"
                    ),
                ),
                (
                    "provisioning_time_min",
                    models.PositiveIntegerField(
                        blank=True,
                        default=None,
                        help_text="Empty: unanswered. 0 is an answer: capacity available at once.",
                        null=True,
                        verbose_name="provisioning time (min)",
                    ),
                ),
                ("root_access", models.BooleanField(default=False, verbose_name="root access")),
                (
                    "custom_image",
                    models.BooleanField(default=False, verbose_name="custom OS image"),
                ),
                (
                    "driver_control",
                    models.BooleanField(default=False, verbose_name="driver version control"),
                ),
                (
                    "nccl_tuning_control",
                    models.BooleanField(default=False, verbose_name="control over NCCL tuning"),
                ),
                (
                    "monitors_pcie_errors",
                    models.BooleanField(default=False, verbose_name="monitors PCIe link errors"),
                ),
                (
                    "monitors_ecc",
                    models.BooleanField(default=False, verbose_name="alerts on ECC errors"),
                ),
                (
                    "monitors_thermal",
                    models.BooleanField(
                        default=False,
                        verbose_name="temperature/power monitoring with throttling protection",
                    ),
                ),
                (
                    "encryption_at_rest",
                    models.BooleanField(default=False, verbose_name="encryption at rest"),
                ),
                (
                    "encryption_in_transit",
                    models.BooleanField(default=False, verbose_name="encryption in transit"),
                ),
                (
                    "mfa",
                    models.BooleanField(default=False, verbose_name="multi-factor authentication"),
                ),
                (
                    "audit_logs",
                    models.BooleanField(default=False, verbose_name="operation audit logs"),
                ),
                (
                    "network_isolation",
                    models.CharField(
                        choices=[
                            ("none", "None"),
                            ("vlan", "VLAN"),
                            ("vxlan", "VXLAN"),
                            ("dedicated", "Dedicated physical network"),
                        ],
                        default="none",
                        max_length=20,
                        verbose_name="network isolation",
                    ),
                ),
                (
                    "data_wipe_policy",
                    models.CharField(
                        choices=[
                            ("none", "None stated"),
                            ("logical", "Logical wipe"),
                            ("certified", "Certified wipe (e.g. NIST 800-88) with a certificate"),
                        ],
                        default="none",
                        max_length=20,
                        verbose_name="data-wipe policy",
                    ),
                ),
                (
                    "currency",
                    models.CharField(
                        choices=[("CNY", "Chinese yuan (CNY)"), ("USD", "US dollar (USD)")],
                        default="CNY",
                        max_length=3,
                        verbose_name="currency",
                    ),
                ),
                (
                    "spot_preemption_risk_pct",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="Empty: the rubric's default for the delivery form.",
                        max_digits=5,
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("99.99")),
                        ],
                        verbose_name="spot preemption risk (%)",
                    ),
                ),
                (
                    "releasable_hourly",
                    models.BooleanField(
                        blank=True,
                        help_text="Whether hourly capacity can be handed back on idle days. Empty: the rubric's default for the delivery form (bare metal: no, so idle days are paid).",
                        null=True,
                        verbose_name="can be released by the hour",
                    ),
                ),
                (
                    "min_commitment_days",
                    models.PositiveIntegerField(
                        default=0, verbose_name="minimum commitment (days)"
                    ),
                ),
                (
                    "early_termination_fee",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        default=None,
                        help_text="Leave empty when the contract states none: the rest of the commitment is paid.",
                        max_digits=14,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="early-termination fee",
                    ),
                ),
                (
                    "storage_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="storage cost per month",
                    ),
                ),
                (
                    "network_egress_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="network egress cost per month",
                    ),
                ),
                (
                    "support_cost_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="support cost per month",
                    ),
                ),
                (
                    "licence_cost_gpu_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="licence cost per GPU-month (vGPU)",
                    ),
                ),
                (
                    "setup_fee",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=14,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="one-off setup fee",
                    ),
                ),
                (
                    "setup_days",
                    models.PositiveIntegerField(
                        default=0, verbose_name="setup days paid before use"
                    ),
                ),
                (
                    "sla_availability_pct",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        help_text="Empty: no availability SLA (unanswered).",
                        max_digits=6,
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("100")),
                        ],
                        verbose_name="SLA availability (%)",
                    ),
                ),
                (
                    "sla_response_time_min",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Empty: no response time committed (unanswered).",
                        null=True,
                        verbose_name="hardware-fault response time (min)",
                    ),
                ),
                (
                    "sla_credit_pct",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=5,
                        validators=[
                            django.core.validators.MinValueValidator(Decimal("0")),
                            django.core.validators.MaxValueValidator(Decimal("100")),
                        ],
                        verbose_name="SLA credit on breach (percent of monthly fee)",
                    ),
                ),
                (
                    "sla_compensation",
                    models.TextField(blank=True, verbose_name="compensation terms"),
                ),
                (
                    "hardware_replacement_hours",
                    models.PositiveIntegerField(
                        blank=True, null=True, verbose_name="hardware replacement (hours)"
                    ),
                ),
                ("support_24x7", models.BooleanField(default=False, verbose_name="7×24 support")),
                (
                    "support_tier",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("dedicated_team", "Dedicated customer-success team"),
                            ("named_contact", "Named technical contact"),
                            ("ticket_queue", "Shared ticket queue"),
                        ],
                        default="",
                        help_text="Empty: the support question is unanswered (0 points, never the lowest tier).",
                        max_length=20,
                        verbose_name="support tier",
                    ),
                ),
                (
                    "poc_window_days",
                    models.PositiveIntegerField(default=0, verbose_name="POC window (days)"),
                ),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("updated_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "vendor",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="portal.vendor",
                        verbose_name="vendor",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical offering",
                "verbose_name_plural": "historical offerings",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="Workload",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=100, verbose_name="name")),
                (
                    "profile",
                    models.CharField(
                        choices=[
                            ("pretraining", "Pre-training"),
                            ("finetuning", "Fine-tuning"),
                            ("inference", "Inference"),
                            ("development", "Development"),
                        ],
                        max_length=20,
                        verbose_name="workload profile",
                    ),
                ),
                (
                    "gpus",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(1000000),
                        ],
                        verbose_name="GPUs",
                    ),
                ),
                (
                    "peak_gpus",
                    models.PositiveIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(1000000)],
                        verbose_name="peak GPUs",
                    ),
                ),
                (
                    "peak_hours_per_day",
                    models.PositiveSmallIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(24)],
                        verbose_name="peak hours per day",
                    ),
                ),
                (
                    "peak_days_per_week",
                    models.PositiveSmallIntegerField(
                        default=0,
                        validators=[django.core.validators.MaxValueValidator(7)],
                        verbose_name="peak days per week",
                    ),
                ),
                (
                    "duration_days",
                    models.PositiveIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(3653),
                        ],
                        verbose_name="duration (days)",
                    ),
                ),
                (
                    "weights",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Empty: the profile's preset weights.",
                        verbose_name="weights",
                    ),
                ),
                (
                    "requirements",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Overrides of the evaluation's requirements for this workload.",
                        verbose_name="requirements",
                    ),
                ),
                (
                    "min_score",
                    models.FloatField(
                        default=0,
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(100),
                        ],
                        verbose_name="minimum score",
                    ),
                ),
                (
                    "tolerates_preemption",
                    models.BooleanField(default=False, verbose_name="tolerates pre-emption"),
                ),
                (
                    "latency_target_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="Set for latency-sensitive workloads such as inference.",
                        max_digits=8,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0.01"))],
                        verbose_name="latency target RTT (ms)",
                    ),
                ),
                (
                    "latency_endpoints",
                    models.CharField(
                        blank=True,
                        help_text="Comma-separated RTT targets that must meet the latency target.",
                        max_length=300,
                        verbose_name="latency endpoints",
                    ),
                ),
                (
                    "accepts_far_region",
                    models.BooleanField(default=False, verbose_name="accepts a farther region"),
                ),
                (
                    "data_exchange_gib_month",
                    models.DecimalField(
                        decimal_places=2,
                        default=Decimal("0"),
                        max_digits=12,
                        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                        verbose_name="data exchanged with the other workloads (GiB/month)",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "evaluation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="workloads",
                        to="portal.evaluation",
                    ),
                ),
            ],
            options={
                "verbose_name": "workload",
                "verbose_name_plural": "workloads",
                "ordering": ["evaluation", "pk"],
            },
        ),
        migrations.CreateModel(
            name="AnswerReview",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        choices=[("verified", "Verified"), ("contradicted", "Contradicted")],
                        max_length=15,
                        verbose_name="verdict",
                    ),
                ),
                ("note", models.TextField(verbose_name="review note")),
                ("claim_reviewed", models.TextField(blank=True, verbose_name="claim reviewed")),
                (
                    "value_reviewed",
                    models.JSONField(blank=True, null=True, verbose_name="typed value reviewed"),
                ),
                ("reviewed_at", models.DateTimeField(auto_now=True, verbose_name="reviewed at")),
                (
                    "answer",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="review",
                        to="portal.answer",
                    ),
                ),
                (
                    "reviewed_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "answer review",
                "verbose_name_plural": "answer reviews",
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("verdict__in", ["verified", "contradicted"])),
                        name="answer_review_verdict_valid",
                    )
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="answer",
            constraint=models.UniqueConstraint(
                fields=("candidate", "item"), name="one_answer_per_item"
            ),
        ),
        migrations.AddConstraint(
            model_name="answer",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "status__in",
                        ["unanswered", "claimed", "verified", "contradicted", "unverifiable"],
                    )
                ),
                name="answer_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="decisionrecord",
            constraint=models.UniqueConstraint(
                fields=("evaluation", "round"), name="one_decision_per_round"
            ),
        ),
        migrations.AddConstraint(
            model_name="evidencesummary",
            constraint=models.UniqueConstraint(
                fields=("candidate", "node_name", "kind"), name="one_summary_per_node_kind"
            ),
        ),
        migrations.AddIndex(
            model_name="hardwareidentifier",
            index=models.Index(fields=["kind", "value"], name="hardware_kind_value_idx"),
        ),
        migrations.AddConstraint(
            model_name="hardwareidentifier",
            constraint=models.UniqueConstraint(
                fields=("upload", "kind", "value"), name="one_identifier"
            ),
        ),
        migrations.AddIndex(
            model_name="measurement",
            index=models.Index(
                fields=["candidate", "kind", "node_name", "metric", "line", "id"],
                name="measurement_cand_page_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="measurement",
            index=models.Index(fields=["evaluation", "id"], name="measurement_eval_idx"),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.UniqueConstraint(
                fields=("evaluation", "user"), name="one_role_per_member"
            ),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.CheckConstraint(
                condition=models.Q(("role__in", ["procurement", "manager", "engineer", "viewer"])),
                name="membership_role_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight_stability__gte", 0)), name="eval_weight_stability_ge_0"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight_network__gte", 0)), name="eval_weight_network_ge_0"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight_storage__gte", 0)), name="eval_weight_storage_ge_0"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight_security__gte", 0)), name="eval_weight_security_ge_0"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight_cost__gte", 0)), name="eval_weight_cost_ge_0"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight_support__gte", 0)), name="eval_weight_support_ge_0"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("weight_stability__gt", 0),
                    ("weight_network__gt", 0),
                    ("weight_storage__gt", 0),
                    ("weight_security__gt", 0),
                    ("weight_cost__gt", 0),
                    ("weight_support__gt", 0),
                    _connector="OR",
                ),
                name="eval_some_weight_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("expected_idle_days__lte", models.F("duration_days"))),
                name="eval_idle_within_duration",
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("required_total_gpus__gte", 1)), name="eval_total_gpus_ge_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "workload_profile__in",
                        ["pretraining", "finetuning", "inference", "development"],
                    )
                ),
                name="eval_profile_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="offeringprice",
            constraint=models.UniqueConstraint(
                fields=("offering", "billing_model"), name="price_one_per_billing_model"
            ),
        ),
        migrations.AddConstraint(
            model_name="offeringprice",
            constraint=models.CheckConstraint(
                condition=models.Q(("price_per_gpu__gte", 0)), name="price_non_negative"
            ),
        ),
        migrations.AddConstraint(
            model_name="offeringprice",
            constraint=models.CheckConstraint(
                condition=models.Q(("billing_model__in", ["hourly", "monthly", "yearly", "spot"])),
                name="price_billing_model_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="offeringversion",
            constraint=models.UniqueConstraint(
                fields=("offering", "number"), name="one_offering_version"
            ),
        ),
        migrations.AddConstraint(
            model_name="candidate",
            constraint=models.UniqueConstraint(
                fields=("evaluation", "offering"), name="one_candidate_per_offering"
            ),
        ),
        migrations.AddConstraint(
            model_name="candidate",
            constraint=models.CheckConstraint(
                condition=models.Q(("node_count__gte", 1)), name="candidate_nodes_ge_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="candidate",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("quoted_billing_model", ""), ("quoted_price_per_gpu__isnull", True)),
                    models.Q(
                        models.Q(("quoted_billing_model", ""), _negated=True),
                        ("quoted_price_per_gpu__isnull", False),
                        ("quoted_price_per_gpu__gte", 0),
                    ),
                    _connector="OR",
                ),
                name="candidate_quote_complete",
            ),
        ),
        migrations.AddIndex(
            model_name="resultsentry",
            index=models.Index(fields=["evaluation", "kind"], name="results_entry_eval_kind"),
        ),
        migrations.AddConstraint(
            model_name="score",
            constraint=models.UniqueConstraint(
                fields=("candidate", "dimension"), name="one_score_per_dim"
            ),
        ),
        migrations.AddConstraint(
            model_name="score",
            constraint=models.CheckConstraint(
                condition=models.Q(("value__gte", 0), ("value__lte", 100)), name="score_0_100"
            ),
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(fields=["status", "created_at"], name="upload_status_idx"),
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(
                fields=["candidate", "-created_at", "-id"], name="upload_cand_recent_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(fields=["evaluation", "-id"], name="upload_eval_recent_idx"),
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(fields=["sha256"], name="upload_sha256_idx"),
        ),
        migrations.AddConstraint(
            model_name="evidenceupload",
            constraint=models.UniqueConstraint(
                fields=("candidate", "sha256"), name="one_upload_per_content"
            ),
        ),
        migrations.AddConstraint(
            model_name="evidenceupload",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["queued", "processing", "done", "failed"])),
                name="upload_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.UniqueConstraint(
                fields=("vendor", "name"), name="offering_unique_per_vendor"
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(("gpus_per_node__gte", 1)), name="offering_gpus_ge_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(("gpu_memory_gib__gte", 1)), name="offering_gpu_memory_ge_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("oversubscription_ratio__isnull", True),
                    ("oversubscription_ratio__gte", 1),
                    _connector="OR",
                ),
                name="offering_oversubscription_ge_1",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("sla_availability_pct__gte", 0), ("sla_availability_pct__lte", 100)
                ),
                name="offering_sla_pct_0_100",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("storage_cost_month__gte", 0),
                    ("network_egress_cost_month__gte", 0),
                    ("support_cost_month__gte", 0),
                    ("licence_cost_gpu_month__gte", 0),
                    ("setup_fee__gte", 0),
                ),
                name="offering_costs_non_negative",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "delivery_form__in",
                        ["bare_metal", "passthrough_vm", "vgpu", "mig", "container"],
                    )
                ),
                name="offering_delivery_form_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(("fabric__in", ["infiniband", "roce", "ethernet", "none"])),
                name="offering_fabric_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(("gpu_form_factor__in", ["sxm", "pcie", "other"])),
                name="offering_form_factor_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("nvlink_domain_gpus__isnull", True),
                    ("nvlink_domain_gpus", 0),
                    models.Q(
                        ("nvlink_domain_gpus__gte", models.F("gpus_per_node")),
                        django.db.models.lookups.Exact(
                            django.db.models.functions.math.Mod(
                                "nvlink_domain_gpus", "gpus_per_node"
                            ),
                            0,
                        ),
                    ),
                    _connector="OR",
                ),
                name="offering_nvlink_domain_whole_nodes",
            ),
        ),
        migrations.AddConstraint(
            model_name="workload",
            constraint=models.UniqueConstraint(
                fields=("evaluation", "name"), name="workload_unique_name_per_evaluation"
            ),
        ),
        migrations.AddConstraint(
            model_name="workload",
            constraint=models.CheckConstraint(
                condition=models.Q(("gpus__gte", 1)), name="workload_gpus_ge_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="workload",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("peak_gpus", 0), ("peak_gpus__gte", models.F("gpus")), _connector="OR"
                ),
                name="workload_peak_ge_gpus",
            ),
        ),
        migrations.AddConstraint(
            model_name="workload",
            constraint=models.CheckConstraint(
                condition=models.Q(("peak_hours_per_day__lte", 24), ("peak_days_per_week__lte", 7)),
                name="workload_peak_window_valid",
            ),
        ),
        migrations.RunPython(
            postgresql_only(UPLOAD_EVALUATION_FORWARD),
            postgresql_only(UPLOAD_EVALUATION_BACKWARD),
        ),
        migrations.RunPython(
            postgresql_only(MEASUREMENT_EVALUATION_FORWARD),
            postgresql_only(MEASUREMENT_EVALUATION_BACKWARD),
        ),
        migrations.RunPython(set_compression("lz4"), set_compression("default")),
    ]
