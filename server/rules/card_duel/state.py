"""The state of a card-duel game: fighters, duels in progress and the last duel of each.

Each class is a `Frozen` value (server/rules/frozen.py): its fields are declared `Final`, and its
own __init__ takes them in their order."""

from dataclasses import dataclass
from typing import Final, Literal

from mypy_extensions import mypyc_attr

from server.rules.card_duel.cards import Card
from server.rules.card_duel.config import Config
from server.rules.frozen import Frozen
from server.rules.grown import Appended, Layered
from server.rules.roster import Roster


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Suffered(Frozen):
    """What a winning special card did to the fighter it beat: words their phone shows, until a
    time or (untimed) until their next duel starts; people apply it, the server nothing."""

    text: Final[str]
    until: Final[int | None]
    card_id: Final[str]

    def __init__(self, text: str, until: int | None, card_id: str) -> None:
        self.text = text
        self.until = until
        self.card_id = card_id

    def lapsed(self, now: int) -> bool:
        """Whether a duel starting at `now` ends it: untimed, or its time is up."""
        return self.until is None or now >= self.until


# Every fighter's starts before its first duel, and a start's fighter's (`added` never appends to
# an empty one's list: one object serves them all).
NO_STARTS: Appended["Start"] = Appended()


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Fighter(Frozen):
    player_id: Final[str]
    cards: Final[tuple[Card, ...]]
    alive: Final[bool]
    wounded: Final[bool]
    stunned_until: Final[int | None]
    immune_until: Final[int | None]
    items: Final[tuple[str, ...]]
    duel_id: Final[str | None]
    suffered: Final[Suffered | None]  # the latest special card's effect
    key: Final[str | None]  # the public key of its phone, for offline duels
    key_id: Final[str | None]
    keys: Final[tuple[str, ...]]  # every key it registered: a record signed by any still counts
    # How many times the log has changed this fighter: an offline duel signs the revision its
    # phones last saw, and is void when the log moved on before the duel ended.
    revision: Final[int]
    # Each duel it began, online or offline, as it stood then.
    starts: Final[Appended["Start"]]
    # Duels it won and lost, online and offline, counted when one of the two alone won the
    # last round; its own story at the end (kept through a revive: the player's, not the body's).
    won: Final[int]
    lost: Final[int]

    def __init__(
        self,
        player_id: str,
        cards: tuple[Card, ...],
        alive: bool = True,
        wounded: bool = False,
        stunned_until: int | None = None,
        immune_until: int | None = None,
        items: tuple[str, ...] = (),
        duel_id: str | None = None,
        suffered: Suffered | None = None,
        key: str | None = None,
        key_id: str | None = None,
        keys: tuple[str, ...] = (),
        revision: int = 0,
        starts: Appended["Start"] = NO_STARTS,
        won: int = 0,
        lost: int = 0,
    ) -> None:
        self.player_id = player_id
        self.cards = cards
        self.alive = alive
        self.wounded = wounded
        self.stunned_until = stunned_until
        self.immune_until = immune_until
        self.items = items
        self.duel_id = duel_id
        self.suffered = suffered
        self.key = key
        self.key_id = key_id
        self.keys = keys
        self.revision = revision
        self.starts = starts
        self.won = won
        self.lost = lost

    def card(self, card_id: str) -> Card | None:
        for card in self.cards:
            if card.card_id == card_id:
                return card
        return None

    def stunned(self, now: int) -> bool:
        return self.stunned_until is not None and now < self.stunned_until

    def immune(self, now: int) -> bool:
        return self.immune_until is not None and now < self.immune_until


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Start(Frozen):
    """A duel the fighter began: the revision it had just before, the duel's time, and the
    fighter as it stood then (without its own starts). An offline duel whose signed revision
    is one of these, dated before `at`, came first: the log moved on only after it."""

    revision: Final[int]
    at: Final[int]
    duel_id: Final[str]
    before: Final[Fighter]

    def __init__(self, revision: int, at: int, duel_id: str, before: Fighter) -> None:
        self.revision = revision
        self.at = at
        self.duel_id = duel_id
        self.before = before


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Round(Frozen):
    round: Final[int]
    cards: Final[dict[str, Card]]
    winners: Final[tuple[str, ...]]

    def __init__(self, round: int, cards: dict[str, Card], winners: tuple[str, ...]) -> None:
        self.round = round
        self.cards = cards
        self.winners = winners


Effect = Literal["escape", "escape_failed", "stun", "wound", "death", "special", "cancelled"]


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Outcome(Frozen):
    player_id: Final[str]
    effect: Final[Effect]
    until: Final[int | None]

    def __init__(self, player_id: str, effect: Effect, until: int | None = None) -> None:
        self.player_id = player_id
        self.effect = effect
        self.until = until


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Duel(Frozen):
    duel_id: Final[str]
    players: Final[tuple[str, str]]  # challenger, target
    ranged: Final[bool]
    deadline: Final[int | None]
    leave_from: Final[int]  # from then on a duellist whose opponent has not picked may leave
    round: Final[int]
    picks: Final[dict[str, str]]  # this round's secret picks
    rounds: Final[tuple[Round, ...]]
    outcomes: Final[tuple[Outcome, ...]]
    offline: Final[bool]  # settled by two phones with no network, taken in afterwards

    def __init__(
        self,
        duel_id: str,
        players: tuple[str, str],
        ranged: bool,
        deadline: int | None,
        leave_from: int,
        round: int = 1,
        picks: dict[str, str] | None = None,
        rounds: tuple[Round, ...] = (),
        outcomes: tuple[Outcome, ...] = (),
        offline: bool = False,
    ) -> None:
        self.duel_id = duel_id
        self.players = players
        self.ranged = ranged
        self.deadline = deadline
        self.leave_from = leave_from
        self.round = round
        self.picks = {} if picks is None else picks
        self.rounds = rounds
        self.outcomes = outcomes
        self.offline = offline

    def opponent(self, player_id: str) -> str:
        a, b = self.players
        return b if player_id == a else a

    def expired(self, now: int) -> bool:
        return self.deadline is not None and now >= self.deadline


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Settled(Frozen):
    """An offline duel the server has taken: recorded (`void` None) or void, and why."""

    players: Final[tuple[str, str]]
    at: Final[int]  # of the challenge
    void: Final[str | None]
    forfeit: Final[str | None]
    dispute: Final["Dispute | None"]

    def __init__(
        self,
        players: tuple[str, str],
        at: int,
        void: str | None,
        forfeit: str | None,
        dispute: "Dispute | None" = None,
    ) -> None:
        self.players = players
        self.at = at
        self.void = void
        self.forfeit = forfeit
        self.dispute = dispute


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class Dispute(Frozen):
    """Where an offline record and the log truly disagree, for the organizer to decide:
    `revealed`, the challenger's whole record came after the target's forfeit claim and its
    cards decide otherwise; `acted`, the loser duelled (`duels`) while the record says it was
    stunned or dead. `ruling`: the organizer's, once given."""

    reason: Final[str]
    duels: Final[tuple[str, ...]]
    record: Final[tuple[str, ...] | None]  # the other side's record (`revealed`)
    loser: Final[str | None]  # `acted`: who duelled while out, and what the record did to it
    effect: Final[str | None]
    ruling: Final[str | None]

    def __init__(
        self,
        reason: str,
        duels: tuple[str, ...],
        record: tuple[str, ...] | None,
        loser: str | None = None,
        effect: str | None = None,
        ruling: str | None = None,
    ) -> None:
        self.reason = reason
        self.duels = duels
        self.record = record
        self.loser = loser
        self.effect = effect
        self.ruling = ruling


@mypyc_attr(acyclic=True)
@dataclass(init=False, unsafe_hash=True)
class CardDuel(Frozen):
    roster: Final[Roster]
    config: Final[Config]
    fighters: Final[Layered[str, Fighter]]
    duels: Final[dict[str, Duel]]  # in progress
    last_duels: Final[Layered[str, Duel]]  # by player: their last ended duel
    offline: Final[Layered[str, Settled]]  # by duel id
    offline_order: Final[tuple[str, ...]]  # their ids as they came (a console shows the new ones)
    offline_of: Final[Layered[str, str]]  # player: its latest
    records: Final[Layered[str, str]]  # record id: its duel id
    voids: Final[Layered[str, int]]  # by player: void records taken
    disputed: Final[tuple[str, ...]]  # offline duels in dispute, as they came (rare)

    def __init__(
        self,
        roster: Roster,
        config: Config,
        fighters: Layered[str, Fighter] | None = None,
        duels: dict[str, Duel] | None = None,
        last_duels: Layered[str, Duel] | None = None,
        offline: Layered[str, Settled] | None = None,
        offline_order: tuple[str, ...] = (),
        offline_of: Layered[str, str] | None = None,
        records: Layered[str, str] | None = None,
        voids: Layered[str, int] | None = None,
        disputed: tuple[str, ...] = (),
    ) -> None:
        self.roster = roster
        self.config = config
        self.fighters = Layered() if fighters is None else fighters
        self.duels = {} if duels is None else duels
        self.last_duels = Layered() if last_duels is None else last_duels
        self.offline = Layered() if offline is None else offline
        self.offline_order = offline_order
        self.offline_of = Layered() if offline_of is None else offline_of
        self.records = Layered() if records is None else records
        self.voids = Layered() if voids is None else voids
        self.disputed = disputed

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
