"""The settings page where users create and revoke their personal API tokens."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from policyeditor.api.forms import TokenForm
from policyeditor.api.models import ApiToken

MAX_TOKENS = 50  # per user; more is a sign of tokens never being revoked


@require_http_methods(["GET", "POST"])
def token_list(request: HttpRequest) -> HttpResponse:
    """List the user's tokens; POST creates one and shows it this once (only its digest is kept)."""
    form = TokenForm(request.POST or None)
    created = None
    code = 200
    if request.method == "POST":
        if ApiToken.objects.for_user(request.user).count() >= MAX_TOKENS:
            form.add_error(None, f"You already have {MAX_TOKENS} tokens: revoke some first.")
        if form.is_valid():
            days = form.cleaned_data.get("expires_in")
            row, plain = ApiToken.issue(
                request.user, form.cleaned_data["name"], days=days if days else None
            )
            created = {"token": row, "plain": plain}
            form = TokenForm(initial={"expires_in": "90"})
            code = 201
        else:
            code = 400
    response = render(
        request,
        "api/tokens.html",
        {"form": form, "created": created, "tokens": ApiToken.objects.for_user(request.user)},
        status=code,
    )
    # The page may hold a fresh token: keep it out of every cache and the back/forward cache.
    response["Cache-Control"] = "no-store"
    return response


@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    """Revoke (delete) one of the user's tokens; someone else's is a 404."""
    token = get_object_or_404(ApiToken.objects.for_user(request.user), pk=pk)
    token.delete()
    messages.success(request, f"Token “{token.name}” revoked: it no longer authenticates.")
    return redirect("api:tokens")
