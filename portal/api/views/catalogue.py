"""The signed-in user, the vendor catalogue (vendors, offerings, list prices) and the checklist.

Catalogue rows are shared by every evaluation: any signed-in user reads them, staff and
holders of the catalogue role edit them (portal.services.catalogue). A change to an offering,
its prices or its vendor makes a new version of the offerings concerned; candidates keep the
version they pinned until their procurement member adopts the new one.
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers
from rest_framework.response import Response

from ... import selectors
from ...models import ChecklistItem, Offering, OfferingPrice, Vendor
from ...services.catalogue import offering_price_delete
from ...services.evaluations import (
    CatalogueRowInUse,
    offering_delete,
    vendor_delete,
)
from ..exceptions import Conflict
from ..filters import OfferingFilter, VendorFilter
from ..permissions import CatalogueEditorOrReadOnly, is_catalogue_editor
from ..serializers.catalogue import (
    ChecklistItemSerializer,
    OfferingPriceSerializer,
    OfferingSerializer,
    VendorSerializer,
)
from .base import ApiView

MeSerializer = inline_serializer(
    "Me",
    {
        "id": serializers.IntegerField(),
        "username": serializers.CharField(),
        "full_name": serializers.CharField(),
        "is_staff": serializers.BooleanField(),
        "can_edit_catalogue": serializers.BooleanField(),
        "memberships": inline_serializer(
            "MyMembership",
            {
                "evaluation": serializers.IntegerField(),
                "evaluation_name": serializers.CharField(),
                "role": serializers.CharField(),
            },
            many=True,
        ),
    },
)


class MeView(ApiView):
    """The signed-in user and the evaluations they belong to, with their role in each."""

    pagination_class = None

    @extend_schema(responses=MeSerializer)
    def get(self, request):
        user = request.user
        memberships = [
            {"evaluation": e.pk, "evaluation_name": e.name, "role": e.my_memberships[0].role}
            for e in selectors.evaluation_list(user=user)
        ]
        return Response(
            {
                "id": user.pk,
                "username": user.get_username(),
                "full_name": user.get_full_name(),
                "is_staff": user.is_staff,
                "can_edit_catalogue": is_catalogue_editor(user),
                "memberships": memberships,
            }
        )


class CatalogueView(ApiView):
    permission_classes = [CatalogueEditorOrReadOnly]


class CatalogueList(mixins.ListModelMixin, mixins.CreateModelMixin, CatalogueView):
    """GET lists, POST creates (catalogue editors)."""

    def get(self, request, *args, **kwargs):
        return self.list(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        return self.create(request, *args, **kwargs)


class CatalogueDetail(
    mixins.RetrieveModelMixin, mixins.UpdateModelMixin, mixins.DestroyModelMixin, CatalogueView
):
    """GET, PUT/PATCH and DELETE of one catalogue row; a row still in use is a 409."""

    def get(self, request, *args, **kwargs):
        return self.retrieve(request, *args, **kwargs)

    def put(self, request, *args, **kwargs):
        return self.update(request, *args, **kwargs)

    def patch(self, request, *args, **kwargs):
        return self.partial_update(request, *args, **kwargs)

    def delete(self, request, *args, **kwargs):
        return self.destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        try:
            self.remove(instance)
        except CatalogueRowInUse as exc:
            raise Conflict(str(exc)) from None

    def remove(self, instance) -> None:
        raise NotImplementedError


class VendorList(CatalogueList):
    """Vendors (filter: name, mlps_level, xinchuang, iso27001). POST: catalogue editors
    (staff or the catalogue role)."""

    serializer_class = VendorSerializer
    queryset = Vendor.objects.order_by("name")
    filterset_class = VendorFilter


class VendorDetail(CatalogueDetail):
    """One vendor. PUT/PATCH: catalogue editors; its offerings get a new version.
    DELETE: catalogue editors, only once the vendor has no offerings (else 409)."""

    serializer_class = VendorSerializer
    queryset = Vendor.objects.all()

    def remove(self, instance) -> None:
        vendor_delete(vendor=instance, by=self.request.user)


class OfferingList(CatalogueList):
    """Offerings with their list prices (filter: vendor, delivery_form, gpu_model, fabric,
    gpu_form_factor, region). POST: catalogue editors (staff or the catalogue role)."""

    serializer_class = OfferingSerializer
    queryset = Offering.objects.select_related("vendor").prefetch_related("prices")
    filterset_class = OfferingFilter


class OfferingDetail(CatalogueDetail):
    """One offering. PUT/PATCH: catalogue editors; a new version (candidates keep theirs).
    DELETE: catalogue editors, with its list prices, only while no evaluation has it as a
    candidate (else 409: remove the candidacies first)."""

    serializer_class = OfferingSerializer
    queryset = Offering.objects.select_related("vendor").prefetch_related("prices")

    def remove(self, instance) -> None:
        offering_delete(offering=instance, by=self.request.user)


class OfferingPriceMixin:
    serializer_class = OfferingPriceSerializer

    def get_offering(self) -> Offering:
        if not hasattr(self, "_offering"):
            self._offering = get_object_or_404(Offering, pk=self.kwargs["offering_pk"])
        return self._offering

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return OfferingPrice.objects.none()
        return OfferingPrice.objects.filter(offering=self.get_offering()).order_by("billing_model")


class OfferingPriceList(OfferingPriceMixin, CatalogueList):
    """The list prices of one offering, one per billing model. POST: catalogue editors
    (staff or the catalogue role)."""

    def perform_create(self, serializer):
        serializer.save(offering=self.get_offering())


class OfferingPriceDetail(OfferingPriceMixin, CatalogueDetail):
    """One list price. PUT/PATCH/DELETE: catalogue editors; a new version of the offering."""

    lookup_url_kwarg = "price_pk"

    def remove(self, instance) -> None:
        offering_price_delete(price=instance, by=self.request.user)


class ChecklistList(mixins.ListModelMixin, ApiView):
    """The ten-point checklist every candidate answers, in English and Chinese."""

    serializer_class = ChecklistItemSerializer
    queryset = ChecklistItem.objects.order_by("number")
    pagination_class = None

    def get(self, request, *args, **kwargs):
        return self.list(request, *args, **kwargs)
