"""What each viewer of a stamina-deck fight may see: the only door out of the state.

The GM sees everything. A player sees the hand, initiative draw, threat pile and discard of
the characters linked to them, and the face-down cards they put down themselves. Everybody
else sees counts. Nobody but the GM sees the order of a stamina deck: it lies face down.
Characters, bouts, tokens and aids are keyed by id; no view lists the other players.
"""

from collections.abc import Callable

from server.rules.core import Json, Member
from server.rules.offers import may
from server.rules.roster import game_view, member_view, members_view
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.fight import Aid, Bout
from server.rules.stamina_deck.offers import offers
from server.rules.stamina_deck.state import StaminaDeck


def view(state: StaminaDeck, viewer: Member, now: int) -> Json:
    gm = viewer.role == "organizer"
    mine = {
        c.character_id
        for c in state.characters.values()
        if viewer.role == "player" and c.player_id == viewer.player_id
    }

    def sees(character_id: str) -> bool:
        return gm or character_id in mine

    sealed = {down.card_id for bout in state.bouts.values() for down in bout.plays.values()}
    result: Json = {
        "game": game_view(state.roster),
        "round": state.round,
        "phase": state.phase,
        "order": list(state.order),
        "turn": state.on_turn(),
        "mat": {
            "size": state.config.mat_size,
            "tokens": {c.character_id: {"x": c.x, "y": c.y} for c in state.characters.values()},
            "aids": {
                aid.aid_id: aid_view(state, aid, sees(aid.placed_by)) for aid in state.aids.values()
            },
        },
        "characters": {
            c.character_id: character_view(state, c, sealed, sees(c.character_id), gm)
            for c in state.characters.values()
        },
        "bouts": {bout.bout_id: bout_view(state, bout, sees) for bout in state.bouts.values()},
        "waiting": waiting_view(state),
        "feed": list(state.feed),  # the last FEED results, oldest first: bounded
    }
    if viewer.role != "spectator":
        result["me"] = {**member_view(viewer), "characters": sorted(mine)}
    if gm:
        result["members"] = members_view(state.roster)
    result["may"] = may(offers(state, viewer, now))
    return result


def cards(state: StaminaDeck, ids: tuple[str, ...]) -> list[Json]:
    return [state.cards[card_id].dump() for card_id in ids]


def character_view(
    state: StaminaDeck, c: Character, sealed: set[str | None], own: bool, gm: bool
) -> Json:
    weapon = c.weapon
    shown: Json = {
        "name": c.name,
        "side": c.side,
        "player_id": c.player_id,
        "lives": c.lives,
        "lives_lost": c.lives_lost,
        "lives_left": max(0, c.lives - c.lives_lost),
        "wound": c.wound,
        "agi": c.agi,
        "shooting": c.shooting,
        "melee": c.melee,
        "unarmed": c.unarmed,
        "weapon": None if weapon is None else weapon.model_dump(mode="json"),
        "armour": c.armour,
        "cover": c.cover,
        "x": c.x,
        "y": c.y,
        "loaded": c.loaded,
        "reload": {"progress": c.reload_progress, "needed": c.reload_needed},
        "attack_number": c.attack_number,
        "defence_number": c.defence_number,
        "melee_hand": c.melee_hand,
        "in_melee": state.in_melee(c.character_id),
        "actions_left": c.actions_left,
        "initiative": None if c.initiative is None else state.cards[c.initiative].dump(),
        "played": cards(state, tuple(p for p in c.played if p not in sealed)),
        "counts": {
            "deck": len(c.deck),
            "hand": len(c.hand),
            "choice": len(c.choice),
            "threat": len(c.threat),
            "discard": len(c.discard),
        },
    }
    if own:
        shown["hand"] = cards(state, c.hand)
        shown["choice"] = cards(state, c.choice)
        shown["threat"] = cards(state, c.threat)
        shown["discard"] = cards(state, c.discard)
    if gm:
        shown["deck"] = cards(state, c.deck)  # the top first
    return shown


def bout_view(state: StaminaDeck, bout: Bout, sees: Callable[[str], bool]) -> Json:
    """Everybody sees whether a card is down; only its owner and the GM see which."""
    return {
        "attacker": bout.attacker,
        "defender": bout.defender,
        "exchanges": bout.exchanges,
        "opportunity": bout.opportunity,
        "down": {c: c in bout.plays for c in bout.fighters},
        "plays": {
            c: {"card": face(state, down.card_id), "source": down.source}
            for c, down in bout.plays.items()
            if sees(c)
        },
    }


def face(state: StaminaDeck, card_id: str | None) -> Json | None:
    card = state.card(card_id)
    return None if card is None else card.dump()


def aid_view(state: StaminaDeck, aid: Aid, own: bool) -> Json:
    shown: Json = {
        "name": aid.name,
        "x": aid.x,
        "y": aid.y,
        "placed_by": aid.placed_by,
    }
    if own:
        shown["card"] = state.cards[aid.card_id].dump()
    return shown


def waiting_view(state: StaminaDeck) -> Json:
    shot, leave = state.shot, state.leaving
    return {
        "shot": None
        if shot is None
        else {
            "shot_id": shot.shot_id,
            "shooter": shot.shooter,
            "target": shot.target,
            "attack": shot.attack,
            "bonus": shot.bonus,
        },
        # What the fight waits for is one thing at a time: a short list, not a growing one.
        "debts": [
            {"character_id": d.character_id, "count": d.count, "to": d.to} for d in state.debts
        ],
        "leaving": None
        if leave is None
        else {
            "character_id": leave.character_id,
            "x": leave.x,
            "y": leave.y,
            "bouts": list(leave.waiting),
        },
    }
