"""Stamps (armybuilder/stamps.py): what every cache key is made of."""

import shutil

import pytest
from django.core.cache import cache as django_cache

from armybuilder import downloads, stamps
from armybuilder.cache import remembered, shared_key
from armybuilder.exports import pdf
from tests.conftest import wardens_list


def test_a_content_stamp_is_the_same_for_the_same_data_in_any_key_order():
    assert stamps.content_hash({"a": 1, "b": [1, 2]}) == stamps.content_hash({"b": [1, 2], "a": 1})
    assert stamps.content_hash({"a": 1, "b": [1, 2]}) != stamps.content_hash({"a": 1, "b": [2, 1]})
    assert len(stamps.content_hash({})) == stamps.STAMP_LENGTH


def test_a_source_stamp_changes_when_any_code_or_template_changes(tmp_path):
    code = tmp_path / "pkg"
    (code / "sub").mkdir(parents=True)
    (code / "a.py").write_text("x = 1\n")
    (code / "sub" / "page.html").write_text("<p>{{ x }}</p>\n")
    (code / "notes.txt").write_text("not code\n")
    before = stamps.source_stamp(tmp_path, ("pkg",))
    (code / "notes.txt").write_text("still not code\n")
    assert stamps.source_stamp(tmp_path, ("pkg",)) == before
    (code / "sub" / "page.html").write_text("<p>{{ x }}!</p>\n")
    after = stamps.source_stamp(tmp_path, ("pkg",))
    assert after != before
    (code / "b.py").write_text("")
    assert stamps.source_stamp(tmp_path, ("pkg",)) != after
    assert len(after) == stamps.STAMP_LENGTH


def test_a_source_stamp_of_a_folder_without_code_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError):
        stamps.source_stamp(tmp_path, ("empty",))


@pytest.fixture
def new_process(monkeypatch, tmp_path):
    """The site's packages and templates copied to a folder, which `stamps.release()`
    reads as a process started there would; the real release is read again afterwards."""
    for folder in stamps.RELEASE_FOLDERS:
        shutil.copytree(stamps.ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(stamps, "ROOT", tmp_path)
    stamps.release.cache_clear()
    yield tmp_path
    stamps.release.cache_clear()


def test_the_release_stamp_is_read_once_per_process(new_process):
    first = stamps.release()
    assert first == stamps.source_stamp(new_process, stamps.RELEASE_FOLDERS)
    (new_process / "armybuilder" / "engine" / "validate.py").write_text("# edited while running\n", "utf-8")
    assert stamps.release() == first  # the code this process runs has not changed
    stamps.release.cache_clear()  # a process started now
    assert stamps.release() != first


@pytest.mark.parametrize(
    "edited", ["armybuilder/printouts.py", "armybuilder/exports/pdf_cards.py", "templates/shared_list_body.html"]
)
def test_a_shared_cache_key_changes_when_any_code_changes(new_process, edited):
    """armybuilder/printouts.py decides what a printout shows: a change there is a new key,
    as for the drawing code (and for any other file of the site)."""
    parts = ("list", "cards.pdf", 7, 3, "share-key", ("book", "ruleset", "1.0"), None, (), ())
    before = shared_key("pdf", *parts)
    assert shared_key("pdf", *parts) == before
    with open(new_process / edited, "a", encoding="utf-8") as file:
        file.write("\n")
    stamps.release.cache_clear()  # the next process, running the changed code
    assert shared_key("pdf", *parts) != before


def test_a_pdf_is_drawn_again_once_printouts_py_has_changed(new_process, fresh_caches, monkeypatch, wardens, user):
    drawn = []
    draw = pdf.render_list_pdf
    monkeypatch.setattr(pdf, "render_list_pdf", lambda *args: drawn.append(args[1]) or draw(*args))
    army_list = wardens_list(user, ["wardens"])
    for _ in range(2):
        assert downloads.list_pdf_response(army_list, "cards.pdf", {}).status_code == 200
    assert drawn == ["cards.pdf"]  # the second from the shared cache
    with open(new_process / "armybuilder" / "printouts.py", "a", encoding="utf-8") as file:
        file.write("# what a printout shows has changed\n")
    stamps.release.cache_clear()  # the next process, running the changed code
    assert downloads.list_pdf_response(army_list, "cards.pdf", {}).status_code == 200
    assert drawn == ["cards.pdf", "cards.pdf"]


def test_remembered_makes_a_thing_once_and_keeps_it_in_the_shared_cache(fresh_caches):
    made = []
    key = shared_key("test", 1, "a")
    assert remembered(key, lambda: made.append(1) or "thing", seconds=60) == "thing"
    assert remembered(key, lambda: made.append(2) or "other", seconds=60) == "thing"
    assert made == [1]
    assert django_cache.get(key) == "thing"
    assert shared_key("test", 1, "b") != key != shared_key("other", 1, "a")
