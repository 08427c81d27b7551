"""How typed numbers are read: ASCII digits only, in every form field and API field.

Python's ``int()`` and ``Decimal()`` read "1_000", full-width and Arabic-Indic digits, and
``float(True)`` is 1.0: Django's and DRF's number fields inherit all of it, so a form or a JSON
body could store 12 for a full-width "12" and 1 for ``true``. A number typed as text is read
here only when it is ASCII digits with an optional sign (and, for decimals, a point and an
exponent); a boolean is never a number. ``install`` (PortalConfig.ready) puts the rule in front
of Django's and DRF's own parsing, so model forms and model serializers get it too.
"""

import re
import unicodedata
from decimal import Decimal

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


# A number typed on a Chinese keyboard in full-width mode (digits U+FF10 to U+FF19), with a
# currency sign or code copied from a quote ("¥12.5", "12.5 元", "USD 1200"), or with a decimal
# comma ("1,5", as much of Europe writes it): refused like any other text, but the message
# names what to change and shows the number as the field reads it. Nothing is guessed into the
# stored value: the user confirms the plain spelling by typing it.
WIDE = _("Type the number with half-width digits 0-9, for example %(plain)s.")
CURRENCY = _("Enter the number without the currency sign, for example %(plain)s.")
DECIMAL_COMMA = _("Use a point as the decimal separator, for example %(plain)s.")
CURRENCY_TEXT = re.compile(
    r"^(?:[¥$€£]|CNY|RMB|USD|EUR|US\$)\s*(.+?)$|^(.+?)\s*(?:[¥$€£元]|CNY|RMB|USD|EUR|美元)$",
    re.IGNORECASE,
)
# "300万" (ten thousands) and "1.2亿" (hundred millions), as budgets and quotes are written in
# Chinese: the number in full is shown, never stored by itself.
MYRIAD = _("Enter the number in full, without 万 or 亿, for example %(plain)s.")
MYRIAD_TEXT = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))\s*([万亿])", re.ASCII)
MYRIADS = {"万": 10**4, "亿": 10**8}
MYRIAD_SUFFIX = re.compile(r"(.+?)\s*([万亿])")
WIDE_TEXT = re.compile(r"[０-９．，＋－]")
DECIMAL_COMMA_TEXT = re.compile(r"[+-]?[0-9]+,(?![0-9]{3}$)[0-9]+", re.ASCII)


def typing_hint(value, *, decimal: bool) -> ValidationError | None:
    """Why ``value`` is not a number when it is one typed in a way the pages can name (full-width
    digits, a currency sign, thousands separators, a decimal comma in a decimal field, a per cent
    sign): the refusal saying how to type it, with the plain spelling (a whole-number field then
    says so of a plain "12.5", as it always did); None for other text."""
    if not isinstance(value, str):
        return None
    typed = value.strip()
    text = unicodedata.normalize("NFKC", typed).strip()
    wide = WIDE_TEXT.search(typed) is not None
    currency = CURRENCY_TEXT.fullmatch(text)
    if currency is not None:
        text = (currency[1] or currency[2]).strip()
    grouped_first = grouped_plain(text)
    myriad = MYRIAD_TEXT.fullmatch(grouped_first or text)
    suffixed = MYRIAD_SUFFIX.fullmatch(text)
    if myriad is None and suffixed is not None and grouped_plain(suffixed[1]) is not None:
        # "1,200万": thousands separators and a myriad together.
        myriad = MYRIAD_TEXT.fullmatch(grouped_plain(suffixed[1]) + suffixed[2])
    if myriad is not None:
        text = format((Decimal(myriad[1]) * MYRIADS[myriad[2]]).normalize(), "f")
    percent = PERCENT_TEXT.fullmatch(text)
    if percent is not None:
        text = percent[1]
    grouped = grouped_plain(text)
    if grouped is not None:
        text = grouped
    comma = decimal and grouped is None and DECIMAL_COMMA_TEXT.fullmatch(text) is not None
    if comma:
        text = text.replace(",", ".")
    if not text or DECIMAL_TEXT.fullmatch(text) is None:
        return None
    for applies, message in (
        (myriad is not None, MYRIAD),
        (wide, WIDE),
        (currency is not None, CURRENCY),
        (percent is not None, PERCENT),
        (grouped is not None, GROUPED),
        (comma, DECIMAL_COMMA),
    ):
        if applies:
            return ValidationError(message, code="invalid", params={"plain": text})
    return None


def _form_parser(parse, pattern):
    decimal = pattern is DECIMAL_TEXT

    def to_python(self, value):
        if not readable(value, pattern):
            hint = typing_hint(value, decimal=decimal)
            if hint is not None:
                raise hint
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
