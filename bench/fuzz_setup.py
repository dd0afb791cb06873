"""Setup for bench/fuzz.sh: the bundled books, the ordinary user the fuzzer signs in as
(FUZZ_USER, FUZZ_PASSWORD) with one list, and a list of someone else's that the fuzzer
reads through its share link (prints the share key)."""

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armybuilder.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from armybuilder.api.lists import parse_list_body  # noqa: E402
from armybuilder.lists.models import ArmyList  # noqa: E402
from armybuilder.lists.services import army_list_create  # noqa: E402


def main() -> None:
    call_command("bootstrap", verbosity=0, stdout=open(os.devnull, "w"))
    users = get_user_model().objects
    fuzzer, _ = users.get_or_create(username=os.environ["FUZZ_USER"])
    fuzzer.is_staff = fuzzer.is_superuser = False
    fuzzer.set_password(os.environ["FUZZ_PASSWORD"])
    fuzzer.save()
    sharer, _ = users.get_or_create(username="fuzz-sharer")
    ArmyList.objects.filter(owner__in=[fuzzer, sharer]).delete()
    example = json.loads((REPO / "factions/data/lists/aof/human-empire-1500.json").read_text())
    data, _handle = parse_list_body(example)
    army_list_create(data=data, owner=fuzzer)  # (found through GET /api/lists/ and its links)
    print(army_list_create(data=data, owner=sharer).share_key)


if __name__ == "__main__":
    main()
