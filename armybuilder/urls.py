from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("armybuilder.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("armybuilder.web.urls")),
    path("", include("armybuilder.exports.urls")),
]
