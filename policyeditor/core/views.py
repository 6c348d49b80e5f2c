"""Views that belong to no feature app: the health check."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET


@login_not_required
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Report whether the app can reach its database (for load balancers and `make serve`)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any database failure means unhealthy, never a 500 page
        return JsonResponse({"status": "error", "database": str(exc)}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
