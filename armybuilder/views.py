from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from factions.selectors import faction_list, ruleset_list


def home(request: HttpRequest) -> HttpResponse:
    """The rulesets and their army books. (The list builder comes with its own pages.)"""
    factions = list(faction_list())
    rulesets = [(ruleset, [f for f in factions if f.ruleset_id == ruleset.id]) for ruleset in ruleset_list()]
    return render(request, "home.html", {"rulesets": rulesets})
