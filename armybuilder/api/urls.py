from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from armybuilder.api import event_files, views
from armybuilder.api import event_views as events
from armybuilder.api import list_views as lists

systems = views.SystemViewSet
factions = views.FactionViewSet

BOOK = "factions/<slug:system>/<slug:slug>/"
catalogue = [
    path("systems/", systems.as_view({"get": "list"}), name="system-list"),
    path("systems/import/", views.RulesetImportView.as_view(), name="system-import"),
    path("systems/<slug:system>/", systems.as_view({"get": "retrieve"}), name="system-detail"),
    path("systems/<slug:system>/export", systems.as_view({"get": "export"}), name="system-export"),
    path("systems/<slug:system>/variants/", views.RulesetVariantsView.as_view(), name="system-variants"),
    path(
        "systems/<slug:system>/armyforge-rules/",
        systems.as_view({"get": "armyforge_rules"}),
        name="system-armyforge-rules",
    ),
    path("factions/", factions.as_view({"get": "list"}), name="faction-list"),
    path("factions/import/", views.FactionImportView.as_view(), name="faction-import"),
    path("factions/<slug:system>/<slug:slug>/", factions.as_view({"get": "book"}), name="faction-book"),
    path(
        "factions/<slug:system>/<slug:slug>/versions/", factions.as_view({"get": "versions"}), name="faction-versions"
    ),
    path(
        "factions/<slug:system>/<slug:slug>/versions/<str:version>/",
        factions.as_view({"get": "version"}),
        name="faction-version",
    ),
    path("factions/<slug:system>/<slug:slug>/changes/", factions.as_view({"get": "changes"}), name="faction-changes"),
]
# A caller's own lists, then any list by its share key.
own_lists = [
    path("", lists.ListsView.as_view(), name="list-list"),
    path("import/", lists.ListImportView.as_view(), name="list-import"),
    path("<int:pk>/", lists.ListDetailView.as_view(), name="list-detail"),
    path("<int:pk>/clone/", lists.ListCloneView.as_view(), name="list-clone"),
    path("<int:pk>/upgrade/", lists.ListUpgradeView.as_view(), name="list-upgrade"),
    path("<int:pk>/enter/", events.ListEnterView.as_view(), name="list-enter"),
    path("<int:pk>/share/rotate/", lists.ListShareRotateView.as_view(), name="list-share-rotate"),
    path("<int:pk>/export/<str:kind>", lists.ListExportView.as_view(), name="list-export"),
]
shared_lists = [
    path("", lists.SharedListView.as_view(), name="shared-list"),
    path("clone/", lists.SharedCloneView.as_view(), name="shared-clone"),
    path("export/<str:kind>", lists.SharedExportView.as_view(), name="shared-export"),
]
# An event pack by its key, the lists submitted to it, and its files (for its organiser and staff).
# (address below the pack's, view, name)
EVENT_PACK = (
    ("", events.EventDetailView, "event-detail"),
    ("submissions/", events.SubmissionsView, "event-submissions"),
    ("submissions/<int:pk>/", events.SubmissionDetailView, "event-submission"),
    ("roster.pdf", event_files.EventRosterView, "event-roster-export"),
    ("submissions.csv", event_files.EventSubmissionsCsvView, "event-submissions-export"),
)
event_pack = [path(route, view.as_view(), name=name) for route, view, name in EVENT_PACK]

urlpatterns = [
    *catalogue,
    path("validate/", views.ValidateView.as_view(), name="validate"),
    path("health/", views.HealthView.as_view(), name="health"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("lists/", include(own_lists)),
    path("shared/<str:key>/", include(shared_lists)),
    path("events/", events.EventsView.as_view(), name="event-list"),
    path("events/<str:key>/", include(event_pack)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]
