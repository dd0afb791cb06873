"""What the migrations leave in a new test database (the rulesets with their limits and
core rules, content types, permissions), kept once per test database and written back
after every transactional test.

A transactional test (the browser tests, anything with `transactional_db` or
`live_server`) ends by emptying every table (Django's flush); Django then makes the
content types and permissions anew, with new ids, and nothing more. The signal it sends
for that (post_migrate) marks the database as emptied, and conftest.py writes it back
after the test. pytest-django therefore runs those
tests after all the others. Written back, the database is as the migrations left it
after every test, so the tests may run in any order: the scheduler starts the slowest
first (conftest.py), and no worker is left with them at the end.

The bundled books, which many tests start from, are loaded for real once per worker and
kept the same way (`bundled_books`).

The rows are kept as model instances and written back with `bulk_create`, which keeps
their ids and sends no signals (a content stamp is kept as it was, not made anew)."""

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.db.models.signals import post_migrate

Rows = list[tuple[type[models.Model], list[models.Model]]]
_kept: Rows = []
_books: Rows = []  # the tables bundled_books_load() wrote in a database as the migrations left it
_as_made: dict[type[models.Model], list[tuple]] = {}  # every table's rows, as values
_before_books: dict[type[models.Model], int] = {}  # how many rows those tables had before
_emptied = False  # a flush (or a migration) has run since the rows were last written back


def _mark_emptied(**kwargs) -> None:
    global _emptied
    _emptied = True


def _tables() -> list[type[models.Model]]:
    """Every concrete table of the project, the many-to-many tables included."""
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy and not model._meta.swapped
    ]


def keep() -> None:
    """Read what the migrations wrote (once, right after the database is made)."""
    _kept.clear()
    _as_made.clear()
    for model in _tables():
        _as_made[model] = _rows(model)
        if _as_made[model]:
            _kept.append((model, list(model._base_manager.all())))
    post_migrate.connect(_mark_emptied, dispatch_uid="tests.support.baseline")


def emptied() -> bool:
    """Whether the tables were emptied (a flush) since they were last as the migrations
    left them."""
    return _emptied


def write_back() -> None:
    """After a transactional test's flush: the tables the flush's signal refilled
    (content types, permissions) emptied, and every kept row written back."""
    global _emptied
    _write(_kept)
    _emptied = False


def _write(kept: Rows) -> None:
    """Each table of `kept` emptied and its rows written, in one transaction (the foreign
    keys are checked at its end)."""
    if not kept:
        return
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        for model, _rows in kept:
            cursor.execute(f"DELETE FROM {quote(model._meta.db_table)}")
        for model, rows in kept:
            model._base_manager.bulk_create(rows)
        # Ids counted on from the largest written (PostgreSQL's sequences do not follow
        # rows written with their ids, and a test may have set them back).
        for sql in connection.ops.sequence_reset_sql(no_style(), [model for model, _rows in kept]):
            cursor.execute(sql)
    ContentType.objects.clear_cache()


def _counts(tables) -> dict[type[models.Model], int]:
    return {model: model._base_manager.count() for model in tables}


def bundled_books() -> None:
    """The bundled books in the database, as `bundled_books_load()` leaves a database the
    migrations made. The first time on a worker they are loaded for real and the tables
    that changed are kept; later, in a database as the migrations left it, those tables
    are written back, and elsewhere (books already there) they are loaded for real."""
    from factions.services import bundled_books_load

    if _books and _counts(_before_books) == _before_books:
        _write(_books)
        return
    as_made = not _books and all(_rows(model) == rows for model, rows in _as_made.items())
    bundled_books_load()
    if as_made:
        changed = [model for model, rows in _as_made.items() if _rows(model) != rows]
        _books[:] = [(model, list(model._base_manager.all())) for model in changed]
        _before_books.update({model: len(_as_made[model]) for model in changed})


def _rows(model: type[models.Model]) -> list[tuple]:
    return list(model._base_manager.order_by("pk").values_list())
