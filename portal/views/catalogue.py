"""Catalogue pages: vendors and offerings with their list prices; any user reads, staff and
holders of the catalogue role edit (through portal.services.catalogue, as the API and admin)."""

from decimal import Decimal

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from ..forms import refuse_stale, sent_version
from ..forms_procurement import (
    OfferingEditForm,
    OfferingFilterForm,
    VendorEditForm,
    offering_fieldsets,
    offering_price_formset,
)
from ..models import (
    OFFERING_MONEY_FIELDS,
    Offering,
    Vendor,
    offering_zero_unstated,
)
from ..services.catalogue import offering_save, vendor_save
from ..services.errors import StaleCopy
from ..services.evaluations import (
    CatalogueRowInUse,
    offering_delete,
    vendor_delete,
)
from .common import can_edit_catalogue, form_status, require_catalogue_editor, require_form_methods


@login_required
@require_safe
def vendor_list(request: HttpRequest) -> HttpResponse:
    vendors = Vendor.objects.annotate(offering_count=Count("offerings")).order_by("name")
    context = {"vendors": vendors, "can_edit": can_edit_catalogue(request.user)}
    return render(request, "portal/vendor_list.html", context)


def _vendor_form(request: HttpRequest, vendor: Vendor | None) -> HttpResponse:
    require_catalogue_editor(request)
    form = VendorEditForm(request.POST if request.method == "POST" else None, instance=vendor)
    if request.method == "POST" and form.is_valid():
        try:
            vendor = vendor_save(
                vendor=form.save(commit=False),
                by=request.user,
                expected_version=sent_version(form),
            )
        except StaleCopy as exc:
            refuse_stale(form, exc)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("Vendor “%(name)s” saved.") % {"name": vendor.name})
            return redirect("vendor-list")
    context = {"form": form, "vendor": vendor}
    return render(request, "portal/vendor_form.html", context, status=form_status(form))


@login_required
@require_form_methods
def vendor_create(request: HttpRequest) -> HttpResponse:
    return _vendor_form(request, None)


@login_required
@require_form_methods
def vendor_edit(request: HttpRequest, vendor_pk: int) -> HttpResponse:
    require_catalogue_editor(request)
    return _vendor_form(request, get_object_or_404(Vendor, pk=vendor_pk))


@login_required
@require_safe
def offering_list(request: HttpRequest) -> HttpResponse:
    filters = OfferingFilterForm(request.GET or None)
    offerings = filters.filter(
        Offering.objects.select_related("vendor").order_by("vendor__name", "name")
    )
    context = {
        "offerings": offerings,
        "filters": filters,
        "filtered": bool(request.GET),
        "can_edit": can_edit_catalogue(request.user),
    }
    return render(request, "portal/offering_list.html", context)


def _price(value: Decimal) -> str:
    """A price with its significant decimals but at least cents, grouped in threes as the
    other pages show money: 22.00, 0.1234, 12,800.00."""
    value = value.normalize()
    if value.as_tuple().exponent > -2:
        value = value.quantize(Decimal("0.01"))
    return format(value, ",f")


def _display(offering: Offering, name: str):
    field = Offering._meta.get_field(name)
    if field.is_relation:
        return getattr(offering, name)
    if field.choices:
        return getattr(offering, f"get_{name}_display")()
    value = getattr(offering, name)
    if name in OFFERING_MONEY_FIELDS and value is not None:
        return f"{_price(value)} {offering.currency}"
    if isinstance(value, Decimal):
        # As typed, without the column's trailing zeros: 99.9, not 99.900; 1.8, not 1.80.
        return f"{value.normalize():f}"
    return value


@login_required
@require_safe
def offering_detail(request: HttpRequest, offering_pk: int) -> HttpResponse:
    offering = get_object_or_404(
        Offering.objects.select_related("vendor").prefetch_related("prices"), pk=offering_pk
    )
    sections = [
        (
            legend,
            [
                {
                    "label": Offering._meta.get_field(name).verbose_name,
                    "value": _display(offering, name),
                    "boolean": isinstance(getattr(offering, name), bool),
                    # A figure left at its default 0 is no claim (models.OFFERING_ZERO_UNSTATED).
                    "unstated": offering_zero_unstated(name, getattr(offering, name)),
                }
                for name in names
                if name not in ("vendor", "name")
            ],
        )
        for legend, names in offering_fieldsets()
    ]
    context = {
        "offering": offering,
        "sections": [(legend, rows) for legend, rows in sections if rows],
        "prices": [
            {"billing_model": p.get_billing_model_display(), "price": _price(p.price_per_gpu)}
            for p in offering.prices.all()
        ],
        "can_edit": can_edit_catalogue(request.user),
    }
    return render(request, "portal/offering_detail.html", context)


def _offering_form(request: HttpRequest, offering: Offering | None) -> HttpResponse:
    require_catalogue_editor(request)
    data = request.POST if request.method == "POST" else None
    form = OfferingEditForm(data, instance=offering)
    prices = offering_price_formset(offering=offering, data=data)
    if data is not None:
        form_ok = form.is_valid()
        prices_ok = prices.is_valid()
        if form_ok and prices_ok:
            try:
                with transaction.atomic():
                    unsaved = form.save(commit=False)
                    prices.instance = unsaved
                    changed = prices.save(commit=False)
                    saved = offering_save(
                        offering=unsaved,
                        by=request.user,
                        prices=changed,
                        deleted_prices=prices.deleted_objects,
                        expected_version=sent_version(form),
                    )
            except StaleCopy as exc:
                refuse_stale(form, exc)
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, _("Offering “%(name)s” saved.") % {"name": saved})
                return redirect("offering-detail", offering_pk=saved.pk)
    context = {"form": form, "prices": prices, "offering": offering}
    return render(request, "portal/offering_form.html", context, status=form_status(form, prices))


@login_required
@require_form_methods
def offering_create(request: HttpRequest) -> HttpResponse:
    return _offering_form(request, None)


@login_required
@require_form_methods
def offering_edit(request: HttpRequest, offering_pk: int) -> HttpResponse:
    require_catalogue_editor(request)
    return _offering_form(request, get_object_or_404(Offering, pk=offering_pk))


def _delete_page(
    request: HttpRequest, *, obj, kind: str, blockers: list, delete, cancel_url: str, done: str
) -> HttpResponse:
    """Ask first (GET), delete on POST through the service; rows still in use are listed and
    the deletion refused with the service's message."""
    errors: list[str] = []
    if request.method == "POST":
        name = str(obj)
        try:
            delete(obj, request.user)
        except CatalogueRowInUse as exc:
            errors = [str(exc)]
        else:
            messages.success(request, _("“%(name)s” deleted.") % {"name": name})
            return redirect(done)
    context = {
        "object": obj,
        "kind": kind,
        "blockers": blockers,
        "errors": errors,
        "cancel_url": cancel_url,
    }
    return render(request, "portal/catalogue_confirm_delete.html", context)


@login_required
@require_form_methods
def offering_delete_view(request: HttpRequest, offering_pk: int) -> HttpResponse:
    require_catalogue_editor(request)
    offering = get_object_or_404(Offering.objects.select_related("vendor"), pk=offering_pk)
    candidacies = offering.candidacies.select_related("evaluation").order_by("evaluation__name")
    return _delete_page(
        request,
        obj=offering,
        kind="offering",
        blockers=[c.evaluation for c in candidacies],
        delete=lambda o, user: offering_delete(offering=o, by=user),
        cancel_url=reverse("offering-detail", args=[offering.pk]),
        done="offering-list",
    )


@login_required
@require_form_methods
def vendor_delete_view(request: HttpRequest, vendor_pk: int) -> HttpResponse:
    require_catalogue_editor(request)
    vendor = get_object_or_404(Vendor, pk=vendor_pk)
    return _delete_page(
        request,
        obj=vendor,
        kind="vendor",
        blockers=list(vendor.offerings.order_by("name")),
        delete=lambda v, user: vendor_delete(vendor=v, by=user),
        cancel_url=reverse("vendor-edit", args=[vendor.pk]),
        done="vendor-list",
    )
