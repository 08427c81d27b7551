"""How a person is named wherever an auditor reads who did something: one form everywhere."""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext


def person_name(first_name: str, last_name: str, username: str) -> str:
    """ "Morgan Manager (manager)" (full-width brackets in Chinese); the username alone where
    no full name is set."""
    full = f"{first_name or ''} {last_name or ''}".strip()
    if not full:
        return username
    return f"{full}{pgettext('parenthetical', ' (')}{username}{pgettext('parenthesis', ')')}"


def person_shown(user: Any) -> str:
    """``user`` named as ``person_name`` names them; "" for no user (the system)."""
    if user is None:
        return ""
    return person_name(
        getattr(user, "first_name", ""), getattr(user, "last_name", ""), user.get_username()
    )
