"""How each stamina-deck event changes the state. Never fails, never decides, never draws:
every card that moves is named in the event, every new deck order is in it."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.rules import roster
from server.rules.core import Event, Json
from server.rules.stamina_deck.cards import Card
from server.rules.stamina_deck.character import Character, Weapon
from server.rules.stamina_deck.fight import Aid, Bout, Debt, FaceDown, Leave, Shot
from server.rules.stamina_deck.state import FEED, Config, StaminaDeck


def initial_state(config: Json) -> StaminaDeck:
    return StaminaDeck(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: StaminaDeck, event: Event) -> StaminaDeck:
    change = CHANGES.get(event.type)
    if change is None:
        return replace(state, roster=roster.evolve(state.roster, event))
    return change(state, event.data)


# -- small tools -----------------------------------------------------------------------------------


def without(pile: tuple[str, ...], ids: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    gone = set(ids)
    return tuple(card_id for card_id in pile if card_id not in gone)


def put(state: StaminaDeck, *characters: Character) -> StaminaDeck:
    return replace(
        state, characters={**state.characters, **{c.character_id: c for c in characters}}
    )


def change_character(state: StaminaDeck, data: Json, **changes: Any) -> StaminaDeck:
    return put(state, replace(state.characters[data["character_id"]], **changes))


def put_bout(state: StaminaDeck, bout: Bout) -> StaminaDeck:
    return replace(state, bouts={**state.bouts, bout.bout_id: bout})


def fed(state: StaminaDeck, entry: Json) -> StaminaDeck:
    return replace(state, feed=(*state.feed, entry)[-FEED:])


def to_played(state: StaminaDeck, character_id: str, ids: list[str], actions: int) -> StaminaDeck:
    """Cards from the hand onto the table, face up, as actions."""
    me = state.characters[character_id]
    return put(
        state,
        replace(
            me, hand=without(me.hand, ids), played=(*me.played, *ids), actions=me.actions + actions
        ),
    )


def withdraw(state: StaminaDeck, withdrawn: list[Json]) -> StaminaDeck:
    """Face-down cards of an exchange that will not happen go back where they came from."""
    for item in withdrawn:
        me = state.characters[item["character_id"]]
        card_id = item["card_id"]
        me = replace(me, actions=me.actions - item["actions"])
        if card_id is not None:
            me = replace(me, played=without(me.played, [card_id]))
            if item["to"] == "hand":
                me = replace(me, hand=(*me.hand, card_id))
            else:
                me = replace(me, deck=(card_id, *me.deck))
        state = put(state, me)
    return state


# -- setup -----------------------------------------------------------------------------------------


def character_added(state: StaminaDeck, data: Json) -> StaminaDeck:
    cards = [Card.load(card) for card in data["deck"]]
    weapon = data["weapon"] and Weapon.model_validate(data["weapon"], strict=False)
    character = Character(
        character_id=data["character_id"],
        name=data["name"],
        side=data["side"],
        player_id=data["player_id"],
        lives=data["lives"],
        agi=data["agi"],
        shooting=data["shooting"],
        melee=data["melee"],
        unarmed=data["unarmed"],
        weapon=weapon,
        armour=data["armour"],
        x=data["x"],
        y=data["y"],
        loaded=data["loaded"],
        deck=tuple(card.card_id for card in cards),
    )
    state = replace(state, cards={**state.cards, **{card.card_id: card for card in cards}})
    return put(state, character)


def character_linked(state: StaminaDeck, data: Json) -> StaminaDeck:
    return change_character(state, data, player_id=data["player_id"])


def character_placed(state: StaminaDeck, data: Json) -> StaminaDeck:
    return change_character(state, data, x=data["x"], y=data["y"])


def cover_set(state: StaminaDeck, data: Json) -> StaminaDeck:
    return change_character(state, data, cover=data["cover"])


# -- rounds and initiative -------------------------------------------------------------------------


def round_ended(state: StaminaDeck, data: Json) -> StaminaDeck:
    state = withdraw(state, data["withdrawn"])
    for character_id, ids in data["discarded"].items():
        me = state.characters[character_id]
        state = put(
            state,
            replace(
                me,
                played=without(me.played, ids),
                threat=without(me.threat, ids),
                discard=(*me.discard, *ids),
            ),
        )
    bouts = {k: replace(b, exchanges=0, plays={}) for k, b in state.bouts.items()}
    return replace(state, bouts=bouts)


def round_started(state: StaminaDeck, data: Json) -> StaminaDeck:
    rested = [replace(c, actions=0) for c in state.characters.values()]
    return replace(
        put(state, *rested),
        round=data["round"],
        phase="initiative",
        seats=tuple(data["seats"]),
        limping=tuple(data["limping"]),
        order=(),
        turn=None,
    )


def initiative_drawn(state: StaminaDeck, data: Json) -> StaminaDeck:
    ids = [card["card_id"] for card in data["cards"]]
    me = state.characters[data["character_id"]]
    return put(state, replace(me, deck=without(me.deck, ids), choice=tuple(ids)))


def initiative_chosen(state: StaminaDeck, data: Json) -> StaminaDeck:
    kept = data["card"] and data["card"]["card_id"]
    return change_character(state, data, initiative=kept, choice=(), deck=tuple(data["deck"]))


def initiative_ordered(state: StaminaDeck, data: Json) -> StaminaDeck:
    for character_id, deck in data["decks"].items():
        state = put(state, replace(state.characters[character_id], deck=tuple(deck)))
    order = tuple(data["order"])
    entry = {
        "kind": "initiative",
        **{k: v for k, v in data.items() if k not in ("decks", "chance")},
    }
    return fed(replace(state, phase="actions", order=order, turn=0 if order else None), entry)


def hand_drawn(state: StaminaDeck, data: Json) -> StaminaDeck:
    ids = [card["card_id"] for card in data["cards"]]
    me = state.characters[data["character_id"]]
    return put(state, replace(me, deck=without(me.deck, ids), hand=(*me.hand, *ids)))


def turn_ended(state: StaminaDeck, data: Json) -> StaminaDeck:
    following = data["next"]
    return replace(state, turn=None if following is None else state.order.index(following))


# -- moving ----------------------------------------------------------------------------------------


def character_moved(state: StaminaDeck, data: Json) -> StaminaDeck:
    me = state.characters[data["character_id"]]
    card = [] if data["card_id"] is None else [data["card_id"]]
    state = to_played(state, me.character_id, card, data["actions"])
    state = change_character(state, data, x=data["to"]["x"], y=data["to"]["y"])
    if state.leaving is not None and state.leaving.character_id == me.character_id:
        state = replace(state, leaving=None)
    return state


def leave_started(state: StaminaDeck, data: Json) -> StaminaDeck:
    state = to_played(state, data["character_id"], [data["card_id"]], data["actions"])
    to = data["to"]
    bouts = {k: replace(b, opportunity=k in data["bouts"]) for k, b in state.bouts.items()}
    leave = Leave(data["character_id"], to["x"], to["y"], tuple(data["bouts"]))
    return replace(state, bouts=bouts, leaving=leave)


def leave_failed(state: StaminaDeck, data: Json) -> StaminaDeck:
    return replace(state, leaving=None)


# -- shooting --------------------------------------------------------------------------------------


def shot_fired(state: StaminaDeck, data: Json) -> StaminaDeck:
    ids = [card["card_id"] for card in data["cards"]]
    state = to_played(state, data["shooter"], ids, data["actions"])
    shooter = replace(state.characters[data["shooter"]], loaded=False, reload_progress=0)
    shot = Shot(data["shot_id"], data["shooter"], data["target"], data["attack"], data["bonus"])
    entry = {"kind": "shot", **{k: v for k, v in data.items() if k not in ("chance", "actions")}}
    return fed(replace(put(state, shooter), shot=shot), entry)


def shot_defended(state: StaminaDeck, data: Json) -> StaminaDeck:
    me = state.characters[data["target"]]
    card_id = data["card"] and data["card"]["card_id"]
    if data["source"] == "hand":
        me = replace(me, hand=without(me.hand, [card_id]), played=(*me.played, card_id))
    elif data["source"] == "deck":
        me = replace(me, deck=without(me.deck, [card_id]), played=(*me.played, card_id))
    return fed(replace(put(state, me), shot=None), {"kind": "defence", **data})


def reload_progressed(state: StaminaDeck, data: Json) -> StaminaDeck:
    state = to_played(state, data["character_id"], [data["card_id"]], data["actions"])
    return change_character(
        state,
        data,
        loaded=data["loaded"],
        reload_progress=0 if data["loaded"] else data["progress"],
    )


def aid_put(state: StaminaDeck, data: Json) -> StaminaDeck:
    me = state.characters[data["character_id"]]
    card_id = data["card_id"]
    me = replace(me, hand=without(me.hand, [card_id]), actions=me.actions + data["actions"])
    aid = Aid(data["aid_id"], data["name"], card_id, me.character_id, data["x"], data["y"])
    return replace(put(state, me), aids={**state.aids, aid.aid_id: aid})


def aid_used(state: StaminaDeck, data: Json) -> StaminaDeck:
    me = state.characters[data["character_id"]]
    aids = {k: a for k, a in state.aids.items() if k != data["aid_id"]}
    return replace(put(state, replace(me, hand=(*me.hand, data["card_id"]))), aids=aids)


# -- stamina ---------------------------------------------------------------------------------------


def cards_owed(state: StaminaDeck, data: Json) -> StaminaDeck:
    debt = Debt(data["character_id"], data["count"], data["to"])
    return replace(state, debts=(*state.debts, debt))


def cards_given(state: StaminaDeck, data: Json) -> StaminaDeck:
    me = state.characters[data["character_id"]]
    hand, deck = data["hand"], data["deck"]
    me = replace(me, hand=without(me.hand, hand), deck=without(me.deck, deck))
    if data["to"] == "deck":
        me = replace(me, deck=(*hand, *me.deck))  # back on top, the first named on top
    elif data["to"] == "threat":
        me = replace(me, threat=(*me.threat, *hand, *deck))
    else:
        me = replace(me, discard=(*me.discard, *hand, *deck))
    debts = tuple(d for d in state.debts if d.character_id != me.character_id)
    return replace(put(state, me), debts=debts)


def character_wounded(state: StaminaDeck, data: Json) -> StaminaDeck:
    state = change_character(state, data, lives_lost=data["total_lost"], wound=data["severity"])
    return fed(state, {"kind": "wound", **data})


def deck_renewed(state: StaminaDeck, data: Json) -> StaminaDeck:
    return change_character(state, data, deck=tuple(data["deck"]), discard=())


# -- melee -----------------------------------------------------------------------------------------


def bout_started(state: StaminaDeck, data: Json) -> StaminaDeck:
    return put_bout(state, Bout(data["bout_id"], data["attacker"], data["defender"]))


def bout_ended(state: StaminaDeck, data: Json) -> StaminaDeck:
    state = withdraw(state, data["withdrawn"])
    bouts = {k: b for k, b in state.bouts.items() if k != data["bout_id"]}
    leave = state.leaving
    if leave is not None:
        leave = replace(leave, waiting=tuple(b for b in leave.waiting if b != data["bout_id"]))
    return replace(state, bouts=bouts, leaving=leave)


def card_played(state: StaminaDeck, data: Json) -> StaminaDeck:
    me = state.characters[data["character_id"]]
    card_id = data["card_id"]
    if data["source"] == "hand":
        me = replace(me, hand=without(me.hand, [card_id]), played=(*me.played, card_id))
    elif data["source"] == "deck":
        me = replace(me, deck=without(me.deck, [card_id]), played=(*me.played, card_id))
    me = replace(me, actions=me.actions + data["actions"])
    bout = state.bouts[data["bout_id"]]
    down = FaceDown(card_id, data["source"], data["actions"])
    return put_bout(put(state, me), replace(bout, plays={**bout.plays, me.character_id: down}))


def exchange_revealed(state: StaminaDeck, data: Json) -> StaminaDeck:
    bout = state.bouts[data["bout_id"]]
    if data["returned"]:
        defender = state.characters[data["defender"]]
        threat = without(defender.threat, data["returned"])
        state = put(state, replace(defender, threat=threat, deck=tuple(data["deck"])))
    attacker, defender = data["attacker"], data["defender"]
    if data["initiative"] == defender:
        attacker, defender = defender, attacker
    counted = 0 if data["opportunity"] else 1
    bout = replace(
        bout,
        attacker=attacker,
        defender=defender,
        plays={},
        exchanges=bout.exchanges + counted,
        opportunity=False,
    )
    leave = state.leaving
    if leave is not None and data["opportunity"]:
        leave = replace(leave, waiting=tuple(b for b in leave.waiting if b != bout.bout_id))
    entry = {"kind": "exchange", **{k: v for k, v in data.items() if k not in PRIVATE_EXCHANGE}}
    return fed(replace(put_bout(state, bout), leaving=leave), entry)


PRIVATE_EXCHANGE = ("returned", "deck", "chance")  # which threat cards went back is the owner's


CHANGES: dict[str, Callable[[StaminaDeck, Json], StaminaDeck]] = {
    "character_added": character_added,
    "character_linked": character_linked,
    "character_placed": character_placed,
    "cover_set": cover_set,
    "round_ended": round_ended,
    "round_started": round_started,
    "initiative_drawn": initiative_drawn,
    "initiative_chosen": initiative_chosen,
    "initiative_ordered": initiative_ordered,
    "hand_drawn": hand_drawn,
    "turn_ended": turn_ended,
    "character_moved": character_moved,
    "leave_started": leave_started,
    "leave_failed": leave_failed,
    "shot_fired": shot_fired,
    "shot_defended": shot_defended,
    "reload_progressed": reload_progressed,
    "aid_put": aid_put,
    "aid_used": aid_used,
    "cards_owed": cards_owed,
    "cards_given": cards_given,
    "character_wounded": character_wounded,
    "deck_renewed": deck_renewed,
    "bout_started": bout_started,
    "bout_ended": bout_ended,
    "card_played": card_played,
    "exchange_revealed": exchange_revealed,
}
