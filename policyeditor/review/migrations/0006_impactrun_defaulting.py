from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0005_teams_move_to_their_own_app"),
    ]

    operations = [
        migrations.AddField(
            model_name="impactrun",
            name="defaulting",
            field=models.BooleanField(default=True),
        ),
    ]
