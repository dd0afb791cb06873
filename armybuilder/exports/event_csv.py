"""An event's submissions as a CSV file, one row each, for the organiser's spreadsheet
(served by downloads.submissions_csv_response).

Columns: player, army, points, points limit, valid (yes/no), errors, warnings, the issues'
messages joined with "; ", when the list was submitted (ISO 8601, to the second), the
version of the army book it is built on (`book_version`), and the list's name as submitted
(`list name`, empty for a list without one). Columns added later come last, so that the
columns before them keep their places in an organiser's sheet. Written with Python's csv module, so that
a comma, a quote or a line break in a name stays in its cell. A cell that a spreadsheet
would read as a formula (it starts with =, +, -, @ or a tab) gets a leading apostrophe: a
player's name is never run as one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from armybuilder.lists.submissions import SubmissionRow

HEADER = (
    "player",
    "army",
    "points",
    "points limit",
    "valid",
    "errors",
    "warnings",
    "issues",
    "submitted at",
    "book_version",
    "list name",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def submissions_csv(rows: Sequence[SubmissionRow]) -> str:
    """The CSV text of the submissions (events.submission_rows gives the rows)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180
    writer.writerow(HEADER)
    for row in rows:
        validation = row.validation
        errors = sum(1 for issue in row.issues if issue["severity"] == "error")
        limit = validation["points_limit"]
        writer.writerow(
            (
                _text(row.player_name),
                _text(row.faction_name),
                validation["total_points"],
                "" if limit is None else limit,
                "yes" if row.valid else "no",
                errors,
                len(row.issues) - errors,
                _text("; ".join(issue["message"] for issue in row.issues)),
                row.submission.submitted_at.isoformat(timespec="seconds"),
                _text(row.book_version),
                _text(row.list_name),
            )
        )
    return out.getvalue()


def _text(value: str) -> str:
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value
