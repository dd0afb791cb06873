"""The builder's forms (armybuilder/web/forms.py): each bad field is named with what is
wrong, every problem at once, and the views that use them stay short."""

import ast
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import QueryDict

from armybuilder.lists.models import ArmyList
from armybuilder.web import forms
from factions.models import Faction, Ruleset

WEB = Path(__file__).resolve().parents[2] / "armybuilder" / "web"
FACTIONS = WEB.parents[1] / "factions"
GAME_SIZE = "Enter the game size in points, a whole number."
NO_VERSION = "The form did not say which version of the list it was made from."


def _functions_taking_a_request():
    for path in sorted(WEB.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.args.args and node.args.args[0].arg == "request":
                first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
                yield f"{path.name}:{node.name}", node.end_lineno - first + 1


def test_every_view_function_in_web_is_under_30_lines():
    lengths = dict(_functions_taking_a_request())
    assert "builder.py:builder_action" in lengths and "accounts.py:signup" in lengths
    assert {name: lines for name, lines in lengths.items() if lines >= 30} == {}


def _api_export_and_admin_views():
    """Every function or method of the API, the exports and the catalogue's admin (with
    Army Forge's pages of it) taking a request, measured from its `def` (the API's schema
    decorators are documentation, not the view)."""
    paths = [
        *(WEB.parent / "api").glob("*.py"),
        *(WEB.parent / "exports").glob("*.py"),
        *FACTIONS.glob("admin*.py"),
        WEB.parent / "armyforge" / "admin.py",
    ]
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and "request" in [a.arg for a in node.args.args[:2]]:
                yield f"{path.parent.name}/{path.name}:{node.name}:{node.lineno}", node.end_lineno - node.lineno + 1


def test_every_view_of_the_api_the_exports_and_the_admin_is_under_30_lines():
    lengths = dict(_api_export_and_admin_views())
    assert any(name.startswith("api/list_views.py:update:") for name in lengths)
    assert any(name.startswith("armyforge/admin.py:import_view:") for name in lengths)
    assert {name: lines for name, lines in lengths.items() if lines >= 30} == {}


# -- a new list ------------------------------------------------------------------------
def new_list_form(data, system="aof"):
    ruleset = Ruleset.objects.get(slug=system)
    factions = list(Faction.objects.filter(ruleset=ruleset))
    return forms.NewListForm(data, ruleset=ruleset, factions=factions)


def test_a_new_list_of_lots_of_points_is_refused(wardens):
    form = new_list_form({"faction": "test-wardens", "points": "lots"})
    assert form.errors == {"points": [GAME_SIZE]}


def test_a_new_list_without_an_army_or_a_size_names_both(wardens):
    assert new_list_form({"name": "x"}).errors == {"faction": ["Pick an army."], "points": [GAME_SIZE]}


def test_a_new_list_of_an_army_not_in_the_ruleset_is_refused(wardens):
    assert new_list_form({"faction": "nobody", "points": "750"}).errors == {"faction": ['No faction "nobody" in aof.']}


def test_a_new_list_of_0_points_is_an_error_on_the_points(wardens):
    assert list(new_list_form({"faction": "test-wardens", "points": "0"}).errors) == ["points"]


def test_a_good_new_list_form_holds_the_checked_list(wardens):
    form = new_list_form({"faction": " test-wardens ", "points": " 750 ", "name": " Patrol "})
    assert form.is_valid(), form.errors
    listed = form.cleaned_data["list"]
    assert (listed["faction"], listed["points_limit"], listed["name"]) == ("test-wardens", 750, "Patrol")


def test_the_new_list_page_starts_with_the_only_army_and_the_usual_size(wardens, client):
    page = client.get("/new/aof/").content.decode()
    assert 'value="test-wardens" checked' in page and 'value="1500"' in page


def test_the_new_list_page_shows_every_problem_and_what_was_typed(wardens, client):
    response = client.post("/new/aof/", {"points": "lots", "name": "Patrol"})
    page = response.content.decode()
    assert response.status_code == 400
    assert "Pick an army." in page and GAME_SIZE in page
    assert 'value="lots"' in page and 'value="Patrol"' in page
    assert not ArmyList.objects.exists()


def test_an_arena_list_needs_no_points(db, client, make_arena_book):
    from armybuilder.armyforge.books.imports import book_import
    from armybuilder.memo import clear_all

    clear_all()
    book_import(data=make_arena_book())
    form = new_list_form({"faction": "test-pit", "points": "lots"}, system="aof-arena")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["list"]["points_limit"] is None


# -- importing -------------------------------------------------------------------------
def test_an_import_without_a_file_or_a_link_asks_for_one(db):
    form = forms.ImportForm({}, {})
    assert form.errors == {
        "__all__": ["Choose a list file (armylist/1 JSON or an Army Forge list) or paste an Army Forge share link."]
    }


def test_an_empty_file_is_not_a_list_we_can_read(wardens):
    form = forms.ImportForm({}, {"file": SimpleUploadedFile("empty.json", b"")})
    assert form.error_text().startswith("empty.json is not a list we can read: ")


# -- builder actions -------------------------------------------------------------------
LIST = {
    "format": "armylist/1",
    "name": "Patrol",
    "system": "aof",
    "faction": "test-wardens",
    "points_limit": 1500,
    "force_org": True,
    "notes": "",
    "entries": [{"id": "e1", "unit": "wardens", "options": {}, "combined": False, "joined_to": None, "name": None}],
}


def action_form(query: str) -> forms.ActionForm:
    return forms.action_form(QueryDict(query), LIST)


@pytest.mark.parametrize("query", ["action=explode&version=1", "version=1"], ids=["unknown", "missing"])
def test_an_unknown_action_is_an_error_on_the_action(query):
    assert action_form(query).errors == {"action": ["Unknown action."]}


@pytest.mark.parametrize("version", ["", "x", "null", "1.5"])
def test_a_version_that_is_not_a_number_is_refused(version):
    assert action_form(f"action=remove&entry=e1&version={version}").errors == {"version": [NO_VERSION]}


def test_picks_that_are_not_a_number_are_each_named():
    form = action_form("action=options&version=1&entry=e1&partial=1&set=TROOPS-1a%3D-1&set=TROOPS-1b%3Dx")
    assert form.errors == {"set": ['"-1" is not a number of picks.', '"x" is not a number of picks.']}


def test_a_bad_count_in_the_whole_upgrade_form_is_refused(wardens):
    form = action_form("action=options&version=1&entry=e1&o:TROOPS-1a=-3")
    assert form.errors == {"__all__": ['"-3" is not a number of picks.']}


def test_a_bump_that_is_not_one_step_is_refused():
    form = action_form("action=options&version=1&entry=e1&partial=1&bump=TROOPS-1a%3A%2B2")
    assert form.errors == {"bump": ['"TROOPS-1a:+2" is not one more or one less of an option.']}


def test_a_partial_change_adds_to_the_picks_the_list_has(wardens):
    listed = {**LIST, "entries": [{**LIST["entries"][0], "options": {"TROOPS-2a": 1}}]}
    form = forms.action_form(
        QueryDict("action=options&version=1&entry=e1&partial=1&set=TROOPS-1a%3D1&bump=TROOPS-2a%3A-1"), listed
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["list"]["entries"][0]["options"] == {"TROOPS-1a": 1}
    assert form.cleaned_data["selected"] == "e1"


def test_a_move_says_which_way():
    assert action_form("action=move&version=1&entry=e1&step=sideways").errors == {
        "step": ["Say which way: up or down."]
    }


def test_a_points_limit_of_lots_is_refused():
    form = action_form("action=settings&version=1&name=x&points_limit=lots")
    assert form.errors == {"points_limit": ["The points limit must be a whole number above 0."]}


def test_a_change_to_an_entry_not_in_the_list_is_a_form_error(wardens):
    assert action_form("action=remove&version=1&entry=e9").errors == {"__all__": ['No entry "e9" in this list.']}


def test_settings_not_sent_stay_as_they_are(wardens):
    form = action_form("action=settings&version=1&points_limit=750")
    assert form.is_valid(), form.errors
    listed = form.cleaned_data["list"]
    assert (listed["name"], listed["points_limit"], listed["force_org"]) == ("Patrol", 750, False)


# -- what the builder answers ----------------------------------------------------------
@pytest.fixture
def army_list(wardens, client) -> ArmyList:
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    added = client.post(f"/lists/{army_list.pk}/act/", {"version": 1, "action": "add", "unit": "wardens"})
    assert added.status_code == 302
    army_list.refresh_from_db()
    return army_list


def test_a_bad_change_without_javascript_goes_back_with_a_message(army_list, client):
    response = client.post(f"/lists/{army_list.pk}/act/", {"version": "x", "action": "remove", "entry": "e1"})
    assert response.status_code == 302 and response["Location"] == f"/lists/{army_list.pk}/?entry=e1#entry-e1"
    page = client.get(response["Location"]).content.decode()
    assert f"That change could not be made: {NO_VERSION}" in page
    army_list.refresh_from_db()
    assert army_list.version == 2 and len(army_list.entries) == 1


def test_a_bad_live_change_is_a_400_with_the_workspace_at_the_same_version(army_list, client):
    response = client.post(
        f"/lists/{army_list.pk}/act/",
        {"version": 2, "action": "options", "entry": "e1", "partial": "1", "set": "TROOPS-1a=x"},
        HTTP_X_LIVE="1",
    )
    assert response.status_code == 400 and response["X-List-Version"] == "2"
    page = response.content.decode()
    assert "That change could not be made: &quot;x&quot; is not a number of picks." in page
    assert "<html" not in page


def test_an_unknown_action_is_a_plain_400(army_list, client):
    response = client.post(f"/lists/{army_list.pk}/act/", {"version": 2, "action": "explode"}, HTTP_X_LIVE="1")
    assert response.status_code == 400 and response.content == b"Unknown action."
