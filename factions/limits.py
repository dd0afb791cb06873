"""Force-organisation limits in words, for the rules pages, the API and the admin.

The checks themselves live in the rules engine; this module only says what a limit row
means, so that the words always match the data.
"""

from typing import Any

_COUNTED = {"heroes": "hero", "units": "unit"}
_TYPE_PLURALS = {"artillery": "Artillery", "infantry": "Infantry", "cavalry": "Cavalry"}


def _counted(params: dict[str, Any], plural: bool) -> str:
    counts = params.get("counts", "units")
    if counts == "types":
        types = params.get("types", [])
        if plural:
            return " + ".join(_TYPE_PLURALS.get(t, t.capitalize() + "s") for t in types)
        return " or ".join(t.capitalize() for t in types)
    word = _COUNTED.get(counts, counts)
    if plural:
        return "heroes" if word == "hero" else f"{word}s"
    return word


def describe_limit(kind: str, params: dict[str, Any]) -> str:
    """One plain sentence, e.g. "At most 1 hero per 500 pts"."""
    if kind == "per_points":
        text = f"At most 1 {_counted(params, False)} per {params['per']} pts"
        extras = []
        if params.get("base"):
            extras.append(f"plus {params['base']}")
        if params.get("minimum"):
            extras.append(f"never fewer than {params['minimum']}")
        return text + (f" ({', '.join(extras)})" if extras else "")
    if kind == "max_count":
        return f"At most {params['max']} {_counted(params, params['max'] != 1)}"
    if kind == "min_count":
        return f"At least {params['min']} {_counted(params, params['min'] != 1)}"
    if kind == "copies":
        return (
            f"At most {params['base']} + 1 per {params['per']} pts copies of the same unit "
            "(a combined unit counts as one)"
        )
    if kind == "unit_share":
        return f"No single unit may cost more than {params['percent']}% of the points limit"
    if kind == "formation":
        sizes = ", ".join(str(s) for s in params["sizes"][:-1]) + f" or {params['sizes'][-1]}"
        return f"Units of more than one model must have {sizes} models"
    if kind == "command_group":
        if params.get("scope") == "army":
            return f"At most {params['max']} model in the whole army may take a command-group upgrade"
        return f"Each unit may take each command-group upgrade at most {params['max']} time(s)"
    if kind == "game_size":
        if "max" in params:
            return f"Games above {params['max']} pts go beyond what the rules were written for"
        return f"Games below {params['min']} pts are smaller than the rules were written for"
    if kind == "composition":
        return "A warband follows its faction's composition card"
    return f"{kind} {params}"
