"""The armybook/1 additions for real army books, in the engine, on small books of our own:
what a pick covers and gains, `affects: any` capped by what is there, per-model and
per-item limits, repeats, target counts and plural names, starting items, sections a unit
does without, text rule parameters, negative costs, and required picks on combined units."""

from armybuilder.engine.book import Rule, same_name
from tests.support.engine_helpers import book, codes, hero, only, option, run, section, unit, weapon

HALBERD = {"kind": "weapon", "name": "Halberd", "attacks": 1, "rules": ["AP(1)"]}
BOW = {"kind": "weapon", "name": "Bow", "range": 24, "attacks": 1, "rules": []}


def loadout(result, index: int = 0):
    return result.entries[index].loadout


def weapons(result, index: int = 0) -> dict[str, int]:
    return {w.name: w.count for w in loadout(result, index).weapons}


# -- what a pick covers, and what it gains -----------------------------------------------
GAINS = book(
    "aof",
    [
        unit("spearmen", size=10, equipment=[weapon("Spear", 10)], upgrades=["ALL"]),
        hero("champion", equipment=[weapon("Hand Weapon")], upgrades=["ONE"]),
    ],
    [
        {
            "id": "ALL",
            "sections": [
                section(
                    "all-spears",
                    "replace",
                    [option("halberds", 10, [HALBERD])],
                    label="Replace all Spears",
                    targets=["Spears"],  # written as the label says it: plural
                    affects={"type": "all"},
                )
            ],
        },
        {
            "id": "ONE",
            "sections": [
                section(
                    "one-hw",
                    "replace",
                    [option("twin", 5, [{**HALBERD, "name": "Twin Blade", "count": 2}])],
                    targets=["Hand Weapon"],
                    affects={"type": "exactly", "value": 1},
                )
            ],
        },
    ],
)


def test_replace_all_gives_one_gain_per_replaced_item_and_twice_that_combined():
    alone = run("aof", GAINS, 2000, [{"id": "s", "unit": "spearmen", "options": {"halberds": 1}}])
    both = run("aof", GAINS, 2000, [{"id": "s", "unit": "spearmen", "options": {"halberds": 1}, "combined": True}])
    assert (weapons(alone), weapons(both)) == ({"Halberd": 10}, {"Halberd": 20})
    assert alone.valid and both.valid


def test_a_gain_count_is_per_replaced_item():
    result = run("aof", GAINS, 2000, [{"id": "c", "unit": "champion", "options": {"twin": 1}}])
    assert weapons(result) == {"Twin Blade": 2} and result.valid


# -- affects any, per model, per item, and what is still carried ---------------------------
ANY = book(
    "aof",
    [
        unit("beasts", size=5, equipment=[weapon("Claw", 10)], upgrades=["CLAWS"]),
        hero("gunner", equipment=[weapon("Pistol", 2, range=12)], upgrades=["PISTOLS"]),
        unit("raiders", size=3, equipment=[weapon("Hand Weapon", 3)], upgrades=["KIT"]),
    ],
    [
        {
            "id": "CLAWS",
            "sections": [
                section(
                    "any-model-one-claw",
                    "replace",
                    [option("talon", 3, [{**HALBERD, "name": "Talon"}])],
                    label="Any model may replace one Claw",
                    targets=["Claw"],
                    affects={"type": "any"},
                    select={"type": "exactly", "value": 1, "per": "model"},
                    optional=True,
                )
            ],
        },
        {
            "id": "PISTOLS",
            "sections": [
                section(
                    "swap-pistol",
                    "replace",
                    [option("blunderbuss", 5, [{**BOW, "name": "Blunderbuss", "range": 12}])],
                    label="Replace any Pistol",
                    targets=["Pistol"],
                    affects={"type": "any"},
                ),
                section(
                    "upgrade-pistol",
                    "attachment",
                    [option("silver", 5, [{"kind": "item", "name": "Silver Shot", "rules": ["Rending"]}])],
                    label="Upgrade any Pistol with one",
                    targets=["Pistol"],
                    affects={"type": "any"},
                    select={"type": "exactly", "value": 1, "per": "item"},
                    optional=True,
                ),
            ],
        },
        {
            "id": "KIT",
            "sections": [
                section(
                    "two-each",
                    "upgrade",
                    [
                        option("nets", 2, [{"kind": "item", "name": "Net", "rules": []}]),
                        option("bombs", 4, [{**BOW, "name": "Bomb", "range": 6}]),
                    ],
                    label="Upgrade any model with up to two",
                    affects={"type": "any"},
                    select={"type": "up to", "value": 2, "per": "model"},
                )
            ],
        },
    ],
)


def test_any_model_may_replace_one_claw_is_capped_by_the_models():
    five = run("aof", ANY, 2000, [{"id": "b", "unit": "beasts", "options": {"talon": 5}}])
    assert five.valid and weapons(five) == {"Claw": 5, "Talon": 5}
    six = run("aof", ANY, 2000, [{"id": "b", "unit": "beasts", "options": {"talon": 6}}])
    assert only(six, "option_limit").message == (
        'Beasts: "Any model may replace one Claw" allows at most 5 picks (1 per model), but has 6'
    )


def test_upgrade_any_pistol_takes_one_pick_per_pistol_still_carried():
    both = run("aof", ANY, 2000, [{"id": "g", "unit": "gunner", "options": {"silver": 2}}])
    assert both.valid and [(w.name, w.count, w.rules) for w in loadout(both).weapons] == [("Pistol", 2, ("Rending",))]
    # One Pistol swapped for a Blunderbuss first: one Pistol is left to upgrade.
    swapped = {"id": "g", "unit": "gunner", "options": {"blunderbuss": 1, "silver": 2}}
    issue = only(run("aof", ANY, 2000, [swapped]), "option_limit")
    assert (
        issue.message == 'Gunner: "Upgrade any Pistol with one" allows at most 1 pick (1 per Pistol carried), but has 2'
    )


def test_replace_any_takes_a_pick_per_item_carried_then_reports_what_is_missing():
    assert run("aof", ANY, 2000, [{"id": "g", "unit": "gunner", "options": {"blunderbuss": 2}}]).valid
    three = run("aof", ANY, 2000, [{"id": "g", "unit": "gunner", "options": {"blunderbuss": 3}}])
    assert only(three, "replace_missing").message == (
        'Gunner: "blunderbuss" replaces 3 Pistol, but Gunner has only 2 left'
    )


def test_a_per_model_limit_allows_that_many_for_each_model_with_repeats():
    six = run("aof", ANY, 2000, [{"id": "r", "unit": "raiders", "options": {"nets": 4, "bombs": 2}}])
    assert six.valid and weapons(six)["Bomb"] == 2 and loadout(six).items == ("4x Net",)
    seven = run("aof", ANY, 2000, [{"id": "r", "unit": "raiders", "options": {"nets": 4, "bombs": 3}}])
    assert only(seven, "option_limit").message == (
        'Raiders: "Upgrade any model with up to two" allows at most 6 picks (2 per model), but has 7'
    )


# -- repeats, per option, rule-only options -------------------------------------------------
REPEATS = book(
    "aof",
    [hero("warlord", equipment=[weapon("Hand Weapon")], upgrades=["GEAR"])],
    [
        {
            "id": "GEAR",
            "sections": [
                section(
                    "up-to-two",
                    "upgrade",
                    [
                        option("pistol", 5, [{**BOW, "name": "Pistol", "range": 12}]),
                        option("fearless", 10, [{"kind": "rule", "name": "Fearless"}]),
                    ],
                    label="Upgrade with up to two",
                    select={"type": "up to", "value": 2},
                ),
                section(
                    "each-once",
                    "upgrade",
                    [
                        option("banner", 5, [{"kind": "item", "name": "Banner", "rules": ["Fear(1)"]}]),
                        option("horn", 5, [{"kind": "item", "name": "Horn", "rules": ["Furious"]}]),
                    ],
                    label="Upgrade with",
                    select={"type": "up to", "value": 1, "per": "option"},
                ),
            ],
        }
    ],
)


def test_an_option_may_be_taken_as_often_as_its_section_allows():
    result = run("aof", REPEATS, 2000, [{"id": "w", "unit": "warlord", "options": {"pistol": 2}}])
    assert result.valid and weapons(result)["Pistol"] == 2 and result.entries[0].cost == 70


def test_an_option_that_only_gives_a_rule_is_taken_once():
    result = run("aof", REPEATS, 2000, [{"id": "w", "unit": "warlord", "options": {"fearless": 2}}])
    assert only(result, "option_limit").message == (
        'Warlord: "fearless" gives a rule, which a unit has once; it is taken 2 times'
    )


def test_a_per_option_limit_allows_every_option_once():
    both = run("aof", REPEATS, 2000, [{"id": "w", "unit": "warlord", "options": {"banner": 1, "horn": 1}}])
    assert both.valid
    twice = run("aof", REPEATS, 2000, [{"id": "w", "unit": "warlord", "options": {"banner": 2}}])
    assert only(twice, "option_limit").message == (
        'Warlord: "Upgrade with" allows each option at most once, but "banner" is taken 2 times'
    )


# -- target counts, plural names, starting items ----------------------------------------
ITEMS = book(
    "aof",
    [
        hero(
            "duelist",
            equipment=[weapon("Hand Weapon", 2)],
            upgrades=["PAIR"],
        ),
        {
            **hero("rider", equipment=[weapon("Lance")], upgrades=["MOUNT"]),
            "items": [
                {
                    "name": "Horse",
                    "rules": ["Fast", "Impact(1)"],
                    "equipment": [{"name": "Hooves", "attacks": 2, "rules": []}],
                }
            ],
        },
        unit("pikes", size=5, equipment=[weapon("Pikes", 5)], upgrades=["PIKE"]),
    ],
    [
        {
            "id": "PAIR",
            "sections": [
                section(
                    "two-hw",
                    "replace",
                    [option("maul", 10, [{**HALBERD, "name": "Great Maul", "attacks": 3}])],
                    label="Replace 2x Hand Weapon",
                    targets=[{"name": "Hand Weapon", "count": 2}],
                    affects={"type": "exactly", "value": 1},
                )
            ],
        },
        {
            "id": "MOUNT",
            "sections": [
                section(
                    "swap-mount",
                    "replace",
                    [
                        option(
                            "griffon",
                            40,
                            [
                                {
                                    "kind": "item",
                                    "name": "Griffon",
                                    "rules": ["Flying", "Tough(3)"],
                                    "equipment": [{"name": "Talons", "attacks": 4, "rules": []}],
                                }
                            ],
                        )
                    ],
                    label="Replace Horse",
                    targets=["Horse"],
                    affects={"type": "exactly", "value": 1},
                )
            ],
        },
        {
            "id": "PIKE",
            "sections": [
                section(
                    "pike",
                    "replace",
                    [option("halberd", 1, [HALBERD])],
                    label="Replace any Pike",
                    targets=["Pike"],  # singular, where the unit carries "Pikes"
                    affects={"type": "any"},
                )
            ],
        },
    ],
)


def test_a_target_with_a_count_replaces_that_many_a_pick():
    result = run("aof", ITEMS, 2000, [{"id": "d", "unit": "duelist", "options": {"maul": 1}}])
    assert result.valid and weapons(result) == {"Great Maul": 1}


def test_a_target_with_a_count_needs_that_many_carried():
    short = book(
        "aof",
        [hero("duelist", equipment=[weapon("Hand Weapon", 1)], upgrades=["PAIR"])],
        [{"id": "PAIR", "sections": [_pair_section()]}],
    )
    result = run("aof", short, 2000, [{"id": "d", "unit": "duelist", "options": {"maul": 1}}])
    assert only(result, "replace_missing").message == (
        'Duelist: "maul" replaces 1 2x Hand Weapon, but Duelist has only 0 left'
    )


def _pair_section() -> dict:
    return section(
        "two-hw",
        "replace",
        [option("maul", 10, [{**HALBERD, "name": "Great Maul", "attacks": 3}])],
        targets=[{"name": "Hand Weapon", "count": 2}],
        affects={"type": "exactly", "value": 1},
    )


def test_a_starting_item_gives_its_rules_and_weapons_until_it_is_replaced():
    mounted = run("aof", ITEMS, 2000, [{"id": "r", "unit": "rider"}])
    assert {str(r) for r in loadout(mounted).rules} >= {"Fast", "Impact(1)"}
    assert weapons(mounted) == {"Lance": 1, "Hooves": 1} and loadout(mounted).items == ("Horse",)
    griffon = run("aof", ITEMS, 2000, [{"id": "r", "unit": "rider", "options": {"griffon": 1}}])
    rules = {str(r) for r in loadout(griffon).rules}
    assert "Fast" not in rules and {"Flying", "Tough(6)"} <= rules  # Tough(3) + the Griffon's Tough(3)
    assert weapons(griffon) == {"Lance": 1, "Talons": 1} and loadout(griffon).items == ("Griffon",)
    assert griffon.valid


def test_target_names_match_singular_and_plural_both_ways():
    result = run("aof", ITEMS, 2000, [{"id": "p", "unit": "pikes", "options": {"halberd": 5}}])
    assert result.valid and weapons(result) == {"Halberd": 5}
    assert same_name("Spears", "Spear") and same_name("Spear", "Spears") and same_name("Knives", "Knife")
    assert same_name("Heavy Claws", "heavy claw") and not same_name("Spear", "Spike")


# -- sections a unit does without -------------------------------------------------------------
def test_a_unit_does_without_the_sections_it_names():
    data = book(
        "aof",
        [
            unit("guards", size=5, upgrades=["G"]),
            {**unit("veterans", size=5), "upgrades": [{"package": "G", "without": ["G-weapons"]}]},
        ],
        [
            {
                "id": "G",
                "sections": [
                    section(
                        "G-weapons",
                        "replace",
                        [option("g-halberd", 5, [HALBERD])],
                        targets=["Hand Weapon"],
                        affects={"type": "all"},
                    ),
                    section("G-banner", "upgrade", [option("g-banner", 5, [{"kind": "rule", "name": "Banner"}])]),
                ],
            }
        ],
    )
    assert [s.id for s in data.units["guards"].sections] == ["G-weapons", "G-banner"]
    assert [s.id for s in data.units["veterans"].sections] == ["G-banner"]
    result = run("aof", data, 2000, [{"id": "v", "unit": "veterans", "options": {"g-halberd": 1}}])
    assert codes(result) == ["unknown_option"]


# -- text rule parameters, negative costs ----------------------------------------------------
def test_a_text_parameter_is_kept_as_written_and_never_stacks():
    assert Rule.parse("Spawn(Beetle Swarms [3])") == Rule("Spawn", "Beetle Swarms [3]")
    assert str(Rule.parse("Spawn(Beetle Swarms [3])")) == "Spawn(Beetle Swarms [3])"
    nest = book(
        "aof",
        [
            {
                **hero("queen", rules=["Hero", "Tough(3)", "Spawn(Beetle Swarms [3])"]),
                "upgrades": ["NEST"],
            }
        ],
        [
            {
                "id": "NEST",
                "sections": [
                    section(
                        "nest",
                        "upgrade",
                        [
                            option(
                                "hive",
                                10,
                                [{"kind": "item", "name": "Hive", "rules": ["Spawn(Hive Guards [1])", "Tough(3)"]}],
                            )
                        ],
                    )
                ],
            }
        ],
        rules=[{"name": "Spawn", "rated": True, "text": "Own words: brings a unit into play."}],
    )
    result = run("aof", nest, 2000, [{"id": "q", "unit": "queen", "options": {"hive": 1}}])
    assert [str(r) for r in loadout(result).rules] == [
        "Hero",
        "Tough(6)",  # numbers stack in Age of Fantasy
        "Spawn(Beetle Swarms [3])",
        "Spawn(Hive Guards [1])",  # text never does
    ]


def test_a_cheaper_swap_lowers_the_cost_but_never_below_zero():
    cheap = book(
        "aof",
        [
            hero("scout", cost=5, equipment=[weapon("Rifle", range=24)], upgrades=["S"]),
            hero("sniper", cost=100, equipment=[weapon("Rifle", range=24)], upgrades=["S"]),
        ],
        [
            {
                "id": "S",
                "sections": [
                    section(
                        "S1",
                        "replace",
                        [option("pistol", -10, [{**BOW, "name": "Pistol", "range": 12}])],
                        targets=["Rifle"],
                    )
                ],
            }
        ],
    )
    result = run(
        "aof",
        cheap,
        2000,
        [
            {"id": "a", "unit": "scout", "options": {"pistol": 1}},
            {"id": "b", "unit": "sniper", "options": {"pistol": 1}},
        ],
    )
    assert [e.cost for e in result.entries] == [0, 90] and result.total_points == 90


# -- combined units and required picks --------------------------------------------------------
def test_a_combined_unit_takes_a_required_pick_on_each_copy():
    required = book(
        "aof",
        [unit("militia", size=10, equipment=[weapon("Club", 10)], upgrades=["M"])],
        [
            {
                "id": "M",
                "sections": [
                    section(
                        "M1",
                        "replace",
                        [option("m-spear", 0, [{**HALBERD, "name": "Spear"}])],
                        label="Replace one Club",
                        targets=["Club"],
                        affects={"type": "exactly", "value": 1},
                        select={"type": "exactly", "value": 1},
                    )
                ],
            }
        ],
    )
    one = [{"id": "m", "unit": "militia", "options": {"m-spear": 1}, "combined": True}]
    assert only(run("aof", required, 2000, one), "option_required").message == (
        'Militia: "Replace one Club" needs exactly 2 picks, but has 1'
    )
    two = [{"id": "m", "unit": "militia", "options": {"m-spear": 2}, "combined": True}]
    assert run("aof", required, 2000, two).valid


def test_the_opf_one_hero_limit_cites_preparing_your_army():
    opf = book("opf", [hero("lord", system="opf", rules=["Tough(3)"])])
    issue = only(run("opf", opf, 750, [{"id": "a", "unit": "lord"}, {"id": "b", "unit": "lord"}]), "too_many_heroes")
    assert issue.rule == "One Page Fantasy 3.2.0 — Preparing your Army"
