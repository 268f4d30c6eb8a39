"""What a viewer of a stamina-deck fight may do now, each action judged by decide's own guards.

A player is offered the actions of their characters, the GM those of every character the table
waits for (a defence, owed cards, an initiative to keep, cards in a bout, a deck to renew) and
the turn of the character on turn: never an entry for every character. Actions on one thing are
named `"<action>:<character_id>"`, `"<action>:<character_id>:<thing_id>"` (a target, a bout, an
aid); the GM's own: `start_round`, `engage:<a>:<b>` (two fighters in contact, the refusal the same
whoever attacks), `disengage:<bout_id>`. Where the player picks cards, the command carries a
representative pick (the first hand card; for an aimed shot a pair if the hand holds one).
"""

from collections.abc import Callable, Iterator
from typing import Any

from server.rules.core import Command, Member
from server.rules.offers import Offer, judged
from server.rules.stamina_deck import melee, moving, ranged, rounds, stamina
from server.rules.stamina_deck.cards import aimed_pair
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import (
    AimedShot,
    ChooseInitiative,
    Defend,
    Disengage,
    EndTurn,
    Engage,
    GiveCards,
    Move,
    Play,
    PutAid,
    Reload,
    RenewDeck,
    Shoot,
    StartRound,
    UseAid,
)
from server.rules.stamina_deck.mat import MOVE, distance, on_mat
from server.rules.stamina_deck.state import StaminaDeck

NO_CARD = "-"  # a card id nobody holds: the command a player with an empty hand would send
AID_NAME = "?"  # the name a player types for an aid; any name is as good


def offers(state: StaminaDeck, viewer: Member, now: int) -> dict[str, Offer]:
    found: dict[str, Offer] = {}

    def offer(name: str, command: Command, guard: Guard) -> None:
        if viewer.role not in type(command).roles:  # the referee's check, before decide's
            found[name] = Offer(command, "forbidden")
        else:
            found[name] = Offer(command, judged(lambda: guard(state, viewer, command)))

    gm = viewer.role == "organizer"
    if gm:
        offer("start_round", StartRound(), lambda state, actor, command: rounds.starting(state))
        for bout_id in state.bouts:
            end = Disengage(bout_id=bout_id)
            offer(f"disengage:{bout_id}", end, unacted(melee.disengaging))
        for a, b in contacts(state):
            engage = Engage(fighters=[a, b])
            offer(f"engage:{a}:{b}", engage, unacted(melee.engaging))
    for me in actors(state, viewer):
        for name, command, guard in duties(state, me):
            offer(name, command, guard)
    turn = state.on_turn()
    if state.phase == "actions" and turn is not None and (gm or mine(state, viewer, turn)):
        for name, command, guard in turn_actions(state, state.characters[turn]):
            offer(name, command, guard)
    return found


Guard = Callable[[StaminaDeck, Member, Any], object]  # decide's guard of a command: raises
Action = tuple[str, Command, Guard]


def unacted(guard: Callable[[StaminaDeck, Any], object]) -> Guard:
    """A guard of a GM's command, which names no character: who sends it does not matter."""
    return lambda state, actor, command: guard(state, command)


def mine(state: StaminaDeck, viewer: Member, character_id: str) -> bool:
    return viewer.role == "player" and state.characters[character_id].player_id == viewer.player_id


def actors(state: StaminaDeck, viewer: Member) -> Iterator[Character]:
    """The characters whose duties this viewer sees: a player's own, and for the GM those the
    table waits for (few, whatever the game's size)."""
    if viewer.role == "player":
        yield from (c for c in state.characters.values() if c.player_id == viewer.player_id)
        return
    if viewer.role != "organizer":
        return
    waited: dict[str, None] = {}
    if state.shot is not None:
        waited[state.shot.target] = None
    for debt in state.debts:
        waited[debt.character_id] = None
    for character_id in state.seats:
        if state.characters[character_id].choice:
            waited[character_id] = None
    for bout in state.bouts.values():
        waited.update(dict.fromkeys(bout.fighters))
    for c in state.characters.values():
        if c.wound == "light" and not c.deck:  # may turn its discard into a new deck
            waited[c.character_id] = None
    turn = state.on_turn()
    if turn is not None:
        waited[turn] = None
    yield from (state.characters[c] for c in waited)


def duties(state: StaminaDeck, me: Character) -> Iterator[Action]:
    """What a character answers or may do outside its turn."""
    k = me.character_id
    if me.choice:
        choose = ChooseInitiative(character_id=k, card_id=me.choice[0])
        yield f"choose_initiative:{k}", choose, rounds.choosing
    if state.shot is not None and state.shot.target == k:
        defend = Defend(character_id=k)
        yield f"defend:{k}", defend, ranged.defending
    debt = state.debt(k)
    if debt is not None:
        picked = me.hand[: debt.count]
        give = GiveCards(character_id=k, card_ids=list(picked))
        yield f"give_cards:{k}", give, stamina.giving
    for bout in state.bouts_of(k):
        b = bout.bout_id
        if me.hand:
            card = Play(character_id=k, bout_id=b, card_id=me.hand[0])
            yield f"play:{k}:{b}", card, melee.playing
        top = Play(character_id=k, bout_id=b)
        yield f"play_deck:{k}:{b}", top, melee.playing
    if me.wound == "light" and not me.deck:
        renew = RenewDeck(character_id=k)
        yield f"renew_deck:{k}", renew, stamina.renewing


def turn_actions(state: StaminaDeck, me: Character) -> Iterator[Action]:
    """The actions of the character on turn, each with a representative pick of cards."""
    k = me.character_id
    card = me.hand[0] if me.hand else NO_CARD
    end = EndTurn(character_id=k)
    yield f"end_turn:{k}", end, rounds.ending_turn
    x, y = reach(state, me)
    step = Move(character_id=k, x=x, y=y, card_id=me.hand[0] if me.fighting and me.hand else None)
    yield f"move:{k}", step, moving.moving
    reload = Reload(character_id=k, card_id=card)
    yield f"reload:{k}", reload, ranged.reloading
    aid = PutAid(character_id=k, card_id=card, name=AID_NAME)
    yield f"put_aid:{k}", aid, ranged.putting_aid
    for aid_id in state.aids:
        use = UseAid(character_id=k, aid_id=aid_id)
        yield f"use_aid:{k}:{aid_id}", use, ranged.using_aid
    pair = aimed(state, me)
    for target in state.characters:
        if target == k:
            continue
        shot = Shoot(character_id=k, target_id=target, card_id=card)
        yield f"shoot:{k}:{target}", shot, ranged.aiming
        aim = AimedShot(character_id=k, target_id=target, card_ids=pair)
        yield f"aimed_shot:{k}:{target}", aim, ranged.aiming


def aimed(state: StaminaDeck, me: Character) -> list[str]:
    """Two hand cards for an aimed shot: a pair of one suit in a row if the hand holds one."""
    hand = me.hand
    for i, first in enumerate(hand):
        for second in hand[i + 1 :]:
            if aimed_pair(state.cards[first], state.cards[second]):
                return [first, second]
    return [*hand[:2], NO_CARD, NO_CARD][:2]


def reach(state: StaminaDeck, me: Character) -> tuple[int, int]:
    """A free square a move card carries the character to, the nearest first (its own square
    when none is free: decide refuses it)."""
    for ring in range(1, MOVE + 1):
        for dx in range(-ring, ring + 1):
            for dy in range(-ring, ring + 1):
                to = (me.x + dx, me.y + dy)
                if (
                    distance(me.square, to) == ring
                    and on_mat(to, state.config.mat_size)
                    and state.occupant(*to) is None
                ):
                    return to
    return me.square


def contacts(state: StaminaDeck) -> Iterator[tuple[str, str]]:
    """Pairs of characters in the fight on neighbouring squares and in no bout together, each
    once, in the order they were added: one key a pair, whoever the rules make attack. A
    square index keeps it linear in the characters."""
    added = {k: n for n, k in enumerate(state.characters)}
    fighters = {c.square: c.character_id for c in state.characters.values() if c.fighting}
    for (x, y), a in fighters.items():
        for dx, dy in ((1, -1), (1, 0), (1, 1), (0, 1)):  # each neighbouring pair once
            b = fighters.get((x + dx, y + dy))
            if b is None or state.engaged(a, b):
                continue
            yield (a, b) if added[a] < added[b] else (b, a)
