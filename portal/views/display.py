"""What pages show of the scoring's machine values: basis codes, input values, tolerance
clauses and stored English messages, in the reader's language."""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.utils.translation import get_language, gettext_lazy, gettext_noop
from django.utils.translation import gettext as _

from ..models import (
    BillingModel,
    DataWipePolicy,
    DeliveryForm,
    Fabric,
    FormFactor,
    NetworkIsolation,
    NvlinkTopology,
    SupportTier,
    VerificationStatus,
)

BASIS_LABELS = {
    "measured": gettext_lazy("measured"),
    "claimed": gettext_lazy("claimed"),
    "computed": gettext_lazy("computed"),
    "answer": gettext_lazy("questionnaire answer"),
    "missing": gettext_lazy("missing"),
    "not_applicable": gettext_lazy("not applicable"),
    "excluded": gettext_lazy("excluded"),
    "default": gettext_lazy("default"),
}
STATUS_LABELS = {**dict(VerificationStatus.choices)}
# Choice fields an input key can end in ("offering.nvlink_topology"): their codes by label.
FIELD_CHOICES = {
    "nvlink_topology": dict(NvlinkTopology.choices),
    "delivery_form": dict(DeliveryForm.choices),
    "fabric": dict(Fabric.choices),
    "gpu_form_factor": dict(FormFactor.choices),
    "network_isolation": dict(NetworkIsolation.choices),
    "data_wipe_policy": dict(DataWipePolicy.choices),
    "support_tier": dict(SupportTier.choices),
    "billing_model": dict(BillingModel.choices),
    "quoted_billing_model": dict(BillingModel.choices),
    "cheapest": dict(BillingModel.choices),
}

# Leading sentences of stored import errors (written by the worker in English) that pages
# show in the reader's language; what follows (the parsers' details) stays as written.
UPLOAD_ERRORS = (
    gettext_noop("The bundle was refused:"),
    gettext_noop("Nothing in this upload could be parsed."),
    gettext_noop("The stored file is missing; upload it again."),
)


def is_zh() -> bool:
    return (get_language() or "").startswith("zh")


def value_label(value: Any, key: str = "") -> str:
    """An input value as a reader sees it: choice codes and statuses by their labels, yes/no,
    "—" for nothing."""
    choices = FIELD_CHOICES.get(key.rsplit(".", 1)[-1])
    if choices and isinstance(value, str) and value in choices:
        return str(choices[value])
    if value is None:
        return "—"
    if value is True:
        return _("yes")
    if value is False:
        return _("no")
    if isinstance(value, str) and value in STATUS_LABELS:
        return str(STATUS_LABELS[value])
    return str(value)


def contributions(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Score contributions with ``basis_label`` and ``inputs_shown`` [(key, label)] added."""
    shown = []
    for c in items or []:
        basis = c.get("basis", "")
        shown.append(
            {
                **c,
                "basis_label": str(BASIS_LABELS.get(basis, basis)),
                "inputs_shown": [
                    (k, value_label(v, k)) for k, v in (c.get("inputs") or {}).items()
                ],
            }
        )
    return shown


def tolerance(verdict: Mapping[str, Any] | None) -> str:
    if not verdict:
        return ""
    if is_zh() and verdict.get("tolerance_zh"):
        return verdict["tolerance_zh"]
    return verdict.get("tolerance") or ""


TCO_REF = re.compile(r"^TCO: (\w+) billing over (\d+) days$")
# A knockout's reference to the catalogue offering: "offering: gpu_model = H100, region = cn-north".
OFFERING_REF = re.compile(r"^offering: (.+)$")
OFFERING_FACT = re.compile(r"^([a-z][a-z0-9_]*) = (.*)$")
OFFERING_SCALE = re.compile(r"^(\d+) GPUs per node × (\d+) nodes$")


def evidence_ref(ref: str) -> str:
    """An evidence reference in the reader's language where it is words, not a file: the
    budget knockout's "TCO: monthly billing over 30 days" names the billing model by its
    label."""
    offering = OFFERING_REF.match(ref or "")
    if offering:
        return _("Offering: %(facts)s") % {"facts": _offering_facts(offering.group(1))}
    match = TCO_REF.match(ref or "")
    if not match:
        return ref or ""
    model, days = match.groups()
    label = dict(BillingModel.choices).get(model, model)
    return _("TCO: %(model)s, over %(days)s days") % {"model": label, "days": days}


def _offering_facts(text: str) -> str:
    """ "gpu_model = H100, delivery_form = bare_metal" with each field by its label and each
    choice by its label; other words (a count of GPUs per node) stay as written."""
    from ..models import Offering

    shown = []
    for part in text.split(", "):
        scale = OFFERING_SCALE.match(part)
        if scale is not None:
            gpus, nodes = scale.groups()
            shown.append(
                _("%(gpus)s GPUs per node × %(nodes)s nodes") % {"gpus": gpus, "nodes": nodes}
            )
            continue
        fact = OFFERING_FACT.match(part)
        if fact is None:
            shown.append(part)
            continue
        name, value = fact.groups()
        try:
            label = str(Offering._meta.get_field(name).verbose_name)
        except FieldDoesNotExist:
            shown.append(part)
            continue
        shown.append(f"{label} = {value_label(value, name)}")
    return ", ".join(shown)


def upload_error(error: str) -> str:
    """A stored import error with its known leading sentence in the reader's language."""
    if not error:
        return ""
    for english in UPLOAD_ERRORS:
        if error.startswith(english):
            return _(english) + error[len(english) :]
    if error.startswith("The import was abandoned after "):
        return _("The import was abandoned after several attempts; upload the file again.")
    return error
