"""Vendors and their offerings: what each vendor claims to deliver and at what price."""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Mod
from django.db.models.lookups import Exact
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from scoring.reference import form_factor_ruled_out, nvlink_topology_ruled_out
from scoring.rubric import CURRENT_RUBRIC_VERSION, load_rubric
from scoring.types import ScoringInputError
from scoring.types.inputs import MIG_PROFILE_RE, normalise_mig_profile

from .choices import (
    BillingModel,
    Currency,
    DataWipePolicy,
    DeliveryForm,
    Fabric,
    FormFactor,
    MlpsLevel,
    NetworkIsolation,
    NvlinkTopology,
    SupportTier,
)

NON_NEGATIVE = [MinValueValidator(Decimal("0"))]


def _money(verbose_name, **kwargs):
    kwargs.setdefault("default", None if kwargs.get("null") else Decimal("0"))
    return models.DecimalField(
        verbose_name, max_digits=14, decimal_places=2, validators=NON_NEGATIVE, **kwargs
    )


# The MIG profile errors scoring raises (ScoringInputError.code, .params), in the reader's
# language; a code missing here shows scoring's English text.
MIG_PROFILE_ERRORS = {
    "mig.malformed": _(
        "A MIG profile looks like 3g.40gb (compute slices 1–7, memory in GB), optionally with "
        "the instances per GPU in front (2x3g.40gb); got “%(profile)s”."
    ),
    "mig.gpu": _(
        "MIG needs an Ampere-or-newer data-centre GPU that supports it (A100, A30, H100, H200, "
        "H20, GH200, B200…); got “%(gpu)s”."
    ),
    "mig.slices": _(
        "MIG profiles on the %(family)s have %(sizes)s compute slices; got “%(profile)s”."
    ),
    "mig.memory": _(
        "The MIG profile “%(profile)s” has more memory than the whole GPU (%(memory)s GB)."
    ),
    "mig.instances": _(
        "The %(family)s holds at most %(limit)s MIG instances; got %(instances)s in “%(profile)s”."
    ),
    "mig.instance_slices": _(
        "%(instances)s instances of %(slices)s compute slices need %(needed)s slices; the "
        "%(family)s has %(whole)s (“%(profile)s”)."
    ),
    "mig.instance_memory": _(
        "%(instances)s instances of %(memory)s GB need %(needed)s GB, more memory than the whole "
        "GPU (%(whole)s GB) (“%(profile)s”)."
    ),
}


def mig_profile_error(exc: ScoringInputError) -> str:
    """Scoring's MIG profile error in the reader's language."""
    template = MIG_PROFILE_ERRORS.get(exc.code)
    if template is None:
        return str(exc)
    try:
        return str(template) % exc.params
    except (KeyError, TypeError, ValueError):
        return str(exc)


class Vendor(models.Model):
    name = models.CharField(_("name"), max_length=200, unique=True)
    website = models.URLField(_("website"), blank=True)
    contact_name = models.CharField(_("contact name"), max_length=200, blank=True)
    contact_email = models.EmailField(_("contact e-mail"), blank=True)
    contact_phone = models.CharField(_("contact phone"), max_length=50, blank=True)
    regions = models.CharField(
        _("regions"), max_length=300, blank=True, help_text=_("Comma-separated regions served.")
    )
    mlps_level = models.PositiveSmallIntegerField(
        _("MLPS level"),
        choices=MlpsLevel.choices,
        default=MlpsLevel.NONE,
        help_text=_("Multi-Level Protection Scheme (等保) certification level."),
    )
    xinchuang = models.BooleanField(_("Xinchuang compliant"), default=False)
    iso27001 = models.BooleanField(_("ISO 27001 certified"), default=False)
    other_certifications = models.CharField(_("other certifications"), max_length=300, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]
        verbose_name = _("vendor")
        verbose_name_plural = _("vendors")
        constraints = [
            models.CheckConstraint(
                condition=Q(mlps_level__gte=0) & Q(mlps_level__lte=4), name="vendor_mlps_level_0_4"
            )
        ]

    def __str__(self) -> str:
        return self.name


class Offering(models.Model):
    """One vendor product. Every attribute here is a claim until evidence verifies it."""

    vendor = models.ForeignKey(
        Vendor, on_delete=models.PROTECT, related_name="offerings", verbose_name=_("vendor")
    )
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    delivery_form = models.CharField(
        _("delivery form"), max_length=20, choices=DeliveryForm.choices
    )

    # GPUs
    gpu_model = models.CharField(_("GPU model"), max_length=100)
    gpu_form_factor = models.CharField(
        _("GPU form factor"), max_length=10, choices=FormFactor.choices
    )
    gpus_per_node = models.PositiveSmallIntegerField(
        _("GPUs per node"), validators=[MinValueValidator(1), MaxValueValidator(64)]
    )
    gpu_memory_gib = models.PositiveIntegerField(
        _("GPU memory (GiB)"), validators=[MinValueValidator(1), MaxValueValidator(10_000)]
    )
    nvlink_topology = models.CharField(
        _("NVLink topology"), max_length=20, choices=NvlinkTopology.choices
    )
    # Blank (or 0): the node is the NVLink domain. A rack-scale system joins several nodes'
    # GPUs in one domain through NVSwitch trays, and a run across them stays on NVLink.
    nvlink_domain_gpus = models.PositiveIntegerField(
        _("NVLink domain (GPUs)"),
        null=True,
        blank=True,
        validators=[MaxValueValidator(100_000)],
        help_text=_(
            "GPUs joined in one NVLink domain across nodes: 72 for a GB200 NVL72 rack (18 "
            "trays of 4), 32 for GH200 NVL32. A multiple of the GPUs per node, at least one "
            "node; leave blank when NVLink stays inside the node."
        ),
    )
    mig_vgpu_profile = models.CharField(
        _("MIG / vGPU profile"),
        max_length=50,
        blank=True,
        help_text=_("For example 3g.40gb or A100-8C; empty for whole GPUs."),
    )
    mig_profile = models.CharField(
        _("MIG profile"),
        max_length=20,
        blank=True,
        validators=[
            RegexValidator(
                MIG_PROFILE_RE,
                _(
                    "A MIG profile looks like 3g.40gb: compute slices (1-7), then memory in "
                    "GB; the instances per GPU may come first, as in 2x3g.40gb."
                ),
            )
        ],
        help_text=_(
            "MIG instances only, for example 3g.40gb, or 2x3g.40gb for two instances per GPU "
            "(checked against the GPU's 7 compute slices and its memory); GPUs per node then "
            "counts instances. Scored in full-GPU equivalents."
        ),
    )
    logical_cpus_per_node = models.PositiveIntegerField(
        _("logical CPUs per node"), null=True, blank=True
    )

    # Network
    fabric = models.CharField(_("fabric"), max_length=20, choices=Fabric.choices)
    fabric_rate_gbit_s = models.PositiveIntegerField(
        _("rate per port (Gbit/s)"), default=0, help_text=_("HDR = 200, NDR = 400.")
    )
    nics_per_node = models.PositiveSmallIntegerField(_("compute NICs (rails) per node"), default=0)
    # Blank: the vendor did not state it, scored as missing (never as non-blocking).
    oversubscription_ratio = models.DecimalField(
        _("oversubscription ratio"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("1"))],
        help_text=_(
            "1 = non-blocking fat-tree; 2 = 2:1. Leave blank when the vendor does not state "
            "it: a blank ratio scores no points, never those of a non-blocking fabric."
        ),
    )
    cross_rack_latency_us = models.DecimalField(
        _("cross-rack latency (µs)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=NON_NEGATIVE,
    )

    # Storage
    nvme_capacity_tib = models.DecimalField(
        _("local NVMe capacity (TiB)"),
        max_digits=8,
        decimal_places=2,
        default=Decimal("0"),
        validators=NON_NEGATIVE,
        help_text=_(
            "Per node, in binary TiB, not the decimal TB drives are sold in (1 TB = 0.9095 "
            "TiB): eight 3.84 TB drives are 27.94 TiB."
        ),
    )
    nvme_read_gbyte_s = models.DecimalField(
        _("NVMe read (GB/s)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=NON_NEGATIVE,
    )
    nvme_write_gbyte_s = models.DecimalField(
        _("NVMe write (GB/s)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=NON_NEGATIVE,
    )
    distributed_fs = models.CharField(
        _("distributed file system"),
        max_length=100,
        blank=True,
        help_text=_("Lustre, GPFS, CephFS…; empty if none."),
    )
    distributed_fs_bandwidth_gbyte_s = models.DecimalField(
        _("distributed FS aggregate bandwidth (GB/s)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=NON_NEGATIVE,
    )
    data_preloading = models.BooleanField(_("data preloading / caching"), default=False)

    # Location and control
    region = models.CharField(_("region / data centre"), max_length=100, blank=True)
    region_country = models.CharField(_("region country (ISO code)"), max_length=2, blank=True)
    region_province = models.CharField(_("region province or city"), max_length=100, blank=True)
    region_zone = models.CharField(_("region zone"), max_length=50, blank=True)
    vendor_managed = models.BooleanField(
        _("vendor-managed option"),
        default=False,
        help_text=_("The vendor operates the machines (platform-managed); no buyer ops team."),
    )
    rtt_ms = models.DecimalField(
        _("RTT from our site (ms)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=NON_NEGATIVE,
    )
    oob_management = models.BooleanField(_("out-of-band management (IPMI/BMC)"), default=False)
    provisioning_time_min = models.PositiveIntegerField(
        _("provisioning time (min)"),
        null=True,
        blank=True,
        default=None,
        help_text=_("Empty: unanswered. 0 is an answer: capacity available at once."),
    )
    root_access = models.BooleanField(_("root access"), default=False)
    custom_image = models.BooleanField(_("custom OS image"), default=False)
    driver_control = models.BooleanField(_("driver version control"), default=False)
    nccl_tuning_control = models.BooleanField(_("control over NCCL tuning"), default=False)

    # Stability: GPU health monitoring
    monitors_pcie_errors = models.BooleanField(_("monitors PCIe link errors"), default=False)
    monitors_ecc = models.BooleanField(_("alerts on ECC errors"), default=False)
    monitors_thermal = models.BooleanField(
        _("temperature/power monitoring with throttling protection"), default=False
    )

    # Security
    encryption_at_rest = models.BooleanField(_("encryption at rest"), default=False)
    encryption_in_transit = models.BooleanField(_("encryption in transit"), default=False)
    mfa = models.BooleanField(_("multi-factor authentication"), default=False)
    audit_logs = models.BooleanField(_("operation audit logs"), default=False)
    network_isolation = models.CharField(
        _("network isolation"),
        max_length=20,
        choices=NetworkIsolation.choices,
        default=NetworkIsolation.NONE,
    )
    data_wipe_policy = models.CharField(
        _("data-wipe policy"),
        max_length=20,
        choices=DataWipePolicy.choices,
        default=DataWipePolicy.NONE,
    )

    # Costs beyond the GPU price, per month for the whole deployment unless stated
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    spot_preemption_risk_pct = models.DecimalField(
        _("spot preemption risk (%)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("99.99"))],
        help_text=_("Empty: the rubric's default for the delivery form."),
    )
    releasable_hourly = models.BooleanField(
        _("can be released by the hour"),
        null=True,
        blank=True,
        help_text=_(
            "Whether hourly capacity can be handed back on idle days. Empty: the rubric's "
            "default for the delivery form (bare metal: no, so idle days are paid)."
        ),
    )
    min_commitment_days = models.PositiveIntegerField(_("minimum commitment (days)"), default=0)
    # Empty: no early-termination term was stated, so the rest of the commitment is paid.
    early_termination_fee = _money(
        _("early-termination fee"),
        null=True,
        blank=True,
        help_text=_(
            "Leave empty when the contract states none: the rest of the commitment is paid."
        ),
    )
    storage_cost_month = _money(_("storage cost per month"))
    network_egress_cost_month = _money(_("network egress cost per month"))
    support_cost_month = _money(_("support cost per month"))
    licence_cost_gpu_month = _money(_("licence cost per GPU-month (vGPU)"))
    setup_fee = _money(_("one-off setup fee"))
    setup_days = models.PositiveIntegerField(_("setup days paid before use"), default=0)

    # SLA and support
    sla_availability_pct = models.DecimalField(
        _("SLA availability (%)"),
        max_digits=6,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
        help_text=_("Empty: no availability SLA (unanswered)."),
    )
    sla_response_time_min = models.PositiveIntegerField(
        _("hardware-fault response time (min)"),
        null=True,
        blank=True,
        help_text=_("Empty: no response time committed (unanswered)."),
    )
    sla_credit_pct = models.DecimalField(
        _("SLA credit on breach (percent of monthly fee)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
    )
    sla_compensation = models.TextField(_("compensation terms"), blank=True)
    hardware_replacement_hours = models.PositiveIntegerField(
        _("hardware replacement (hours)"), null=True, blank=True
    )
    support_24x7 = models.BooleanField(_("7×24 support"), default=False)
    # Blank: the support question is unanswered (scored 0, never as the lowest tier).
    support_tier = models.CharField(
        _("support tier"),
        max_length=20,
        choices=SupportTier.choices,
        blank=True,
        default="",
        help_text=_("Empty: the support question is unanswered (0 points, never the lowest tier)."),
    )
    poc_window_days = models.PositiveIntegerField(_("POC window (days)"), default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["vendor__name", "name"]
        verbose_name = _("offering")
        verbose_name_plural = _("offerings")
        # The catalogue role: who may edit vendors, offerings and prices besides staff.
        permissions = [("edit_catalogue", _("Can edit the shared vendor catalogue"))]
        constraints = [
            models.UniqueConstraint(fields=["vendor", "name"], name="offering_unique_per_vendor"),
            models.CheckConstraint(condition=Q(gpus_per_node__gte=1), name="offering_gpus_ge_1"),
            models.CheckConstraint(
                condition=Q(gpu_memory_gib__gte=1), name="offering_gpu_memory_ge_1"
            ),
            models.CheckConstraint(
                condition=Q(oversubscription_ratio__isnull=True) | Q(oversubscription_ratio__gte=1),
                name="offering_oversubscription_ge_1",
            ),
            models.CheckConstraint(
                condition=Q(sla_availability_pct__gte=0) & Q(sla_availability_pct__lte=100),
                name="offering_sla_pct_0_100",
            ),
            models.CheckConstraint(
                condition=Q(storage_cost_month__gte=0)
                & Q(network_egress_cost_month__gte=0)
                & Q(support_cost_month__gte=0)
                & Q(licence_cost_gpu_month__gte=0)
                & Q(setup_fee__gte=0),
                name="offering_costs_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(delivery_form__in=[c.value for c in DeliveryForm]),
                name="offering_delivery_form_valid",
            ),
            models.CheckConstraint(
                condition=Q(fabric__in=[c.value for c in Fabric]), name="offering_fabric_valid"
            ),
            models.CheckConstraint(
                condition=Q(gpu_form_factor__in=[c.value for c in FormFactor]),
                name="offering_form_factor_valid",
            ),
            # Blank or 0 (the node), else whole nodes (Offering._clean_nvlink_domain).
            models.CheckConstraint(
                condition=Q(nvlink_domain_gpus__isnull=True)
                | Q(nvlink_domain_gpus=0)
                | (
                    Q(nvlink_domain_gpus__gte=F("gpus_per_node"))
                    & Exact(Mod("nvlink_domain_gpus", "gpus_per_node"), 0)
                ),
                name="offering_nvlink_domain_whole_nodes",
            ),
        ]

    def __str__(self) -> str:
        return self.label(self.vendor.name, self.name)

    @staticmethod
    def label(vendor_name: object, name: str) -> str:
        """How an offering (and the candidate on it) is named: "vendor · offering". For a
        reader that has only the two names (a values() query), as str() of the instance."""
        return f"{vendor_name} · {name}"

    def clean(self) -> None:
        super().clean()
        self._clean_datasheet()
        self._clean_nvlink_domain()
        profile = (self.mig_profile or "").strip().lower()
        if MIG_PROFILE_RE.match(profile):
            profile = normalise_mig_profile(profile)
        self.mig_profile = profile
        if not profile:
            return
        if self.delivery_form != DeliveryForm.MIG:
            raise ValidationError(
                {"mig_profile": _("A MIG profile is only for the delivery form “MIG instance”.")}
            )
        try:
            load_rubric(CURRENT_RUBRIC_VERSION).gpu_fraction(self.gpu_model or "", profile)
        except ScoringInputError as exc:
            raise ValidationError({"mig_profile": mig_profile_error(exc)}) from None

    def _clean_datasheet(self) -> None:
        """An NVLink topology or a form factor the GPU's datasheet rules out (the reference
        table: scoring.reference.nvlink_topology_ruled_out, form_factor_ruled_out) is refused,
        naming the datasheet fact. Offerings saved before this check stay as they are and
        still rank: scoring counts such a claim as contradicted."""
        zh = (get_language() or "").startswith("zh")
        errors = {}
        # The declared form factor picks the card where the name states none, as scoring
        # reads it ("NVIDIA H100 80GB" declared PCIe is the bridged PCIe card).
        topology = nvlink_topology_ruled_out(
            self.gpu_model or "",
            self.gpus_per_node or 0,
            self.nvlink_topology,
            self.gpu_form_factor,
            self.gpu_memory_gib,
        )
        if topology is not None:
            errors["nvlink_topology"] = _(
                "The GPU's datasheet rules this NVLink topology out: %(reason)s."
            ) % {"reason": topology[1] if zh else topology[0]}
        form = form_factor_ruled_out(self.gpu_model or "", self.gpu_form_factor)
        if form is not None:
            errors["gpu_form_factor"] = _(
                "The GPU's datasheet rules this form factor out: %(reason)s."
            ) % {"reason": form[1] if zh else form[0]}
        if errors:
            raise ValidationError(errors)

    def _clean_nvlink_domain(self) -> None:
        """The NVLink domain joins whole nodes: a multiple of the GPUs per node, at least one
        node, and NVLink to join them (scoring.reference.nvlink_domain_problem)."""
        domain, gpus = self.nvlink_domain_gpus, self.gpus_per_node
        if not domain or not gpus:
            return
        if domain < gpus or domain % gpus:
            raise ValidationError(
                {
                    "nvlink_domain_gpus": _(
                        "The NVLink domain (%(domain)s GPUs) must be a whole number of nodes: "
                        "a multiple of the %(gpus)s GPUs per node, at least one node. Leave it "
                        "blank when NVLink stays inside the node."
                    )
                    % {"domain": domain, "gpus": gpus}
                }
            )
        if domain > gpus and self.nvlink_topology == NvlinkTopology.NONE:
            raise ValidationError(
                {
                    "nvlink_domain_gpus": _(
                        "An NVLink domain across nodes needs an NVLink topology: choose the "
                        "topology, or leave the domain blank."
                    )
                }
            )


# What a catalogue editor states about an offering (every editable column, in model order):
# the page form and the API share it, so a field added to the model reaches both.
OFFERING_FIELDS = tuple(
    f.name for f in Offering._meta.local_concrete_fields if f.editable and not f.primary_key
)

# The offering's amounts of money, in its own currency (the pages and the history show them
# grouped, with the currency); list prices are OfferingPrice rows.
OFFERING_MONEY_FIELDS = frozenset(
    {
        "early_termination_fee",
        "storage_cost_month",
        "network_egress_cost_month",
        "support_cost_month",
        "licence_cost_gpu_month",
        "setup_fee",
    }
)

# Figures whose columns hold 0 when the vendor stated nothing (default 0, no "unset") and for
# which 0 is no claim: no node has 0 TiB of local NVMe, no fabric runs at 0 Gb/s or over 0
# NICs (scoring reads them so: a rate or NIC count of 0 is no fabric claim). Pages show them
# as "not stated". Money, days and percentages at 0 are shown as they are: 0 can be a real
# term there (free, no setup days, no commitment, no credit).
OFFERING_ZERO_UNSTATED = frozenset({"nvme_capacity_tib", "fabric_rate_gbit_s", "nics_per_node"})


def offering_zero_unstated(name: str, value) -> bool:
    """Whether an offering's ``name`` holding ``value`` (a model value, or a version's JSON
    text) is a figure of OFFERING_ZERO_UNSTATED left at 0: no claim, "not stated"."""
    if name not in OFFERING_ZERO_UNSTATED or value is None or isinstance(value, bool):
        return False
    try:
        return Decimal(str(value)) == 0
    except ArithmeticError:
        return False


class OfferingPrice(models.Model):
    """The list price of one billing model of an offering, per GPU and billing unit."""

    offering = models.ForeignKey(
        Offering, on_delete=models.CASCADE, related_name="prices", verbose_name=_("offering")
    )
    billing_model = models.CharField(
        _("billing model"), max_length=10, choices=BillingModel.choices
    )
    price_per_gpu = models.DecimalField(
        _("price per GPU"),
        max_digits=14,
        decimal_places=4,
        validators=NON_NEGATIVE,
        help_text=_("Per GPU-hour (hourly, spot), per GPU-month (monthly), per GPU-year (yearly)."),
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["offering", "billing_model"]
        verbose_name = _("offering price")
        verbose_name_plural = _("offering prices")
        constraints = [
            models.UniqueConstraint(
                fields=["offering", "billing_model"], name="price_one_per_billing_model"
            ),
            models.CheckConstraint(condition=Q(price_per_gpu__gte=0), name="price_non_negative"),
            models.CheckConstraint(
                condition=Q(billing_model__in=[c.value for c in BillingModel]),
                name="price_billing_model_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.offering} · {self.get_billing_model_display()}: {self.price_per_gpu}"


def _json_value(value):
    """A model field value as JSON keeps it (Decimals as strings, to keep every digit)."""
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


# Bookkeeping columns, not facts: they change on every save and mean nothing to a candidate.
VERSION_EXCLUDED = frozenset({"id", "created_at", "updated_at"})


def offering_facts_of(offering: "Offering") -> dict:
    """Every concrete field of the offering (generic: fields added later are included)."""
    return {
        f.attname: _json_value(f.value_from_object(offering))
        for f in Offering._meta.concrete_fields
        if f.name not in VERSION_EXCLUDED
    }


def vendor_facts_of(vendor: "Vendor") -> dict:
    return {
        f.attname: _json_value(f.value_from_object(vendor))
        for f in Vendor._meta.concrete_fields
        if f.name not in VERSION_EXCLUDED
    }


def price_facts_of(offering: "Offering") -> list:
    return [
        {"billing_model": p.billing_model, "price_per_gpu": _json_value(p.price_per_gpu)}
        for p in OfferingPrice.objects.filter(offering=offering).order_by("billing_model")
    ]


class OfferingVersion(models.Model):
    """What an offering was at one moment: its facts, its vendor's facts and its list prices.

    A candidate pins one version; editing the catalogue makes a new version and no running
    evaluation changes until its procurement member adopts the new one. Written once."""

    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(_("version"))
    facts = models.JSONField(_("offering facts"))
    vendor_facts = models.JSONField(_("vendor facts"))
    prices = models.JSONField(_("list prices"), default=list)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["offering", "-number"]
        verbose_name = _("offering version")
        verbose_name_plural = _("offering versions")
        constraints = [
            models.UniqueConstraint(fields=["offering", "number"], name="one_offering_version")
        ]

    def __str__(self) -> str:
        return f"{self.offering} v{self.number}"

    @classmethod
    def current(cls, offering: "Offering", *, by=None) -> "OfferingVersion":
        """The version matching the offering as it is now: the latest one if nothing changed
        since, else a new one (numbered after it). Lock the offering row first when racing."""
        facts = offering_facts_of(offering)
        vendor = Vendor.objects.get(pk=offering.vendor_id)
        vendor_facts, prices = vendor_facts_of(vendor), price_facts_of(offering)
        latest = cls.objects.filter(offering=offering).order_by("-number").first()
        if latest is not None and latest.same_as(facts, vendor_facts, prices):
            return latest
        return cls.objects.create(
            offering=offering,
            number=(latest.number + 1) if latest else 1,
            facts=facts,
            vendor_facts=vendor_facts,
            prices=prices,
            created_by=by if by is not None and getattr(by, "is_authenticated", False) else None,
        )

    def same_as(self, facts: dict, vendor_facts: dict, prices: list) -> bool:
        return (self.facts, self.vendor_facts, self.prices) == (facts, vendor_facts, prices)

    def as_offering(self) -> "Offering":
        """An unsaved Offering (with an unsaved Vendor) holding this version's facts, for
        scoring and display. Fields unknown to this version keep their model defaults."""
        return offering_from_facts(self.offering_id, self.facts, self.vendor_facts)

    def price_pairs(self) -> tuple:
        return price_pairs(self.prices)

    def diff(self, other: "OfferingVersion") -> list[dict]:
        """What changed from this version to ``other``: [{field, label, before, after,
        before_text, after_text}], the texts as the pages show the values (money with the
        currency of its version, choices by their labels); the API gives the raw values."""
        from ..audit_values import fact_shown

        currency_before = self.facts.get("currency") or ""
        currency_after = other.facts.get("currency") or ""
        price_field = OfferingPrice._meta.get_field("price_per_gpu")

        def change(field, name, label, before, after) -> dict:
            return {
                "field": name,
                "label": label,
                "before": before,
                "after": after,
                "before_text": fact_shown(field, before, currency_before),
                "after_text": fact_shown(field, after, currency_after),
            }

        changes = []
        for f in Offering._meta.concrete_fields:
            before, after = self.facts.get(f.attname), other.facts.get(f.attname)
            if before != after:
                changes.append(change(f, f.name, str(f.verbose_name), before, after))
        for f in Vendor._meta.concrete_fields:
            before, after = self.vendor_facts.get(f.attname), other.vendor_facts.get(f.attname)
            if before != after:
                label = f"{_('vendor')}: {f.verbose_name}"
                changes.append(change(f, f"vendor.{f.name}", label, before, after))
        old = {p["billing_model"]: p["price_per_gpu"] for p in self.prices}
        new = {p["billing_model"]: p["price_per_gpu"] for p in other.prices}
        for model in sorted(set(old) | set(new)):
            if old.get(model) != new.get(model):
                label = f"{_('price per GPU')}: {BillingModel(model).label}"
                changes.append(
                    change(price_field, f"price.{model}", label, old.get(model), new.get(model))
                )
        return changes


# --- versions read back as rows ---------------------------------------------------------------
#
# A version's facts become model instances on every cold ranking (one Offering and one Vendor
# per candidate, 80 fields). Model(**kwargs) asks every field absent from the call for its
# default and Model.__init__ sets each value through its descriptor (a foreign key's checks
# its relation cache): at 200 candidates that was most of loading them. Here each instance is
# built as unpickling builds one (``__new__``, then its ``__dict__``; no pre_init/post_init
# receivers are registered for these models), with to_python called only where the JSON value
# is not already the field's Python type.

# Field classes whose to_python returns a value of this type unchanged.
_NATIVE_TYPES = (
    (models.BooleanField, bool),
    (models.IntegerField, int),
    (models.CharField, str),
    (models.TextField, str),
    (models.ForeignKey, int),
)
_plans: dict[type, tuple] = {}


def _plan(model: type) -> tuple:
    """(attname, native type or None, field) per concrete field of ``model``, in order."""
    plan = _plans.get(model)
    if plan is None:
        rows = []
        for f in model._meta.concrete_fields:
            native = next((t for cls, t in _NATIVE_TYPES if isinstance(f, cls)), None)
            if isinstance(f, models.JSONField):
                native = object  # to_python is the identity
            rows.append((f.attname, native, f))
        plan = _plans[model] = tuple(rows)
    return plan


def _from_facts(model: type, pk, facts: dict):
    """An unsaved ``model`` row holding ``facts`` (attname -> JSON value), as
    ``setattr(obj, attname, field.to_python(value))`` over ``model(pk=pk)`` would hold it."""
    obj = model.__new__(model)
    values = obj.__dict__
    for attname, native, f in _plan(model):
        if attname in facts:
            value = facts[attname]
            if native is not object and (value is None or type(value) is not native):
                value = f.to_python(value)
            values[attname] = value
        else:
            values[attname] = f.get_default()
    values[model._meta.pk.attname] = pk
    obj._state = models.base.ModelState()
    return obj


def offering_from_facts(offering_id, facts: dict, vendor_facts: dict) -> "Offering":
    """What OfferingVersion.as_offering gives, from a version's columns read as values."""
    vendor = _from_facts(Vendor, facts.get("vendor_id"), vendor_facts)
    offering = _from_facts(Offering, offering_id, facts)
    offering.vendor = vendor
    offering._state.adding = False
    return offering


def price_pairs(prices: list) -> tuple:
    """A version's list prices (its ``prices`` column) as (billing model, price) pairs."""
    return tuple((p["billing_model"], Decimal(p["price_per_gpu"])) for p in prices)
