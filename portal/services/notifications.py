"""E-mail notifications: an import failed, a POC deadline is two days away, a decision was
recorded, a catalogue change affects an open evaluation. Each user may switch any of them off
(NotificationPreference, the profile page). Mail is sent after the transaction commits and a
mail server that refuses is logged, never allowed to undo the change it reports."""

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import DatabaseError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import evidence_messages
from ..models import Candidate, Membership, NotificationPreference, Role
from ..people import person_shown

logger = logging.getLogger(__name__)

EVENTS = ("import_failed", "poc_deadline", "decision_recorded", "catalogue_changed")


def notification_preferences_get(*, user) -> NotificationPreference:
    return NotificationPreference.objects.filter(user=user).first() or NotificationPreference(
        user=user
    )


def email_languages() -> list[str]:
    """The languages a notification can be written in (settings.LANGUAGES)."""
    return [code for code, _name in settings.LANGUAGES]


@transaction.atomic
def notification_preferences_set(
    *, user, choices: dict[str, bool], language: str | None = None
) -> NotificationPreference:
    """Switch events on or off and, when ``language`` is given, choose the e-mails' language
    ("" for the site's); an unknown event or language raises ``ValidationError``."""
    unknown = set(choices) - set(EVENTS)
    if unknown:
        raise ValueError(f"unknown notification events: {sorted(unknown)}")
    if language is not None and language and language not in email_languages():
        raise ValidationError({"language": _("Choose one of the portal's languages.")})
    preference, _created = NotificationPreference.objects.get_or_create(user=user)
    for event, on in choices.items():
        setattr(preference, event, bool(on))
    if language is not None:
        preference.language = language
    preference.save()
    return preference


def _recipients(users: Iterable, event: str) -> list[tuple[object, str]]:
    """(user, language of their e-mails) of each user who receives ``event``."""
    users = [u for u in users if u is not None and u.is_active and u.email]
    saved = {
        user_id: (on, language)
        for user_id, on, language in NotificationPreference.objects.filter(
            user__in=[u.pk for u in users]
        ).values_list("user_id", event, "language")
    }
    known = set(email_languages())
    found = []
    for user in users:
        on, language = saved.get(user.pk, (True, ""))
        if on:
            found.append((user, language if language in known else settings.LANGUAGE_CODE))
    return found


def _absolute(path: str) -> str:
    return settings.PORTAL_BASE_URL.rstrip("/") + path


def _send(event: str, users: Iterable, subject_body, *, gate=None) -> int:
    """Send one mail per recipient, in the language each chose on the profile page (the
    site's by default; ``subject_body()`` is called once under each language), after the
    current transaction commits. ``gate()``, when given, is asked then, and nothing is sent
    when it answers False (a throttle, so a rolled-back change never uses it up). Returns the
    number of recipients queued."""
    recipients = _recipients(users, event)
    if not recipients:
        return 0
    texts = {}
    for language in dict.fromkeys(language for _user, language in recipients):
        with translation.override(language):
            texts[language] = subject_body()

    def deliver():
        if gate is not None and not gate():
            logger.info("notification %s throttled for %d recipients", event, len(recipients))
            return
        for user, language in recipients:
            subject, body = texts[language]
            try:
                send_mail(
                    subject, body, settings.DEFAULT_FROM_EMAIL, [user.email], fail_silently=False
                )
            except Exception:  # a refused mail never undoes what it reports
                logger.exception("notification %s to user %s not sent", event, user.pk)

    transaction.on_commit(deliver)
    return len(recipients)


def _members(evaluation, roles=None) -> list:
    qs = Membership.objects.filter(evaluation=evaluation).select_related("user")
    if roles:
        qs = qs.filter(role__in=roles)
    return [m.user for m in qs]


def _first_failure_in_interval(candidate_id: int) -> bool:
    """Whether no failed import of the candidate was mailed in the last
    IMPORT_FAILED_MAIL_INTERVAL_S seconds, marking it mailed now if so: one conditional
    UPDATE, so two workers failing at once send one mail. A database error errs towards
    mailing."""
    interval = settings.IMPORT_FAILED_MAIL_INTERVAL_S
    if interval <= 0:
        return True
    now = timezone.now()
    due = Q(import_failure_mailed_at__isnull=True) | Q(
        import_failure_mailed_at__lte=now - timedelta(seconds=interval)
    )
    try:
        return bool(
            Candidate.objects.filter(due, pk=candidate_id).update(import_failure_mailed_at=now)
        )
    except DatabaseError:
        logger.exception("import-failure mail throttle unavailable for candidate %s", candidate_id)
        return True


def notify_import_failed(*, upload) -> int:
    """An evidence import failed: tell the uploader and the evaluation's procurement members,
    at most once per IMPORT_FAILED_MAIL_INTERVAL_S for a candidate (the mail says so; the
    uploads page lists every failure)."""
    candidate = upload.candidate
    evaluation = candidate.evaluation
    users = {u.pk: u for u in _members(evaluation, [Role.PROCUREMENT])}
    if upload.uploaded_by_id:
        users.setdefault(upload.uploaded_by_id, upload.uploaded_by)
    minutes = max(1, round(settings.IMPORT_FAILED_MAIL_INTERVAL_S / 60))

    def text():
        url = _absolute(reverse("candidate-uploads", args=[evaluation.pk, candidate.pk]))
        body = _(
            "The evidence file %(file)s for %(candidate)s in %(evaluation)s could not be "
            "imported.\n\nReason: %(error)s\n\nSee %(url)s"
        ) % {
            "file": upload.original_name,
            "candidate": candidate,
            "evaluation": evaluation.name,
            "error": evidence_messages.upload_error(
                code=upload.error_code, params=upload.error_params, text=upload.error
            ),
            "url": url,
        }
        if settings.IMPORT_FAILED_MAIL_INTERVAL_S > 0:
            body += "\n\n" + ngettext(
                "Further failed imports of this candidate in the next minute are not mailed "
                "one by one: the uploads page lists every one.",
                "Further failed imports of this candidate in the next %(minutes)d minutes are "
                "not mailed one by one: the uploads page lists every one.",
                minutes,
            ) % {"minutes": minutes}
        return _("Evidence import failed: %(file)s") % {"file": upload.original_name}, body

    return _send(
        "import_failed",
        users.values(),
        text,
        gate=lambda: _first_failure_in_interval(candidate.pk),
    )


def notify_imports_failed(*, uploads) -> int:
    """The hook the import calls with the uploads it wrote: each failed one is reported."""
    return sum(notify_import_failed(upload=u) for u in uploads if u.status == "failed")


def notify_poc_deadline(*, evaluation, candidate, deadline) -> int:
    """A POC deadline is two days away (called by the POC plan's daily check)."""

    def text():
        return (
            _("POC deadline in 2 days: %(candidate)s") % {"candidate": candidate},
            _(
                "The POC of %(candidate)s in %(evaluation)s ends on %(deadline)s. Upload the "
                "remaining evidence before then.\n\n%(url)s"
            )
            % {
                "candidate": candidate,
                "evaluation": evaluation.name,
                "deadline": deadline,
                "url": _absolute(reverse("candidate-detail", args=[evaluation.pk, candidate.pk])),
            },
        )

    return _send("poc_deadline", _members(evaluation, [Role.PROCUREMENT, Role.ENGINEER]), text)


def notify_decision_recorded(*, record) -> int:
    """A decision was recorded: tell every member of the evaluation."""
    evaluation = record.evaluation

    def text():
        return (
            _("Decision recorded: %(evaluation)s") % {"evaluation": evaluation.name},
            _(
                "%(who)s chose %(candidate)s for %(evaluation)s.\n\nRationale: %(rationale)s"
                "\n\nReport: %(url)s"
            )
            % {
                "who": person_shown(record.decided_by),
                "candidate": record.candidate,
                "evaluation": evaluation.name,
                "rationale": record.rationale,
                "url": _absolute(reverse("evaluation-report", args=[evaluation.pk])),
            },
        )

    return _send("decision_recorded", _members(evaluation), text)


def notify_catalogue_changed(*, offering) -> int:
    """An offering changed in the catalogue: tell the procurement members of every open
    evaluation with a candidate on it (they decide whether to adopt the new version)."""
    from ..models import Candidate, EvaluationStatus, OfferingVersion

    latest = (
        OfferingVersion.objects.filter(offering=offering).order_by("-number").values("pk").first()
    )
    # Affected: open evaluations whose candidate is scored on an older version.
    candidates = (
        Candidate.objects.filter(offering=offering)
        .exclude(evaluation__status=EvaluationStatus.DECIDED)
        .exclude(offering_version_id=latest["pk"] if latest else None)
        .select_related("evaluation", "offering__vendor")
    )
    sent = 0
    for candidate in candidates:
        evaluation = candidate.evaluation

        def text(candidate=candidate, evaluation=evaluation):
            return (
                _("Catalogue change affects %(evaluation)s") % {"evaluation": evaluation.name},
                _(
                    "The catalogue entry of %(offering)s changed. %(candidate)s in %(evaluation)s "
                    "is still scored on the version it pinned: adopt or keep it.\n\n%(url)s"
                )
                % {
                    "offering": offering,
                    "candidate": candidate,
                    "evaluation": evaluation.name,
                    "url": _absolute(
                        reverse("candidate-detail", args=[evaluation.pk, candidate.pk])
                    ),
                },
            )

        sent += _send("catalogue_changed", _members(evaluation, [Role.PROCUREMENT]), text)
    return sent
