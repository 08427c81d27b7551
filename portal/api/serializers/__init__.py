"""Serializers of the REST API: inputs (strict: unknown fields are 400) and outputs."""
