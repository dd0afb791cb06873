"""Changing one value deep inside a JSON document, for tests of malformed input."""

from collections.abc import Callable

DELETE = object()  # as the value: remove the key or item instead


def set_at(path: str, value) -> Callable[[dict], None]:
    """A mutation that sets data[path] (dotted, [n] for list items) to `value`."""

    def mutate(data: dict) -> None:
        parts: list = []
        for chunk in path.replace("]", "").split("."):
            name, *indexes = chunk.split("[")
            if name:
                parts.append(name)
            parts.extend(int(i) for i in indexes)
        *parents, last = parts
        target = data
        for part in parents:
            target = target[part]
        if value is DELETE:
            del target[last]
        else:
            target[last] = value

    return mutate
