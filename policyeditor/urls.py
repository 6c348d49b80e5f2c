"""URL configuration: each app brings its own urls module."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from policyeditor.core import views as core_views

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="editor:draft_list", permanent=False), name="home"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz", core_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("reviews/", include("policyeditor.review.urls")),
    path("api/", include("policyeditor.api.urls")),
    path("schemas/", include("policyeditor.schemalib.urls")),
    path("", include("policyeditor.editor.urls")),
]
