"""Issue 37, names: a list read from Army Forge has the Unicode direction controls taken
out of its name and its units' own names, which a list here refuses, rather than the
import failing for a stray mark."""

from __future__ import annotations

from tests.armyforge.test_interop import AOF_LIST, emberfolk, load, player  # noqa: F401 (fixtures)

RLO = "\u202e"


def test_an_army_forge_list_with_overrides_in_its_names_imports_without_them(emberfolk, player):  # noqa: F811
    data = load(AOF_LIST)
    data["list"]["name"] = f"{RLO}Forge Watch"
    data["list"]["units"][1]["customName"] = f"Ash{RLO} Wall"
    response = player.post("/api/lists/import/", data, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["name"] == "Forge Watch"
    assert "Ash Wall" in [entry["name"] for entry in created["entries"]]
