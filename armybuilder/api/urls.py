from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from armybuilder.api import list_views as lists
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
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("lists/", lists.ListsView.as_view(), name="list-list"),
    path("lists/import/", lists.ListImportView.as_view(), name="list-import"),
    path("lists/<int:pk>/", lists.ListDetailView.as_view(), name="list-detail"),
    path("lists/<int:pk>/clone/", lists.ListCloneView.as_view(), name="list-clone"),
    path("lists/<int:pk>/share/rotate/", lists.ListShareRotateView.as_view(), name="list-share-rotate"),
    path("lists/<int:pk>/export/<str:kind>", lists.ListExportView.as_view(), name="list-export"),
    path("shared/<str:key>/", lists.SharedListView.as_view(), name="shared-list"),
    path("shared/<str:key>/clone/", lists.SharedCloneView.as_view(), name="shared-clone"),
    path("shared/<str:key>/export/<str:kind>", lists.SharedExportView.as_view(), name="shared-export"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]
