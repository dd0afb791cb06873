"""Setup for bench/load.sh: a database with the bundled books and one 30-entry list.

Prints the list's share key; writes the list as an armylist/1 body to the file given.
With a second file and a number N, also saves N of the heaviest lists a visitor can
print (benchenv.heaviest_list at MAX_PRINTED_ENTRIES, each named apart so that no
drawing is cached for another)
and writes their share keys there, a line each: what the pressure run draws."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import example_list, heaviest_list, load_books, start_django  # noqa: E402

start_django()

from django.contrib.auth import get_user_model  # noqa: E402

from armybuilder.downloads import MAX_PRINTED_ENTRIES  # noqa: E402
from armybuilder.lists.format import parse_list_body  # noqa: E402
from armybuilder.lists.models import ArmyList  # noqa: E402
from armybuilder.lists.services import army_list_create  # noqa: E402
from factions.selectors import engine_book_get  # noqa: E402


def main() -> None:
    load_books()
    example = example_list()
    entries = []
    while len(entries) < 30:
        for entry in example["entries"]:
            if len(entries) < 30:
                entries.append({**entry, "id": f"e{len(entries)}", "joined_to": None})
    body = {**example, "name": "Load test", "points_limit": 150 * 30, "entries": entries}
    Path(sys.argv[1]).write_text(json.dumps(body))
    user, _ = get_user_model().objects.get_or_create(username="load-test")
    ArmyList.objects.filter(owner=user).delete()
    data, _handle = parse_list_body(body)
    print(army_list_create(data=data, owner=user).share_key)
    if len(sys.argv) > 3:
        book, _ruleset = engine_book_get(system=example["system"], slug=example["faction"])
        keys = []
        for number in range(int(sys.argv[3])):
            heaviest = heaviest_list(book, name=f"Heavy {number}", entries=MAX_PRINTED_ENTRIES)
            data, _handle = parse_list_body(heaviest)
            keys.append(army_list_create(data=data, owner=user).share_key)
        Path(sys.argv[2]).write_text("\n".join(keys) + "\n")


if __name__ == "__main__":
    main()
