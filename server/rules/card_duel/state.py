"""The state of a card-duel game: fighters, duels in progress and the last duel of each."""

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from server.rules.card_duel.cards import STARTING_CARDS, Card, CardSpec
from server.rules.grown import Appended, Layered
from server.rules.roster import Roster


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    stun_s: int = Field(default=300, ge=0, le=86_400)
    escape_immunity_s: int = Field(default=10, ge=0, le=3_600)
    pick_timeout_s: int | None = Field(default=None, ge=1, le=86_400)
    # How long a duellist waits for an opponent who does not pick before they may leave the duel.
    leave_after_s: int = Field(default=60, ge=0, le=3_600)
    starting_cards: list[CardSpec] = Field(
        default_factory=lambda: list(STARTING_CARDS), min_length=1, max_length=20
    )


@dataclass(frozen=True, slots=True)
class Suffered:
    """What a winning special card did to the fighter it beat: words their phone shows, until a
    time or (untimed) until their next duel starts; people apply it, the server nothing."""

    text: str
    until: int | None
    card_id: str

    def lapsed(self, now: int) -> bool:
        """Whether a duel starting at `now` ends it: untimed, or its time is up."""
        return self.until is None or now >= self.until


# Every fighter's starts before its first duel, and a start's fighter's (`added` never appends to
# an empty one's list: one object serves them all).
NO_STARTS: Appended["Start"] = Appended()


@dataclass(frozen=True, slots=True)
class Fighter:
    player_id: str
    cards: tuple[Card, ...]
    alive: bool = True
    wounded: bool = False
    stunned_until: int | None = None
    immune_until: int | None = None
    items: tuple[str, ...] = ()
    duel_id: str | None = None
    suffered: Suffered | None = None  # the latest special card's effect
    key: str | None = None  # the public key of its phone, for offline duels
    key_id: str | None = None
    keys: tuple[str, ...] = ()  # every key it registered: a record signed by any still counts
    # How many times the log has changed this fighter: an offline duel signs the revision its
    # phones last saw, and is void when the log moved on before the duel ended.
    revision: int = 0
    # Each duel it began, online or offline, as it stood then.
    starts: Appended["Start"] = NO_STARTS
    # Duels it won and lost, online and offline, counted when one of the two alone won the
    # last round; its own story at the end (kept through a revive: the player's, not the body's).
    won: int = 0
    lost: int = 0

    def card(self, card_id: str) -> Card | None:
        for card in self.cards:
            if card.card_id == card_id:
                return card
        return None

    def stunned(self, now: int) -> bool:
        return self.stunned_until is not None and now < self.stunned_until

    def immune(self, now: int) -> bool:
        return self.immune_until is not None and now < self.immune_until


@dataclass(frozen=True, slots=True)
class Start:
    """A duel the fighter began: the revision it had just before, the duel's time, and the
    fighter as it stood then (without its own starts). An offline duel whose signed revision
    is one of these, dated before `at`, came first: the log moved on only after it."""

    revision: int
    at: int
    duel_id: str
    before: Fighter


@dataclass(frozen=True, slots=True)
class Round:
    round: int
    cards: dict[str, Card]
    winners: tuple[str, ...]


Effect = Literal["escape", "escape_failed", "stun", "wound", "death", "special", "cancelled"]


@dataclass(frozen=True, slots=True)
class Outcome:
    player_id: str
    effect: Effect
    until: int | None = None


@dataclass(frozen=True, slots=True)
class Duel:
    duel_id: str
    players: tuple[str, str]  # challenger, target
    ranged: bool
    deadline: int | None
    leave_from: int  # from then on a duellist whose opponent has not picked may leave
    round: int = 1
    picks: dict[str, str] = field(default_factory=dict)  # this round's secret picks
    rounds: tuple[Round, ...] = ()
    outcomes: tuple[Outcome, ...] = ()
    offline: bool = False  # settled by two phones with no network, taken in afterwards

    def opponent(self, player_id: str) -> str:
        a, b = self.players
        return b if player_id == a else a

    def expired(self, now: int) -> bool:
        return self.deadline is not None and now >= self.deadline


@dataclass(frozen=True, slots=True)
class Settled:
    """An offline duel the server has taken: recorded (`void` None) or void, and why."""

    players: tuple[str, str]
    at: int  # of the challenge
    void: str | None
    forfeit: str | None
    dispute: "Dispute | None" = None


@dataclass(frozen=True, slots=True)
class Dispute:
    """Where an offline record and the log truly disagree, for the organizer to decide:
    `revealed`, the challenger's whole record came after the target's forfeit claim and its
    cards decide otherwise; `acted`, the loser duelled (`duels`) while the record says it was
    stunned or dead. `ruling`: the organizer's, once given."""

    reason: str
    duels: tuple[str, ...]
    record: tuple[str, ...] | None  # the other side's record (`revealed`)
    loser: str | None = None  # `acted`: who duelled while out, and what the record did to it
    effect: str | None = None
    ruling: str | None = None


@dataclass(frozen=True, slots=True)
class CardDuel:
    roster: Roster
    config: Config
    fighters: Layered[str, Fighter] = field(default_factory=Layered)
    duels: dict[str, Duel] = field(default_factory=dict)  # in progress
    # by player: their last ended duel
    last_duels: Layered[str, Duel] = field(default_factory=Layered)
    offline: Layered[str, Settled] = field(default_factory=Layered)  # by duel id
    offline_order: tuple[str, ...] = ()  # their ids as they came (a console shows the new ones)
    offline_of: Layered[str, str] = field(default_factory=Layered)  # player: its latest
    records: Layered[str, str] = field(default_factory=Layered)  # record id: its duel id
    voids: Layered[str, int] = field(default_factory=Layered)  # by player: void records taken
    disputed: tuple[str, ...] = ()  # offline duels in dispute, as they came (rare)

    def active_duel(self, fighter: Fighter, now: int) -> Duel | None:
        """The fighter's duel, unless it timed out: a timed-out duel binds nobody."""
        duel = self.duels.get(fighter.duel_id) if fighter.duel_id else None
        return None if duel is None or duel.expired(now) else duel

    def challengeable(self, fighter: Fighter, now: int) -> bool:
        return (
            fighter.alive
            and not fighter.stunned(now)
            and not fighter.immune(now)
            and self.active_duel(fighter, now) is None
        )
