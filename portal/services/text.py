"""Untrusted text cleaned before it is stored: control characters and bidi overrides out."""

from collections.abc import Iterable

from django.db import models

# Embedding, override and isolate controls (LRE RLE PDF LRO RLO, LRI RLI FSI PDI): invisible,
# they make a name read in another order than it is stored ("Trojan Source", CVE-2021-42574),
# on every page, export and report that shows it.
BIDI_CONTROLS = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
# What a multi-line field keeps of the C0 controls.
MULTILINE_KEPT = frozenset(map(ord, "\t\n\r"))
# Breaks that a single-line field turns into a space rather than gluing two words together.
SINGLE_LINE_SPACES = frozenset(map(ord, "\t\n\r\x0b\x0c\x85\u2028\u2029"))


def _table(*, multiline: bool) -> dict[int, str | None]:
    dropped = {
        *range(0x00, 0x20),  # C0 controls (NUL among them: PostgreSQL refuses it in text)
        0x7F,
        *range(0x80, 0xA0),  # C1 controls
        *BIDI_CONTROLS,
        # Lone surrogates (a JSON manifest's "\ud800"): no UTF-8 for them, the database
        # would refuse the row.
        *range(0xD800, 0xE000),
    }
    if multiline:
        return {code: None for code in dropped - MULTILINE_KEPT}
    table: dict[int, str | None] = {code: None for code in dropped}
    table.update({code: " " for code in SINGLE_LINE_SPACES})
    return table


_SINGLE_LINE = _table(multiline=False)
_MULTILINE = _table(multiline=True)


def clean_text(value: str, *, multiline: bool = False) -> str:
    """``value`` without control characters, bidi embedding/override/isolate controls or
    lone surrogates. A single-line value (a name) has its tabs and line breaks turned into
    spaces; a multi-line one (notes) keeps tab, newline and carriage return. Nothing else
    changes: letters of any script, emoji and their joiners stay."""
    return value.translate(_MULTILINE if multiline else _SINGLE_LINE)


def clean_note(value: str | None) -> str:
    """A typed note, reason or rationale as stored: ``clean_text`` of a multi-line value,
    without the blank space around it ("" for None)."""
    return clean_text(value or "", multiline=True).strip()


def clean_text_fields(instance: models.Model, fields: Iterable[str] | None = None) -> None:
    """``clean_text`` on every editable text field of ``instance`` (only ``fields`` when
    given): CharFields as single lines, TextFields as multi-line."""
    wanted = None if fields is None else set(fields)
    for field in instance._meta.concrete_fields:
        if not field.editable or (wanted is not None and field.name not in wanted):
            continue
        if not isinstance(field, models.CharField | models.TextField):
            continue
        value = getattr(instance, field.attname)
        if isinstance(value, str):
            multiline = isinstance(field, models.TextField)
            setattr(instance, field.attname, clean_text(value, multiline=multiline))
