"""ImpactResult.run loses its own index: every other index of the table starts with the run.

Only the index is dropped. Django's AlterField would rebuild the whole table on SQLite and drop
and re-validate the foreign key on PostgreSQL, locking a table that may hold millions of rows.
"""

import django.db.models.deletion
from django.db import migrations, models

TABLE = "review_impactresult"
INDEX = "review_impactresult_run_id_a6ae482c"  # the name Django gave the foreign key's index


def drop_run_index(apps, schema_editor):
    """Drop the index on run_id alone, whatever it is called."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, TABLE)
    for name, info in constraints.items():
        if info["index"] and not info["unique"] and info["columns"] == ["run_id"]:
            schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(name)}")


def create_run_index(apps, schema_editor):
    quote = schema_editor.quote_name
    schema_editor.execute(f"CREATE INDEX {quote(INDEX)} ON {quote(TABLE)} ({quote('run_id')})")


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0009_sharelink_try_inputs"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="impactresult",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="results",
                        to="review.impactrun",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_run_index, create_run_index)],
        ),
    ]
