from django.contrib.auth import views as auth_views
from django.urls import path

from armybuilder.web import accounts, books, builder, event_files, events, pages

urlpatterns = [
    path("", builder.start, name="start"),
    path("new/<slug:system>/", builder.new_list, name="new-list"),
    path("lists/", builder.my_lists, name="my-lists"),
    path("lists/import/", builder.import_list, name="import-list"),
    path("lists/<int:pk>/", builder.builder, name="builder"),
    path("lists/<int:pk>/act/", builder.builder_action, name="builder-action"),
    path("lists/<int:pk>/clone/", builder.clone_list, name="clone-list"),
    path("lists/<int:pk>/delete/", builder.delete_list, name="delete-list"),
    path("lists/<int:pk>/event/", events.list_event, name="list-event"),
    path("lists/<int:pk>/book/", builder.list_book, name="list-book"),
    path("lists/<int:pk>/book/move/", builder.list_book_move, name="list-book-move"),
    path("rules/<slug:system>/", builder.rules_page, name="rules"),
    path("books/<slug:system>/<slug:faction>/changes/", books.book_changes, name="book-changes"),
    path("events/", events.pack_list, name="events"),
    path("events/new/", events.pack_new, name="event-new"),
    path("events/<str:key>/", events.pack_page, name="event"),
    path("events/<str:key>/build/", events.pack_build, name="event-build"),
    path("events/<str:key>/submit/", events.pack_submit, name="event-submit"),
    path("events/<str:key>/edit/", events.pack_edit, name="event-edit"),
    path("events/<str:key>/delete/", events.pack_delete, name="event-delete"),
    path("events/<str:key>/roster.pdf", event_files.event_roster_pdf, name="event-roster-pdf"),
    path("events/<str:key>/submissions.csv", event_files.event_submissions_csv, name="event-submissions-csv"),
    path("accounts/", accounts.account, name="account"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("accounts/password/reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("s/<str:key>/", pages.shared_list, name="shared-list-page"),
    path("s/<str:key>/copy/", builder.copy_shared, name="copy-shared"),
]
