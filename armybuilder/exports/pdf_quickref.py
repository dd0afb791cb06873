"""One-page quick references of the five rulesets, written here in our own words.

Each topic cites the rulebook sections it condenses (section names as the rulebooks in
shared/rulebooks/ spell them), so that a player can look the full rule up. The summaries
leave out examples and edge cases on purpose: the rulebook is the authority.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Topic:
    title: str
    sections: tuple[str, ...]  # rulebook sections this topic condenses
    points: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class QuickReference:
    intro: str
    topics: tuple[Topic, ...]


AOF = QuickReference(
    intro="Units alternate activations; each activation is one action. Four rounds, then the mission is scored.",
    topics=(
        Topic(
            "Rounds and turns",
            ("Game Structure", "Playing the Game"),
            (
                "Players take it in turns to activate one unit that has not yet acted this round.",
                "When every unit has acted the round is over; whoever ran out of units first in a round "
                "starts the next one.",
                "Play four rounds, then check the mission objectives.",
            ),
        ),
        Topic(
            "Actions and moves",
            ("Activating Units", "Unit Coherency"),
            (
                'Hold: stay in place, shooting is allowed. Advance: up to 6" of movement, then shoot if wanted.',
                'Rush: up to 12", no shooting. Charge: up to 12" ending in base contact, then fight in melee.',
                'Outside a charge, models keep 1" away from other units and never pass through models.',
                'Coherency: each model within 1" of another from its unit and within 9" of all of them.',
            ),
        ),
        Topic(
            "The attack sequence",
            ("The Shooting Sequence", "The Melee Sequence", "Multiple Weapon Types"),
            (
                "1. Add up the Attacks of every weapon that can reach: in range with line of sight for shooting, "
                'in contact or within 2" of the target for melee.',
                "2. Roll a Quality test for each attack; every success is a hit.",
                "3. The defender rolls a die per hit; scoring the Defense value saves it, any other result is a wound.",
                "4. One model is removed per wound, in the order its owner picks.",
                "A unit with several weapon types may split them into groups aimed at no more than two targets.",
            ),
        ),
        Topic(
            "Melee",
            ("Charge Moves", "Return Strikes", "Fatigue", "Melee Resolution", "Consolidation Moves"),
            (
                'Chargers move into contact; target models not yet touching then close in up to 3".',
                "After the charge the target may strike back, even if it has already activated.",
                "Fatigue: from a unit's second melee in the same round, only unmodified 6s hit.",
                "The side that caused fewer wounds lost and takes a morale test; equal wounds mean no test.",
                'Afterwards the winner may move 3" if its enemy is gone; otherwise the charger backs off 1".',
            ),
        ),
        Topic(
            "Morale",
            ("Morale & When to Test", "Taking Morale Tests", "Melee Morale Tests", "Shaken Units", "Routed Units"),
            (
                "Test when wounds bring a unit to half its starting models (or half its Tough for a single model), "
                "and when it loses a melee. The test is a plain Quality test.",
                "A failed test makes the unit Shaken; a melee loser already at half strength or less Routs instead "
                "and leaves the table.",
                "Shaken units count as fatigued, fail every morale test and spend their next activation idle, "
                "which removes the Shaken state.",
            ),
        ),
        Topic(
            "Terrain types",
            ("Terrain Rules", "Open Terrain", "Impassable Terrain", "Blocking Terrain", "Cover Terrain"),
            (
                "Agree what every piece counts as before the game; a piece may have several types.",
                "Open: no effect. Impassable: no entry. Blocking: no line of sight through it.",
                "Cover: +1 to Defense rolls against shooting when most of the unit is in or behind it.",
            ),
        ),
        Topic(
            "More terrain",
            ("Difficult Terrain", "Dangerous Terrain", "Elevated Terrain"),
            (
                'Difficult: a unit that touches it moves at most 6" in that move.',
                "Dangerous: every model moving through it or activated in it rolls a die (as many dice as its Tough); "
                "each 1 is a wound.",
                'Elevated: pieces up to 3" high are climbed as part of the move; taller ones, and gaps wider than 1", '
                "are impassable.",
            ),
        ),
    ),
)

REGIMENTS = QuickReference(
    intro="Blocks of models in ranks, alternate activations, four rounds. The whole game fits on one sheet: "
    "this is the short version of it.",
    topics=(
        Topic(
            "Rounds and formations",
            ("Playing the Game", "General Principles", "Preparation"),
            (
                "Players alternate activating one unit each; the player who deployed first opens round one, "
                "and whoever finished first opens each later round. Four rounds are played.",
                "Models of a unit stand base to base in rows: five wide for units of 5 or 10, three wide for "
                "units of 3 or 6.",
                "A required roll of 7+ is made as a 6 followed by a 4+; a natural 1 always fails.",
            ),
        ),
        Topic(
            "Actions and moves",
            ("Activation", "Movement"),
            (
                'Hold: stand still and shoot if wanted. Advance 6", shooting allowed after the move. '
                'Rush 12" without shooting. Charge 12" into melee.',
                "Holding units may turn up to 180°; the other actions allow a single turn of at most 90°, made "
                "whenever it suits the move.",
                "Sideways and backward moves cover at most half the distance.",
                'Only charging units may come within 1" of another unit.',
            ),
        ),
        Topic(
            "The attack sequence",
            ("Shooting", "Melee", "Weapons"),
            (
                "Every model in range with line of sight fires all its weapons at the target.",
                "Roll a Quality test per attack to hit; the defender rolls a die per hit and each roll that "
                "reaches its Defense stops one wound. Remove one model per wound.",
                "Melee: both sides shuffle into the most contact; models in the front two rows strike, then the "
                "surviving defenders strike back.",
                "A model without a melee weapon still has 1 attack in melee.",
            ),
        ),
        Topic(
            "Winning a melee",
            ("Melee",),
            (
                "Each side counts its wounds plus its number of full ranks; the lower total takes a morale test.",
                'The attacker then steps back 1". If a unit is wiped out, the other turns up to 180° or moves 3" '
                "forward.",
            ),
        ),
        Topic(
            "Morale",
            ("Morale",),
            (
                "Test (a Quality test) when wounds take a unit to half its size or Tough, or when it loses a melee.",
                "A failure leaves it Wavering through its next activation: -1 to hit in melee, and turning is "
                "all it may do.",
                "A unit failing a melee morale test while at half strength or less Routs and is removed.",
            ),
        ),
        Topic(
            "Terrain types",
            ("Terrain",),
            (
                "Cover: shooting at a unit mostly in or behind cover is at -1 to hit.",
                'Difficult: a move through it is capped at 6", whatever the action.',
                "Dangerous: roll a die per model that crosses it or activates in it; each 1 is a wound.",
            ),
        ),
        Topic(
            "Unit types",
            ("Unit Types", "Common Upgrades"),
            (
                "Heroes may deploy inside a friendly Infantry unit, whose Defense and morale rolls then use the value "
                "most of its models have.",
                "Monsters have Fear and Impact(3); Chariots Fast and Impact(3); Artillery is Slow, shoots only on a "
                "Hold and gives melee attackers AP(+2).",
                "Sergeant: +1 to one model's melee or shooting rolls. Musician or Battle Standard: +1 to the melee "
                "result.",
            ),
        ),
    ),
)

SKIRMISH = QuickReference(
    intro="Small warbands of single models and little groups, alternate activations, four rounds.",
    topics=(
        Topic(
            "Rounds and actions",
            ("Game Structure", "Activating Units", "Unit Coherency"),
            (
                "Players alternate activating one unit each; the first to finish opens the next round. "
                "Four rounds are played.",
                'Hold: no movement, may shoot. Advance: 6", may shoot afterwards. Rush: 12", no shooting. '
                'Charge: 12" into base contact, no shooting.',
                'Groups keep every model within 2" of another and within 6" of all of them.',
            ),
        ),
        Topic(
            "Climbing and falling",
            ("Dropping", "Leaping", "Jumping", "Falling"),
            (
                'Dropping off a ledge up to 6", leaping onto an enemy below, or jumping a gap up to 6": '
                'roll one die plus one more per full 3"; all must show 3+.',
                'One failed die and the model falls: it takes a hit with AP(1), +1 AP per full 3" fallen, and '
                "ends up Stunned at the bottom.",
            ),
        ),
        Topic(
            "The attack sequence",
            ("The Shooting Sequence", "The Melee Sequence", "Area Shooting", "Area Striking"),
            (
                "1. Total the Attacks of the weapons that can reach the target.",
                "2. One Quality test per attack; successes are hits.",
                "3. The defender rolls its Defense for each hit; each miss puts a wound marker on the model.",
                "4. Wound check: one die plus its wound markers. 2-5 Stunned, 6 or more Knocked Out (removed).",
                'Several attacks may be spread evenly over enemies within 3" of one model, defender choosing which.',
            ),
        ),
        Topic(
            "Wounds on models and groups",
            ("Stunned Models", "Pushing Stunned Models", "Groups & Wounds"),
            (
                "A Stunned model lies down, does nothing in its next activation, fails morale tests, and is "
                "knocked out by any shooting hit or new charge.",
                'On a 4+ the attacker may push a Stunned model up to 2".',
                "In a group each wound removes a model until one is left; only that last model takes wound markers.",
            ),
        ),
        Topic(
            "Melee",
            ("Charge Moves", "Who Can Strike", "Return Strikes", "Fatigue", "Consolidation Moves"),
            (
                'Chargers move into contact, then untouched defenders close up to 3". Models in contact or '
                'within 2" strike.',
                "The defender may strike back. After its first melee of a round a unit hits only on natural 6s.",
                'Afterwards the charger steps back 1"; if either side was wiped out the other may move 3".',
            ),
        ),
        Topic(
            "Morale",
            ("When to Test", "Taking Morale Tests", "Routed Units"),
            (
                "When a round ends, an army that has lost half or more of the units it began with tests with "
                "each of them; spells and special rules can also call for tests.",
                "A failed test of the half-strength kind routs the unit: it is removed.",
            ),
        ),
        Topic(
            "Terrain types",
            ("Terrain Rules", "Open Terrain", "Elevation", "Cover Terrain", "Difficult Terrain", "Dangerous Terrain"),
            (
                "Open: no effect. Impassable: never crossed.",
                'Elevation (3" or more): climbing counts against the move.',
                "Cover: shooters get -1 to hit a unit mostly in or behind it.",
                'Difficult: moves through it are capped at 6". Dangerous: a die per model moving in (X dice for '
                "Tough(X)); a 1 is a wound.",
            ),
        ),
    ),
)

OPF = QuickReference(
    intro="Ranked units, rounds of four phases, Quality as the only stat. Four rounds, then objectives are counted.",
    topics=(
        Topic(
            "Rounds and phases",
            ("Rounds, Phases & Turns", "Game Structure"),
            (
                "Every round runs Movement, Magic, Shooting, then Melee.",
                "In the Movement phase one player moves all units, then the other; in the later phases the "
                "players take turns attacking with one unit at a time.",
                "The player who finished last in a round goes first in every phase of the next.",
            ),
        ),
        Topic(
            "Actions and moves",
            ("Activating Units", "Holding", "Advancing & Marching", "Charging"),
            (
                'Hold: no move, turn up to 180°, may shoot. Advance: 6", may shoot afterwards. March: 12", no '
                'shooting. Charge: 12" into base contact.',
                "Full distance forward, half sideways or backward, and one turn of up to 90° per move (Nimble "
                "units may turn more).",
                'Advancing and marching units stay 1" clear of other units; chargers shuffle for the most contact.',
            ),
        ),
        Topic(
            "The attack sequence",
            ("Shooting Phase", "Melee Phase", "Return Strikes"),
            (
                "Total the Attacks that can reach; roll a Quality test per attack to hit.",
                "The target rolls its own Quality test per hit to block; every failure removes a model, back row "
                "first.",
                "Melee: the front two rows strike an enemy to their front; the defender strikes back only at an "
                "enemy in its front arc.",
            ),
        ),
        Topic(
            "Winning a melee",
            ("Combat Resolution", "Consolidation Moves", "Common Upgrades"),
            (
                "Score = wounds caused, +1 per full rank after the first, +1 for a flank or +2 for a rear charge, "
                "+1 with a Musician/Standard.",
                "The lower score takes a morale test; a tie means none.",
                'If one side is destroyed the other may turn up to 180°; if not, the charger backs off 1".',
            ),
        ),
        Topic(
            "Morale",
            ("When to Test", "Taking Morale Tests", "Wavered Units", "Routed Units"),
            (
                "Test with a Quality test on dropping to half the starting size or Tough, and on losing a melee.",
                "A failure Wavers the unit, but a melee loser at half its models or fewer Routs and is removed.",
                "Wavered units are Unwieldy in melee, may only turn, and recover after a round spent idle.",
            ),
        ),
        Topic(
            "Terrain types",
            ("Terrain Rules", "Cover Terrain", "Difficult Terrain", "Dangerous Terrain", "Elevation"),
            (
                "Open: no effect. Impassable: no entry.",
                "Cover: roll per shooting hit, 5+ ignores it (not together with Armored).",
                'Difficult: 6" at most through it. Dangerous: a die per model crossing it, each 1 a wound.',
                "Elevation: charging uphill makes the charger Unwieldy; shots from below treat the target as in Cover.",
            ),
        ),
        Topic(
            "Weapons and units",
            ("Weapon Types", "Heroes & Wizards", "Ordnance", "Common Upgrades"),
            (
                "Melee strengths give 1 (Light), 2 (Medium), 3 (Heavy), 4 (Master) or 5 (Force) Attacks. Spear +1 "
                "Attack when charged from the front; Halberd Piercing; Mace Piercing and Poison; Lance Impact(1).",
                '"p" after the Attacks means Piercing; "x" also puts all wounds on one model.',
                "Heroes and Wizards are Nimble on foot. Ordnance neither marches nor charges and shoots only on a "
                "Hold. Mounts add their Tough to the rider's.",
            ),
        ),
    ),
)

ARENA = QuickReference(
    intro="Gladiator warbands on hex boards. The rulebook text we work from stops after Preparation (page 5): "
    "activations, attacks, morale and terrain are not in it, so this page covers what it has.",
    topics=(
        Topic(
            "Model profiles",
            ("Model Stats",),
            (
                "Each model has Move and Rush speeds (in hexes), Evasion, Toughness, Stamina and Health, and may "
                "be a Hero.",
                "Weapons list Range, Accuracy, Strength, Damage, a Critical effect and special rules.",
            ),
        ),
        Topic(
            "Distances, sight and movement",
            ("Measuring Distances", "Line of Sight", "Measuring Movement", "Hex Types"),
            (
                "Count hexes from the one next to the attacker to the target, along any path.",
                "Line of sight runs centre to centre; a blocked or occupied hex in the way breaks it, a touched "
                "border does not.",
                "Movement goes hex to hex up to the model's speed, never through occupied or blocked hexes.",
            ),
        ),
        Topic(
            "Before the fight",
            ("Preparing the Warbands", "Initiative Player", "Placing Traps", "Preparing the Arena"),
            (
                "Each player fields one warband within its composition card.",
                "A roll-off picks the initiative player, who chooses and places first at every step below.",
                "Players take turns setting out the hex boards and one deadly-hex trap each.",
            ),
        ),
        Topic(
            "Objectives and deployment",
            ("Placing Objective Markers", "Priority Objectives", "Deploying Warbands", "Starting Glory"),
            (
                "Three objective markers go on whole hexes, never on an edge hex or a starting, blocked or deadly "
                "one, and more than two hexes from any other marker.",
                "Each player rolls a D3 for its priority objective, seized if a model stands on it during that "
                "player's next rest turn.",
                "Models deploy one at a time on starting hexes of their own board; both sides begin with 3 glory.",
            ),
        ),
        Topic(
            "Winning and general principles",
            ("Winning the Game", "The Most Important Rule", "Re-Rolls", "Roll-Offs"),
            (
                "The first warband to reach 6 VP, scored in its rest turn, wins.",
                "A die is only ever re-rolled once; roll-offs are repeated until someone wins.",
                "When players disagree, a die decides (1-3 one player, 4-6 the other) for the rest of the game.",
            ),
        ),
    ),
)

QUICK_REFERENCES = {"aof": AOF, "aof-regiments": REGIMENTS, "aof-skirmish": SKIRMISH, "opf": OPF, "aof-arena": ARENA}
