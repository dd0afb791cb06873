from django.contrib.auth import views as auth_views
from django.urls import path

from armybuilder.web import accounts, pages

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("s/<str:key>/", pages.shared_list, name="shared-list-page"),
]
