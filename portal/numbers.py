"""How typed numbers are read: ASCII digits only, in every form field and API field.

Python's ``int()`` and ``Decimal()`` read "1_000", full-width and Arabic-Indic digits, and
``float(True)`` is 1.0: Django's and DRF's number fields inherit all of it, so a form or a JSON
body could store 12 for a full-width "12" and 1 for ``true``. A number typed as text is read
here only when it is ASCII digits with an optional sign (and, for decimals, a point and an
exponent); a boolean is never a number. ``install`` (PortalConfig.ready) puts the rule in front
of Django's and DRF's own parsing, so model forms and model serializers get it too.
"""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# "12.0" is a whole number to Django's and DRF's integer fields (their re_decimal): kept.
INTEGER_TEXT = re.compile(r"[+-]?[0-9]+(?:\.0*)?", re.ASCII)
# An exponent stays readable ("1e309" is then refused as too large, not as unreadable).
DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)

NOT_A_BOOLEAN = _("Enter a number, not true or false.")
# "1,200,000" as the pages show amounts (grouped in threes, tests/portal/test_chinese_number_
# grouping.py), or with spaces or apostrophes: refused like any other text, but saying how to
# type it, as a quote copied from a page or a vendor's PDF is typed that way.
GROUPED_TEXT = re.compile(r"[+-]?[0-9]{1,3}(?:[,' \u00a0\u202f][0-9]{3})+(?:\.[0-9]*)?")
GROUPED = _("Enter the number without thousands separators, for example %(plain)s.")
# "99.95%" or "99.95 %" in a field whose label already says (%).
PERCENT_TEXT = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))\s*[%％]", re.ASCII)
PERCENT = _("Enter the number without the %% sign, for example %(plain)s.")


def readable(value, pattern: re.Pattern) -> bool:
    """Whether ``value`` may go on to the field's own parsing: not a boolean, and a string only
    when it is empty or ASCII digits as ``pattern`` allows (surrounding spaces ignored)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        text = value.strip()
        return not text or pattern.fullmatch(text) is not None
    return True


def grouped_plain(value) -> str | None:
    """The plain spelling of a number typed with thousands separators ("1,200,000" ->
    "1200000"), None for any other value."""
    if not isinstance(value, str) or GROUPED_TEXT.fullmatch(value.strip()) is None:
        return None
    return re.sub(r"[,' \u00a0\u202f]", "", value.strip())


def _form_parser(parse, pattern):
    def to_python(self, value):
        if not readable(value, pattern):
            plain = grouped_plain(value)
            if plain is not None:
                raise ValidationError(GROUPED, code="invalid", params={"plain": plain})
            percent = PERCENT_TEXT.fullmatch(value.strip()) if isinstance(value, str) else None
            if percent is not None:
                raise ValidationError(PERCENT, code="invalid", params={"plain": percent[1]})
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return parse(self, value)

    return to_python


def _api_parser(parse, pattern):
    from rest_framework.exceptions import ValidationError as ApiValidationError

    def to_internal_value(self, data):
        if isinstance(data, bool):
            raise ApiValidationError(str(NOT_A_BOOLEAN), code="invalid")
        if not readable(data, pattern):
            self.fail("invalid")
        return parse(self, data)

    return to_internal_value


def install() -> None:
    """Wrap the number fields' parsing of Django forms and DRF serializers (once)."""
    from django import forms
    from rest_framework import serializers

    if getattr(forms.IntegerField.to_python, "ascii_digits", False):
        return
    for field, pattern in (
        (forms.IntegerField, INTEGER_TEXT),
        (forms.FloatField, DECIMAL_TEXT),
        (forms.DecimalField, DECIMAL_TEXT),
    ):
        # FloatField and DecimalField subclass IntegerField: wrap each class's own method.
        parse = field.__dict__["to_python"]
        field.to_python = _form_parser(parse, pattern)
        field.to_python.ascii_digits = True
    for field, pattern in (
        (serializers.IntegerField, INTEGER_TEXT),
        (serializers.FloatField, DECIMAL_TEXT),
        (serializers.DecimalField, DECIMAL_TEXT),
    ):
        parse = field.__dict__["to_internal_value"]
        field.to_internal_value = _api_parser(parse, pattern)
