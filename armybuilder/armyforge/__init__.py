"""Army Forge, in one place: everything that knows its formats and field names.

The site's own formats are armybook/1 (factions) and armylist/1 (armybuilder.lists);
this package reads Army Forge's into them and writes them back, and knows nothing else:
ids.py (its game systems, ids and versions in our names), client.py (its HTTP answers,
bounded), books/ (its army books), lists/ (its two list formats, in and out), rules.py
(its core rules), sync.py (keeping the official books current), admin.py and the
`sync_armyforge` and `import_armybook` commands. It sits above factions and lists, whose
services it writes through, and below the exports, the pages and the API.
"""
