"""Forms of the portal pages; validation messages are shown next to their fields."""

import hashlib
import json
import secrets
from decimal import Decimal

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext_lazy as _

from .models import (
    OFFERING_FIELDS,
    Answer,
    AnswerType,
    Candidate,
    ChecklistItem,
    Dimension,
    Evaluation,
    NvlinkTopology,
    Offering,
    OfferingPrice,
    Vendor,
)
from .services.answers import AnswerDraft, answer_version
from .services.attachments import ALLOWED_EXTENSIONS, attachment_type_check
from .services.errors import StaleCopy

# Django's label suffix, and the marks after which a label gets none (BoundField.label_tag),
# kept in the portal's catalogue: Django's own Chinese one keeps the ASCII ":", so every
# Chinese label ended with an ASCII colon beside full-width text.
LABEL_SUFFIX = (gettext_noop(":"), gettext_noop(":?.!"))


def labelled(label, value) -> str:
    """The label and its value as a reader of the page's language writes them: Chinese takes a
    full-width colon."""
    return _("%(label)s: %(value)s") % {"label": label, "value": value}


class LongTextarea(forms.Textarea):
    """A text area without the browser's ``maxlength``: a paste past it was cut to the limit
    without a word (12,000 characters of a vendor's answer pasted, 10,000 kept and saved). The
    field refuses the text instead, saying how long it is, and the page keeps it to shorten."""

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"].pop("maxlength", None)
        return context


# As the API's answer serializer: a claim or a note longer than this is refused, not cut.
ANSWER_TEXT_MAX = 10_000


def loaded_version_field() -> forms.CharField:
    return forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


def sent_version(form: forms.Form) -> str | None:
    """The version ``form`` was loaded at, for the service to compare under its lock; None when
    the post carries none (a script), which is not checked."""
    return form.data.get(form.add_prefix("loaded_version")) or None


def refuse_stale(form: forms.Form, exc: StaleCopy, theirs: str = "") -> None:
    """Show on ``form`` that the service refused it (someone saved since it was loaded): the
    message, what is stored now (``theirs``), and the version stored now in the form, so that
    saving it again is a choice made with both in view. The typed input stays as posted."""
    message = exc.messages[0]
    if theirs:
        stored = _("Stored now: %(values)s") % {"values": theirs}
        message = f"{message} {stored}"
    form.add_error(None, message)
    form.data = form.data.copy()
    form.data[form.add_prefix("loaded_version")] = exc.version


# A page that creates a row carries a key drawn when the page is shown. The back button brings the
# filled page back, and pressing the button again sent a second, identical evaluation that no
# page can delete. The session remembers which row each key created; a key sent again is
# answered with that row, nothing new created. The key waits in a data attribute until forms.js
# puts it in its input: a browser that fetches the page again on the way back puts back only what
# the page had changed in its inputs (the typed text, and so this key), never a value the server
# wrote, which would be the new page's key.
SENT_ONCE_SESSION_KEY = "forms_sent_once"
SENT_ONCE_KEPT = 50


class SentOnceInput(forms.TextInput):
    def __init__(self):
        super().__init__(attrs={"hidden": True, "tabindex": "-1", "aria-hidden": "true"})

    @property
    def is_hidden(self) -> bool:
        # Rendered with the form's hidden fields, never as a labelled field.
        return True

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"]["data-sent-once"] = context["widget"]["value"] or ""
        context["widget"]["value"] = None
        return context


def sent_once_field() -> forms.CharField:
    return forms.CharField(
        required=False,
        max_length=64,
        widget=SentOnceInput(),
        initial=lambda: secrets.token_urlsafe(18),
    )


def sent_once_key(form: forms.Form) -> str:
    return str(form.data.get(form.add_prefix("sent_once")) or "")[:64]


def _sent_digest(form: forms.Form) -> str:
    """What the page sent, but the key and tokens: the same key with other input (the page
    brought back, changed on purpose and sent) is a new row, never answered with the first."""
    skipped = {
        "csrfmiddlewaretoken",
        form.add_prefix("sent_once"),
        form.add_prefix("loaded_version"),
    }
    items = sorted(
        (name, value)
        for name in form.data
        if name not in skipped
        for value in form.data.getlist(name)
    )
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()


def sent_before(request, form: forms.Form) -> str | None:
    """The address of what this page already created in this session from the same input, or
    None."""
    key = sent_once_key(form)
    done = request.session.get(SENT_ONCE_SESSION_KEY)
    if not key or not isinstance(done, dict) or not isinstance(done.get(key), dict):
        return None
    first = done[key]
    return first.get("url") if first.get("digest") == _sent_digest(form) else None


def sent_record(request, form: forms.Form, url: str) -> None:
    """Remember that this page's key and input created what ``url`` shows (the newest kept)."""
    key = sent_once_key(form)
    if not key:
        return
    done = request.session.get(SENT_ONCE_SESSION_KEY)
    done = dict(done) if isinstance(done, dict) else {}
    done.pop(key, None)
    done[key] = {"url": url, "digest": _sent_digest(form)}
    request.session[SENT_ONCE_SESSION_KEY] = dict(list(done.items())[-SENT_ONCE_KEPT:])


def weight_percent_field(label, *, required: bool = True) -> forms.DecimalField:
    """A dimension's weight in percent, as the weights page saves it and the what-if reads it:
    a finite number from 0 to 100 with at most three decimals."""
    return forms.DecimalField(
        label=label,
        required=required,
        min_value=0,
        max_value=100,
        decimal_places=3,
        max_digits=7,
    )


class WhatIfWeightsForm(forms.Form):
    """What-if weights from the address (``?w_<dimension>=…``, the query the weights sliders
    send): each within the bounds the weights page saves, a blank one counting as 0. One value
    out of bounds (NaN, 1e400, a negative or a word) and the whole set is ignored: the page
    shows the saved weights and says why."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for d in Dimension:
            self.fields[f"w_{d.value}"] = weight_percent_field(d.label, required=False)

    def clean(self):
        data = super().clean()
        if not self.errors and not any(data.get(name) for name in self.fields):
            raise ValidationError(_("At least one weight must be positive: all six are zero."))
        return data

    def weights(self) -> dict[str, Decimal]:
        """The typed percentages by dimension (call after is_valid())."""
        return {d.value: self.cleaned_data[f"w_{d.value}"] or Decimal(0) for d in Dimension}

    def problems(self) -> list[str]:
        """Why the set was refused, each message named by its dimension."""
        problems = []
        for name, messages in self.errors.items():
            label = self.fields[name].label if name in self.fields else ""
            problems += [labelled(label, m) if label else str(m) for m in messages]
        return problems


class VendorForm(forms.ModelForm):
    website = forms.URLField(
        label=_("website"), max_length=200, required=False, assume_scheme="https"
    )

    class Meta:
        model = Vendor
        fields = [
            "name",
            "website",
            "contact_name",
            "contact_email",
            "contact_phone",
            "regions",
            "mlps_level",
            "xinchuang",
            "iso27001",
            "other_certifications",
            "notes",
        ]


class OfferingForm(forms.ModelForm):
    class Meta:
        model = Offering
        fields = OFFERING_FIELDS


class OfferingPriceForm(forms.ModelForm):
    class Meta:
        model = OfferingPrice
        fields = ["billing_model", "price_per_gpu"]


class CandidateForm(forms.ModelForm):
    class Meta:
        model = Candidate
        fields = ["offering", "node_count", "quoted_billing_model", "quoted_price_per_gpu", "notes"]

    def __init__(self, *args, evaluation: Evaluation, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.evaluation = evaluation
        taken = evaluation.candidates.exclude(pk=self.instance.pk).values("offering_id")
        self.fields["offering"].queryset = Offering.objects.select_related("vendor").exclude(
            pk__in=taken
        )
        self.fields["offering"].label = _("Offering")
        self.fields["offering"].error_messages["invalid_choice"] = _(
            "This offering is already a candidate of this evaluation, or does not exist."
        )

    def _update_errors(self, errors):
        # A price its field could not read ("¥3,500") is already refused there, saying how to
        # type it; the model's "a quote needs both a billing model and a price" reads it as
        # missing and would tell a user who gave both to give both.
        if hasattr(errors, "error_dict") and self.has_error("quoted_price_per_gpu"):
            errors.error_dict.pop("quoted_price_per_gpu", None)
            if not errors.error_dict:
                return
        super()._update_errors(errors)


# Labels of the checklist's choice codes (the codes themselves are stored).
CHOICE_LABELS = {
    "nvlink_topology": dict(NvlinkTopology.choices),
    "control": {
        "full": _("Full (root, own images and drivers)"),
        "partial": _("Partial (root inside a VM or container)"),
        "none": _("None (provider images only)"),
    },
}
BOOLEAN_LABELS = {"yes": _("Yes"), "no": _("No")}


def choice_label(item: ChecklistItem, code) -> str:
    """The translated label of a choice code of ``item`` (the code itself when unknown)."""
    if item.answer_type == AnswerType.BOOLEAN:
        return str(BOOLEAN_LABELS.get(code, code))
    return str(CHOICE_LABELS.get(item.key, {}).get(code, code))


def claim_label(item: ChecklistItem, currency: str = "") -> str:
    """The claim's label with the unit its number is in, as the portal's other number inputs
    name theirs ("POC window (days)"): item 10 in days, item 9 in the offering's currency a
    month."""
    if item.key == "poc_window":
        return str(_("Claim (days)"))
    if item.key == "monthly_cost" and currency:
        return str(_("Claim (%(currency)s/month)") % {"currency": currency})
    return str(_("Claim"))


def claim_currency(candidate) -> str:
    """The currency of the candidate's offering as it was pinned (the one its TCO, and so the
    check of the stated monthly cost, counts in)."""
    version = candidate.offering_version
    facts = version.facts if version is not None else {}
    return facts.get("currency") or candidate.offering.currency


def typed_errors(item: ChecklistItem, text: str) -> list[str]:
    """Why the questionnaire's typed input of ``item`` refuses ``text`` (its field's messages),
    or [] when it takes it (a free-text item takes any text)."""
    field = typed_field(item)
    if field is None:
        return []
    try:
        field.clean(text)
    except forms.ValidationError as exc:
        return list(exc.messages)
    return []


def _parses(item: ChecklistItem, text: str) -> bool:
    return not typed_errors(item, text)


def typed_field(item: ChecklistItem) -> forms.Field | None:
    """The input of a typed item's claim (None for free text)."""
    if item.answer_type == AnswerType.NUMBER:
        too_large = _("This number is too large: at most 12 digits before the decimal point.")
        return forms.DecimalField(
            label=_("Claim"),
            required=False,
            min_value=0,
            max_digits=14,
            decimal_places=2,
            # "1e309" is a number with 310 digits: say it is too large, not how many digits.
            error_messages={"max_digits": too_large, "max_whole_digits": too_large},
        )
    if item.answer_type == AnswerType.CHOICE:
        return forms.ChoiceField(
            label=_("Claim"),
            required=False,
            choices=[("", "—"), *[(c, choice_label(item, c)) for c in item.choices]],
        )
    if item.answer_type == AnswerType.BOOLEAN:
        return forms.ChoiceField(
            label=_("Claim"), required=False, choices=[("", "—"), *BOOLEAN_LABELS.items()]
        )
    return None


def legacy_claim(item: ChecklistItem, answer: Answer | None) -> str:
    """A stored claim that the item's typed input cannot show (free text kept from before the
    item was typed), or ""."""
    if answer is None or item.answer_type == AnswerType.TEXT:
        return ""
    if answer.value not in (None, "") or not answer.claim:
        return ""
    return "" if _parses(item, answer.claim.strip()) else answer.claim


class AnswerForm(forms.Form):
    """One checklist item's answer; the claim's input follows the item's answer type.

    A stored free-text claim that the typed input cannot parse is shown and kept as it is until
    the user replaces it; a field missing from the submitted data keeps its stored value."""

    claim = forms.CharField(
        label=_("Claim"),
        required=False,
        max_length=ANSWER_TEXT_MAX,
        widget=LongTextarea(attrs={"rows": 2}),
    )
    notes = forms.CharField(
        label=_("Notes"),
        required=False,
        max_length=ANSWER_TEXT_MAX,
        widget=LongTextarea(attrs={"rows": 2}),
    )
    # The item's version as the page loaded it (services.answers.answer_version): a save over
    # a newer answer is refused for this item instead of overwriting it.
    version = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    attachment = forms.FileField(
        label=_("Attach a document"),
        required=False,
        help_text=_(
            "For example the vendor's SLA or a certificate (up to 20 MiB): a PDF, an office "
            "document, an image, text or CSV, or an archive."
        ),
        # What the file chooser offers first; the content is checked on the server all the same.
        widget=forms.ClearableFileInput(
            attrs={"accept": ",".join(f".{e}" for e in ALLOWED_EXTENSIONS)}
        ),
    )

    def __init__(
        self,
        *args,
        item: ChecklistItem,
        answer: Answer | None = None,
        currency: str = "",
        **kwargs,
    ):
        self.item = item
        self.answer = answer
        self.conflict: dict | None = None
        self.legacy = legacy_claim(item, answer)
        kwargs.setdefault("initial", self._initial())
        super().__init__(*args, prefix=f"item-{item.number}", **kwargs)
        self.typed = typed_field(item)
        if self.legacy:
            # The typed input shows the legacy text as is; clean_claim keeps it unchanged.
            if item.answer_type == AnswerType.NUMBER:
                widget = forms.TextInput(attrs={"inputmode": "decimal", "class": "legacy"})
            else:
                widget = forms.Select(
                    choices=[
                        ("", "—"),
                        (self.legacy, _("As stored: %(text)s") % {"text": self.legacy}),
                        *self.typed.choices[1:],
                    ],
                    attrs={"class": "legacy"},
                )
            self.fields["claim"] = forms.CharField(
                label=_("Claim"), required=False, max_length=ANSWER_TEXT_MAX, widget=widget
            )
        elif self.typed is not None:
            self.fields["claim"] = self.typed
        help_text = item.help_zh if _is_zh() else item.help_en
        self.fields["claim"].label = claim_label(item, currency)
        self.fields["claim"].help_text = help_text
        self.fields["claim"].widget.attrs["data-claim"] = ""

    def _initial(self) -> dict:
        answer = self.answer
        if answer is None:
            return {"version": answer_version(None)}
        claim = answer.value if answer.value not in (None, "") else answer.claim
        return {"claim": claim, "notes": answer.notes, "version": answer_version(answer)}

    def initial_inputs(self) -> dict[str, str]:
        """The stored answer as this form's inputs would show it (input name -> value)."""
        initial = self._initial()
        claim = initial.get("claim")
        return {
            self.add_prefix("claim"): "" if claim is None else str(claim),
            self.add_prefix("notes"): initial.get("notes") or "",
            self.add_prefix("version"): initial["version"],
        }

    def rebase(self, answer: Answer | None, version: str) -> None:
        """After a conflict: the page shows the newer stored ``answer`` beside the input kept
        as typed, and carries ``version`` so that saving again is the user's choice to replace
        it."""
        self.conflict = {"answer": answer, "claim": AnswerForm(item=self.item, answer=answer)}
        self.data = self.data.copy()
        self.data[self.add_prefix("version")] = version

    def display_claim(self) -> str:
        """The stored claim as a reader sees it: a choice's label, else the text."""
        answer = self.answer
        if answer is None:
            return ""
        if answer.value not in (None, "") and self.item.answer_type in (
            AnswerType.CHOICE,
            AnswerType.BOOLEAN,
        ):
            return choice_label(self.item, answer.value)
        return answer.claim or ("" if answer.value is None else str(answer.value))

    def clean_attachment(self):
        # Checked here as well as by the service, so that the refusal lands on this item's
        # field (the service's error reaches the first item with a file) and nothing is saved.
        attachment = self.cleaned_data.get("attachment")
        if attachment:
            try:
                attachment_type_check(attachment)
            except ValidationError as exc:
                raise ValidationError(exc.error_dict["attachment"]) from None
        return attachment

    def clean_claim(self):
        claim = self.cleaned_data.get("claim")
        if self.legacy:
            raw = (claim or "").strip()
            if raw == self.legacy.strip():
                return _Legacy(self.legacy)
            return self.typed.clean(raw)
        return claim

    def draft(self) -> AnswerDraft:
        """The answer as the service stores it (call after is_valid())."""
        data = self.cleaned_data
        answer = self.answer
        if self.add_prefix("claim") not in self.data:
            claim = answer.claim if answer else ""
            value = answer.value if answer else None
        else:
            claim, value = self._claim_and_value(data.get("claim"))
        notes = data["notes"]
        if self.add_prefix("notes") not in self.data:
            notes = answer.notes if answer else ""
        return AnswerDraft(
            item=self.item,
            claim=claim,
            value=value,
            notes=notes,
            attachment=data.get("attachment") or None,
            base_version=data.get("version") or None,
        )

    def _claim_and_value(self, claim) -> tuple[str, object]:
        if isinstance(claim, _Legacy):
            return str(claim), None
        if claim in (None, ""):
            return "", None
        if self.item.answer_type == AnswerType.NUMBER:
            return str(claim), str(claim)
        if self.item.answer_type in (AnswerType.CHOICE, AnswerType.BOOLEAN):
            return claim, claim
        return claim, None


class _Legacy(str):
    """A legacy claim kept as it was stored."""


def _is_zh() -> bool:
    return (get_language() or "").startswith("zh")


def questionnaire_forms(candidate, data=None, files=None) -> list[AnswerForm]:
    """One form per checklist item, bound to ``data`` when given, with the stored answers."""
    answers = {a.item_id: a for a in candidate.answers.prefetch_related("attachments")}
    currency = claim_currency(candidate)
    return [
        AnswerForm(data, files, item=item, answer=answers.get(item.pk), currency=currency)
        for item in ChecklistItem.objects.order_by("number")
    ]
