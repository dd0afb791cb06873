"""Setup for bench/fuzz.sh: the bundled books, the ordinary user the fuzzer signs in as
(FUZZ_USER, FUZZ_PASSWORD) with one list, a list of someone else's that the fuzzer reads
through its share link, and an event pack the fuzzer organises, which that someone has
submitted their list to (prints the share key and the pack's key)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import example_list, load_books, start_django  # noqa: E402

start_django()

from django.contrib.auth import get_user_model  # noqa: E402

from armybuilder.api.lists import parse_list_body  # noqa: E402
from armybuilder.events import services as event_services  # noqa: E402
from armybuilder.events.models import EventPack  # noqa: E402
from armybuilder.lists.models import ArmyList  # noqa: E402
from armybuilder.lists.services import army_list_create  # noqa: E402

PACK = {"name": "Fuzz Open", "ruleset": "aof", "points_limit": 1500, "deadline": "2999-12-31T18:00:00+00:00"}


def main() -> None:
    load_books()
    users = get_user_model().objects
    fuzzer, _ = users.get_or_create(username=os.environ["FUZZ_USER"])
    fuzzer.is_staff = fuzzer.is_superuser = False
    fuzzer.set_password(os.environ["FUZZ_PASSWORD"])
    fuzzer.save()
    sharer, _ = users.get_or_create(username="fuzz-sharer")
    ArmyList.objects.filter(owner__in=[fuzzer, sharer]).delete()
    EventPack.objects.filter(organiser=fuzzer).delete()
    data, _handle = parse_list_body(example_list())
    army_list_create(data=data, owner=fuzzer)  # (found through GET /api/lists/ and its links)
    shared = army_list_create(data=data, owner=sharer)
    pack = event_services.pack_create(organiser=fuzzer, data=PACK)
    event_services.submission_submit(pack=pack, player=sharer, army_list=shared)
    print(shared.share_key, pack.key)


if __name__ == "__main__":
    main()
