"""The events of stamina-deck, as typed records.

Every card that moves is named in its event and every new deck order is written out, so evolve
never draws. The events that use chance (a shuffle, a die) carry its draws in `chance`, filled by
the Story when they are told (docs/protocol.md).
"""

from typing import Literal

import msgspec

from server.rules import roster
from server.rules.events import UNSET, Fact, Json, Unset
from server.rules.stamina_deck.cards import CardFace
from server.rules.stamina_deck.character import Severity
from server.rules.stamina_deck.fight import Destination, Result, Source

DrawMode = Literal["entry", "melee", "ranged"]  # into melee, a melee round, a ranged round
BoutCause = Literal["contact", "gm"]
BoutEnd = Literal["gm", "left", "out", "game_ended"]
Closed = Literal["game_ended"]  # why something waited for was called off


class Shape(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A nested part of an event."""


class WeaponFace(Shape, frozen=True):
    """A weapon as the character sheet gives it."""

    name: str
    sz: int
    melee_cards: int
    reload_speed: int
    melee: bool
    ranged: bool


class Square(Shape, frozen=True):
    x: int
    y: int


class Withdrawn(Shape, frozen=True):
    """A face-down card of an exchange that will not happen, back where it came from, and the
    action it took given back."""

    character_id: str
    card_id: str | None
    to: Literal["deck", "hand"]
    actions: int


# -- setup -----------------------------------------------------------------------------------------


class CharacterAdded(Fact, frozen=True):
    """The character sheet, and the stamina deck from the top of its shuffled 52 cards."""

    kind = "character_added"
    character_id: str
    name: str
    side: str
    player_id: str | None
    lives: int
    agi: int
    shooting: int
    melee: int
    unarmed: int
    weapon: WeaponFace | None
    armour: int
    x: int
    y: int
    loaded: bool
    deck: list[CardFace]
    chance: Json | Unset = UNSET


class CharacterLinked(Fact, frozen=True):
    kind = "character_linked"
    character_id: str
    player_id: str | None


class CharacterPlaced(Fact, frozen=True):
    kind = "character_placed"
    character_id: str
    x: int
    y: int


class CoverSet(Fact, frozen=True):
    kind = "cover_set"
    character_id: str
    cover: int


# -- rounds and initiative -------------------------------------------------------------------------


class RoundEnded(Fact, frozen=True):
    kind = "round_ended"
    round: int
    discarded: dict[str, list[str]]  # by character: played cards and threat piles
    withdrawn: list[Withdrawn]


class RoundStarted(Fact, frozen=True):
    kind = "round_started"
    round: int
    seats: list[str]  # who draws initiative
    limping: list[str]  # out of the fight with a medium wound: they move last


class InitiativeDrawn(Fact, frozen=True):
    kind = "initiative_drawn"
    character_id: str
    cards: list[CardFace]


class InitiativeChosen(Fact, frozen=True):
    """The kept card (None: the deck was empty); the rest and last round's card shuffled back."""

    kind = "initiative_chosen"
    character_id: str
    card: CardFace | None
    returned: list[str]
    deck: list[str]
    chance: Json | Unset = UNSET


class InitiativeOrdered(Fact, frozen=True):
    kind = "initiative_ordered"
    round: int
    order: list[str]
    cards: dict[str, CardFace | None]  # the kept initiative cards
    tiebreaks: dict[str, list[CardFace]]
    decks: dict[str, list[str]]  # the decks the tie-break cards were shuffled back into
    chance: Json | Unset = UNSET


class HandDrawn(Fact, frozen=True):
    kind = "hand_drawn"
    character_id: str
    cards: list[CardFace]
    mode: DrawMode
    limit: int


class TurnEnded(Fact, frozen=True):
    kind = "turn_ended"
    character_id: str
    next: str | None


# -- moving ----------------------------------------------------------------------------------------


class CharacterMoved(Fact, frozen=True):
    kind = "character_moved"
    character_id: str
    card_id: str | None  # None: a free move (out of the fight, or after the attacks on a leaver)
    start: Square = msgspec.field(name="from")
    to: Square
    actions: int


class LeaveStarted(Fact, frozen=True):
    """A move out of melee, waiting for the attacks of opportunity of these bouts."""

    kind = "leave_started"
    character_id: str
    card_id: str | None
    start: Square = msgspec.field(name="from")
    to: Square
    bouts: list[str]
    actions: int


class LeaveFailed(Fact, frozen=True):
    """The leaver stays: heavily wounded by the attacks, or the game ended first."""

    kind = "leave_failed"
    character_id: str


# -- shooting --------------------------------------------------------------------------------------


class ShotFired(Fact, frozen=True):
    kind = "shot_fired"
    shot_id: str
    shooter: str
    target: str  # who must defend: `aimed_at`, or whom a club deflected it to
    aimed_at: str
    aimed: bool
    cards: list[CardFace]
    attack: int
    into_melee: bool
    check: CardFace | None  # the shooter's deck card looked at for a plain shot into melee
    deflected: bool
    bonus: int
    actions: int
    chance: Json | Unset = UNSET


class ShotDefended(Fact, frozen=True):
    kind = "shot_defended"
    shot_id: str
    shooter: str
    target: str
    attack: int
    card: CardFace | None
    source: Source
    cover: int
    bonus: int
    defence: int
    hit: bool
    damage: int


class ShotCancelled(Fact, frozen=True):
    """A shot nobody defended any more: the game ended while it waited."""

    kind = "shot_cancelled"
    shot_id: str
    shooter: str
    target: str
    reason: Closed


class ReloadProgressed(Fact, frozen=True):
    kind = "reload_progressed"
    character_id: str
    card_id: str
    progress: int
    needed: int
    loaded: bool
    actions: int


class AidPut(Fact, frozen=True):
    kind = "aid_put"
    aid_id: str
    character_id: str
    card_id: str
    name: str
    x: int
    y: int
    actions: int


class AidUsed(Fact, frozen=True):
    kind = "aid_used"
    aid_id: str
    character_id: str
    card_id: str


# -- stamina ---------------------------------------------------------------------------------------


class CardsOwed(Fact, frozen=True):
    kind = "cards_owed"
    character_id: str
    count: int
    to: Destination


class CardsGiven(Fact, frozen=True):
    kind = "cards_given"
    character_id: str
    to: Destination
    hand: list[str]
    deck: list[str]
    missing: int  # cards that were in neither: each a life


class DebtCancelled(Fact, frozen=True):
    """Owed cards nobody gives any more: the game ended while they were owed."""

    kind = "debt_cancelled"
    character_id: str
    count: int
    to: Destination
    reason: Closed


class CharacterWounded(Fact, frozen=True):
    kind = "character_wounded"
    character_id: str
    lives_lost: int
    total_lost: int
    lives_left: int
    severity: Severity | None


class DeckRenewed(Fact, frozen=True):
    kind = "deck_renewed"
    character_id: str
    deck: list[str]
    chance: Json | Unset = UNSET


# -- melee -----------------------------------------------------------------------------------------


class BoutStarted(Fact, frozen=True):
    kind = "bout_started"
    bout_id: str
    attacker: str
    defender: str
    cause: BoutCause


class BoutEnded(Fact, frozen=True):
    kind = "bout_ended"
    bout_id: str
    reason: BoutEnd
    withdrawn: list[Withdrawn]


class CardPlayed(Fact, frozen=True):
    kind = "card_played"
    bout_id: str
    character_id: str
    exchange: int  # 0: an attack of opportunity
    card_id: str | None
    source: Source
    actions: int


class ExchangeRevealed(Fact, frozen=True):
    kind = "exchange_revealed"
    bout_id: str
    exchange: int
    opportunity: bool
    attacker: str
    defender: str
    cards: dict[str, CardFace | None]
    values: dict[str, int]
    result: Result
    difference: int
    returned: list[str]  # the defender's threat cards won back into the deck
    deck: list[str] | None  # the defender's deck they were shuffled into
    initiative: str
    chance: Json | Unset = UNSET


EVENTS = roster.EVENTS.extended(
    [
        CharacterAdded,
        CharacterLinked,
        CharacterPlaced,
        CoverSet,
        RoundEnded,
        RoundStarted,
        InitiativeDrawn,
        InitiativeChosen,
        InitiativeOrdered,
        HandDrawn,
        TurnEnded,
        CharacterMoved,
        LeaveStarted,
        LeaveFailed,
        ShotFired,
        ShotDefended,
        ShotCancelled,
        ReloadProgressed,
        AidPut,
        AidUsed,
        CardsOwed,
        CardsGiven,
        DebtCancelled,
        CharacterWounded,
        DeckRenewed,
        BoutStarted,
        BoutEnded,
        CardPlayed,
        ExchangeRevealed,
    ]
)
