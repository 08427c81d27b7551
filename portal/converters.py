"""URL converters: a row id is at most 18 digits, so that every id in a URL fits a bigint (and
SQLite's integer); a longer one matches no route and is a plain 404."""

from django.urls import register_converter


class RowIdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(value)


register_converter(RowIdConverter, "id")
