"""The API's addresses (shared/spec/api.md): a router over the resources' ViewSets, whose
actions are their commands and files, and the few endpoints that are no resource
(validate, health, tokens, the schema)."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import SimpleRouter

from armybuilder.api import event_views, list_views, views


class Router(SimpleRouter):
    """DRF's router on path converters, as the site's other addresses: a resource's list
    and each one end in "/"; an action's `url_path` says how its own address ends, a
    command's in "/" ("clone/"), a file's as its name does ("export/<str:kind>",
    "roster.pdf")."""

    routes = [
        route._replace(url=route.url.replace("{url_path}{trailing_slash}", "{url_path}"))
        for route in SimpleRouter.routes
    ]

    def __init__(self) -> None:
        super().__init__(use_regex_path=False)


router = Router()
router.register("systems", views.SystemViewSet, basename="system")
router.register("factions", views.FactionViewSet, basename="faction")
router.register("factions/<slug:system>", views.BookViewSet, basename="book")
# A caller's own lists, then any list by its share key.
router.register("lists", list_views.ListViewSet, basename="list")
router.register("shared", list_views.SharedListViewSet, basename="shared")
# An event pack by its key (with its files), and the lists submitted to it.
router.register("events", event_views.EventViewSet, basename="event")
router.register("events/<str:key>/submissions", event_views.SubmissionViewSet, basename="submission")

urlpatterns = [
    *router.urls,
    path("validate/", views.ValidateView.as_view(), name="validate"),
    path("health/", views.HealthView.as_view(), name="health"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]
