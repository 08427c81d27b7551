"""Page-number pagination for every list: ``?page=2&page_size=100`` (at most 200 a page)."""

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
