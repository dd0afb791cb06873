"""A book's version, read and ordered one way everywhere (factions/versions.py Version)."""

from __future__ import annotations

import pytest

from factions.versions import Version, VersionError


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("3.5.1", "3.5.2"),
        ("3.5.2", "3.5.10"),  # numbers as numbers, not text
        ("3.9.9", "4.0.0"),
        ("1.2.0-beta", "1.2.0"),  # a pre-release comes before its release
        ("1.2.0-alpha", "1.2.0-beta"),
        ("1.2.0-beta.2", "1.2.0-beta.11"),
        ("1.2.0-beta.2", "1.2.0-beta.x"),  # numbers before words
        ("1.2.0-beta", "1.2.0-beta.1"),  # fewer parts first when the rest is the same
        ("3.5.2+2", "3.5.3"),
    ],
)
def test_versions_are_ordered_by_their_precedence(older, newer):
    assert Version.parse(older) < Version.parse(newer)
    assert Version.parse(newer) > Version.parse(older)
    assert not Version.parse(newer) <= Version.parse(older)


@pytest.mark.parametrize("other", ["3.5.2+2", "3.5.2+admin.1", "3.5.2+2.admin.1"])
def test_what_follows_a_plus_leaves_the_precedence_alone(other):
    held, again = Version.parse("3.5.2"), Version.parse(other)
    assert held <= again and held >= again and not held < again and not held > again
    assert held != again  # another version all the same


def test_sorting_puts_versions_in_their_order():
    names = ["3.5.10", "3.5.2+2", "1.0.0", "3.5.2-rc.1", "3.5.2"]
    assert [str(v) for v in sorted(Version.parse(n) for n in names)] == [
        "1.0.0",
        "3.5.2-rc.1",
        "3.5.2+2",  # stable: as given among equals
        "3.5.2",
        "3.5.10",
    ]


@pytest.mark.parametrize(
    ("text", "release", "repeat"),
    [
        ("3.5.2", "3.5.2", 1),
        ("3.5.2+2", "3.5.2", 2),
        ("3.5.2+admin.1", "3.5.2", None),
        ("1.0.0+admin.1.2", "1.0.0", None),
        ("1.2.0-beta", "1.2.0-beta", 1),
        ("1.2.0-beta.admin.1", "1.2.0-beta.admin.1", 1),
    ],
)
def test_a_version_names_its_release_and_which_reading_of_it_it_is(text, release, repeat):
    version = Version.parse(text)
    assert (str(version), version.release, version.repeat) == (text, release, repeat)


def test_army_forges_bare_version_reads_with_a_third_number():
    assert str(Version.parse("3.5")) == "3.5.0"
    assert str(Version.parse("3.5+2")) == "3.5.0+2"
    assert Version.parse("3.5") == Version.parse("3.5.0")


@pytest.mark.parametrize("text", ["", "3", "v3.5.2", "3.5.2 ", "3..2", "3.5.2+", "3.5.2-", "2026-11-29", "3.5.2+a+b"])
def test_a_text_that_is_no_version_is_refused_saying_what_a_version_is(text):
    with pytest.raises(VersionError) as refused:
        Version.parse(text)
    message = str(refused.value)
    assert message.startswith(f'"{text}" is not a version: three numbers ("3.5.2")')
    assert '"+" and a repeat or a mark ("3.5.2+2")' in message


def test_a_long_text_is_named_cut_short():
    with pytest.raises(VersionError, match=r'^"x{57}\.\.\." is not a version'):
        Version.parse("x" * 5000)


def test_a_value_that_is_no_text_is_refused_too():
    with pytest.raises(VersionError, match="is not a version"):
        Version.parse(352)  # type: ignore[arg-type]
