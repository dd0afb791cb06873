"""The builder stays linear in the list (issue 36): a hero's menu of the units it may join
is worked out once for the list, asking the ruleset once per kind of hero and kind of unit
(`Policy.join_facts`), and gives what asking for every pair gives; the page of a 500-entry
list stays under 1 MB. Counts and sizes, no timings: bench/builder.py times it."""

import json
import re

import pytest
from django.conf import settings

from armybuilder.engine import book_from_dict, list_from_dict, validate_list
from armybuilder.engine.rulesets import Policy, policy_for
from armybuilder.lists import services
from armybuilder.lists.format import MAX_ENTRIES, parse_list_body
from armybuilder.memo import clear_all
from armybuilder.web import presenters
from factions.services import armybook_import_file
from tests.support.engine_helpers import ruleset

BOOKS = sorted((settings.BASE_DIR / "factions/data/books").glob("*/*.json"))
MB = 1024 * 1024


class Counting(Policy):
    """A policy that counts the questions asked of it and answers as `policy` does."""

    def __init__(self, policy: Policy):
        self.policy, self.asked = policy, 0

    def join_problem(self, hero, target):
        self.asked += 1
        return self.policy.join_problem(hero, target)

    def join_facts(self, result):
        return self.policy.join_facts(result)


def entries_of(book, count: int) -> list[dict]:
    """`count` entries cycling through the book's units, each with one option in every
    section, another from copy to copy (models, Tough and so on vary); every fifth hero
    joins the entry before it, and one hero joins a unit another hero has joined."""
    units = list(book.units.values())
    entries = []
    for i in range(count):
        unit = units[i % len(units)]
        options = {s.options[(i // len(units)) % len(s.options)].id: 1 for s in unit.sections}
        entries.append({"id": f"e{i}", "unit": unit.id, "options": options})
    heroes = [i for i in range(1, count) if book.units[entries[i]["unit"]].is_hero]
    for n, i in enumerate(heroes):
        if n % 5 == 0:
            entries[i]["joined_to"] = entries[i - 1]["id"]
    if len(heroes) > 1:
        entries[heroes[1]]["joined_to"] = entries[heroes[0] - 1]["id"]
    return entries


def validated(path, count: int):
    data = json.loads(path.read_text())
    book, spec = book_from_dict(data), ruleset(data["system"])
    army = {"system": spec.slug, "faction": book.slug, "points_limit": 100_000, "entries": entries_of(book, count)}
    return validate_list(book, spec, list_from_dict(army)), spec


def every_pair(results, labels, policy) -> dict[str, list[tuple[str, str]]]:
    """The menus as the builder worked them out before: the policy asked for every pair."""
    known = [r for r in results if r.unit is not None]
    return {
        hero.entry.id: [
            (target.entry.id, labels[target.entry.id])
            for target in known
            if target is not hero
            and target.joined is None
            and set(target.joined_by) <= {hero.entry.id}
            and policy.join_problem(hero, target) is None
        ]
        for hero in known
        if hero.unit.is_hero
    }


@pytest.mark.parametrize("path", BOOKS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_join_menus_are_those_of_every_pair(path):
    validation, spec = validated(path, 120)
    labels = presenters.distinct_labels(validation.entries)
    policy = policy_for(spec.family)
    menus = presenters.join_menus(validation.entries, labels, policy)
    assert menus == every_pair(validation.entries, labels, policy)


@pytest.mark.parametrize("path", BOOKS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_join_menus_ask_the_ruleset_a_number_of_times_that_does_not_grow_with_the_list(path):
    validation, spec = validated(path, 200)
    counting = Counting(policy_for(spec.family))
    presenters.join_menus(validation.entries, presenters.distinct_labels(validation.entries), counting)
    heroes = sum(1 for result in validation.entries if result.unit.is_hero)
    assert counting.asked <= len(validation.entries)  # every pair would be heroes × entries
    if heroes > 10:
        assert counting.asked < heroes * len(validation.entries) / 10


def test_a_page_of_the_most_entries_a_list_holds_is_under_a_megabyte(db, client, django_user_model):
    """Human Empire's units in turn, 500 of them with a hero in every few: each hero has
    hundreds of units it may join (its menu is drawn when its upgrades are open), and the
    hero whose upgrades are open has the whole menu."""
    clear_all()
    path = settings.BASE_DIR / "factions/data/books/aof/human-empire.json"
    armybook_import_file(path=path)
    book = book_from_dict(json.loads(path.read_text()))
    entries = entries_of(book, MAX_ENTRIES)
    body = {"name": "Most", "system": "aof", "faction": "human-empire", "points_limit": 100_000, "entries": entries}
    user = django_user_model.objects.create_user("player")
    client.force_login(user)
    army_list = services.army_list_create(data=parse_list_body(body)[0], owner=user)
    hero = next(e["id"] for e in entries if book.units[e["unit"]].is_hero and "joined_to" not in e)
    response = client.get(f"/lists/{army_list.pk}/?entry={hero}")
    assert response.status_code == 200
    assert len(response.content) < MB
    html = response.content.decode()
    menu = html.split(f'<select id="join-{hero}"', 1)[1].split("</select>", 1)[0]
    assert menu.count("<option") > 100  # the open hero's whole menu
    assert html.count("<option") < menu.count("<option") + 500  # the others: a link to theirs
    other = next(e["id"] for e in entries if book.units[e["unit"]].is_hero and e["id"] != hero)
    assert f'id="join-{other}" href="?entry={other}#join-{other}"' in html
    # Every entry's buttons belong to forms the page holds (without JavaScript too).
    owners = set(re.findall(r'<button form="([^"]+)"', html))
    forms = [f'<form method="post" action="/lists/{army_list.pk}/act/" id="{owner}"' for owner in owners]
    assert owners and all(html.count(form) == 1 for form in forms)


def test_an_action_on_a_200_entry_list_asks_the_ruleset_of_joins_a_number_of_times_linear_in_it(
    db, client, django_user_model, monkeypatch
):
    """Issue 36: 59,100 questions in 120 actions on a 499-entry list. Now the validation
    asks for each hero that has joined a unit, the menus once per kind of hero and unit."""
    from armybuilder.engine.aof import AgeOfFantasy

    clear_all()
    path = settings.BASE_DIR / "factions/data/books/aof/human-empire.json"
    armybook_import_file(path=path)
    book = book_from_dict(json.loads(path.read_text()))
    entries = entries_of(book, 200)
    body = {"name": "Long", "system": "aof", "faction": "human-empire", "points_limit": 100_000, "entries": entries}
    user = django_user_model.objects.create_user("player")
    client.force_login(user)
    army_list = services.army_list_create(data=parse_list_body(body)[0], owner=user)
    asked = []
    real = AgeOfFantasy.join_problem
    monkeypatch.setattr(AgeOfFantasy, "join_problem", lambda self, *pair: asked.append(pair) or real(self, *pair))
    response = client.post(
        f"/lists/{army_list.pk}/act/",
        {"version": army_list.version, "action": "move", "entry": "e3", "step": "down"},
        HTTP_X_LIVE="1",
    )
    assert response.status_code == 200
    heroes = sum(1 for e in entries if book.units[e["unit"]].is_hero)
    assert heroes > 20 and 0 < len(asked) <= len(entries)  # every pair would be some 5,000
