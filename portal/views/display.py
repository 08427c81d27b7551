"""What pages show of the scoring's machine values: basis codes, input values, tolerance
clauses and stored English messages, in the reader's language."""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.utils.translation import get_language, gettext_lazy, gettext_noop, pgettext
from django.utils.translation import gettext as _

from scoring import poc as plan_rules
from scoring.reference import NO_COLLECTIVE_REFERENCE, NO_INTERCONNECT_REFERENCE

from ..metric_labels import kind_label
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
    offering_zero_unstated,
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
    "dcgm_overall": {
        "pass": gettext_lazy("passed"),
        "warn": gettext_lazy("warning"),
        "fail": gettext_lazy("failed"),
        "skip": gettext_lazy("skipped"),
    },
    "dcgm_result": {
        "pass": gettext_lazy("passed"),
        "pass_short": gettext_lazy("passed a quick run only (no GPU stress test)"),
        "warn": gettext_lazy("warning"),
        "fail": gettext_lazy("failed"),
        "skip": gettext_lazy("skipped"),
    },
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
    "—" for nothing, "not stated" for an offering's figure left at its default 0."""
    source, _dot, name = key.partition(".")
    if source == "offering" and offering_zero_unstated(name, value):
        return _("not stated")
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
    """Score contributions with ``basis_label``, ``inputs_shown`` [(key, label)] and
    ``evidence_shown`` (the reference in the reader's language) added."""
    shown = []
    for c in items or []:
        basis = c.get("basis", "")
        shown.append(
            {
                **c,
                "evidence_shown": contribution_ref(c),
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
VENDOR_REF = re.compile(r"^vendor: (.+)$")
# A measured fact's source (scoring.verification.facts): "upload 3 · gpu01 · ibstat ibstat.txt",
# sometimes followed by " · <detail>".
FACT_REF = re.compile(
    r"^upload (?P<upload>\d+) · (?P<node>[^·]*?) · (?P<kind>[a-z0-9_]+)(?P<rest>.*)$"
)
OFFERING_FACT = re.compile(r"^([a-z][a-z0-9_]*) = (.*)$")


def _gap_pattern(template: str) -> re.Pattern[str]:
    """The evidence line scoring writes from ``template`` ("... for {gpu}: ..."), as a pattern
    reading the accelerator back."""
    head, tail = template.split("{gpu}")
    return re.compile(f"^{re.escape(head)}(?P<gpu>.+?){re.escape(tail)}$")


# Why a rule that needs NVIDIA's reference figures scores an Ascend or Instinct part as it does
# (scoring.reference.collective_reference_gap, interconnect_reference_gap).
REFERENCE_GAPS = (
    (
        _gap_pattern(NO_COLLECTIVE_REFERENCE),
        gettext_noop(
            "no nccl-tests reference for %(gpu)s: its collective bus bandwidth has no expected "
            "value to be judged against, so the rule counts as unmeasured"
        ),
    ),
    (
        _gap_pattern(NO_INTERCONNECT_REFERENCE),
        gettext_noop(
            "no NVLink reference for %(gpu)s: its own interconnect is scored as declared, an "
            "assumption only a document review can verify"
        ),
    ),
)
OFFERING_SCALE = re.compile(r"^(\d+) GPUs per node × (\d+) nodes$")


POC_NOTES = {
    plan_rules.NOTE_DCGM_FAIL: gettext_noop("dcgmi diag reported fail"),
    plan_rules.NOTE_DCGM_SKIP: gettext_noop("dcgmi diag reported skip"),
    plan_rules.NOTE_DCGM_INCOMPLETE: gettext_noop("dcgmi diag output ends before its result"),
    plan_rules.NOTE_NCCL_WRONG: gettext_noop("nccl-tests reported %(count)s wrong results"),
    plan_rules.NOTE_FIO_ERRORS: gettext_noop("fio jobs ended in an error (%(jobs)s)"),
    plan_rules.NOTE_FOREIGN_GPU: gettext_noop("ran on %(gpu)s, not the claimed %(claimed)s"),
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


def _joined(parts: Iterable[str]) -> str:
    return ("；" if is_zh() else "; ").join(parts)


# -- POC shortfalls, worded from their structure (scoring.poc.PocShortfall.as_dict) ------------


def poc_note(shortfall: Mapping[str, Any]) -> str:
    """Why a POC run failed or checked nothing, in the reader's language: the failure note from
    its code and parts (a note without a known code as written), else what the reason means;
    "" for a run that is missing."""
    reason = shortfall.get("reason")
    if reason == plan_rules.MISSING:
        return ""
    code = shortfall.get("note_code") or ""
    if code in POC_NOTES:
        return _(POC_NOTES[code]) % (shortfall.get("note_args") or {})
    if shortfall.get("note"):
        return shortfall["note"]
    if reason == plan_rules.UNPROVEN:
        return _("every test was skipped")
    return _("the tool reported a failure")


def poc_shortfall(shortfall: Mapping[str, Any]) -> str:
    """One failed or missing POC run in the reader's language: the run with its node or node
    pair, what happened and why."""
    peers = shortfall.get("peers") or []
    run = poc_run_label(shortfall.get("kind", ""), "~".join(peers) or shortfall.get("node", ""))
    reason = shortfall.get("reason")
    if reason == plan_rules.MISSING:
        return _("POC run %(run)s: missing at the deadline") % {"run": run}
    words = {"run": run, "note": poc_note(shortfall)}
    if reason == plan_rules.UNPROVEN:
        return _("POC run %(run)s: checked nothing (%(note)s)") % words
    return _("POC run %(run)s: failed (%(note)s)") % words


def poc_shortfalls(shortfalls: Iterable[Mapping[str, Any]]) -> str:
    """Several POC shortfalls in the reader's language, each in turn."""
    return _joined(poc_shortfall(s) for s in shortfalls)


def poc_evidence(evidence: Mapping[str, Any]) -> str:
    """The evidence a POC run failed on: node, file and upload."""
    node, file = evidence.get("node") or "?", evidence.get("file") or ""
    if evidence.get("upload_id") is None:
        return f"{node}: {file}"
    return _("%(node)s: %(file)s (upload %(upload)s)") % {
        "node": node,
        "file": file,
        "upload": evidence["upload_id"],
    }


def poc_reference(shortfalls: Iterable[Mapping[str, Any]], *, runs: bool = True) -> str:
    """What POC shortfalls rest on, in the reader's language: the evidence of the first run
    that failed on some, else the plan (naming the runs unless ``runs`` is False)."""
    shortfalls = list(shortfalls)
    for s in shortfalls:
        if s.get("reason") == plan_rules.RUN_FAILED and s.get("evidence"):
            return poc_evidence(s["evidence"])
    if not runs:
        return _("POC plan")
    named = _joined(
        poc_run_label(s.get("kind", ""), "~".join(s.get("peers") or []) or s.get("node", ""))
        for s in shortfalls
    )
    return _("POC plan: %(runs)s") % {"runs": named} if named else _("POC plan")


def _poc_explained(shortfalls: list[Mapping[str, Any]]) -> str:
    """The shortfalls with the evidence of the first failed one, as a score's reference."""
    text = poc_shortfalls(shortfalls)
    failed = next(
        (s for s in shortfalls if s.get("reason") == plan_rules.RUN_FAILED and s.get("evidence")),
        None,
    )
    return text + (f" [{poc_evidence(failed['evidence'])}]" if failed else "")


def answer_note(answer: Any, verdict: Mapping[str, Any] | None = None) -> str:
    """An answer's verification note in the reader's language: the POC's failed or missing
    runs from their structure, else :func:`stored_note`."""
    if answer is None:
        return ""
    if getattr(answer, "poc_shortfalls", None):
        return poc_shortfalls(answer.poc_shortfalls)
    return stored_note(answer.verification_note, verdict)


def answer_poc_note(answer: Any) -> str:
    """The POC's word on an answer (its failed or missing runs) in the reader's language, ""
    when the answer's note is not the POC's."""
    if answer is None:
        return ""
    if getattr(answer, "poc_shortfalls", None):
        return poc_shortfalls(answer.poc_shortfalls)
    return poc_explanation(answer.verification_note or "") or ""


def answer_evidence_ref(answer: Any) -> str:
    """An answer's evidence reference in the reader's language: the POC's from structure (the
    failed run's evidence, else the plan; the note names the runs)."""
    if answer is None:
        return ""
    if getattr(answer, "poc_shortfalls", None):
        return poc_reference(answer.poc_shortfalls, runs=False)
    return evidence_ref(answer.evidence_ref or "")


def contribution_ref(contribution: Mapping[str, Any]) -> str:
    """A score contribution's evidence reference in the reader's language: the POC's runs from
    their structure followed by the reference the item had before, else the stored text."""
    shortfalls = contribution.get("poc")
    if shortfalls:
        shown = _poc_explained(shortfalls)
        other = contribution.get("evidence_ref_other") or ""
        return shown + (f" | {evidence_ref(other)}" if other else "")
    return evidence_ref(contribution.get("evidence_ref") or "")


def knockout_ref(knockout: Any) -> str:
    """A knockout's evidence reference (a stored dict or a scoring Knockout) in the reader's
    language: a POC must-have's from its runs' structure, else the stored text."""
    if isinstance(knockout, Mapping):
        shortfalls, ref = knockout.get("poc"), knockout.get("evidence_ref")
    else:
        shortfalls = [s.as_dict() for s in getattr(knockout, "poc", ())]
        ref = getattr(knockout, "evidence_ref", "")
    if shortfalls:
        return poc_reference(shortfalls)
    return evidence_ref(ref or "")


POC_REASONS = {
    plan_rules.MISSING: gettext_lazy("missing at the deadline"),
    plan_rules.RUN_FAILED: gettext_lazy("failed"),
    plan_rules.UNPROVEN: gettext_lazy("checked nothing"),
}


def poc_rows(
    candidates: Iterable[tuple[str, Mapping[str, Any] | None]], plan: Any, now: Any = None
) -> tuple[list[str], list[list[Any]]]:
    """The failed or missing POC runs of each (candidate label, stored coverage) as a table in
    the reader's language (header, rows): the run, its node or pair, what happened, the note
    and the evidence (node, file, upload), then the stable codes (run key, kind, reason, note
    code) a reader can filter on."""
    from django.utils import timezone

    header = [
        _("Candidate"),
        _("POC run"),
        _("Node or node pair"),
        _("Outcome"),
        _("Why"),
        _("Evidence node"),
        _("Evidence file"),
        _("Upload"),
        _("Run key"),
        _("Run kind"),
        _("Outcome code"),
        _("Note code"),
    ]
    rows: list[list[Any]] = []
    if plan is None:
        return header, rows
    now = now or timezone.now()
    for label, stored in candidates:
        if not stored or "runs" not in stored:
            continue
        coverage = plan_rules.coverage_at(stored, deadline=plan.deadline, now=now)
        for found in plan_rules.shortfalls(coverage):
            s = found.as_dict()
            evidence = s["evidence"] or {}
            rows.append(
                [
                    label,
                    poc_run_label(s["kind"]),
                    " ~ ".join(s["peers"]) or s["node"],
                    str(POC_REASONS[s["reason"]]),
                    poc_note(s),
                    evidence.get("node", ""),
                    evidence.get("file", ""),
                    evidence.get("upload_id"),
                    s["run_key"],
                    s["kind"],
                    s["reason"],
                    s["note_code"],
                ]
            )
    return header, rows


# -- old rows only -----------------------------------------------------------------------------
#
# Answers, scores and knockouts stored before the POC's shortfalls were kept as structure hold
# them as English words alone. These read such words back into their parts (the one place that
# parses the POC's English; rows written since never come here) and word them as above.

# A POC run's evidence: "gpu01: fio-local.json (upload 12)"; the plan itself, alone or naming
# the runs a knockout is about ("POC plan: nccl_multi_all_reduce, nccl_multi_alltoall").
POC_EVIDENCE_REF = re.compile(r"^(?P<node>[^:\s]+): (?P<file>.+) \(upload (?P<upload>\d+)\)$")
POC_PLAN_REF = re.compile(r"^POC plan(?:: (?P<runs>.+))?$")
# A score contribution's reference after the POC: "<explanation> [<evidence>] | <earlier ref>".
POC_CONTRIBUTION_REF = re.compile(r"^(?P<text>POC run .+?)(?: \[(?P<ref>[^\]]+)\])?$")


def poc_explanation(text: str) -> str | None:
    """For old rows only: a stored English explanation of failed or missing POC runs (an
    answer's verification note, the head of a score's evidence reference) in the reader's
    language, worded from the parts :func:`scoring.poc.parse_explanations` reads back; None
    when ``text`` is not one."""
    found = plan_rules.parse_explanations(text)
    if found is None:
        return None
    return poc_shortfalls(s.as_dict() for s in found)


def _poc_ref(ref: str) -> str | None:
    """For old rows only: a POC evidence or plan reference in the reader's language; None for
    other references."""
    upload = POC_EVIDENCE_REF.match(ref)
    if upload is not None:
        return poc_evidence(
            {"node": upload["node"], "file": upload["file"], "upload_id": upload["upload"]}
        )
    plan = POC_PLAN_REF.match(ref)
    if plan is None:
        return None
    if not plan["runs"]:
        return _("POC plan")
    runs = []
    for key in plan["runs"].split(", "):
        kind, _sep, where = key.partition("@")
        runs.append(poc_run_label(kind, where))
    return _("POC plan: %(runs)s") % {"runs": _joined(runs)}


def stored_note(note: str, verdict: Mapping[str, Any] | None = None) -> str:
    """An answer's stored verification note in the reader's language where the portal knows
    its words: the POC's failed or missing runs (old rows; :func:`answer_note` words the
    structure of newer ones), or the evidence verdict it was copied from (``verdict``, the
    candidate's stored verification of the item, has both languages); other notes (a
    reviewer's) stay as written."""
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
    label; the POC's explanations, evidence and plan references of old rows are worded from
    the parts read back from their words (newer rows: :func:`contribution_ref`,
    :func:`knockout_ref`, :func:`answer_evidence_ref`). Several references joined by " | " are
    shown each in turn."""
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
    for pattern, message in REFERENCE_GAPS:
        gap = pattern.match(ref or "")
        if gap is not None:
            return _(message) % {"gpu": gap["gpu"]}
    fact = FACT_REF.match(ref or "")
    if fact is not None:
        return " · ".join(
            part
            for part in (
                _("upload %(upload)s") % {"upload": fact["upload"]},
                fact["node"],
                kind_label(fact["kind"]) + fact["rest"],
            )
            if part
        )
    offering = OFFERING_REF.match(ref or "")
    if offering:
        return _("Offering: %(facts)s") % {"facts": _offering_facts(offering.group(1))}
    vendor = VENDOR_REF.match(ref or "")
    if vendor:
        return _("Vendor: %(facts)s") % {"facts": _offering_facts(vendor.group(1), vendor=True)}
    match = TCO_REF.match(ref or "")
    if not match:
        return ref or ""
    model, days = match.groups()
    label = dict(BillingModel.choices).get(model, model)
    return _("TCO: %(model)s, over %(days)s days") % {"model": label, "days": days}


def _offering_facts(text: str, *, vendor: bool = False) -> str:
    """ "gpu_model = H100, delivery_form = bare_metal" with each field by its label and each
    choice by its label; other words (a count of GPUs per node) stay as written. ``vendor``:
    the fields are the vendor's ("mlps_level = 2")."""
    from ..models import Offering, Vendor

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
            label = str((Vendor if vendor else Offering)._meta.get_field(name).verbose_name)
        except FieldDoesNotExist:
            shown.append(part)
            continue
        value = {"true": True, "false": False}.get(value, value)
        shown.append(f"{label} = {value_label(value, name)}")
    return pgettext("between names in a sentence", ", ").join(shown)


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
    "unbacked": gettext_lazy("verified SLA with no compensation on breach: discounted as a claim"),
    "sla": gettext_lazy("stated SLA"),
    "assumed": gettext_lazy("assumed (no SLA)"),
}
EFFICIENCY_BASIS_LABELS = {
    "measured": gettext_lazy("measured"),
    "assumed": gettext_lazy("assumed (no measurement)"),
    "scale_rule": gettext_lazy("scale rule"),
    "assumed_scale": gettext_lazy(
        "assumed (no measurement): bare metal's assumed fraction × the scale rule"
    ),
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
        "gpu_equivalents": tco.gpu_equivalents,
        "useful_gpu_equivalents": tco.useful_gpu_equivalents,
        "assumptions": tco_assumption_lines(tco),
    }


def tco_assumption_lines(tco: Any) -> list[str]:
    """What a TCO's cost per effective GPU-hour assumed rather than read (scoring
    Tco.assumptions: surplus GPUs left out, a GPU without its own reference price), each line
    in the reader's language."""
    if tco is None:
        return []
    chinese = is_zh()
    return [zh if chinese else en for _code, en, zh in tco.assumptions()]


def delivery_form_claim(rubric: Any, delivery_form: str, measured: Mapping[str, Any]) -> dict:
    """What the candidate page says beside the delivery form it names: always the vendor's
    claim, with what the evidence made of it as the scoring reads it (the rubric's
    delivery_form_check), so an uncertain bare-metal verdict never reads as a fact. ``status``
    is "verified", "contradicted", "claimed" (evidence that does not settle it) or "no_evidence";
    ``scored_as`` the form scored instead of a refuted claim, else ""."""
    verdict = measured.get("bare_metal_verdict")
    seen = measured.get("delivery_form_seen")
    form, status = rubric.delivery_form_check(
        delivery_form, verdict, measured.get("bare_metal_confidence"), seen
    )
    if status == "claimed" and verdict is None and seen is None:
        status = "no_evidence"
    scored_as = ""
    assumed = False
    if status == "contradicted" and form != delivery_form:
        scored_as = str(dict(DeliveryForm.choices).get(form, _("Virtualised")))
        # Only a hypervisor shows, so the container is the least favourable form consistent
        # with the evidence, not a form it showed (manager review, stop 34: a KVM guest read
        # as "scored as Container on shared GPUs", as if a container had been seen).
        assumed = form == DeliveryForm.CONTAINER and seen in (None, "virtualised")
    return {"status": status, "scored_as": scored_as, "assumed": assumed}
