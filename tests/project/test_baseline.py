"""The test database's baseline (tests/support/baseline.py): what the migrations wrote comes back
after a transactional test's flush, and the bundled books written back from what was kept
are the books a real load makes."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection

from factions.models import BookVersion, Faction, Ruleset
from factions.services import bundled_book_paths, bundled_books_load
from tests.support import baseline


def books_held() -> list[tuple]:
    return sorted(Faction.objects.values_list("ruleset__slug", "slug", "version", "content_hash", "source").order_by())


@pytest.mark.django_db(transaction=True)
def test_after_a_flush_the_database_is_as_the_migrations_left_it():
    rows = {model: baseline._rows(model) for model in baseline._as_made}
    assert rows == baseline._as_made and Ruleset.objects.count() == 5
    call_command("flush", interactive=False, verbosity=0)  # as a transactional test ends
    assert not Ruleset.objects.exists()
    baseline.write_back()
    assert {model: baseline._rows(model) for model in baseline._as_made} == baseline._as_made


@pytest.mark.django_db(transaction=True)
def test_after_a_flush_that_set_the_ids_back_new_rows_get_new_ids():
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), tables, reset_sequences=True))
    baseline.write_back()
    largest = ContentType.objects.order_by("-pk").first().pk
    assert ContentType.objects.create(app_label="tests", model="baseline").pk > largest


@pytest.mark.django_db
def test_the_bundled_books_written_back_are_those_a_real_load_makes():
    baseline.bundled_books()  # loaded for real or written back: either way, every book
    assert len(books_held()) == len(bundled_book_paths())
    baseline.bundled_books()  # kept by now; the books are there already: loaded (nothing to do)
    kept = books_held()
    documents = sorted(BookVersion.objects.values_list("faction__slug", "version", "document"))
    for model, _rows in reversed(baseline._books):
        model._base_manager.all().delete()
    assert not Faction.objects.exists()

    baseline.bundled_books()  # written back
    assert books_held() == kept
    assert sorted(BookVersion.objects.values_list("faction__slug", "version", "document")) == documents
    assert bundled_books_load() == []  # the loader finds nothing missing or older

    Faction.objects.all().delete()
    assert len(bundled_books_load()) == len(bundled_book_paths())  # a real load again
    assert books_held() == kept
