"""What pages show of the scoring's machine values: basis codes, input values, tolerance
clauses and stored English messages, in the reader's language."""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.utils.translation import get_language, gettext_lazy, gettext_noop
from django.utils.translation import gettext as _

from scoring import poc as plan_rules

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


# A POC run's evidence: "gpu01: fio-local.json (upload 12)"; the plan itself, alone or naming
# the runs a knockout is about ("POC plan: nccl_multi_all_reduce, nccl_multi_alltoall").
POC_EVIDENCE_REF = re.compile(r"^(?P<node>[^:\s]+): (?P<file>.+) \(upload (?P<upload>\d+)\)$")
POC_PLAN_REF = re.compile(r"^POC plan(?:: (?P<runs>.+))?$")
# A score contribution's reference after the POC: "<explanation> [<evidence>] | <earlier ref>".
POC_CONTRIBUTION_REF = re.compile(r"^(?P<text>POC run .+?)(?: \[(?P<ref>[^\]]+)\])?$")
POC_NOTES = {
    "dcgm_fail": gettext_noop("dcgmi diag reported fail"),
    "dcgm_skip": gettext_noop("dcgmi diag reported skip"),
    "nccl_wrong": gettext_noop("nccl-tests reported %(count)s wrong results"),
    "fio_errors": gettext_noop("fio jobs ended in an error (%(jobs)s)"),
}


def poc_run_label(kind: str, where: str = "") -> str:
    """A POC run by its label (the plan page's catalogue), with its node or node pair."""
    from .poc import RUN_LABELS

    label = str(RUN_LABELS.get(kind, kind))
    if not where:
        return label
    nodes = where.split("~")
    where = _("%(a)s and %(b)s") % {"a": nodes[0], "b": nodes[1]} if len(nodes) == 2 else where
    return _("%(run)s on %(where)s") % {"run": label, "where": where}


def _poc_note(note: str) -> str:
    parts = plan_rules.note_parts(note)
    if parts is None:
        return note
    return _(POC_NOTES[parts[0]]) % parts[1]


def poc_explanation(text: str) -> str | None:
    """A stored English explanation of failed or missing POC runs (an answer's verification
    note, the head of a score's evidence reference) in the reader's language, worded from its
    parts; None when ``text`` is not one."""
    found = plan_rules.parse_explanations(text)
    if found is None:
        return None
    shown = []
    for s in found:
        run = poc_run_label(s.kind, s.where)
        if s.reason == plan_rules.MISSING:
            shown.append(_("POC run %(run)s: missing at the deadline") % {"run": run})
        elif s.reason == plan_rules.UNPROVEN:
            note = _poc_note(s.note) if s.note else _("every test was skipped")
            shown.append(
                _("POC run %(run)s: checked nothing (%(note)s)") % {"run": run, "note": note}
            )
        else:
            note = _poc_note(s.note) if s.note else _("the tool reported a failure")
            shown.append(_("POC run %(run)s: failed (%(note)s)") % {"run": run, "note": note})
    return ("；" if is_zh() else "; ").join(shown)


def _poc_ref(ref: str) -> str | None:
    """A POC evidence or plan reference in the reader's language; None for other references."""
    upload = POC_EVIDENCE_REF.match(ref)
    if upload is not None:
        return _("%(node)s: %(file)s (upload %(upload)s)") % upload.groupdict()
    plan = POC_PLAN_REF.match(ref)
    if plan is None:
        return None
    if not plan["runs"]:
        return _("POC plan")
    runs = []
    for key in plan["runs"].split(", "):
        kind, _sep, where = key.partition("@")
        runs.append(poc_run_label(kind, where))
    return _("POC plan: %(runs)s") % {"runs": ("；" if is_zh() else "; ").join(runs)}


def stored_note(note: str, verdict: Mapping[str, Any] | None = None) -> str:
    """An answer's stored verification note in the reader's language where the portal knows
    its words: the POC's failed or missing runs, or the evidence verdict it was copied from
    (``verdict``, the candidate's stored verification of the item, has both languages);
    other notes (a reviewer's) stay as written."""
    note = note or ""
    shown = poc_explanation(note)
    if shown is not None:
        return shown
    if (
        verdict
        and is_zh()
        and note == verdict.get("explanation_en")
        and verdict.get("explanation_zh")
    ):
        return verdict["explanation_zh"]
    return note


def evidence_ref(ref: str) -> str:
    """An evidence reference in the reader's language where it is words, not a file: the
    budget knockout's "TCO: monthly billing over 30 days" names the billing model by its
    label; the POC's explanations, evidence and plan references are worded from their parts.
    Several references joined by " | " are shown each in turn."""
    if " | " in (ref or ""):
        return " | ".join(evidence_ref(part) for part in ref.split(" | "))
    poc_ref = _poc_ref(ref or "")
    if poc_ref is not None:
        return poc_ref
    contribution = POC_CONTRIBUTION_REF.match(ref or "")
    if contribution is not None:
        text = poc_explanation(contribution["text"])
        if text is not None:
            if contribution["ref"]:
                text += f" [{_poc_ref(contribution['ref']) or contribution['ref']}]"
            return text
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


# The bases of the effective GPU-hour's two factors (scoring.tco availability_for and
# efficiency_for), so a reader sees what a figure rests on.
AVAILABILITY_BASIS_LABELS = {
    "unanswered": gettext_lazy("no SLA stated: conservative floor"),
    "contradicted": gettext_lazy("SLA contradicted: conservative floor"),
    "stated": gettext_lazy("stated SLA, discounted as a claim"),
    "verified": gettext_lazy("verified SLA"),
    "sla": gettext_lazy("stated SLA"),
    "assumed": gettext_lazy("assumed (no SLA)"),
}
EFFICIENCY_BASIS_LABELS = {
    "measured": gettext_lazy("measured"),
    "assumed": gettext_lazy("assumed (no measurement)"),
    "scale_rule": gettext_lazy("scale rule"),
}


def tco_basis(tco: Any) -> dict[str, Any] | None:
    """The availability and efficiency a TCO (scoring Tco) divides by, each with its basis
    code and label; None without a TCO."""
    if tco is None:
        return None
    return {
        "availability": tco.availability,
        "availability_basis": tco.availability_basis,
        "availability_label": str(
            AVAILABILITY_BASIS_LABELS.get(tco.availability_basis, tco.availability_basis)
        ),
        "efficiency": tco.efficiency,
        "efficiency_basis": tco.efficiency_basis,
        "efficiency_label": str(
            EFFICIENCY_BASIS_LABELS.get(tco.efficiency_basis, tco.efficiency_basis)
        ),
        "cost_per_effective_gpu_hour": tco.cost_per_effective_gpu_hour,
        "currency": tco.currency,
    }
