"""How each stamina-deck event changes the state. Never fails, never decides, never draws:
every card that moves is named in the event, every new deck order is in it."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import msgspec

from server.rules import roster
from server.rules.core import Event, Json
from server.rules.events import Fact
from server.rules.stamina_deck.cards import Card, CardFace
from server.rules.stamina_deck.character import Character, Weapon
from server.rules.stamina_deck.events import (
    AidPut,
    AidUsed,
    BoutEnded,
    BoutStarted,
    CardPlayed,
    CardsGiven,
    CardsOwed,
    CharacterAdded,
    CharacterLinked,
    CharacterMoved,
    CharacterPlaced,
    CharacterWounded,
    CoverSet,
    DebtCancelled,
    DeckRenewed,
    ExchangeRevealed,
    HandDrawn,
    InitiativeChosen,
    InitiativeDrawn,
    InitiativeOrdered,
    LeaveFailed,
    LeaveStarted,
    ReloadProgressed,
    RoundEnded,
    RoundStarted,
    ShotCancelled,
    ShotDefended,
    ShotFired,
    TurnEnded,
    Withdrawn,
)
from server.rules.stamina_deck.fight import Aid, Bout, Debt, FaceDown, Leave, Shot, Source
from server.rules.stamina_deck.state import FEED, Config, StaminaDeck


def initial_state(config: Json) -> StaminaDeck:
    return StaminaDeck(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: StaminaDeck, event: Event) -> StaminaDeck:
    change = CHANGES.get(type(event.fact))
    if change is None:
        return replace(state, roster=roster.evolve(state.roster, event))
    return change(state, event.fact)


# -- small tools -----------------------------------------------------------------------------------


def without(pile: tuple[str, ...], ids: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    gone = set(ids)
    return tuple(card_id for card_id in pile if card_id not in gone)


def put(state: StaminaDeck, *characters: Character) -> StaminaDeck:
    return replace(
        state, characters={**state.characters, **{c.character_id: c for c in characters}}
    )


def change_character(state: StaminaDeck, character_id: str, **changes: Any) -> StaminaDeck:
    return put(state, replace(state.characters[character_id], **changes))


def put_bout(state: StaminaDeck, bout: Bout) -> StaminaDeck:
    return replace(state, bouts={**state.bouts, bout.bout_id: bout})


def fed(state: StaminaDeck, kind: str, fact: Fact, *hidden: str) -> StaminaDeck:
    """A public result on the screens: the event as written, but for what only its owner (or
    nobody) may see, and its draws."""
    written = msgspec.to_builtins(fact)
    entry = {"kind": kind, **{k: v for k, v in written.items() if k not in hidden}}
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


def withdraw(state: StaminaDeck, withdrawn: list[Withdrawn]) -> StaminaDeck:
    """Face-down cards of an exchange that will not happen go back where they came from."""
    for item in withdrawn:
        me = state.characters[item.character_id]
        card_id = item.card_id
        me = replace(me, actions=me.actions - item.actions)
        if card_id is not None:
            me = replace(me, played=without(me.played, [card_id]))
            if item.to == "hand":
                me = replace(me, hand=(*me.hand, card_id))
            else:
                me = replace(me, deck=(card_id, *me.deck))
        state = put(state, me)
    return state


def from_pile(me: Character, card_id: str | None, source: Source) -> Character:
    """A card played face up (or face down in a bout) from the hand or the deck top; with
    source "none" there was no card to play."""
    if card_id is None or source == "none":
        return me
    if source == "hand":
        return replace(me, hand=without(me.hand, [card_id]), played=(*me.played, card_id))
    return replace(me, deck=without(me.deck, [card_id]), played=(*me.played, card_id))


def card_ids(cards: list[CardFace]) -> list[str]:
    return [card.card_id for card in cards]


# -- setup -----------------------------------------------------------------------------------------


def character_added(state: StaminaDeck, fact: CharacterAdded) -> StaminaDeck:
    cards = [Card.load(card) for card in fact.deck]
    weapon = None if fact.weapon is None else Weapon(**msgspec.structs.asdict(fact.weapon))
    character = Character(
        character_id=fact.character_id,
        name=fact.name,
        side=fact.side,
        player_id=fact.player_id,
        lives=fact.lives,
        agi=fact.agi,
        shooting=fact.shooting,
        melee=fact.melee,
        unarmed=fact.unarmed,
        weapon=weapon,
        armour=fact.armour,
        x=fact.x,
        y=fact.y,
        loaded=fact.loaded,
        deck=tuple(card.card_id for card in cards),
    )
    state = replace(state, cards={**state.cards, **{card.card_id: card for card in cards}})
    return put(state, character)


def character_linked(state: StaminaDeck, fact: CharacterLinked) -> StaminaDeck:
    return change_character(state, fact.character_id, player_id=fact.player_id)


def character_placed(state: StaminaDeck, fact: CharacterPlaced) -> StaminaDeck:
    return change_character(state, fact.character_id, x=fact.x, y=fact.y)


def cover_set(state: StaminaDeck, fact: CoverSet) -> StaminaDeck:
    return change_character(state, fact.character_id, cover=fact.cover)


# -- rounds and initiative -------------------------------------------------------------------------


def round_ended(state: StaminaDeck, fact: RoundEnded) -> StaminaDeck:
    state = withdraw(state, fact.withdrawn)
    for character_id, ids in fact.discarded.items():
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


def round_started(state: StaminaDeck, fact: RoundStarted) -> StaminaDeck:
    rested = [replace(c, actions=0) for c in state.characters.values()]
    return replace(
        put(state, *rested),
        round=fact.round,
        phase="initiative",
        seats=tuple(fact.seats),
        limping=tuple(fact.limping),
        order=(),
        turn=None,
    )


def initiative_drawn(state: StaminaDeck, fact: InitiativeDrawn) -> StaminaDeck:
    ids = card_ids(fact.cards)
    me = state.characters[fact.character_id]
    return put(state, replace(me, deck=without(me.deck, ids), choice=tuple(ids)))


def initiative_chosen(state: StaminaDeck, fact: InitiativeChosen) -> StaminaDeck:
    kept = None if fact.card is None else fact.card.card_id
    return change_character(
        state, fact.character_id, initiative=kept, choice=(), deck=tuple(fact.deck)
    )


def initiative_ordered(state: StaminaDeck, fact: InitiativeOrdered) -> StaminaDeck:
    for character_id, deck in fact.decks.items():
        state = put(state, replace(state.characters[character_id], deck=tuple(deck)))
    order = tuple(fact.order)
    state = replace(state, phase="actions", order=order, turn=0 if order else None)
    return fed(state, "initiative", fact, "decks", "chance")


def hand_drawn(state: StaminaDeck, fact: HandDrawn) -> StaminaDeck:
    ids = card_ids(fact.cards)
    me = state.characters[fact.character_id]
    return put(state, replace(me, deck=without(me.deck, ids), hand=(*me.hand, *ids)))


def turn_ended(state: StaminaDeck, fact: TurnEnded) -> StaminaDeck:
    following = fact.next
    return replace(state, turn=None if following is None else state.order.index(following))


# -- moving ----------------------------------------------------------------------------------------


def character_moved(state: StaminaDeck, fact: CharacterMoved) -> StaminaDeck:
    me = state.characters[fact.character_id]
    card = [] if fact.card_id is None else [fact.card_id]
    state = to_played(state, me.character_id, card, fact.actions)
    state = change_character(state, me.character_id, x=fact.to.x, y=fact.to.y)
    if state.leaving is not None and state.leaving.character_id == me.character_id:
        state = replace(state, leaving=None)
    return state


def leave_started(state: StaminaDeck, fact: LeaveStarted) -> StaminaDeck:
    card = [] if fact.card_id is None else [fact.card_id]
    state = to_played(state, fact.character_id, card, fact.actions)
    to = fact.to
    bouts = {k: replace(b, opportunity=k in fact.bouts) for k, b in state.bouts.items()}
    leave = Leave(fact.character_id, to.x, to.y, tuple(fact.bouts))
    return replace(state, bouts=bouts, leaving=leave)


def leave_failed(state: StaminaDeck, fact: LeaveFailed) -> StaminaDeck:
    return replace(state, leaving=None)


# -- shooting --------------------------------------------------------------------------------------


def shot_fired(state: StaminaDeck, fact: ShotFired) -> StaminaDeck:
    state = to_played(state, fact.shooter, card_ids(fact.cards), fact.actions)
    shooter = replace(state.characters[fact.shooter], loaded=False, reload_progress=0)
    shot = Shot(fact.shot_id, fact.shooter, fact.target, fact.attack, fact.bonus)
    return fed(replace(put(state, shooter), shot=shot), "shot", fact, "chance", "actions")


def shot_defended(state: StaminaDeck, fact: ShotDefended) -> StaminaDeck:
    card_id = None if fact.card is None else fact.card.card_id
    me = from_pile(state.characters[fact.target], card_id, fact.source)
    return fed(replace(put(state, me), shot=None), "defence", fact)


def shot_cancelled(state: StaminaDeck, fact: ShotCancelled) -> StaminaDeck:
    return replace(state, shot=None)


def reload_progressed(state: StaminaDeck, fact: ReloadProgressed) -> StaminaDeck:
    state = to_played(state, fact.character_id, [fact.card_id], fact.actions)
    return change_character(
        state,
        fact.character_id,
        loaded=fact.loaded,
        reload_progress=0 if fact.loaded else fact.progress,
    )


def aid_put(state: StaminaDeck, fact: AidPut) -> StaminaDeck:
    me = state.characters[fact.character_id]
    card_id = fact.card_id
    me = replace(me, hand=without(me.hand, [card_id]), actions=me.actions + fact.actions)
    aid = Aid(fact.aid_id, fact.name, card_id, me.character_id, fact.x, fact.y)
    return replace(put(state, me), aids={**state.aids, aid.aid_id: aid})


def aid_used(state: StaminaDeck, fact: AidUsed) -> StaminaDeck:
    me = state.characters[fact.character_id]
    aids = {k: a for k, a in state.aids.items() if k != fact.aid_id}
    return replace(put(state, replace(me, hand=(*me.hand, fact.card_id))), aids=aids)


# -- stamina ---------------------------------------------------------------------------------------


def cards_owed(state: StaminaDeck, fact: CardsOwed) -> StaminaDeck:
    debt = Debt(fact.character_id, fact.count, fact.to)
    return replace(state, debts=(*state.debts, debt))


def cards_given(state: StaminaDeck, fact: CardsGiven) -> StaminaDeck:
    me = state.characters[fact.character_id]
    hand, deck = fact.hand, fact.deck
    me = replace(me, hand=without(me.hand, hand), deck=without(me.deck, deck))
    if fact.to == "deck":
        me = replace(me, deck=(*hand, *me.deck))  # back on top, the first named on top
    elif fact.to == "threat":
        me = replace(me, threat=(*me.threat, *hand, *deck))
    else:
        me = replace(me, discard=(*me.discard, *hand, *deck))
    return replace(put(state, me), debts=debts_but(state, me.character_id))


def debt_cancelled(state: StaminaDeck, fact: DebtCancelled) -> StaminaDeck:
    return replace(state, debts=debts_but(state, fact.character_id))


def debts_but(state: StaminaDeck, character_id: str) -> tuple[Debt, ...]:
    return tuple(d for d in state.debts if d.character_id != character_id)


def character_wounded(state: StaminaDeck, fact: CharacterWounded) -> StaminaDeck:
    state = change_character(
        state, fact.character_id, lives_lost=fact.total_lost, wound=fact.severity
    )
    return fed(state, "wound", fact)


def deck_renewed(state: StaminaDeck, fact: DeckRenewed) -> StaminaDeck:
    return change_character(state, fact.character_id, deck=tuple(fact.deck), discard=())


# -- melee -----------------------------------------------------------------------------------------


def bout_started(state: StaminaDeck, fact: BoutStarted) -> StaminaDeck:
    return put_bout(state, Bout(fact.bout_id, fact.attacker, fact.defender))


def bout_ended(state: StaminaDeck, fact: BoutEnded) -> StaminaDeck:
    state = withdraw(state, fact.withdrawn)
    bouts = {k: b for k, b in state.bouts.items() if k != fact.bout_id}
    leave = state.leaving
    if leave is not None:
        leave = replace(leave, waiting=tuple(b for b in leave.waiting if b != fact.bout_id))
    return replace(state, bouts=bouts, leaving=leave)


def card_played(state: StaminaDeck, fact: CardPlayed) -> StaminaDeck:
    card_id = fact.card_id
    me = from_pile(state.characters[fact.character_id], card_id, fact.source)
    me = replace(me, actions=me.actions + fact.actions)
    bout = state.bouts[fact.bout_id]
    down = FaceDown(card_id, fact.source, fact.actions)
    return put_bout(put(state, me), replace(bout, plays={**bout.plays, me.character_id: down}))


def exchange_revealed(state: StaminaDeck, fact: ExchangeRevealed) -> StaminaDeck:
    bout = state.bouts[fact.bout_id]
    if fact.returned and fact.deck is not None:  # the deck is written whenever cards return
        defender = state.characters[fact.defender]
        threat = without(defender.threat, fact.returned)
        state = put(state, replace(defender, threat=threat, deck=tuple(fact.deck)))
    attacker, defender_id = fact.attacker, fact.defender
    if fact.initiative == defender_id:
        attacker, defender_id = defender_id, attacker
    counted = 0 if fact.opportunity else 1
    bout = replace(
        bout,
        attacker=attacker,
        defender=defender_id,
        plays={},
        exchanges=bout.exchanges + counted,
        opportunity=False,
    )
    leave = state.leaving
    if leave is not None and fact.opportunity:
        leave = replace(leave, waiting=tuple(b for b in leave.waiting if b != bout.bout_id))
    state = replace(put_bout(state, bout), leaving=leave)
    # Which threat cards went back, and the deck they went into, are the defender's own.
    return fed(state, "exchange", fact, "returned", "deck", "chance")


CHANGES: dict[type[Fact], Callable[[StaminaDeck, Any], StaminaDeck]] = {
    CharacterAdded: character_added,
    CharacterLinked: character_linked,
    CharacterPlaced: character_placed,
    CoverSet: cover_set,
    RoundEnded: round_ended,
    RoundStarted: round_started,
    InitiativeDrawn: initiative_drawn,
    InitiativeChosen: initiative_chosen,
    InitiativeOrdered: initiative_ordered,
    HandDrawn: hand_drawn,
    TurnEnded: turn_ended,
    CharacterMoved: character_moved,
    LeaveStarted: leave_started,
    LeaveFailed: leave_failed,
    ShotFired: shot_fired,
    ShotDefended: shot_defended,
    ShotCancelled: shot_cancelled,
    ReloadProgressed: reload_progressed,
    AidPut: aid_put,
    AidUsed: aid_used,
    CardsOwed: cards_owed,
    CardsGiven: cards_given,
    DebtCancelled: debt_cancelled,
    CharacterWounded: character_wounded,
    DeckRenewed: deck_renewed,
    BoutStarted: bout_started,
    BoutEnded: bout_ended,
    CardPlayed: card_played,
    ExchangeRevealed: exchange_revealed,
}
