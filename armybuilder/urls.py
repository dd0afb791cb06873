from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers and crawlers that ask for /favicon.ico get the site's icon (pages link
    it themselves); the static file's name carries its hash in production."""
    return redirect(static("favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon),
    path("api/", include("armybuilder.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("armybuilder.web.urls")),
]

handler400 = "armybuilder.errors.bad_request"
handler403 = "armybuilder.errors.permission_denied"
handler404 = "armybuilder.errors.page_not_found"
handler500 = "armybuilder.errors.server_error"
