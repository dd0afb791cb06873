"""The rules engine: pure Python, no Django.

Plain data in (an army book and a ruleset as dicts, an `armylist/1` list as a dict),
plain data out (loadouts, costs, issues). See `validate.validate_list`.
"""

from armybuilder.engine.book import Book, RulesetSpec, book_from_dict, ruleset_from_dict
from armybuilder.engine.lists import ArmyList, Entry, list_from_dict
from armybuilder.engine.results import EntryResult, Issue, Validation
from armybuilder.engine.validate import validate_list

__all__ = [
    "ArmyList",
    "Book",
    "Entry",
    "EntryResult",
    "Issue",
    "RulesetSpec",
    "Validation",
    "book_from_dict",
    "list_from_dict",
    "ruleset_from_dict",
    "validate_list",
]
