"""Create the database cache table (settings.CACHES) as part of `migrate`, wherever it runs."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    """`createcachetable` is idempotent: an existing table is left alone."""
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    """The shared cache lives in the database so every server process sees the same counters."""

    dependencies = []

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
