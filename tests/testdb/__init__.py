"""A test-only app: the test database's own ``flush`` (management/commands/flush.py) and the
helpers it shares with the demo's copy (tests/demo_snapshot.py)."""


def tables_with_rows(cursor, tables) -> list[str]:
    """The tables holding at least one row (one query)."""
    if not tables:
        return []
    quote = cursor.db.ops.quote_name
    probes = [f"SELECT %s::text WHERE EXISTS (SELECT 1 FROM {quote(t)})" for t in tables]  # noqa: S608
    cursor.execute(" UNION ALL ".join(probes), list(tables))
    return [row[0] for row in cursor.fetchall()]
