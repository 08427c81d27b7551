"""Serializer building blocks: refuse unknown fields, validate models fully, record who wrote."""

from collections.abc import Mapping

from django.utils.translation import gettext as _
from rest_framework import serializers


def _accepted(serializer: serializers.Serializer) -> list[str]:
    return sorted(name for name, field in serializer.fields.items() if not field.read_only)


class StrictMixin:
    """A body field the serializer does not accept is an error (400), never silently ignored:
    a typo, or an attempt to set an id the URL decides (``evaluation``), must be noticed."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            accepted = _accepted(self)
            errors = {}
            for key in data:
                field = self.fields.get(key)
                if field is not None and not field.read_only:
                    continue
                if field is not None:
                    errors[key] = [_("This field is read-only.")]
                else:
                    errors[key] = [
                        _("Unknown field. Accepted fields: %(fields)s.")
                        % {"fields": ", ".join(accepted) or "-"}
                    ]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


class StrictSerializer(StrictMixin, serializers.Serializer):
    pass


def request_user(serializer: serializers.BaseSerializer):
    request = serializer.context.get("request")
    return getattr(request, "user", None)


class CleanModelSerializer(StrictMixin, serializers.ModelSerializer):
    """Saves through the model's service (``save_service(instance, by)``, from
    portal.services), which validates with ``full_clean`` (model checks and constraints as
    400s, not 500s), records the request's user and does what the write implies (a new
    offering version...): the API never writes beside the services."""

    save_service = None  # a staticmethod (instance, by) -> instance

    def _save(self, instance):
        if self.save_service is None:
            raise NotImplementedError(f"{type(self).__name__} needs a save_service")
        return type(self).save_service(instance, request_user(self))

    def create(self, validated_data):
        return self._save(self.Meta.model(**validated_data))

    def update(self, instance, validated_data):
        for name, value in validated_data.items():
            setattr(instance, name, value)
        return self._save(instance)


def safe_text(value: str) -> str:
    """Text that PostgreSQL can store: no U+0000 and no lone surrogates (as DRF's CharField)."""
    if "\x00" in value:
        raise serializers.ValidationError(_("Null characters are not allowed."))
    if any(0xD800 <= ord(char) <= 0xDFFF for char in value):
        raise serializers.ValidationError(_("Surrogate characters are not allowed."))
    return value
