"""The audit trail of one evaluation: who changed what, when, from what to what.

Rows come from django-simple-history (every save and delete of the audited models writes one,
through services, the admin or the API; an evidence import, which writes with update(), adds
its uploads' outcome rows itself) plus the recorded decision. Each row is compared with
the previous row of the same object to give before/after values per field. Nothing here writes:
history rows are only ever read, and no page or endpoint offers to change them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .audit_values import Labels as _Labels
from .audit_values import display as _display
from .audit_values import page_value as _page_value
from .audit_values import when_shown
from .models import (
    AccessChange,
    Answer,
    AnswerReview,
    Candidate,
    DecisionRecord,
    Evaluation,
    EvidenceDeletion,
    EvidenceUpload,
    Membership,
    Offering,
    OfferingPrice,
    OfferingVersion,
    PocCandidateNodes,
    PocPlan,
    UploadToken,
    Vendor,
    Workload,
)

# Fields that are bookkeeping or secret, never shown in a diff.
HIDDEN_FIELDS = frozenset(
    {
        "id",
        "created_at",
        "updated_at",
        "token_hash",
        "nonce",
        "last_used_at",
        "updated_by",
        "ahp_matrix",
        "reviewed_at",
    }
)

ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}
ACTION_LABELS = {
    "created": gettext_lazy("created"),
    "changed": gettext_lazy("changed"),
    "deleted": gettext_lazy("deleted"),
    "decided": gettext_lazy("decided"),
    "reopened": gettext_lazy("reopened"),
}
KIND_LABELS = {
    "evaluation": gettext_lazy("Evaluation (requirements and weights)"),
    "member": gettext_lazy("Member (access and role)"),
    "candidate": gettext_lazy("Candidate"),
    "answer": gettext_lazy("Answer"),
    "review": gettext_lazy("Document review"),
    "token": gettext_lazy("Upload token"),
    "upload": gettext_lazy("Evidence upload"),
    "offering": gettext_lazy("Offering"),
    "price": gettext_lazy("Price"),
    "vendor": gettext_lazy("Vendor"),
    "decision": gettext_lazy("Decision"),
    "evidence": gettext_lazy("Evidence (deletions)"),
    "poc_plan": gettext_lazy("POC plan"),
    "poc_nodes": gettext_lazy("POC nodes of a candidate"),
    "workload": gettext_lazy("Workload (portfolio demand)"),
    "access": gettext_lazy("Access of a member (staff, superuser, groups, permissions)"),
}
KINDS = tuple(KIND_LABELS)
# Fields whose models give no verbose name of their own (foreign keys and a few others).
FIELD_LABELS = {
    "created_by": gettext_lazy("created by"),
    "evaluation": gettext_lazy("evaluation"),
    "answer": gettext_lazy("answer"),
    "reviewed_by": gettext_lazy("reviewed by"),
    "user": gettext_lazy("user"),
    "offering": gettext_lazy("offering"),
    "offering_version": gettext_lazy("offering version"),
    "candidate": gettext_lazy("candidate"),
    "item": gettext_lazy("checklist item"),
    "token_prefix": gettext_lazy("token prefix"),
    "sha256": gettext_lazy("SHA-256"),
    "token": gettext_lazy("upload token"),
    "uploaded_by": gettext_lazy("uploaded by"),
    "plan": gettext_lazy("POC plan"),
}


# Longer texts (or any with a line break) are shown on the history page behind a disclosure.
LONG_TEXT = 120


@dataclass(frozen=True)
class FieldChange:
    field: str
    label: str
    before: str | None
    after: str | None
    # As the history page shows the values (money with its currency, times in the page's time
    # zone, answers by their labels); None: the same as ``before``/``after``. The API keeps
    # ``before``/``after``.
    before_text: str | None = None
    after_text: str | None = None

    @property
    def before_shown(self) -> str | None:
        return self.before if self.before_text is None else self.before_text

    @property
    def after_shown(self) -> str | None:
        return self.after if self.after_text is None else self.after_text

    @property
    def before_long(self) -> bool:
        return _is_long(self.before_shown)

    @property
    def after_long(self) -> bool:
        return _is_long(self.after_shown)


def _is_long(text: str | None) -> bool:
    return bool(text) and (len(text) > LONG_TEXT or "\n" in text)


@dataclass(frozen=True)
class AuditEntry:
    at: datetime
    user: str | None  # username; None when the system (a worker, a migration) made the change
    kind: str
    object_id: int
    object_label: str
    action: str  # created, changed, deleted, decided
    changes: tuple[FieldChange, ...]
    # The candidate the object belongs to (answers, uploads, tokens…), for the page's links.
    candidate_id: int | None = None
    # The person as every page names them: "Morgan Manager (manager)" (portal.people).
    user_name: str | None = None

    @property
    def at_shown(self) -> str:
        return when_shown(self.at)

    @property
    def kind_label(self) -> str:
        return str(KIND_LABELS[self.kind])

    @property
    def system_label(self) -> str:
        """Who made a change no signed-in person made: access changes come from the command
        line (createsuperuser, the shell) or the system; the rest from the worker, a migration."""
        return access_changed_by(None) if self.kind == "access" else _("system")

    @property
    def action_label(self) -> str:
        return str(ACTION_LABELS[self.action])

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "user": self.user,
            "user_name": self.user_name,
            "kind": self.kind,
            "kind_label": self.kind_label,
            "object_id": self.object_id,
            "object_label": self.object_label,
            "action": self.action,
            "changes": [
                {"field": c.field, "label": c.label, "before": c.before, "after": c.after}
                for c in self.changes
            ],
        }


WEIGHT_FIELDS = (
    "weight_stability",
    "weight_network",
    "weight_storage",
    "weight_security",
    "weight_cost",
    "weight_support",
)


def _weight_share(record, field: models.Field) -> str | None:
    """A weight as its percentage of the six weights of the same row: "20.0 %"."""
    if record is None or getattr(record, field.attname, None) is None:
        return None
    total = sum(Decimal(str(getattr(record, name, 0) or 0)) for name in WEIGHT_FIELDS)
    if total <= 0:
        return None
    share = Decimal(str(getattr(record, field.attname))) * 100 / total
    return f"{share.quantize(Decimal('0.1'))} %"


def _fields(historical_model) -> list[models.Field]:
    return [f for f in historical_model.tracked_fields if f.name not in HIDDEN_FIELDS]


# Shown by the API but not on the page, where an upload's outcome reads as the uploads table
# shows it: its status and its error in the reader's language (which the code and parameters
# only word), without the node fingerprint's identifier lists.
_PAGE_HIDDEN = {(EvidenceUpload, "error_code"), (EvidenceUpload, "fingerprint")}


def _page_hidden(field: models.Field, before: Any, after: Any) -> bool:
    if (field.model, field.name) in _PAGE_HIDDEN:
        return True
    if (field.model, field.name) == (EvidenceUpload, "error_params"):
        # Kept only as the node mismatch warning it may carry (page_value words it).
        return not any(isinstance(v, dict) and set(v) == {"node_mismatch"} for v in (before, after))
    return False


def _diff(record, previous, fields: Sequence[models.Field], labels: _Labels):
    changes = []
    for field in fields:
        before = getattr(previous, field.attname) if previous is not None else None
        after = getattr(record, field.attname) if record.history_type != "-" else None
        if record.history_type == "-":
            before = getattr(record, field.attname)
        if labels.page and _page_hidden(field, before, after):
            continue
        weight = field.name.startswith("weight_")
        if (before == after and not weight) or (previous is None and after in (None, "", [], {})):
            continue
        if weight:
            # One unit whatever the scale stored (percent or shares of 1): the share in percent.
            before_shown = _weight_share(previous if record.history_type != "-" else record, field)
            after_shown = None if record.history_type == "-" else _weight_share(record, field)
            if before_shown == after_shown:
                continue
            before_text = after_text = None
        else:
            before_shown = _display(field, before, labels)
            after_shown = _display(field, after, labels)
            before_text = after_text = None
            if labels.page:
                shown_record = previous if record.history_type != "-" else record
                before_text = _page_value(shown_record or record, field, before, labels)
                after_text = _page_value(record, field, after, labels)
        changes.append(
            FieldChange(
                field=field.name,
                label=str(FIELD_LABELS.get(field.name, field.verbose_name)),
                before=before_shown,
                after=after_shown,
                before_text=before_text,
                after_text=after_text,
            )
        )
    return tuple(_without_repeats(changes)) if labels.page else tuple(changes)


# A typed value the page would show exactly as the claim beside it (a choice's code is both).
_REPEATS = {"value": "claim", "value_reviewed": "claim_reviewed"}


def _without_repeats(changes: list[FieldChange]) -> list[FieldChange]:
    shown = {c.field: (c.before_shown, c.after_shown) for c in changes}
    return [
        c
        for c in changes
        if not (c.field in _REPEATS and shown.get(_REPEATS[c.field]) == shown[c.field])
    ]


def _candidate_of(kind: str, record, labels: _Labels) -> int | None:
    if kind == "candidate":
        return record.id
    if kind == "review":
        return labels.answer_places.get(record.answer_id, (None, None))[0]
    return getattr(record, "candidate_id", None)


def _entries(kind: str, records: list, labels: _Labels, label_of) -> list[AuditEntry]:
    """Audit entries of one model's history rows (any order), each diffed with its predecessor."""
    if not records:
        return []
    fields = _fields(type(records[0]))
    records.sort(key=lambda r: (r.id, r.history_date, r.history_id))
    entries = []
    previous = None
    for record in records:
        if previous is not None and previous.id != record.id:
            previous = None
        changes = _diff(record, previous, fields, labels)
        previous = record
        if record.history_type == "~" and not changes:
            continue  # a save that changed only hidden bookkeeping fields
        entries.append(
            AuditEntry(
                at=record.history_date,
                user=labels.usernames.get(record.history_user_id),
                user_name=labels.users.get(record.history_user_id),
                kind=kind,
                object_id=record.id,
                object_label=label_of(record),
                action=ACTIONS[record.history_type],
                changes=changes,
                candidate_id=_candidate_of(kind, record, labels),
            )
        )
    return entries


def evaluation_history(
    evaluation: Evaluation, *, kinds: Iterable[str] | None = None, page: bool = False
):
    """Every audited change that bears on ``evaluation``, newest first (``page``: with each
    value also worded as the history page shows it).

    Covers the evaluation itself (requirements, weights, status), its candidates (also removed
    ones), their answers, its upload tokens, the offerings, list prices and vendors of its
    candidates (shared catalogue rows: their whole history), its POC plan, its workloads, the
    decision record, and the access granted or taken away from its members (staff and
    superuser status, groups, permissions) and from their groups, in the admin or elsewhere.
    """
    wanted = set(kinds or KINDS)
    candidate_rows = list(Candidate.history.filter(evaluation_id=evaluation.pk))
    candidate_ids = {r.id for r in candidate_rows}
    offering_ids = {r.offering_id for r in candidate_rows}
    offering_rows = list(Offering.history.filter(id__in=offering_ids))
    vendor_ids = {r.vendor_id for r in offering_rows}
    # Reviews hang on answers: (candidate, item) of each answer of these candidates.
    answer_places = (
        {
            a["id"]: (a["candidate_id"], a["item_id"])
            for a in Answer.objects.filter(candidate_id__in=candidate_ids).values(
                "id", "candidate_id", "item_id"
            )
        }
        if "review" in wanted
        else {}
    )
    rows: dict[str, list] = {
        "evaluation": list(Evaluation.history.filter(id=evaluation.pk)),
        "member": list(Membership.history.filter(evaluation_id=evaluation.pk))
        if "member" in wanted
        else [],
        "candidate": candidate_rows,
        "answer": list(Answer.history.filter(candidate_id__in=candidate_ids))
        if "answer" in wanted
        else [],
        "review": list(AnswerReview.history.filter(answer_id__in=answer_places))
        if "review" in wanted
        else [],
        "token": list(UploadToken.history.filter(evaluation_id=evaluation.pk))
        if "token" in wanted
        else [],
        "upload": list(EvidenceUpload.history.filter(candidate_id__in=candidate_ids))
        if "upload" in wanted
        else [],
        "offering": offering_rows,
        "price": list(OfferingPrice.history.filter(offering_id__in=offering_ids))
        if "price" in wanted
        else [],
        "vendor": list(Vendor.history.filter(id__in=vendor_ids)) if "vendor" in wanted else [],
        "poc_plan": list(PocPlan.history.filter(evaluation_id=evaluation.pk))
        if "poc_plan" in wanted
        else [],
        "poc_nodes": list(PocCandidateNodes.history.filter(candidate_id__in=candidate_ids))
        if "poc_nodes" in wanted
        else [],
        "workload": list(Workload.history.filter(evaluation_id=evaluation.pk))
        if "workload" in wanted
        else [],
    }
    decisions = (
        list(
            DecisionRecord.objects.filter(evaluation=evaluation)
            .select_related("reopening")
            .order_by("round")
        )
        if "decision" in wanted
        else []
    )
    user_ids = {r.history_user_id for group in rows.values() for r in group}
    user_ids |= {r.user_id for r in rows["member"]}
    user_ids |= {r.created_by_id for r in rows["evaluation"] + rows["token"]}
    deletions = (
        list(EvidenceDeletion.objects.filter(candidate_id__in=candidate_ids))
        if "evidence" in wanted
        else []
    )
    user_ids |= {d.deleted_by_id for d in deletions}
    for decision in decisions:
        user_ids.add(decision.decided_by_id)
        reopening = getattr(decision, "reopening", None)
        if reopening is not None:
            user_ids.add(reopening.reopened_by_id)
    access = _access_rows(evaluation) if "access" in wanted else []
    user_ids |= {a.changed_by_id for a in access} | {a.user_id for a in access}
    labels = _Labels(page=page)
    labels.answer_places = answer_places
    labels.candidate_offerings = {r.id: r.offering_id for r in candidate_rows}
    pinned = OfferingVersion.objects.filter(
        pk__in={r.offering_version_id for r in candidate_rows} - {None}
    ).values_list("pk", "number", "facts__currency")
    for pk, number, currency in pinned:
        labels.versions[pk] = number
        labels.version_currencies[pk] = currency or ""
    labels.evaluations = {evaluation.pk: evaluation.name}
    labels.load(offering_ids=offering_ids, vendor_ids=vendor_ids, user_ids=user_ids - {None})
    labels.candidates = {
        r.id: labels.offerings.get(r.offering_id, f"#{r.id}") for r in candidate_rows
    }

    def candidate_label(record) -> str:
        return labels.candidates.get(record.candidate_id, f"#{record.candidate_id}")

    label_of = {
        "evaluation": lambda r: r.name,
        "member": lambda r: labels.users.get(r.user_id, f"#{r.user_id}"),
        "candidate": lambda r: labels.candidates.get(r.id, f"#{r.id}"),
        "answer": lambda r: f"{candidate_label(r)} · {labels.items.get(r.item_id, r.item_id)}",
        "review": lambda r: " · ".join(
            str(part)
            for part in (
                labels.candidates.get(answer_places.get(r.answer_id, (None, None))[0], "?"),
                labels.items.get(answer_places.get(r.answer_id, (None, None))[1], r.answer_id),
            )
        ),
        "token": lambda r: f"{r.token_prefix}… · {candidate_label(r)}",
        "upload": lambda r: f"{r.original_name} · {candidate_label(r)}",
        "offering": lambda r: labels.offerings.get(r.id, r.name),
        "price": lambda r: " · ".join(
            (str(labels.offerings.get(r.offering_id, r.offering_id)), r.get_billing_model_display())
        ),
        "vendor": lambda r: r.name,
        "poc_plan": lambda r: evaluation.name,
        "poc_nodes": candidate_label,
        "workload": lambda r: r.name,
    }
    entries: list[AuditEntry] = []
    for kind, records in rows.items():
        if kind in wanted:
            entries += _entries(kind, records, labels, label_of[kind])
    for deletion in deletions:
        entries.append(_deletion_entry(deletion, labels))
    for decision in decisions:
        entries.append(_decision_entry(decision, labels))
        reopening = getattr(decision, "reopening", None)
        if reopening is not None:
            entries.append(_reopening_entry(reopening, decision, labels))
    entries += _access_entries(access, labels)
    entries.sort(key=lambda e: (e.at, e.kind, e.object_id), reverse=True)
    return entries


def access_label(field: str) -> str:
    """An access field by the name the admin gives it ("staff status", "groups"…)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    if field == "members":
        return _("members")
    model = Group if field == "permissions" else get_user_model()
    return str(model._meta.get_field(field).verbose_name)


def access_value(value: Any) -> str | None:
    """A stored access value as read: yes/no, a list of names joined, nothing for an empty
    list."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or None
    return None if value is None else str(value)


def access_changed_by(change: AccessChange | None) -> str:
    """Who made an access change: the admin's user, or the command line or the system."""
    name = change.changed_by_name if change is not None else ""
    return name or _("system / command line")


def access_changes(change: AccessChange) -> tuple[FieldChange, ...]:
    return tuple(
        FieldChange(
            field=c.get("field", ""),
            label=access_label(c.get("field", "")),
            before=access_value(c.get("before")),
            after=access_value(c.get("after")),
        )
        for c in change.changes or ()
    )


def _access_rows(evaluation: Evaluation) -> list[AccessChange]:
    """The admin's changes of the access of anyone who is or was a member of ``evaluation``
    (their status, groups and permissions: catalogue editing, the admin), and of the
    permissions of the groups its members are in now. Three queries."""
    from django.contrib.auth.models import Group

    member_ids = set(
        Membership.history.filter(evaluation_id=evaluation.pk).values_list("user_id", flat=True)
    ) - {None}
    group_ids = set(
        Group.objects.filter(user__in=member_ids).values_list("pk", flat=True).distinct()
    )
    return list(
        AccessChange.objects.filter(
            models.Q(user_id__in=member_ids) | models.Q(group_id__in=group_ids)
        ).order_by("changed_at", "pk")
    )


def _access_entries(changes: list[AccessChange], labels: _Labels) -> list[AuditEntry]:
    return [
        AuditEntry(
            at=change.changed_at,
            user=change.changed_by_name or None,
            user_name=labels.users.get(change.changed_by_id) or change.changed_by_name or None,
            kind="access",
            object_id=change.user_id or change.group_id or change.pk,
            object_label=(
                labels.users.get(change.user_id) or change.subject
                if change.user_id
                else _("group %(name)s") % {"name": change.subject}
            ),
            action=change.action,
            changes=access_changes(change),
        )
        for change in changes
    ]


def _decision_entry(decision: DecisionRecord, labels: _Labels) -> AuditEntry:
    return AuditEntry(
        at=decision.decided_at,
        user=labels.usernames.get(decision.decided_by_id),
        user_name=labels.users.get(decision.decided_by_id),
        kind="decision",
        object_id=decision.pk,
        # The name recorded with the decision, not today's (a vendor renamed since).
        object_label=decision.chosen_label,
        action="decided",
        candidate_id=decision.candidate_id,
        changes=(
            # The round ties this entry to its record (the Decision page, the report, the
            # XLSX and the API name rounds), and a reopening's entry to the one it set aside.
            FieldChange(field="round", label=_("round"), before=None, after=str(decision.round)),
            FieldChange(
                field="candidate",
                label=_("chosen candidate"),
                before=None,
                after=decision.chosen_label,
            ),
            FieldChange(
                field="rationale", label=_("rationale"), before=None, after=decision.rationale
            ),
            *_decision_versions(decision),
        ),
    )


def _decision_versions(decision: DecisionRecord) -> tuple[FieldChange, ...]:
    """What produced the ranking the decision rests on, as its snapshot records it (records
    decided before these were kept show none)."""
    snapshot = decision.snapshot or {}
    shown = (
        ("rubric_version", _("rubric version")),
        ("rubric_sha256", _("rubric sha256")),
        ("model_revision", _("scoring model revision")),
        ("parser_version", _("parser version")),
    )
    return tuple(
        FieldChange(field=key, label=label, before=None, after=str(snapshot[key]))
        for key, label in shown
        if snapshot.get(key)
    )


def _reopening_entry(reopening, decision: DecisionRecord, labels: _Labels) -> AuditEntry:
    return AuditEntry(
        at=reopening.reopened_at,
        user=labels.usernames.get(reopening.reopened_by_id),
        user_name=labels.users.get(reopening.reopened_by_id),
        kind="decision",
        object_id=reopening.decision_id,
        # The decision it set aside, named as that decision's own entry names it (recorded
        # with it): a vendor renamed between the decision and the reopening renames neither.
        object_label=decision.chosen_label,
        action="reopened",
        candidate_id=decision.candidate_id,
        changes=(
            FieldChange(
                field="round", label=_("round set aside"), before=None, after=str(decision.round)
            ),
            FieldChange(field="reason", label=_("reason"), before=None, after=reopening.reason),
        ),
    )


def _deletion_entry(deletion, labels: _Labels) -> AuditEntry:
    return AuditEntry(
        at=deletion.deleted_at,
        user=labels.usernames.get(deletion.deleted_by_id),
        user_name=labels.users.get(deletion.deleted_by_id),
        kind="evidence",
        object_id=deletion.upload_id,
        object_label=f"{deletion.original_name} · "
        + labels.candidates.get(deletion.candidate_id, f"#{deletion.candidate_id}"),
        action="deleted",
        candidate_id=deletion.candidate_id,
        changes=(
            FieldChange(field="sha256", label="sha256", before=deletion.sha256, after=None),
            # Whose evidence it was: the same bytes may be an upload of each of several nodes
            # (empty on records older than that).
            *(
                (
                    FieldChange(
                        field="node_name", label=_("node"), before=deletion.node_name, after=None
                    ),
                )
                if deletion.node_name
                else ()
            ),
            FieldChange(field="reason", label=_("reason"), before=None, after=deletion.reason),
        ),
    )
