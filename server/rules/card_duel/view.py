"""What each viewer of a card-duel game may see: the only door out of the state."""

from server.clock import iso, iso_or_none
from server.rules.card_duel.state import CardDuel, Duel, Fighter
from server.rules.core import Json, Member
from server.rules.roster import game_view, member_view


def view(state: CardDuel, viewer: Member, now: int) -> Json:
    members = state.roster.members
    public = [
        {
            "player_id": f.player_id,
            "name": members[f.player_id].name,
            "code": members[f.player_id].code,
            "challengeable": state.challengeable(f, now),
        }
        for f in state.fighters.values()
    ]
    result: Json = {"game": game_view(state.roster), "players": public}
    if viewer.role == "organizer":
        for entry, each in zip(public, state.fighters.values(), strict=True):
            entry.update(status(each))
            entry["duel_id"] = state.active_duel(each, now) and each.duel_id
        result["me"] = {"player_id": viewer.player_id, "name": viewer.name, "role": viewer.role}
        result["duels"] = [duel_view(d) for d in state.duels.values() if not d.expired(now)]
        result["members"] = [member_view(m) for m in members.values()]
        return result
    fighter = state.fighters.get(viewer.player_id)
    if fighter is None:
        if viewer.role != "spectator":
            result["me"] = {**member_view(viewer)}
        return result
    result["me"] = {**member_view(viewer), **status(fighter)}
    duel = state.active_duel(fighter, now)
    result["duel"] = duel and my_duel(state, duel, viewer.player_id)
    last = state.last_duels.get(viewer.player_id)
    result["last_duel"] = last and my_last_duel(state, last, viewer.player_id)
    return result


def status(fighter: Fighter) -> Json:
    return {
        "alive": fighter.alive,
        "wounded": fighter.wounded,
        "stunned_until": iso_or_none(fighter.stunned_until),
        "immune_until": iso_or_none(fighter.immune_until),
        "items": list(fighter.items),
        "cards": [card.dump() for card in fighter.cards],
    }


def opponent(state: CardDuel, duel: Duel, me: str) -> Json:
    other = duel.opponent(me)
    return {"player_id": other, "name": state.roster.members[other].name}


def my_duel(state: CardDuel, duel: Duel, me: str) -> Json:
    """A duellist sees whether the opponent has picked, never what."""
    return {
        "duel_id": duel.duel_id,
        "opponent": opponent(state, duel, me),
        "round": duel.round,
        "my_pick": duel.picks.get(me),
        "opponent_picked": duel.opponent(me) in duel.picks,
        "ranged": duel.ranged,
        "deadline": iso_or_none(duel.deadline),
        "leave_from": iso(duel.leave_from),
        "rounds": rounds(duel),
    }


def my_last_duel(state: CardDuel, duel: Duel, me: str) -> Json:
    return {
        "duel_id": duel.duel_id,
        "opponent": opponent(state, duel, me),
        "rounds": rounds(duel),
        "outcomes": [
            {"player_id": o.player_id, "effect": o.effect, "until": iso_or_none(o.until)}
            for o in duel.outcomes
        ],
    }


def rounds(duel: Duel) -> list[Json]:
    return [
        {
            "round": r.round,
            "cards": {p: card.dump() for p, card in r.cards.items()},
            "winners": list(r.winners),
        }
        for r in duel.rounds
    ]


def duel_view(duel: Duel) -> Json:
    """The organizer's view of a duel in progress, picks included."""
    return {
        "duel_id": duel.duel_id,
        "players": list(duel.players),
        "round": duel.round,
        "picks": {p: duel.picks.get(p) for p in duel.players},
        "ranged": duel.ranged,
        "deadline": iso_or_none(duel.deadline),
        "leave_from": iso(duel.leave_from),
    }
