"""Routes of the exports (PDF pages outside the API)."""

urlpatterns: list = []
