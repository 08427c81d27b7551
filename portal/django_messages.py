"""Django's own messages that the portal words again for its Chinese readers.

Django's Chinese catalogue writes some messages with half-width brackets and commas; the portal's
catalogue (LOCALE_PATHS, read before Django's) gives them again in full-width punctuation. The
calls below only mark the message ids for ``makemessages``: Django's validators look them up.
"""

from django.utils.translation import ngettext_lazy

# django.core.validators.MaxLengthValidator: a text field longer than its limit.
MAX_LENGTH = ngettext_lazy(
    "Ensure this value has at most %(limit_value)d character (it has %(show_value)d).",
    "Ensure this value has at most %(limit_value)d characters (it has %(show_value)d).",
    "limit_value",
)
# django.core.validators.MinLengthValidator: a text field shorter than its minimum.
MIN_LENGTH = ngettext_lazy(
    "Ensure this value has at least %(limit_value)d character (it has %(show_value)d).",
    "Ensure this value has at least %(limit_value)d characters (it has %(show_value)d).",
    "limit_value",
)
