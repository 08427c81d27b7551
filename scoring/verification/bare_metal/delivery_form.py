"""The delivery form the evidence shows (delivery_form_seen), judged on the least favourable
node, for the delivery-form check."""

from __future__ import annotations

from collections.abc import Sequence

from ...types import FORMS_BY_FAVOUR
from .._util import as_bool, by_node
from ..model import VERDICT_BARE_METAL, VERDICT_VIRTUALISED, BareMetalVerdict, NodeEvidence
from .gpu_network import _gpu_names, _virtualization_modes
from .weights import _NVIDIA_SMI_KINDS, _VGPU_NAME

# A claim is contradicted when the evidence shows a form less favourable than it
# (FORMS_BY_FAVOUR). Only a hypervisor was seen: the form under it is unknown.
SEEN_VIRTUALISED = "virtualised"


def _node_forms(evs: Sequence[NodeEvidence]) -> set[str]:
    """The specific virtualised forms one node's evidence names (a container is none: see
    delivery_form_seen)."""
    forms: set[str] = set()
    for ev in evs:
        m = ev.metrics
        if ev.kind in _NVIDIA_SMI_KINDS:
            names = _gpu_names(m)
            modes = _virtualization_modes(m)
            if as_bool(m.get("vgpu")) or any(_VGPU_NAME.search(n) for n in names):
                forms.add("vgpu")
            if "vgpu" in modes:
                forms.add("vgpu")
            if "passthrough" in modes:
                forms.add("passthrough_vm")
    return forms


def delivery_form_seen(verdict: BareMetalVerdict, evidence: Sequence[NodeEvidence]) -> str | None:
    """The delivery form the evidence shows, judged on the least favourable node: "bare_metal"
    for a bare-metal verdict; for a virtualised one the specific form a node names (a container,
    a vGPU, GPUs passed through) or "virtualised" when only a hypervisor shows; None while the
    verdict is uncertain. A container is never a form seen: it is where the collector ran (an
    engineer's Docker on a physical host or in a VM), not how the vendor delivers the machine,
    so a container inside a VM shows the VM ("virtualised")."""
    if verdict.verdict == VERDICT_BARE_METAL:
        return "bare_metal"
    if verdict.verdict != VERDICT_VIRTUALISED:
        return None
    seen = SEEN_VIRTUALISED
    for evs in by_node(evidence).values():
        for form in _node_forms(evs):
            if seen == SEEN_VIRTUALISED or FORMS_BY_FAVOUR.index(form) > FORMS_BY_FAVOUR.index(
                seen
            ):
                seen = form
    return seen
