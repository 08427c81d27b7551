"""Template helpers: dictionary lookups, bilingual fields and number formatting."""

from decimal import Decimal

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language, pgettext

from ..metric_labels import size_label

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping|get_item:key`` — None when absent."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def bilingual(obj, field: str):
    """``item|bilingual:"title"`` reads title_zh in Chinese, title_en otherwise (dicts too)."""
    suffix = "zh" if (get_language() or "").startswith("zh") else "en"
    name = f"{field}_{suffix}"
    if isinstance(obj, dict):
        return obj.get(name) or obj.get(f"{field}_en", "")
    return getattr(obj, name, "") or getattr(obj, f"{field}_en", "")


@register.filter
def parenthetical(value):
    """``text|parenthetical``: an aside appended to what precedes it, in the brackets of the
    reader's language: " (text)" in English, the full-width brackets with no space before them in
    Chinese."""
    return format_html(
        "{}{}{}", pgettext("parenthetical", " ("), value, pgettext("parenthesis", ")")
    )


# The separators of a list in running text, by what it lists: clauses or phrases ("; ", the
# full-width semicolon in Chinese) or names and codes (", ", the enumeration comma in Chinese).
_SEPARATORS = {
    "clauses": lambda: pgettext("between list items", "; "),
    "names": lambda: pgettext("between names in a sentence", ", "),
}


@register.simple_tag
def list_sep(kind: str = "clauses") -> str:
    """``{% list_sep %}`` between clauses, ``{% list_sep "names" %}`` between names."""
    return _SEPARATORS[kind]()


@register.filter
def join_list(values, kind: str = "clauses"):
    """``values|join_list`` (or ``|join_list:"names"``): the values joined by list_sep, each
    escaped (an HTML template's ``join``)."""
    return format_html_join(_SEPARATORS[kind](), "{}", ((value,) for value in values))


@register.filter
def binary_size(value):
    """A byte count in binary units, as every size on the portal reads: 1536 -> "1.5 KiB"
    (metric_labels.size_label; Django's filesizeformat says "1.5 KB" for the same 1024-based
    figure); None -> "—"."""
    if value is None or value == "":
        return "—"
    return size_label(value)


@register.filter
def pct(value, digits: int = 0):
    """0.734 -> '73 %'; None -> '—'."""
    if value is None:
        return "—"
    return f"{float(value) * 100:.{int(digits)}f} %"


@register.filter
def num(value, digits: int = 1):
    # "": a missing attribute in the template (a portfolio with no feasible plan has no totals).
    if value is None or value == "":
        return "—"
    return f"{float(value):,.{int(digits)}f}"


@register.filter
def plain_decimal(value):
    """A stored decimal as it was typed, without its column's trailing zeros: 99.950 -> "99.95",
    100.000 -> "100" (``floatformat`` keeps the places of any non-whole number)."""
    if value is None or value == "":
        return "—"
    return f"{Decimal(value).normalize():f}"


@register.filter
def dimension_label(code):
    """``"network"|dimension_label`` -> the dimension's translated name (the code if unknown)."""
    from ..models import Dimension

    return str(dict(Dimension.choices).get(code, code))


@register.filter
def billing_label(code):
    """``"monthly"|billing_label`` -> the billing model's short name in the reader's language
    (the code if unknown, "—" for none)."""
    from ..charts.costs import billing_names

    if not code:
        return "—"
    return str(billing_names().get(code, code))


@register.filter
def chart_is_empty(figure) -> bool:
    """True for a Plotly figure with no traces (the charts draw a note in such a figure)."""
    try:
        return not figure.get("data")
    except AttributeError:
        return True


@register.filter
def knockout_ref(knockout):
    """A knockout's evidence reference in the reader's language (a POC must-have's from the
    structure of its runs)."""
    from ..views.display import knockout_ref as shown

    return shown(knockout)


@register.filter
def answer_note(answer):
    """An answer's verification note in the reader's language (the POC's failed or missing runs
    from their structure)."""
    from ..views.display import answer_note as shown

    return shown(answer)


@register.filter
def answer_evidence_ref(answer):
    """An answer's evidence reference in the reader's language."""
    from ..views.display import answer_evidence_ref as shown

    return shown(answer)


@register.filter
def person(user) -> str:
    """``user|person``: "Morgan Manager (manager)", or the username where no full name is set
    (portal.people.person_shown, the form every page and export names people in)."""
    from ..people import person_shown

    return person_shown(user)
