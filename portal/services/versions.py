"""Versions of what a writer loaded: a short digest that a page form or an API client sends
back with its save, so that a save over someone else's newer save is refused."""

import hashlib
import json


def values_version(values) -> str:
    """A digest of any JSON-able values (Decimals and dates as text): the same values give the
    same version, on a page and in the service that compares it under the row's lock."""
    text = json.dumps(values, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]
