from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0004_alter_savedtestcase_case"),
    ]

    operations = [
        migrations.AddField(
            model_name="impactrun",
            name="defaulting",
            field=models.BooleanField(default=True),
        ),
    ]
