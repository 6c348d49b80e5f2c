"""URLs of the schema library (namespace `schemalib`)."""

from django.urls import path

from policyeditor.schemalib import views

app_name = "schemalib"

urlpatterns = [
    path("teams/<int:pk>/", views.library, name="library"),
]
