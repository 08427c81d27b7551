"""Who may call what: membership of the evaluation in the URL (else 404), then the member's role
for the HTTP method (else 403); the vendor catalogue is read by everyone, edited by procurement."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions, permissions

from .. import selectors
from ..models import Membership, Role
from ..services.catalogue import is_catalogue_editor

READ_METHODS = ("GET", "HEAD", "OPTIONS")


def can_create_evaluation(user) -> bool:
    """Staff, catalogue editors, or procurement in at least one evaluation."""
    if not (user and user.is_authenticated):
        return False
    return (
        is_catalogue_editor(user)
        or Membership.objects.filter(user=user, role=Role.PROCUREMENT).exists()
    )


def _offered(request, view) -> bool:
    # A method the view does not offer is answered 405 by the view itself, after authorisation.
    return request.method in view.allowed_methods


class EvaluationMember(permissions.BasePermission):
    """The user must belong to the evaluation named by ``evaluation_pk`` in the URL.

    Non-members get 404, exactly as for an evaluation that does not exist, so ids leak nothing.
    Members get 403 when their role is not in ``view.roles[method]`` (HEAD and OPTIONS follow
    GET). The evaluation and membership are left on the view for the handlers.
    """

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        evaluation, membership = selectors.evaluation_get(
            user=request.user, pk=view.kwargs["evaluation_pk"]
        )
        view.evaluation, view.membership = evaluation, membership
        if not _offered(request, view):
            return True
        method = "GET" if request.method in READ_METHODS else request.method
        allowed = view.roles.get(method, frozenset())
        if membership.role not in allowed:
            raise exceptions.PermissionDenied(
                _("Your role in this evaluation (%(role)s) does not allow this action.")
                % {"role": membership.get_role_display()}
            )
        return True


class _SignedInReadsWritesIf(permissions.BasePermission):
    """Any signed-in user reads (or meets a 405 for a method the view lacks); a write needs
    ``allows(user)``, else a 403 saying who may."""

    message = None
    denied = ""

    def allows(self, user) -> bool:
        raise NotImplementedError

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method in READ_METHODS or not _offered(request, view):
            return True
        if self.allows(request.user):
            return True
        raise exceptions.PermissionDenied(str(self.denied))


class CatalogueEditorOrReadOnly(_SignedInReadsWritesIf):
    """Writing needs staff or the catalogue role (membership of an evaluation gives no power
    over the catalogue other evaluations share)."""

    denied = gettext_lazy(
        "Only staff and holders of the catalogue role may edit the vendor catalogue."
    )

    def allows(self, user) -> bool:
        return is_catalogue_editor(user)


class EvaluationCreatorOrReadOnly(_SignedInReadsWritesIf):
    """Creating an evaluation needs staff, the catalogue role or procurement in some
    evaluation."""

    denied = gettext_lazy(
        "Only procurement members (of any evaluation) and staff may create evaluations."
    )

    def allows(self, user) -> bool:
        return can_create_evaluation(user)
