"""export_all -> a fresh database -> import_all gives back every list and book."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from armybuilder.lists.models import ArmyList
from factions.models import Faction
from factions.selectors import engine_cache_clear
from factions.services import bundled_books_load

LISTS = Path(__file__).resolve().parents[1] / "factions" / "data" / "lists"


def read_all(folder):
    return {str(p.relative_to(folder)): json.loads(p.read_text()) for p in sorted(folder.rglob("*.json"))}


@pytest.mark.django_db
def test_backup_round_trip(tmp_path):
    engine_cache_clear()
    bundled_books_load()
    User = get_user_model()
    user = User.objects.create_user("keeper", email="k@example.org", password="a-long-pass-phrase-1")
    owned, visitor = Client(), Client()
    owned.force_login(user)
    for client, path in ((owned, "aof/human-empire-1500.json"), (visitor, "opf/free-cities-750.json")):
        example = json.loads((LISTS / path).read_text())
        assert client.post("/api/lists/", example, content_type="application/json").status_code == 201
    first = tmp_path / "first"
    out = StringIO()
    call_command("export_all", str(first), stdout=out)
    assert f"{Faction.objects.count()} army books, 1 users and 2 lists" in out.getvalue()

    # A fresh database: nothing of it left but the rulesets the migrations make.
    ArmyList.objects.all().delete()
    User.objects.all().delete()
    Faction.objects.all().delete()
    engine_cache_clear()

    call_command("import_all", str(first), stdout=StringIO())
    second = tmp_path / "second"
    call_command("export_all", str(second), stdout=StringIO())
    assert read_all(first) == read_all(second)

    restored = User.objects.get(username="keeper")
    assert restored.check_password("a-long-pass-phrase-1")
    client = Client()
    client.force_login(restored)
    mine = client.get("/api/lists/").json()
    assert [item["name"] for item in mine] == [json.loads((LISTS / "aof/human-empire-1500.json").read_text())["name"]]
    assert mine[0]["validation"]["valid"] is True
    key = ArmyList.objects.get(owner__isnull=True).share_key
    assert Client().get(f"/api/shared/{key}/").status_code == 200


@pytest.mark.django_db
def test_import_all_refuses_a_database_that_has_lists(tmp_path, user):
    call_command("export_all", str(tmp_path), stdout=StringIO())
    ArmyList.objects.create(owner=user, system="aof", faction="x", book_version="1")
    with pytest.raises(CommandError, match="already has lists"):
        call_command("import_all", str(tmp_path), stdout=StringIO())


@pytest.mark.django_db
def test_import_all_refuses_a_folder_that_is_not_a_backup(tmp_path):
    with pytest.raises(CommandError, match="not a readable backup"):
        call_command("import_all", str(tmp_path), stdout=StringIO())
