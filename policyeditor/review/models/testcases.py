"""A draft's saved test cases, each a case of the PolicyTest format."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from policyeditor.core.fields import OrderedJSONField
from policyeditor.editor.models import Draft


class SavedTestCase(models.Model):
    """One test case of a draft, a case mapping of the PolicyTest format (inputs plus `expect`)."""

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="saved_test_cases")
    name = models.CharField(max_length=200)
    case = OrderedJSONField(default=dict)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["draft", "name"]
        constraints = [
            models.UniqueConstraint(fields=["draft", "name"], name="saved_test_case_name_unique")
        ]

    def __str__(self) -> str:
        return self.name
