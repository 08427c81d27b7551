"""Enumerations shared by the models, forms and API; values match the ``scoring`` strings."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class DeliveryForm(models.TextChoices):
    BARE_METAL = "bare_metal", _("Bare metal")
    PASSTHROUGH_VM = "passthrough_vm", _("PCIe passthrough VM")
    VGPU = "vgpu", _("vGPU")
    MIG = "mig", _("MIG instance")
    CONTAINER = "container", _("Container on shared GPUs")


class FormFactor(models.TextChoices):
    SXM = "sxm", _("SXM")
    PCIE = "pcie", _("PCIe")
    OTHER = "other", _("Other: a superchip (GH200, GB200) or another maker's module")


class NvlinkTopology(models.TextChoices):
    FULL_MESH = "full_mesh", _("Full mesh (all-to-all, NVSwitch)")
    GROUPED = "grouped", _("Grouped (pairs or hybrid cube mesh)")
    NONE = "none", _("None (PCIe only)")


class Fabric(models.TextChoices):
    INFINIBAND = "infiniband", _("InfiniBand")
    ROCE = "roce", _("RoCE")
    ETHERNET = "ethernet", _("Ethernet (TCP)")
    NONE = "none", _("None")


class NetworkIsolation(models.TextChoices):
    NONE = "none", _("None")
    VLAN = "vlan", _("VLAN")
    VXLAN = "vxlan", _("VXLAN")
    DEDICATED = "dedicated", _("Dedicated physical network")


class DataWipePolicy(models.TextChoices):
    NONE = "none", _("None stated")
    LOGICAL = "logical", _("Logical wipe")
    CERTIFIED = "certified", _("Certified wipe (e.g. NIST 800-88) with a certificate")


class SupportTier(models.TextChoices):
    DEDICATED_TEAM = "dedicated_team", _("Dedicated customer-success team")
    NAMED_CONTACT = "named_contact", _("Named technical contact")
    TICKET_QUEUE = "ticket_queue", _("Shared ticket queue")


class BillingModel(models.TextChoices):
    HOURLY = "hourly", _("Hourly (per GPU-hour)")
    MONTHLY = "monthly", _("Monthly (per GPU-month)")
    YEARLY = "yearly", _("Yearly (per GPU-year)")
    SPOT = "spot", _("Spot / preemptible (per GPU-hour)")


class Currency(models.TextChoices):
    CNY = "CNY", _("Chinese yuan (CNY)")
    USD = "USD", _("US dollar (USD)")


class MlpsLevel(models.IntegerChoices):
    NONE = 0, _("None")
    LEVEL_1 = 1, _("MLPS level 1")
    LEVEL_2 = 2, _("MLPS level 2")
    LEVEL_3 = 3, _("MLPS level 3")
    LEVEL_4 = 4, _("MLPS level 4")


class WorkloadProfile(models.TextChoices):
    PRETRAINING = "pretraining", _("Pre-training")
    FINETUNING = "finetuning", _("Fine-tuning")
    INFERENCE = "inference", _("Inference")
    DEVELOPMENT = "development", _("Development")


class EvaluationStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    OPEN = "open", _("Open")
    DECIDED = "decided", _("Decided")


class Role(models.TextChoices):
    PROCUREMENT = "procurement", _("Procurement")
    MANAGER = "manager", _("Manager")
    ENGINEER = "engineer", _("Engineer")
    VIEWER = "viewer", _("Viewer")


class Dimension(models.TextChoices):
    STABILITY = "stability", _("Stability")
    NETWORK = "network", _("Network")
    STORAGE = "storage", _("Storage")
    SECURITY = "security", _("Security")
    COST = "cost", _("Cost")
    SUPPORT = "support", _("Support")


class VerificationStatus(models.TextChoices):
    UNANSWERED = "unanswered", _("Unanswered")
    CLAIMED = "claimed", _("Claimed")
    VERIFIED = "verified", _("Verified")
    CONTRADICTED = "contradicted", _("Contradicted")
    UNVERIFIABLE = "unverifiable", _("Unverifiable")


class AnswerType(models.TextChoices):
    TEXT = "text", _("Text")
    NUMBER = "number", _("Number")
    BOOLEAN = "boolean", _("Yes / no")
    CHOICE = "choice", _("Choice")


class UploadStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    PROCESSING = "processing", _("Processing")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class EvidenceOrigin(models.TextChoices):
    """Where an upload came from, as far as the portal can tell."""

    PENDING = "", _("Not yet checked")
    COLLECTOR = "collector", _("Collector (nonce verified)")
    UNVERIFIED = "unverified", _("Unverified origin")
    BY_HAND = "by_hand", _("Uploaded by hand")
