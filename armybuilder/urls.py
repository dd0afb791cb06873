from django.contrib import admin
from django.urls import include, path

from armybuilder import views

urlpatterns = [
    path("", views.home, name="home"),
    path("api/", include("armybuilder.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("armybuilder.web.urls")),
    path("", include("armybuilder.exports.urls")),
]
