# Teams and memberships moved out of the review app; their tables keep their names
# (review_team, review_membership), so no row moves.

import django.db.models.deletion
from django.apps import apps as installed
from django.conf import settings
from django.db import migrations, models

# With the review app installed, its migrations created these tables (review 0001) and this one
# only takes the models over in Django's state; review 0005 then lets go of them. Without it
# (a fresh database of an installation without review), this migration creates the tables.
REVIEW_OWNED_THE_TABLES = installed.is_installed("policyeditor.review")

MODELS = [
    migrations.CreateModel(
        name="Team",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("name", models.CharField(max_length=100, unique=True)),
            ("description", models.TextField(blank=True)),
            ("required_approvals", models.PositiveSmallIntegerField(default=1)),
            ("created", models.DateTimeField(auto_now_add=True)),
            (
                "group",
                models.OneToOneField(
                    blank=True,
                    null=True,
                    on_delete=django.db.models.deletion.SET_NULL,
                    related_name="team",
                    to="auth.group",
                ),
            ),
        ],
        options={"db_table": "review_team", "ordering": ["name"]},
    ),
    migrations.CreateModel(
        name="Membership",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            (
                "role",
                models.CharField(
                    choices=[
                        ("viewer", "Viewer"),
                        ("author", "Author"),
                        ("reviewer", "Reviewer"),
                        ("admin", "Admin"),
                    ],
                    default="viewer",
                    max_length=10,
                ),
            ),
            ("created", models.DateTimeField(auto_now_add=True)),
            (
                "team",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="memberships",
                    to="teams.team",
                ),
            ),
            (
                "user",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="team_memberships",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
        ],
        options={
            "db_table": "review_membership",
            "ordering": ["team", "user__username"],
            "constraints": [
                models.UniqueConstraint(fields=("team", "user"), name="membership_team_user_unique")
            ],
        },
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ] + ([("review", "0004_alter_savedtestcase_case")] if REVIEW_OWNED_THE_TABLES else [])

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=MODELS,
            database_operations=[] if REVIEW_OWNED_THE_TABLES else MODELS,
        )
    ]
