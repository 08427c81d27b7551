"""Template filters that show the parsers' metric names and the rules' input keys as labels in
the reader's language (the code stays in a title attribute for engineers)."""

from django import template

from ..metric_labels import input_label as _input_label
from ..metric_labels import kind_label as _kind_label
from ..metric_labels import metric_label as _metric_label
from ..metric_labels import signal_label as _signal_label
from ..metric_labels import unit_label as _unit_label

register = template.Library()


@register.filter
def metric_label(name: str) -> str:
    """``m.metric|metric_label`` — "Peak bus bandwidth" for ``peak_busbw_gbyte_s``."""
    return _metric_label(name or "")


@register.filter
def kind_label(kind: str) -> str:
    """``m.kind|kind_label`` — "nvidia-smi topo -m" for ``nvidia_smi_topo``."""
    return _kind_label(kind or "")


@register.filter
def input_label(key: str) -> str:
    """``key|input_label`` — "Fabric" for ``offering.fabric``."""
    return _input_label(key or "")


@register.filter
def signal_label(name: str) -> str:
    """``s.name|signal_label`` — "DMI system product" for ``dmi_product``."""
    return _signal_label(name or "")


@register.filter
def unit_label(unit: str) -> str:
    """``m.unit|unit_label`` — "count" in the reader's language; GB/s stays GB/s."""
    return _unit_label(unit or "")


@register.filter
def evidence_ref(ref: str) -> str:
    """``s.evidence_ref|evidence_ref`` — an evidence reference in the reader's language."""
    from ..views.display import evidence_ref as shown

    return shown(ref or "")
