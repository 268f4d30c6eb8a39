"""The part of every game that is not its rules: who takes part, and whether it runs."""

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import Field

from server.rules.core import (
    ORGANIZER,
    Command,
    Context,
    Event,
    HasRoster,
    Json,
    Member,
    Role,
    RuleError,
    Ruleset,
    S,
    replace,
)
from server.rules.events import UNSET, Catalog, Fact, Unset
from server.rules.grown import grow, one_command

# The roster's checks and views run compiled (server/rules/lineup.py); they are read as its own.
from server.rules.lineup import find_member
from server.rules.lineup import game_view as game_view
from server.rules.lineup import member_view as member_view
from server.rules.lineup import members_view as members_view
from server.rules.lineup import onlooker_view as onlooker_view
from server.rules.lineup import require_lobby as require_lobby
from server.rules.lineup import require_not_ended as require_not_ended
from server.rules.lineup import require_running as require_running
from server.rules.rows import Collection, Made

Status = Literal["lobby", "running", "ended"]
# Four characters a player can read off a phone and type in a forest: no 0/O, 1/I/L, 2/Z, 5/S, 8/B.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"

# Twelve times the biggest festival in view (5,000): each member costs memory and every view of
# the organizer's, and a list added at once copies the roster's dicts once.
MAX_MEMBERS = 60_000

Name = Field(min_length=1, max_length=40, pattern=r"\S")


class AddPlayer(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    name: str = Name
    role: Role = "player"
    team: str | None = Field(default=None, min_length=1, max_length=40)


class AddPlayers(Command):
    """Many players at once (an organizer pastes a list): all of them join, or none."""

    roles: ClassVar[frozenset[Role]] = ORGANIZER
    players: list[AddPlayer] = Field(min_length=1, max_length=500)


class StartGame(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER


class EndGame(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER


COMMON_COMMANDS: dict[str, type[Command]] = {"start_game": StartGame, "end_game": EndGame}


# -- the events of every game ---------------------------------------------------------------------


class GameCreated(Fact, frozen=True):
    """The first line of every log: it commits to the secret seed by its SHA-256."""

    kind = "game_created"
    game_id: str
    ruleset: str
    name: str
    config: Json
    seed_sha256: str


class PlayerJoined(Fact, frozen=True):
    """v2: the code's draws are recorded in `chance` (v1 drew it unrecorded)."""

    kind = "player_joined"
    version = 2
    player_id: str
    name: str
    role: Role
    team: str | None
    code: str
    chance: Json | Unset = UNSET


class GameStarted(Fact, frozen=True):
    kind = "game_started"


class GameEnded(Fact, frozen=True):
    """The last line of every log: it reveals the seed, which anybody can now check."""

    kind = "game_ended"
    seed: str


def upcast_player_joined_v1_v2(data: Json) -> Json:
    """A v1 code was drawn from the seed too, but unrecorded: nothing to add."""
    return data


EVENTS: Catalog = Catalog(
    [GameCreated, PlayerJoined, GameStarted, GameEnded],
    {("player_joined", 1): upcast_player_joined_v1_v2},
)


@dataclass(frozen=True, slots=True)
class Roster:
    game_id: str = ""
    name: str = ""
    ruleset: str = ""
    status: Status = "lobby"
    seed_sha256: str = ""
    seed: str | None = None
    config: Json = field(default_factory=dict)
    members: dict[str, Member] = field(default_factory=dict)
    codes: dict[str, str] = field(default_factory=dict)

    def find(self, target: str) -> Member | None:
        """A member by player id or by code (codes are typed in any case)."""
        return find_member(self, target)


CODES = len(CODE_ALPHABET) ** 4


def code_of(number: int) -> str:
    """A number below 25⁴ written in base 25, most significant digit first, with the alphabet
    as its digits."""
    base = len(CODE_ALPHABET)
    return "".join(CODE_ALPHABET[number // base**k % base] for k in (3, 2, 1, 0))


def new_code(roster: Roster, ctx: Context) -> str:
    """One recorded draw below 25⁴ a try, until a code nobody holds (a draw a character made a
    list of 500 added to a game of 50,000 draw four times as long)."""
    while True:
        code = code_of(ctx.chance.draw(CODES))
        if code not in roster.codes:
            return code


def admit(roster: Roster, command: AddPlayer) -> None:
    """Anybody may join until the end, while the game has room."""
    require_not_ended(roster)
    if len(roster.members) >= MAX_MEMBERS:
        raise RuleError("game_full", f"a game has at most {MAX_MEMBERS:,} members")


def joining(roster: Roster, command: AddPlayer, ctx: Context) -> PlayerJoined:
    """The fact a member joins by: a new id, and a code nobody holds, drawn (the Story that
    tells it records the draws in its `chance`)."""
    return PlayerJoined(
        player_id=ctx.new_id("p"),
        name=command.name.strip(),
        role=command.role,
        team=command.team,
        code=new_code(roster, ctx),
    )


def decide_each(
    ruleset: "Ruleset[S]", state: S, commands: list[AddPlayer], ctx: Context
) -> tuple[list[Event], S]:
    """Several commands as one: each is decided on the state the ones before it left, at the
    seq its first event gets, so its ids and draws are those it would get sent alone. Answers
    the events and the state after them."""
    events: list[Event] = []
    with one_command():
        for command in commands:
            step = Context(now=ctx.now, actor=ctx.actor, seq=ctx.seq + len(events), seed=ctx.seed)
            story = ruleset.play(state, command, step)
            state = story.state
            events += story.events
    return events, state


def evolve(roster: Roster, event: Event) -> Roster:
    fact = event.fact
    change = CHANGES.get(type(fact))
    return roster if change is None else change(roster, fact)


def joined(roster: Roster, fact: PlayerJoined) -> Roster:
    member = Member(fact.player_id, fact.name, fact.role, fact.team, fact.code)
    return replace(
        roster,
        members=grow(roster.members, {member.player_id: member}),
        codes=grow(roster.codes, {member.code: member.player_id}),
    )


def created(roster: Roster, fact: GameCreated) -> Roster:
    return replace(
        roster,
        game_id=fact.game_id,
        name=fact.name,
        ruleset=fact.ruleset,
        seed_sha256=fact.seed_sha256,
        config=fact.config,
    )


CHANGES: dict[type[Fact], Callable[[Roster, Any], Roster]] = {
    PlayerJoined: joined,
    GameCreated: created,
    GameStarted: lambda roster, fact: replace(roster, status="running"),
    GameEnded: lambda roster, fact: replace(roster, status="ended", seed=fact.seed),
}


def opening(
    ruleset: "Ruleset[S]", game_id: str, name: str, settings: Json, seed: bytes, now: int
) -> tuple[S, list[Event]]:
    """The first two events of every game, decided as the referee writes them: `game_created`
    (committing to the seed) and its first organizer joining; and the state after them."""
    created = Event.of(
        GameCreated(
            game_id=game_id,
            ruleset=ruleset.id,
            name=name,
            config=settings,
            seed_sha256=hashlib.sha256(seed).hexdigest(),
        )
    )
    state = ruleset.evolve(ruleset.initial_state(settings), created)
    nobody = Member("", "", "organizer", None, "")
    ctx = Context(now=now, actor=nobody, seq=2, seed=seed)
    story = ruleset.play(state, AddPlayer(name="Organizer", role="organizer"), ctx)
    return story.state, [created, *story.events]


def member_row(state: HasRoster, player_id: str, now: int) -> Made:
    """A member's row of an organizer's console (`MEMBER_ROWS`)."""
    member = state.roster.members.get(player_id)
    return (None if member is None else member_view(member)), None


# Every member by player id, a row at a time: the organizer's `members`. A member is only ever
# added, never changed: a console's `named` yields its row until it is shown, then no more.
MEMBER_ROWS: Collection[Any] = Collection(lambda state: state.roster.members, member_row)


def mentioned(state: HasRoster, events: list[Event]) -> set[str]:
    """The members named anywhere in the events' data (as a value or a key), and the members
    who join by them."""
    found: set[str] = set()
    members = state.roster.members
    for event in events:
        if isinstance(event.fact, PlayerJoined):  # names nobody else: its data is the newcomer's
            found.add(event.fact.player_id)
            continue
        scan(event.data, members, found)
    return found


def scan(value: Any, members: Mapping[str, Any], found: set[str]) -> None:
    """Add to `found` the members named in a value: a loop over a stack, not a call for every
    string (most of an event's data is cards and times)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key in item:
                if key in members:
                    found.add(key)
            items: Any = item.values()
        elif isinstance(item, list):
            items = item
        else:
            items = (item,)
        for each in items:
            if isinstance(each, str):
                if each in members:
                    found.add(each)
            elif isinstance(each, dict | list):
                stack.append(each)
