# Team and Membership now belong to the teams app (teams 0001), on the same tables: the review
# app drops them from its state only, and its foreign keys point at teams.Team (same table, same
# column, so the database is not touched).

import django.db.models.deletion
from django.db import migrations, models


def move_content_types(apps, schema_editor):
    """Keep permissions and admin log entries of teams: their content types change app, not id."""
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in ("team", "membership"):
        if not content_type.objects.filter(app_label="teams", model=model).exists():
            content_type.objects.filter(app_label="review", model=model).update(app_label="teams")


def restore_content_types(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in ("team", "membership"):
        if not content_type.objects.filter(app_label="review", model=model).exists():
            content_type.objects.filter(app_label="teams", model=model).update(app_label="review")


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("review", "0004_alter_savedtestcase_case"),
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="draftworkflow",
                    name="team",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="workflows",
                        to="teams.team",
                    ),
                ),
                migrations.AlterField(
                    model_name="auditevent",
                    name="team",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="events",
                        to="teams.team",
                    ),
                ),
                migrations.DeleteModel(name="Membership"),
                migrations.DeleteModel(name="Team"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, restore_content_types),
    ]
