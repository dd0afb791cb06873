"""Stamps (armybuilder/stamps.py): what every cache key is made of."""

from armybuilder import stamps


def test_a_content_stamp_is_the_same_for_the_same_data_in_any_key_order():
    assert stamps.content_hash({"a": 1, "b": [1, 2]}) == stamps.content_hash({"b": [1, 2], "a": 1})
    assert stamps.content_hash({"a": 1, "b": [1, 2]}) != stamps.content_hash({"a": 1, "b": [2, 1]})
    assert len(stamps.content_hash({})) == stamps.STAMP_LENGTH


def test_a_source_stamp_changes_when_a_file_of_it_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(stamps, "ROOT", tmp_path)
    code = tmp_path / "pkg"
    code.mkdir()
    (code / "a.py").write_text("x = 1\n")
    (code / "page.html").write_text("<p>{{ x }}</p>\n")
    (code / "notes.txt").write_text("not code\n")
    before = stamps.source_hash.__wrapped__("pkg")
    (code / "notes.txt").write_text("still not code\n")
    assert stamps.source_hash.__wrapped__("pkg") == before
    (code / "page.html").write_text("<p>{{ x }}!</p>\n")
    after = stamps.source_hash.__wrapped__("pkg")
    assert after != before
    (code / "b.py").write_text("")
    assert stamps.source_hash.__wrapped__("pkg") != after
