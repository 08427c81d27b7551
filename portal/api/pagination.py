"""Pagination of the API's lists.

Small lists (the catalogue, evaluations, members, candidates) use page numbers:
``?page=2&page_size=100`` (at most 200 a page), with a ``count``.

Lists that grow with the evidence (uploads, measurements, scores, upload tokens) use keyset
(cursor) pagination: ``?page_size=100`` and then the opaque ``next``/``previous`` links. A page
is an index range read from the cursor's position: no COUNT over the evaluation and no OFFSET,
so the last page costs what the first does whatever the evidence's size.
"""

from rest_framework.pagination import CursorPagination, PageNumberPagination


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


class NewestFirstPagination(KeysetPagination):
    """Newest rows first: by descending primary key, which follows the creation order."""

    ordering = "-pk"
