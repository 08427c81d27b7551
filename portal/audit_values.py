"""How the audit trail words the values its history rows hold (portal.audit diffs them).

``display`` gives the API's before/after strings: choice labels, yes/no, the names of related
rows. ``page_value`` gives what the history page shows, as the portal's other pages show the
same values: money with its currency, answers by their choice labels, times in the page's
language and time zone, a workload's weights in percent, lists and mappings without JSON.
Nothing here queries beyond ``Labels.load``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils import dateformat, timezone
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from .models import (
    OFFERING_MONEY_FIELDS,
    Answer,
    AnswerReview,
    AnswerType,
    Candidate,
    ChecklistItem,
    Dimension,
    Evaluation,
    EvidenceUpload,
    Offering,
    OfferingPrice,
    OfferingVersion,
    Vendor,
    Workload,
    offering_zero_unstated,
)


def when_shown(value: datetime) -> str:
    """A moment in the page's language and time zone, to the second, with the zone's name:
    "3 Dec 2026, 15:54:03 UTC", "2026年12月3日 15:54:03 UTC"."""
    local = timezone.localtime(value)
    # Translators: a Django date format (https://docs.djangoproject.com/en/5.2/ref/templates/builtins/#date).
    shape = pgettext("history date and time", "j M Y, H:i:s")
    return f"{dateformat.format(local, shape)} {timezone.get_current_timezone_name()}"


class Labels:
    """Readable names for the ids that history rows hold, loaded in one query per model."""

    def __init__(self, *, page: bool = False):
        # page: also word each value as the history page shows it (FieldChange.before_text).
        self.page = page
        self.candidates: dict[int, str] = {}
        self.offerings: dict[int, str] = {}
        self.vendors: dict[int, str] = {}
        self.items: dict[int, str] = {}
        self.users: dict[int, str] = {}  # user id -> "Full Name (username)" or the username
        self.usernames: dict[int, str] = {}
        self.evaluations: dict[int, str] = {}
        self.checklist: dict[int, ChecklistItem] = {}
        self.currencies: dict[int, str] = {}  # offering id -> its currency
        self.candidate_offerings: dict[int, int] = {}  # candidate id -> offering id
        self.answer_places: dict[int, tuple[int, int]] = {}  # answer id -> (candidate, item)
        self.versions: dict[int, int] = {}  # offering version id -> its number
        # offering version id -> the currency the offering had in that version
        self.version_currencies: dict[int, str] = {}

    def load(
        self,
        *,
        offering_ids: Iterable[int],
        vendor_ids: Iterable[int],
        user_ids: Iterable[int],
    ) -> None:
        offerings = list(
            Offering.objects.filter(pk__in=set(offering_ids)).values_list(
                "pk", "vendor_id", "name", "currency"
            )
        )
        # The vendors of the offerings as they are now, too: an offering without history rows
        # (loaded from a fixture) still gets its vendor's name.
        vendor_ids = set(vendor_ids) | {vendor_id for _pk, vendor_id, _name, _cur in offerings}
        self.vendors = dict(Vendor.objects.filter(pk__in=vendor_ids).values_list("pk", "name"))
        for pk, vendor_id, name, currency in offerings:
            self.offerings[pk] = Offering.label(self.vendors.get(vendor_id, vendor_id), name)
            self.currencies[pk] = currency
        title = "title_zh" if (get_language() or "").startswith("zh") else "title_en"
        self.checklist = {item.pk: item for item in ChecklistItem.objects.all()}
        self.items = {
            pk: f"{item.number}. {getattr(item, title)}" for pk, item in self.checklist.items()
        }
        from .people import person_name

        # Each person named as every page and export names them (portal.people); the API's
        # entries also keep the bare username as their ``user``.
        self.users = {}
        self.usernames = {}
        rows = get_user_model().objects.filter(pk__in=set(user_ids))
        for pk, username, first, last in rows.values_list(
            "pk", "username", "first_name", "last_name"
        ):
            self.users[pk] = person_name(first, last, username)
            self.usernames[pk] = username

    def related(self, field: models.Field, value: Any) -> str:
        model = field.related_model
        if model is Candidate:
            return self.candidates.get(value, f"#{value}")
        if model is Offering:
            return self.offerings.get(value, f"#{value}")
        if model is Vendor:
            return self.vendors.get(value, f"#{value}")
        if model is Evaluation:
            return self.evaluations.get(value, f"#{value}")
        if model is ChecklistItem:
            return self.items.get(value, f"#{value}")
        if model is OfferingVersion and value in self.versions:
            return _("version %(number)s") % {"number": self.versions[value]}
        if model is get_user_model():
            return self.users.get(value, f"#{value}")
        return f"#{value}"


def display(field: models.Field, value: Any, labels: Labels) -> str | None:
    if value is None:
        return None
    if field.is_relation:
        return labels.related(field, value)
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, Decimal):
        # Without trailing zeros, whatever the field's decimal places: "99.9 → 90", not
        # "99.900 → 90" (a value typed in a form has the field's places, one from the API not).
        return format(value.normalize(), "f")
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, dict) and field.name == "requirements":
        return _requirements_shown(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _requirements_shown(overrides: dict) -> str:
    """A workload's overrides of the evaluation's requirements, each by the evaluation field's
    label ("GPU memory required (GiB) = 24"); an unknown key stays as written."""
    shown = []
    for key, value in sorted(overrides.items()):
        try:
            field = Evaluation._meta.get_field(key)
        except FieldDoesNotExist:
            shown.append(f"{key} = {value}")
            continue
        if field.is_relation:
            shown.append(f"{key} = {value}")
            continue
        shown.append(f"{field.verbose_name} = {display(field, value, None)}")
    return "; ".join(shown)


# Money fields (model, field name) and where each row's currency is read from.
MONEY_FIELDS = {
    (OfferingPrice, "price_per_gpu"): "offering",
    (Candidate, "quoted_price_per_gpu"): "offering",
    (Evaluation, "budget_total"): "budget",
    (Evaluation, "ops_staff_cost_month"): "budget",
    **{(Offering, name): "own" for name in OFFERING_MONEY_FIELDS},
}


def money_shown(value: Any, currency: str) -> str:
    """12000.0000 CNY -> "12,000 CNY"; 2.5 -> "2.5 CNY" (decimals only where there are any)."""
    amount = Decimal(str(value))
    amount = amount.quantize(Decimal(1)) if amount == amount.to_integral() else amount.normalize()
    return f"{format(amount, ',f')} {currency}".strip()


def fact_shown(field: models.Field, value: Any, currency: str) -> str | None:
    """A catalogue fact as stored in an offering version (JSON: decimals as text) as the
    pages show it: money with ``currency`` ("12,800 CNY"), choices by their labels, yes/no,
    decimals without trailing zeros; None when unset; "not stated" for a figure left at its
    default 0 (models.OFFERING_ZERO_UNSTATED)."""
    if value is None or value == "":
        return None
    if _unstated(field, value):
        return _("not stated")
    if MONEY_FIELDS.get((field.model, field.name)) == "own" or field.name == "price_per_gpu":
        try:
            return money_shown(value, currency)
        except ArithmeticError:
            return str(value)
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(field, models.DecimalField) and not isinstance(value, bool):
        try:
            return format(Decimal(str(value)).normalize(), "f")
        except ArithmeticError:
            return str(value)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _unstated(field: models.Field, value: Any) -> bool:
    """An offering's figure left at its default 0: no claim (models.OFFERING_ZERO_UNSTATED)."""
    return field.model is Offering and offering_zero_unstated(field.name, value)


def _currency(record, field: models.Field, labels: Labels) -> str | None:
    source = MONEY_FIELDS.get((field.model, field.name))
    if source == "own":
        return getattr(record, "currency", "") or ""
    if source == "budget":
        return getattr(record, "budget_currency", "") or ""
    if source == "offering":
        # A candidate's quote is in the currency of the offering version it pinned (the one
        # its evaluation compares), which a later catalogue edit may have changed.
        pinned = labels.version_currencies.get(getattr(record, "offering_version_id", None))
        if pinned:
            return pinned
        return labels.currencies.get(getattr(record, "offering_id", None), "")
    return None


def _answer_item(record, field: models.Field, labels: Labels) -> ChecklistItem | None:
    """The checklist item of an answer's claim or value (or of a review's copy of them)."""
    if field.model is Answer and field.name in ("claim", "value"):
        return labels.checklist.get(record.item_id)
    if field.model is AnswerReview and field.name in ("claim_reviewed", "value_reviewed"):
        place = labels.answer_places.get(record.answer_id)
        return labels.checklist.get(place[1]) if place else None
    return None


def _answer_shown(item: ChecklistItem, value: Any, candidate_id, labels: Labels) -> str | None:
    """A claim as the questionnaire shows it: a choice's label, yes/no, a monthly cost with the
    candidate's currency; None when it is free text."""
    from .forms import choice_label

    if value in (None, ""):
        return None
    if item.answer_type in (AnswerType.CHOICE, AnswerType.BOOLEAN):
        if isinstance(value, bool):  # the API's typed value of a yes/no item
            value = "yes" if value else "no"
        return choice_label(item, str(value))
    if item.key == "monthly_cost":
        currency = labels.currencies.get(labels.candidate_offerings.get(candidate_id), "")
        try:
            return money_shown(value, currency) + _("/month")
        except (ArithmeticError, ValueError):
            return None
    return None


def page_value(record, field: models.Field, value: Any, labels: Labels) -> str | None:
    """``value`` of ``field`` as the history page shows it: like the portal's other pages."""
    if value is None or value == "":
        return None
    if _unstated(field, value):
        return _("not stated")
    item = _answer_item(record, field, labels)
    if item is not None:
        if field.model is Answer:
            candidate_id = record.candidate_id
        else:
            candidate_id = labels.answer_places.get(record.answer_id, (None, None))[0]
        shown = _answer_shown(item, value, candidate_id, labels)
        if shown is not None:
            return shown
    currency = _currency(record, field, labels)
    if currency is not None and not isinstance(value, bool):
        return money_shown(value, currency)
    if isinstance(value, datetime):
        return when_shown(value)
    if field.model is Workload and field.name == "weights" and isinstance(value, dict):
        return _workload_weights_shown(value)
    if field.model is EvidenceUpload and field.name == "error":
        from .evidence_messages import upload_error

        # As the uploads table words it: from its code and parameters, in the reader's language.
        return upload_error(code=record.error_code, params=record.error_params, text=value)
    if field.model is EvidenceUpload and field.name == "error_params" and isinstance(value, dict):
        from .evidence_messages import upload_node_mismatch

        # An upload stored with its node mismatch flagged: the warning its pages show.
        shown = upload_node_mismatch(value)
        if shown and set(value) == {"node_mismatch"}:
            return shown
    if isinstance(value, list) and not field.choices:
        return ", ".join(_display_scalar(v) for v in value)
    if isinstance(value, dict) and field.name != "requirements":
        return "; ".join(f"{k}: {_display_scalar(v)}" for k, v in sorted(value.items()))
    return display(field, value, labels)


def _display_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return "—" if value is None else str(value)


def _workload_weights_shown(weights: dict) -> str:
    """A workload's own weights, each by its dimension's name as its share in percent."""
    try:
        values = {k: Decimal(str(v)) for k, v in weights.items()}
    except ArithmeticError:
        return "; ".join(f"{k}: {v}" for k, v in sorted(weights.items()))
    total = sum(values.values())
    names = dict(Dimension.choices)
    shown = []
    for dimension in Dimension.values:
        if dimension in values:
            share = values[dimension] * 100 / total if total > 0 else Decimal(0)
            shown.append(f"{names[dimension]} {share.quantize(Decimal('0.1'))} %")
    shown += [f"{k}: {v}" for k, v in sorted(values.items()) if k not in names]
    return "; ".join(shown)
