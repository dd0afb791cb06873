"""The PDF fonts are registered when the first PDF is drawn or measured, not when a worker
starts (issue 36: reading them took 68 MiB and 2 s off a worker's first request, PDF or
not); once, however many threads ask at once; and the pages that are no PDF never ask."""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from armybuilder.exports import pdf_style
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import django
django.setup()
import armybuilder.wsgi
from django.urls import get_resolver
get_resolver().url_patterns  # every view module imported
from reportlab.pdfbase import pdfmetrics
from armybuilder.exports import pdf_style
print(pdf_style.REGULAR in pdfmetrics.getRegisteredFontNames(), pdf_style._coverage is None)
pdf_style.width_of("Pike Levy", pdf_style.BOLD, 10)
print(pdf_style.REGULAR in pdfmetrics.getRegisteredFontNames(), pdf_style._coverage is None)
"""


def test_a_worker_starts_without_the_fonts_and_reads_them_for_the_first_pdf():
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env["DJANGO_SETTINGS_MODULE"] = "armybuilder.settings"
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["False True", "True False"]


@pytest.fixture
def no_fonts(monkeypatch):
    """The fonts as a worker starts with them: none read, and reading them counted."""
    read = []

    def register():
        read.append(threading.current_thread().name)
        time.sleep(0.05)  # long enough for the other threads to ask meanwhile
        return {}

    clear_all()  # nothing measured before
    monkeypatch.setattr(pdf_style, "_coverage", None)
    monkeypatch.setattr(pdf_style, "_register_fonts", register)
    yield read
    clear_all()  # what was measured without the fonts goes


def test_the_fonts_are_read_once_however_many_threads_ask_at_once(no_fonts):
    threads = [threading.Thread(target=pdf_style.coverage) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(no_fonts) == 1


def test_the_builder_and_its_actions_read_no_font(wardens, client, no_fonts):
    response = client.post("/new/aof/", {"faction": "test-wardens", "points": "1500", "name": "Patrol"})
    assert response.status_code == 302
    army_list = ArmyList.objects.get()
    for page in ("/", "/new/aof/", "/lists/", f"/lists/{army_list.pk}/", army_list.share_path):
        assert client.get(page).status_code == 200, page
    response = client.post(
        f"/lists/{army_list.pk}/act/", {"version": army_list.version, "action": "add", "unit": "warden-captain"}
    )
    assert response.status_code == 302
    assert client.get(f"/lists/{army_list.pk}/").status_code == 200
    assert no_fonts == []
