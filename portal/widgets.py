"""Form widgets shared by the portal's forms."""

from decimal import Decimal

from django import forms


class NumberTextInput(forms.TextInput):
    """A number typed as text: the browser sends what was typed (a number box sends nothing
    for text it cannot read), phones show a numeric keyboard (inputmode), and the form field
    parses and explains (see PortalConfig.ready)."""

    def __init__(self, attrs=None):
        super().__init__({"inputmode": "decimal", **(attrs or {})})

    def format_value(self, value):
        # A stored decimal shows as typed, not with the column's places: "12800", "99.9", not
        # "12800.0000", "99.900" (which read as a different figure, or as one to retype).
        if isinstance(value, Decimal) and value.is_finite():
            text = format(value.normalize(), "f")
            return "0" if text in ("-0", "") else text
        return super().format_value(value)
