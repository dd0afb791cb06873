"""Army Forge's army books, read into armybook/1 (convert.py, the whole book; a module for
each part it reads: units.py, weapons.py (and items), packages.py, rules.py, spells.py,
on the shared state of one reading, reading.py) and imported (imports.py)."""
