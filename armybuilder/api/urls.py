from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from armybuilder.api import views

systems = views.SystemViewSet
factions = views.FactionViewSet

urlpatterns = [
    path("systems/", systems.as_view({"get": "list"}), name="system-list"),
    path("systems/<slug:system>/", systems.as_view({"get": "retrieve"}), name="system-detail"),
    path("factions/", factions.as_view({"get": "list"}), name="faction-list"),
    path("factions/import/", views.FactionImportView.as_view(), name="faction-import"),
    path("factions/<slug:system>/<slug:slug>/", factions.as_view({"get": "book"}), name="faction-book"),
    path("validate/", views.ValidateView.as_view(), name="validate"),
    path("health/", views.HealthView.as_view(), name="health"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]
