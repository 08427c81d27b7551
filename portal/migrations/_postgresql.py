"""A helper the migrations share (the loader skips modules whose name starts with "_")."""


def postgresql_only(statements):
    """A RunPython function that executes ``statements`` on PostgreSQL and does nothing on
    SQLite (the embedded mode), where the same guarantee is kept by the model field alone."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run
