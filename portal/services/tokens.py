"""Upload tokens: created by procurement, shown once, stored hashed, expiring and revocable."""

import secrets
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..audit_values import when_shown
from ..models import Candidate, EvaluationStatus, UploadToken, hash_token
from .errors import ensure_not_decided
from .text import clean_text

MAX_TOKEN_LIFETIME = timedelta(days=90)
# How stale a token's "last used" time may get (pages show it to the minute).
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(Exception):
    """The bearer token is unknown, expired or revoked; the message says which."""


@transaction.atomic
def upload_token_create(
    *,
    candidate: Candidate,
    created_by,
    expires_in: timedelta = timedelta(days=7),
    node_name: str = "",
    label: str = "",
) -> tuple[UploadToken, str]:
    """Create a token for one candidate; returns the row and the raw token (never stored)."""
    ensure_not_decided(candidate.evaluation)
    if expires_in <= timedelta(0):
        raise ValidationError({"expires_in": _("The expiry must be in the future.")})
    if expires_in > MAX_TOKEN_LIFETIME:
        raise ValidationError(
            {"expires_in": _("Upload tokens live at most %(days)s days.") % {"days": 90}}
        )
    raw = UploadToken.generate()
    token = UploadToken.objects.create(
        evaluation=candidate.evaluation,
        candidate=candidate,
        node_name=clean_text(node_name).strip(),
        label=clean_text(label).strip(),
        token_hash=hash_token(raw),
        token_prefix=raw[:10],
        nonce=secrets.token_hex(16),
        created_by=created_by,
        expires_at=timezone.now() + expires_in,
    )
    return token, raw


@transaction.atomic
def upload_token_revoke(*, token: UploadToken, by=None) -> UploadToken:
    """Revoke a token at once; idempotent (the first revocation time is kept) and audited."""
    changed = UploadToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    token.refresh_from_db()
    if changed:
        # .update() writes no history row by itself.
        UploadToken.history.bulk_history_create([token], update=True, default_user=by)
    return token


def upload_token_authenticate(raw: str) -> UploadToken:
    """The usable token matching ``raw``, or TokenError saying why it cannot be used."""
    # token_hash is unique: no ordering needed. Only what an upload reads is joined (the
    # candidate and its evaluation); this runs on every upload, so every column counts. The
    # candidate's stored verification and knockouts (JSON that grows with its evidence) are
    # never read here: decoding them was most of an upload's authentication.
    found = list(
        UploadToken.objects.select_related("candidate", "evaluation")
        .defer("candidate__verification", "candidate__knockouts", "evaluation__ahp_matrix")
        .filter(token_hash=hash_token(raw))
        .order_by()[:1]
    )
    token = found[0] if found else None
    if token is None:
        raise TokenError(_("Unknown upload token."))
    if token.revoked_at is not None and token.evaluation.status == EvaluationStatus.DECIDED:
        # Said to the engineer at the node (the collector prints it): a bare "revoked" after a
        # decision read as a broken token, and a new token would be refused too.
        raise TokenError(
            _(
                "This upload token has been revoked: the evaluation is decided and takes no "
                "more evidence. To add evidence, a manager reopens the evaluation and "
                "procurement issues a new token."
            )
        )
    if token.revoked_at is not None:
        raise TokenError(_("This upload token has been revoked."))
    now = timezone.now()
    if token.expires_at <= now:
        # Worded as the pages word times (the collector prints it to the engineer).
        raise TokenError(
            _("This upload token expired on %(when)s.") % {"when": when_shown(token.expires_at)}
        )
    # "Last used" is shown to the minute: a collector uploading node after node writes it
    # once a minute, not once per upload.
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        UploadToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
