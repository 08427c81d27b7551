"""Tests of the REST API under /api/v1/, the schema, the audit trail and the rate limits."""
