"""Unicode direction controls in the text people name things with.

A direction override or isolate (U+202A–U+202E, U+2066–U+2069) draws nothing, but turns
the text after it around: a list named with U+202E before "RTL" reads "LTR" on its share
page, and can flip the words around it on an event's roster. The names and texts a
person gives (a display name, a list's name and notes, its units' own names, an event's
name and description, an uploaded army book's texts) refuse them; books read from Army
Forge have them removed instead, as a stray mark in a real book must not stop it. What
was kept before this rule is shown isolated (<bdi>) by the templates.

Plain Python with no imports of the site's, so that every layer may use it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# The one list of them: embeddings and overrides (LRE, RLE, PDF, LRO, RLO), then isolates
# (LRI, RLI, FSI, PDI).
DIRECTION_CONTROLS_RE = re.compile(r"[\u202a-\u202e\u2066-\u2069]")
# Joiners that some scripts (Devanagari, Arabic) and emoji sequences need: formatting
# characters that are part of writing a name, unlike direction controls or zero widths.
JOINERS = frozenset("\u200c\u200d")
# Control characters, unassigned, private-use and surrogate code points, formatting
# characters, and line and paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def codes(chars: Iterable[str]) -> str:
    """Characters as their code points, each once, in order: "U+202E, U+2066"."""
    return ", ".join(f"U+{ord(char):04X}" for char in sorted(set(chars)))


def direction_controls(text: str) -> str:
    """The direction controls `text` holds as their code points ("U+202E"); "" for none."""
    return codes(DIRECTION_CONTROLS_RE.findall(text))


def direction_problem(text: str, what: str) -> str | None:
    """The problem of `what` ("The list name") when `text` holds direction controls."""
    found = direction_controls(text)
    if not found:
        return None
    return (
        f"{what} holds Unicode direction controls ({found}), which turn the text around them: "
        "remove them and use letters, digits, spaces and punctuation."
    )


def without_direction_controls(text: str) -> str:
    """`text` with its direction controls removed."""
    return DIRECTION_CONTROLS_RE.sub("", text)


def invisible_characters(text: str) -> str:
    """The characters of `text` that draw nothing, as their code points ("U+0007, U+202E";
    "" for none): the direction controls, control characters, line and paragraph
    separators, and every other formatting character bar the joiners."""
    return codes(char for char in text if _invisible(char))


def _invisible(char: str) -> bool:
    if DIRECTION_CONTROLS_RE.match(char):
        return True
    return unicodedata.category(char) in _INVISIBLE_CATEGORIES and char not in JOINERS
