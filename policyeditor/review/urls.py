"""URLs of team review (namespace `review`)."""

app_name = "review"

urlpatterns: list = []
