from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("armybuilder.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("armybuilder.web.urls")),
    path("", include("armybuilder.exports.urls")),
]

handler400 = "armybuilder.errors.bad_request"
handler403 = "armybuilder.errors.permission_denied"
handler404 = "armybuilder.errors.page_not_found"
handler500 = "armybuilder.errors.server_error"
