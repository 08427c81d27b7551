"""Writes on the shared catalogue (vendors, offerings, list prices) and on what candidates
pinned of it.

Every catalogue write makes a new version of each offering it touches (facts, vendor facts and
list prices); no candidate changes with it. A candidate keeps the version it pinned until its
evaluation's procurement member adopts the new one (rescored, audited) or keeps the old one.
Who may write here: staff and holders of the catalogue role (``portal.edit_catalogue``),
never merely a member of some evaluation.
"""

from collections.abc import Iterable

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils.translation import gettext as _

from ..models import Candidate, Offering, OfferingPrice, OfferingVersion, Vendor
from ..models.vendors import offering_facts_of, price_facts_of, vendor_facts_of
from .errors import ensure_current
from .locks import candidate_lock_open
from .notifications import notify_catalogue_changed
from .results import results_changed, results_changed_for_offerings
from .text import clean_text_fields
from .versions import values_version

CATALOGUE_PERMISSION = "portal.edit_catalogue"


def catalogue_permission():
    """The Permission row of the catalogue role (grant it to a user or a group)."""
    from django.contrib.auth.models import Permission

    return Permission.objects.get(content_type__app_label="portal", codename="edit_catalogue")


def is_catalogue_editor(user) -> bool:
    """Staff, or a user holding the catalogue role (directly or through a group)."""
    if not (user is not None and user.is_authenticated and user.is_active):
        return False
    return user.is_staff or user.has_perm(CATALOGUE_PERMISSION)


class CatalogueDenied(PermissionDenied):
    """A catalogue edit refused: the catalogue belongs to no evaluation, so the 403 page
    speaks of the catalogue role, not of a role in an evaluation (views.errors)."""


def require_catalogue_editor(user) -> None:
    if not is_catalogue_editor(user):
        raise CatalogueDenied(
            _("Only staff and holders of the catalogue role may edit the vendor catalogue.")
        )


def _by(obj, user):
    obj._history_user = user
    return obj


def _new_versions(offerings: Iterable[Offering], by) -> list[OfferingVersion]:
    versions = []
    for offering in offerings:
        # One version number at a time per offering, even when two editors save together.
        locked = Offering.objects.select_for_update().get(pk=offering.pk)
        versions.append(OfferingVersion.current(locked, by=by))
    # The catalogue-change notice (and the fingerprint) of every evaluation using them moved.
    results_changed_for_offerings(version.offering_id for version in versions)
    return versions


def vendor_version(vendor: Vendor) -> str:
    """The version of a vendor's facts as a page loaded them (those an offering's version
    records of its vendor)."""
    return values_version(vendor_facts_of(vendor))


@transaction.atomic
def vendor_save(*, vendor: Vendor, by, expected_version: str | None = None) -> Vendor:
    """Create or change a vendor; its offerings get a new version when their facts changed.

    ``expected_version`` (vendor_version as the editor's page loaded it): a vendor saved by
    someone else since is not overwritten (StaleCopy); None (a script) is not checked."""
    require_catalogue_editor(by)
    if expected_version is not None and vendor.pk is not None:
        stored = Vendor.objects.select_for_update().get(pk=vendor.pk)
        ensure_current(stored=vendor_version(stored), expected=expected_version, current=stored)
    clean_text_fields(vendor)
    vendor.full_clean()
    _by(vendor, by).save()
    _new_versions(vendor.offerings.all(), by)
    return vendor


def offering_version(offering: Offering) -> str:
    """The version of an offering's facts and list prices as a page loaded them (the facts
    an OfferingVersion records, the stored row's)."""
    return values_version([offering_facts_of(offering), price_facts_of(offering)])


@transaction.atomic
def offering_save(
    *,
    offering: Offering,
    by,
    prices: Iterable[OfferingPrice] = (),
    deleted_prices: Iterable[OfferingPrice] = (),
    expected_version: str | None = None,
) -> Offering:
    """Create or change an offering and (optionally) its list prices in one step; a new
    version is made when anything changed. Candidates keep the version they pinned.

    ``expected_version`` (offering_version as the editor's page loaded it): an offering saved
    by someone else since is not overwritten (StaleCopy); None (a script) is not checked."""
    require_catalogue_editor(by)
    if expected_version is not None and offering.pk is not None:
        stored = Offering.objects.select_for_update().get(pk=offering.pk)
        ensure_current(stored=offering_version(stored), expected=expected_version, current=stored)
    clean_text_fields(offering)
    offering.full_clean()
    _by(offering, by).save()
    for price in deleted_prices:
        if price.pk is not None:
            _by(price, by).delete()
    for price in prices:
        price.offering = offering
        price.full_clean()
        _by(price, by).save()
    _new_versions([offering], by)
    notify_catalogue_changed(offering=offering)
    return offering


@transaction.atomic
def offering_price_save(*, price: OfferingPrice, by) -> OfferingPrice:
    require_catalogue_editor(by)
    price.full_clean()
    _by(price, by).save()
    _new_versions([price.offering], by)
    notify_catalogue_changed(offering=price.offering)
    return price


@transaction.atomic
def offering_price_delete(*, price: OfferingPrice, by) -> None:
    require_catalogue_editor(by)
    offering = price.offering
    _by(price, by).delete()
    _new_versions([offering], by)


@transaction.atomic
def candidate_versions_pin_missing() -> int:
    """Pin candidates loaded without a version (fixtures load raw) to their offering as it is
    now; returns how many. Candidates pin themselves when saved otherwise."""
    missing = list(Candidate.objects.filter(offering_version__isnull=True).order_by("pk"))
    for candidate in missing:
        candidate.save(update_fields=["offering_version"])
    return len(missing)


def catalogue_changes(candidate: Candidate) -> list[dict]:
    """How the catalogue differs from what the candidate pinned ([] when it does not, or when
    the procurement member kept the pinned version after seeing these very changes)."""
    if candidate.offering_version_id is None:
        return []
    live = _live(Offering.objects.select_related("vendor").get(pk=candidate.offering_id))
    pinned = candidate.offering_version
    changes = pinned.diff(live)
    if changes and candidate.catalogue_kept == _fingerprint(live):
        return []
    return changes


def _live(offering: Offering) -> OfferingVersion:
    """The offering as the catalogue has it now, as an unsaved version (nothing written)."""
    return OfferingVersion(
        offering=offering,
        facts=offering_facts_of(offering),
        vendor_facts=vendor_facts_of(offering.vendor),
        prices=price_facts_of(offering),
    )


def evaluation_catalogue_changes(evaluation) -> list[dict]:
    """[{candidate, changes}] for the evaluation's candidates whose offering changed in the
    catalogue since the version they pinned (and not kept), in a fixed number of queries.

    Every catalogue write goes through this module, and each one records the offering as it
    then is as its latest version (``_new_versions``). A candidate pinned to the latest version
    of its offering, whose offering was not saved after that version was made, therefore sees
    no change: one query finds the others, and only those are compared field by field (at 200
    candidates, comparing every one cost a third of the dashboard's first render)."""
    latest = OfferingVersion.objects.filter(offering=OuterRef("offering_id")).order_by("-number")
    others = Candidate.objects.filter(
        evaluation=evaluation, offering_version__isnull=False
    ).annotate(
        latest_id=Subquery(latest.values("pk")[:1]),
        latest_at=Subquery(latest.values("created_at")[:1]),
    )
    others = list(
        others.filter(
            Q(latest_id__isnull=True)
            | ~Q(offering_version_id=F("latest_id"))
            | Q(offering__updated_at__gt=F("latest_at"))
        ).values_list("pk", flat=True)
    )
    if not others:
        return []
    candidates = list(
        Candidate.objects.filter(pk__in=others)
        # The verification (kilobytes of JSON per candidate) is no part of the notice.
        .defer("verification")
        .select_related("offering_version", "offering__vendor")
        .prefetch_related("offering__prices")
        .order_by("pk")
    )
    changed = []
    for candidate in candidates:
        offering = candidate.offering
        facts = offering_facts_of(offering)
        vendor_facts = vendor_facts_of(offering.vendor)
        prices = [
            {"billing_model": p.billing_model, "price_per_gpu": str(p.price_per_gpu)}
            for p in sorted(offering.prices.all(), key=lambda p: p.billing_model)
        ]
        pinned = candidate.offering_version
        # Equal facts, vendor facts and prices have no differences: the usual case, decided
        # without building the live version or diffing it field by field.
        if pinned.same_as(facts, vendor_facts, prices):
            continue
        live = OfferingVersion(
            offering=offering, facts=facts, vendor_facts=vendor_facts, prices=prices
        )
        changes = pinned.diff(live)
        if changes and candidate.catalogue_kept != _fingerprint(live):
            changed.append({"candidate": candidate, "changes": changes})
    return changed


def _fingerprint(version: OfferingVersion) -> str:
    import hashlib
    import json

    blob = json.dumps([version.facts, version.vendor_facts, version.prices], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@transaction.atomic
def candidate_offering_adopt(*, candidate: Candidate, by) -> Candidate:
    """Pin the offering as the catalogue has it now and rescore the candidate (audited in the
    candidate's history as a change of its offering version)."""
    from .scores import candidate_refresh

    candidate_lock_open(candidate.pk)
    candidate = Candidate.objects.select_related("evaluation").get(pk=candidate.pk)
    (version,) = _new_versions([candidate.offering], by)
    if version.pk != candidate.offering_version_id:
        candidate.offering_version = version
        candidate.catalogue_kept = ""
        _by(candidate, by).save(update_fields=["offering_version", "catalogue_kept"])
    return candidate_refresh(candidate_id=candidate.pk)


@transaction.atomic
def candidate_offering_keep(*, candidate: Candidate, by) -> Candidate:
    """Keep the pinned version although the catalogue changed: the notice goes away until the
    catalogue changes again (audited in the candidate's history)."""
    candidate_lock_open(candidate.pk)
    candidate = Candidate.objects.select_related("evaluation").get(pk=candidate.pk)
    live = _live(Offering.objects.select_related("vendor").get(pk=candidate.offering_id))
    if not candidate.offering_version.diff(live):
        raise ValidationError(_("The catalogue has not changed since this candidate's version."))
    candidate.catalogue_kept = _fingerprint(live)
    _by(candidate, by).save(update_fields=["catalogue_kept"])
    results_changed([candidate.evaluation_id])
    return candidate
