"""A weapon and an item in one line, as Army Forge writes them and players check them:
`Heavy Spear (A3, AP(1), Counter)`, `Longbow (30", A2)`, `2x Heavy Fist (A3)`, `Horse
(Fast, Impact(1))`. Army Forge's books carry such a `label` beside each weapon, item and
option; the importer compares what it read with it, the text export and the cards print
it, and a test holds every official book to it."""

from __future__ import annotations

from collections.abc import Iterable


def weapon_label(
    name: str,
    *,
    range: int | None,
    attacks: int | str | None,
    rules: Iterable[str] = (),
    per_model: int = 1,
    profile: Iterable[str] = (),
) -> str:
    """`Name (range", A<attacks>, rules)`; a range of 0 or none is melee (no range), and
    `per_model` above 1 is written before the name ("2x Heavy Fist (A3)": each model
    carries two). `profile` goes between the attacks and the rules (Arena's accuracy,
    strength, …); with `range` None and a profile that says the range, pass 0."""
    parts = [f'{range}"'] if range else []
    if attacks is not None:
        parts.append(f"A{attacks}")
    parts.extend(profile)
    parts.extend(rules)
    count = f"{per_model}x " if per_model > 1 else ""
    return f"{count}{name} ({', '.join(parts)})" if parts else f"{count}{name}"


def item_label(name: str, *, weapons: Iterable[str] = (), rules: Iterable[str] = ()) -> str:
    """`Name (weapons, rules)`: an item with what it gives, weapons first as Army Forge
    writes them ("Mythical Beast (Heavy Hooves (A1, AP(1)), Fast, Tough(3))")."""
    parts = [*weapons, *rules]
    return f"{name} ({', '.join(parts)})" if parts else name


def label_parts(label: str) -> tuple[str, tuple[str, ...]]:
    """A label split into its name and the parts in its outer brackets, each as written:
    `Horse (Fast, Impact(1))` -> ("Horse", ("Fast", "Impact(1)")). Brackets inside a part
    are kept with it; a label without brackets is all name. Linear in the label."""
    text = " ".join(label.split())
    opening = text.find(" (")
    if opening < 0 or not text.endswith(")"):
        return text, ()
    name, inner = text[:opening], text[opening + 2 : -1]
    parts, depth, start = [], 0, 0
    for i, char in enumerate(inner):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    return name, tuple(part for part in parts if part)
