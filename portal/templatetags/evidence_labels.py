"""Template filters that show the parsers' metric names and the rules' input keys as labels in
the reader's language (the code stays in a title attribute for engineers)."""

from django import template

from ..metric_labels import input_label as _input_label
from ..metric_labels import kind_label as _kind_label
from ..metric_labels import metric_label as _metric_label

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
