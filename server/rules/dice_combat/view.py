"""What each viewer of a dice-combat game may see: the GM everything; a player their own
combatants in full, the turn order and everybody's public state; a spectator the public part.
Combatants, waiting attacks and chases are keyed by id; no view lists the other players."""

from collections.abc import Iterable

from server.rules.core import Json, Member
from server.rules.dice_combat.combatant import Combatant
from server.rules.dice_combat.fight import next_up
from server.rules.dice_combat.offers import offers
from server.rules.dice_combat.state import Attack, DiceCombat, Fight
from server.rules.keyed import keyed
from server.rules.offers import may
from server.rules.roster import game_view, member_view, members_view


def view(state: DiceCombat, viewer: Member, now: int) -> Json:
    gm = viewer.role == "organizer"
    mine = frozenset(
        c.combatant_id
        for c in state.combatants.values()
        if viewer.role == "player" and c.player_id == viewer.player_id
    )
    seen = frozenset(state.combatants) if gm else mine
    in_fight = frozenset(state.fight.participants) if state.fight else frozenset()
    result: Json = {
        "game": game_view(state.roster),
        "combatants": keyed(
            (
                {**public(c, in_fight, mine), **(c.dump() if c.combatant_id in seen else {})}
                for c in state.combatants.values()
            ),
            "combatant_id",
        ),
        "fight": None if state.fight is None else fight_view(state, state.fight, seen),
        "attacks": keyed(
            involving(state.fight.attacks.values() if state.fight else (), seen), "attack_id"
        ),
        "recent": involving(state.recent, seen),  # the last RECENT, oldest first: bounded
        "checks": checks_seen(state.checks, seen),  # the last RECENT, oldest first
        "chases": {
            chase.chase_id: {
                "fleeing_id": chase.fleeing_id,
                "chaser_id": chase.chaser_id,
                "lead": chase.lead,
                "round": chase.round,
            }
            for chase in state.chases.values()
        },
    }
    if viewer.role != "spectator":
        result["me"] = member_view(viewer)
    if gm:
        result["members"] = members_view(state.roster)
    result["may"] = may(offers(state, viewer, now))
    return result


def public(who: Combatant, in_fight: frozenset[str], mine: frozenset[str]) -> Json:
    """What everybody at the table knows of a combatant."""
    return {
        "combatant_id": who.combatant_id,
        "name": who.name,
        "side": who.side,
        "size": who.size,
        "condition": who.condition,
        "in_fight": who.combatant_id in in_fight,
        "mine": who.combatant_id in mine,
    }


def fight_view(state: DiceCombat, fight: Fight, seen: frozenset[str]) -> Json:
    """The order and whose turn it is are public; initiative rolls and what each has done this
    round only for the combatants the viewer sees in full."""
    return {
        "fight_id": fight.fight_id,
        "round": fight.round,
        "participants": list(fight.participants),
        "surprised": sorted(fight.surprised),
        "everyone_surprised": fight.everyone_surprised,
        "order": list(fight.order),
        "turn": fight.turn,
        "last_turn": next_up(state, fight) is None,  # next_turn starts a new round
        "initiative": {cid: entry.dump() for cid, entry in fight.initiative.items() if cid in seen},
        "actions": {
            cid: {
                **fight.done(cid).dump(),
                "active_defence": fight.can_parry(state.combatants[cid]),
            }
            for cid in fight.participants
            if cid in seen
        },
        "used": [used.dump() for used in fight.used if used.combatant_id in seen],
        "free_attacks": {
            fleeing: sorted(attackers)
            for fleeing, attackers in fight.free_attacks.items()
            if attackers and (fleeing in seen or attackers & seen)
        },
    }


def involving(attacks: Iterable[Attack], seen: frozenset[str]) -> list[Json]:
    """Attacks, in full, for those who see their attacker or their target."""
    return [a.dump() for a in attacks if a.attacker_id in seen or a.target_id in seen]


def checks_seen(checks: Iterable[Json], seen: frozenset[str]) -> list[Json]:
    """Checks with the rolls of the combatants the viewer sees in full; none without any."""
    shown = []
    for check in checks:
        rolls = [roll for roll in check["rolls"] if roll["combatant_id"] in seen]
        if rolls:
            shown.append({**check, "rolls": rolls})
    return shown
