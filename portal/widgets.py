"""Form widgets shared by the portal's forms."""

from django import forms


class NumberTextInput(forms.TextInput):
    """A number typed as text: the browser sends what was typed (a number box sends nothing
    for text it cannot read), phones show a numeric keyboard (inputmode), and the form field
    parses and explains (see PortalConfig.ready)."""

    def __init__(self, attrs=None):
        super().__init__({"inputmode": "decimal", **(attrs or {})})
