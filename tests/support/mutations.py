"""Changing one value deep inside a JSON document, for tests of malformed input."""

from collections.abc import Callable
from typing import Any

DELETE = object()  # as the value: remove the key or item instead


def _parts(path: str) -> list[str | int]:
    """ "units[1].equipment" -> ["units", 1, "equipment"]."""
    parts: list[str | int] = []
    for chunk in path.replace("]", "").split("."):
        name, *indexes = chunk.split("[")
        if name:
            parts.append(name)
        parts.extend(int(i) for i in indexes)
    return parts


def _at(data: Any, parts: list[str | int]) -> Any:
    for part in parts:
        data = data[part]
    return data


def set_at(path: str, value) -> Callable[[dict], None]:
    """A mutation that sets data[path] (dotted, [n] for list items) to `value`."""

    def mutate(data: dict) -> None:
        *parents, last = _parts(path)
        target = _at(data, parents)
        if value is DELETE:
            del target[last]
        else:
            target[last] = value

    return mutate


def grow_at(path: str, length: int) -> Callable[[dict], None]:
    """A mutation that makes the list data[path] `length` entries long, each a copy of its
    first entry with its id, uid and name (or, for text, itself) followed by its place."""

    def renamed(entry: Any, i: int) -> Any:
        if isinstance(entry, str):
            return f"{entry}-{i}"
        return {**entry, **{key: f"{entry[key]}-{i}" for key in ("id", "uid", "name") if key in entry}}

    def mutate(data: dict) -> None:
        items = _at(data, _parts(path))
        items[:] = [renamed(items[0], i) for i in range(length)]

    return mutate
