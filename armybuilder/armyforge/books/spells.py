"""The book's spells: name, threshold (their cost) and effect (Skirmish's own, when it
has one)."""

from __future__ import annotations

from typing import Any

from armybuilder.armyforge.books.reading import Reading, cut, whole

MAX_SPELL_NAME = 80


def spell(r: Reading, path: str, data: Any) -> dict[str, Any] | None:
    """A spell as armybook/1 has it; None, with a warning, for one that cannot be read."""
    if not r.is_object(path, data, "a spell"):
        return None
    r.fields(path, "spell", data)
    name = data.get("name")
    cost = whole(data.get("threshold"))
    effect = data.get("effect")
    if r.system == "aof-skirmish" and isinstance(data.get("effectSkirmish"), str):
        effect = data["effectSkirmish"].strip() or effect
    if not isinstance(name, str) or not name.strip() or cost is None or cost < 0:
        r.warn(path, f"spell {name!r} has no name or no whole-number threshold: left out")
        return None
    if not isinstance(effect, str) or not effect.strip():
        r.warn(f"{path}.effect", f'spell "{name.strip()}" has no effect text: left out')
        return None
    return {"name": cut(name.strip(), MAX_SPELL_NAME), "cost": min(cost, 20), "text": cut(effect.strip(), 2000)}
