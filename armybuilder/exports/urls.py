"""Routes of the exports (PDF pages outside the API)."""

from django.urls import path

from armybuilder.exports import pdf

urlpatterns = [
    path("rules/<slug:system>/reference.pdf", pdf.ruleset_reference_pdf, name="ruleset-reference-pdf"),
]
