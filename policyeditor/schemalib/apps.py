"""App configuration for the schema library."""

from django.apps import AppConfig


class SchemaLibConfig(AppConfig):
    """Teams' CRD imports, which their drafts' validation, completion and Try it use."""

    name = "policyeditor.schemalib"
    label = "schemalib"
    verbose_name = "Schema library"
