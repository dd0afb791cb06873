"""What the export commands share: a document written as indented JSON to a file, or to
standard output."""

import json
from typing import Any

from django.core.management.base import BaseCommand


def write_json(command: BaseCommand, document: Any, *, output: str | None, what: str) -> None:
    """Write `document` to `output` (saying so, naming `what`), or to standard output."""
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
        command.stdout.write(f"Wrote {what} to {output}")
    else:
        command.stdout.write(text, ending="")
