"""How long Army Forge lists take to come in and go out (issue 23).

Prints, for Wood Elves (the largest official book), built on 3.5.1 while the site holds
3.5.1 and 3.5.2:
- POST /api/lists/import/ of a 10-unit list as a "Share as File" body and as a share
  link read from a stand-in Army Forge on loopback;
- the worst case a request can be made to do: a share link of the most units a list may
  have (500 entries, each a combined unit: 1,000 Army Forge units), and one whose prices
  match no version held (12 held: a 10-unit list is priced against 12, the 1,000-unit
  one against 3), and that list as a file;
- GET /api/lists/{id}/export/armyforge of the 10-unit and the 500-entry list.

Run: .venv/bin/python bench/armyforge_lists.py   (a throw-away SQLite database; needs ../shared)
"""

import copy
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import REPO, median_ms, start_django  # noqa: E402

start_django()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from armybuilder.armyforge.books.imports import book_import  # noqa: E402
from armybuilder.armyforge.lists.reading import MAX_TRIED_VERSIONS, TRIAL_BUDGET  # noqa: E402
from tests.support.armyforge_lists import armyforge_total, chosen_list, random_list, share_api, share_file  # noqa: E402
from tests.support.armyforge_standin import ArmyForgeStandIn  # noqa: E402

SHARED = REPO.parent / "shared" / "armyforge"
NAME = "aof--wood-elves.json"


def book(version: str) -> dict:
    folder = SHARED if version == "3.5.2" else SHARED / version
    return json.loads((folder / NAME).read_text())


def older_versions(n: int) -> None:
    """`n` more versions of the book, older than 3.5.1 and each a little different."""
    for i in range(n):
        data = book("3.5.1")
        data["versionString"] = f"3.4.{i}"
        data["units"][0]["cost"] += 5 * (i + 1)
        book_import(data=data, system="aof")


def timed(label: str, fn, repeat: int) -> None:
    print(f"  {label:<58} median {median_ms(fn, repeat):8.1f} ms")


def main() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("bootstrap", verbosity=0)
    older_versions(MAX_TRIED_VERSIONS - 2)
    book_import(data=book("3.5.1"), system="aof")
    book_import(data=book("3.5.2"), system="aof")
    user = get_user_model().objects.create_user("bench", password="a-long-pass-phrase-1")
    client = Client()
    client.force_login(user)

    old = book("3.5.1")
    small = random_list(old, random.Random(7), units=(10, 10))
    troops = [u for u in old["units"] if u["size"] > 1 and not any(r["name"] == "Hero" for r in u["rules"])]
    big = chosen_list(
        old,
        [{"unit": troops[i % len(troops)]["id"], "combined": True} for i in range(500)],
        rng=random.Random(1),
        name="Biggest",
    )
    print(
        f"Wood Elves 3.5.1 lists: 10 units ({armyforge_total(small)} pts), 500 combined entries "
        f"({len(big.units)} Army Forge units, {armyforge_total(big)} pts); {MAX_TRIED_VERSIONS} versions held"
    )

    # The time of an import is measured, not the limit of share links a player may read a minute.
    unlimited = {**settings.THROTTLE_RATES, "armyforge_imports": None}
    with ArmyForgeStandIn(SHARED) as standin, override_settings(ARMYFORGE_URL=standin.url, THROTTLE_RATES=unlimited):
        standin.share("Small", share_api(small))
        big_link = share_api(big)
        standin.share("Big", big_link)
        print(f"  the 500-entry share link's answer: {len(json.dumps(big_link)) / 1024 / 1024:.1f} MB")

        def post(body):
            response = client.post("/api/lists/import/", body, content_type="application/json")
            assert response.status_code == 201, response.content[:500]
            return response.json()

        file_small = share_file(small)
        made = post(file_small)
        assert made["validation"]["total_points"] == armyforge_total(small), made["warnings"]
        timed("import a 10-unit Share as File list", lambda: post(file_small), 20)
        timed("import a 10-unit share link (from the stand-in)", lambda: post({"armyforge": "Small"}), 20)
        huge = post({"armyforge": "Big"})
        print(
            f"  (the 500-entry link is pinned to {huge['book_version']}, warnings "
            f"{[w['code'] for w in huge['warnings']]})"
        )
        start = time.perf_counter()
        post({"armyforge": "Big"})
        print(f"  {'import the 500-entry share link, once':<58}        {1000 * (time.perf_counter() - start):8.1f} ms")
        timed("import the 500-entry share link (worst case)", lambda: post({"armyforge": "Big"}), 5)
        for label, link, repeat in (("10-unit", share_api(small), 10), ("500-entry", big_link, 5)):
            unknown = copy.deepcopy(link)
            for unit in unknown["units"]:
                unit["cost"] += 1  # no version's prices match: as many versions as allowed are tried
            standin.share(f"NoMatch{label}", unknown)
            tries = max(2, min(MAX_TRIED_VERSIONS, TRIAL_BUDGET // len(unknown["units"])))
            timed(
                f"import the {label} link, no version matching ({tries} tried)",
                lambda label=label: post({"armyforge": f"NoMatch{label}"}),
                repeat,
            )
        big_file = share_file(big)
        timed("import the 500-entry Share as File list", lambda: post(big_file), 5)

        def export(pk):
            response = client.get(f"/api/lists/{pk}/export/armyforge")
            assert response.status_code == 200
            return response

        timed("export a 10-unit list to Army Forge", lambda: export(made["id"]), 20)
        timed("export the 500-entry list to Army Forge", lambda: export(huge["id"]), 5)


main()
