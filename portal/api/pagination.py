"""Pagination of the API's lists.

Small lists (the catalogue, evaluations, members, candidates) use page numbers:
``?page=2&page_size=100`` (at most 200 a page), with a ``count``.

Lists that grow with the evidence (uploads, measurements, scores, upload tokens) use keyset
(cursor) pagination: ``?page_size=100`` and then the opaque ``next``/``previous`` links. A page
is an index range read from the cursor's position: no COUNT over the evaluation and no OFFSET,
so the last page costs what the first does whatever the evidence's size.
"""

import re

from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination, PageNumberPagination

# A cursor's position is a primary key: a bigint written in decimal digits.
PK_POSITION = re.compile(r"[0-9]{1,19}")
BIGINT_MAX = 2**63 - 1


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class KeysetPagination(CursorPagination):
    """Cursor pagination on the primary key (unique, so no offsets within a position)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "pk"

    def decode_cursor(self, request):
        """DRF's decoding, and a position that is a primary key: DRF checks the offset and the
        direction only, so ``p=abc`` or ``p=1e5`` reached the query and failed there (a 500)."""
        cursor = super().decode_cursor(request)
        if cursor is None or cursor.position is None:
            return cursor
        position = cursor.position
        if not PK_POSITION.fullmatch(position) or int(position) > BIGINT_MAX:
            raise NotFound(self.invalid_cursor_message)
        return cursor


class NewestFirstPagination(KeysetPagination):
    """Newest rows first: by descending primary key, which follows the creation order."""

    ordering = "-pk"
