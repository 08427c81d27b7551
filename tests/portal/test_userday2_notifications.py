"""E-mail notifications delivered to a real SMTP server on loopback (aiosmtpd): a failed import,
a recorded decision, a catalogue change affecting an open evaluation, the POC-deadline hook;
each can be switched off on the profile page."""

import email
import email.header
import socket
from decimal import Decimal

import pytest
from aiosmtpd.controller import Controller
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse

from portal.models import NotificationPreference, OfferingPrice
from portal.services import notifications

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


class _Inbox:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content)
        body = message.get_payload(decode=True).decode("utf-8")
        self.messages.append((list(envelope.rcpt_tos), str(message["Subject"]), body))
        return "250 OK"

    def to(self, address):
        return [m for m in self.messages if address in m[0]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp(settings):
    inbox = _Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.LANGUAGE_CODE = "en"
    yield inbox
    controller.stop()


@pytest.fixture
def people(members):
    for name, user in members.items():
        user.email = f"{name}@example.test"
        user.save(update_fields=["email"])
    return members


def test_a_recorded_decision_mails_every_member_except_who_opted_out(
    smtp, people, evaluation, candidate
):
    NotificationPreference.objects.create(user=people["viewer"], decision_recorded=False)
    from portal.services.evaluations import decision_record

    OfferingPrice.objects.create(
        offering=candidate.offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    decision_record(
        evaluation=evaluation,
        candidate=candidate,
        rationale="Fastest fabric.",
        by=people["manager"],
    )
    assert smtp.to("manager@example.test") and smtp.to("procurement@example.test")
    assert not smtp.to("viewer@example.test")
    assert not smtp.to("outsider@example.test")
    _rcpt, subject, body = smtp.to("engineer@example.test")[0]
    assert evaluation.name in subject and "Fastest fabric." in body and "/report/" in body


def test_a_failed_import_mails_the_uploader_and_procurement(
    smtp, people, candidate, client, monkeypatch
):
    from portal.celery import app

    # The import runs in this process, which mails this test's SMTP server: a worker left
    # running by an earlier test of the run would take it from the queue and mail elsewhere.
    monkeypatch.setitem(app.conf, "task_always_eager", True)
    client.force_login(people["engineer"])
    response = client.post(
        "/api/v1/evidence/",
        {
            "file": SimpleUploadedFile("junk.txt", b"this is not evidence at all\n" * 10),
            "candidate": candidate.pk,
        },
    )
    assert response.status_code == 202, response.content
    upload = candidate.uploads.get()
    assert upload.status == "failed"
    assert smtp.to("engineer@example.test") and smtp.to("procurement@example.test")
    _rcpt, subject, body = smtp.to("procurement@example.test")[0]
    assert "junk.txt" in subject and upload.error[:40] in body


def _post_junk(client, candidate, name):
    response = client.post(
        "/api/v1/evidence/",
        {"file": SimpleUploadedFile(name, name.encode() * 40), "candidate": candidate.pk},
    )
    assert response.status_code == 202, response.content


def test_failing_uploads_in_a_loop_mail_once_per_interval(
    smtp, people, candidate, client, monkeypatch, settings
):
    # attack review (stop 34): a token holder sending failing uploads in a loop mailed every
    # procurement member once per upload, up to the upload throttle's 60 a minute.
    from portal.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)
    settings.IMPORT_FAILED_MAIL_INTERVAL_S = 900
    client.force_login(people["engineer"])
    for number in range(3):
        _post_junk(client, candidate, f"junk-{number}.txt")
    assert candidate.uploads.filter(status="failed").count() == 3
    mailed = smtp.to("procurement@example.test")
    assert [subject for _rcpt, subject, _body in mailed] == ["Evidence import failed: junk-0.txt"]
    assert "next 15 minutes are not mailed one by one" in mailed[0][2]
    assert len(smtp.to("engineer@example.test")) == 1
    # Once the interval has passed, the next failure is mailed again.
    candidate.refresh_from_db()
    assert candidate.import_failure_mailed_at is not None
    type(candidate).objects.filter(pk=candidate.pk).update(import_failure_mailed_at=None)
    _post_junk(client, candidate, "junk-3.txt")
    assert len(smtp.to("procurement@example.test")) == 2
    # With the interval at 0, every failure is mailed, without the sentence.
    settings.IMPORT_FAILED_MAIL_INTERVAL_S = 0
    _post_junk(client, candidate, "junk-4.txt")
    _post_junk(client, candidate, "junk-5.txt")
    mailed = smtp.to("procurement@example.test")
    assert len(mailed) == 4
    assert "not mailed one by one" not in mailed[-1][2]


def test_a_catalogue_change_mails_procurement_of_open_evaluations(
    smtp, people, candidate, offering
):
    from portal.models import OfferingVersion
    from portal.services.catalogue import offering_save

    candidate.offering_version = OfferingVersion.current(offering)
    candidate.save()
    offering.gpu_memory_gib = 141
    offering_save(offering=offering, by=people["procurement"])
    assert smtp.to("procurement@example.test")
    assert not smtp.to("viewer@example.test")
    _rcpt, subject, _body = smtp.to("procurement@example.test")[0]
    assert candidate.evaluation.name in subject


def test_the_poc_deadline_hook_and_the_opt_out_page(smtp, people, candidate, client):
    client.login(username="engineer", password=PASSWORD)
    page = client.get(reverse("notification-settings"))
    assert page.status_code == 200 and "engineer@example.test" in page.content.decode()
    client.post(
        reverse("notification-settings"),
        {"import_failed": "on", "decision_recorded": "on", "catalogue_changed": "on"},
    )
    assert NotificationPreference.objects.get(user=people["engineer"]).poc_deadline is False
    with transaction.atomic():
        sent = notifications.notify_poc_deadline(
            evaluation=candidate.evaluation, candidate=candidate, deadline="2026-12-03"
        )
    assert sent == 1  # procurement only: the engineer opted out
    assert smtp.to("procurement@example.test") and not smtp.to("engineer@example.test")
    assert "2026-12-03" in smtp.to("procurement@example.test")[0][2]


def test_a_refusing_mail_server_does_not_undo_the_decision(settings, people, evaluation, candidate):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", _free_port(), 2
    from portal.services.evaluations import decision_record

    record = decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Fine.", by=people["manager"]
    )
    assert record.pk and evaluation.decisions.count() == 1


def test_a_poc_deadline_two_days_away_is_reminded_once_per_deadline(
    smtp, people, evaluation, candidate, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from portal.services.poc import poc_deadline_reminders_send, poc_plan_save

    now = timezone.now()
    far = poc_plan_save(
        evaluation=evaluation, by=people["procurement"], deadline=now + timedelta(days=5)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert poc_deadline_reminders_send(now=now) == 0  # five days away: not yet
    poc_plan_save(evaluation=evaluation, by=people["procurement"], deadline=now + timedelta(days=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert poc_deadline_reminders_send(now=now) == 1  # nothing uploaded: one candidate due
        assert poc_deadline_reminders_send(now=now) == 0  # once per deadline
    assert smtp.to("procurement@example.test") and smtp.to("engineer@example.test")
    assert not smtp.to("viewer@example.test")
    far.refresh_from_db()
    assert far.reminded_for == far.deadline
    # A moved deadline is reminded again.
    poc_plan_save(
        evaluation=evaluation, by=people["procurement"], deadline=now + timedelta(hours=30)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert poc_deadline_reminders_send(now=now) == 1


def test_each_member_is_mailed_in_the_language_they_chose(smtp, people, candidate, client):
    client.login(username="engineer", password=PASSWORD)
    # Never saved: the page offers the language it is read in.
    page = client.get(reverse("notification-settings"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert '<option value="zh-hans" selected>' in page.content.decode()
    everything = {e: "on" for e in notifications.EVENTS}
    refused = client.post(reverse("notification-settings"), {**everything, "language": "xx"})
    assert refused.status_code == 422
    assert not NotificationPreference.objects.filter(user=people["engineer"]).exists()
    saved = client.post(reverse("notification-settings"), {**everything, "language": "zh-hans"})
    assert saved.status_code == 302
    assert NotificationPreference.objects.get(user=people["engineer"]).language == "zh-hans"
    with transaction.atomic():
        sent = notifications.notify_poc_deadline(
            evaluation=candidate.evaluation, candidate=candidate, deadline="2026-12-03"
        )
    assert sent == 2
    _rcpt, chinese_subject, chinese_body = smtp.to("engineer@example.test")[0]
    _rcpt, english_subject, english_body = smtp.to("procurement@example.test")[0]
    chinese_subject, english_subject = (
        str(email.header.make_header(email.header.decode_header(subject))).strip()
        for subject in (chinese_subject, english_subject)
    )
    assert chinese_subject.startswith("POC 两天后截止") and "2026-12-03" in chinese_body
    assert english_subject.startswith("POC deadline in 2 days") and "Upload the" in english_body
    with pytest.raises(ValidationError):
        notifications.notification_preferences_set(
            user=people["engineer"], choices={}, language="klingon"
        )
