"""Role checks on top of membership: who may edit, upload, decide or only view an evaluation."""

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from .models import Membership, Role

CAN_EDIT = frozenset({Role.PROCUREMENT})
CAN_UPLOAD = frozenset({Role.ENGINEER, Role.PROCUREMENT})
CAN_DECIDE = frozenset({Role.MANAGER})
# The weights: procurement sets them up, the manager who decides weighs the dimensions (the web
# page and the API alike).
CAN_WEIGH = CAN_EDIT | CAN_DECIDE
CAN_VIEW = frozenset(Role)


def require_role(membership: Membership, allowed: frozenset[Role]) -> None:
    """Raise PermissionDenied (403) when the member's role is not among ``allowed``."""
    if membership.role not in allowed:
        raise PermissionDenied(_("Your role in this evaluation does not allow this action."))
