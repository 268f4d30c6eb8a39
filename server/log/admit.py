"""What a log must be to become a game of this server (`bijse import`).

A log that verifies proves only that nobody changed it after it was sealed: anyone can seal a
log (server/store/chain.py), so an organizer who edits lines and seals them again has a log
that verifies as well as an honest one. A game is only ever made of events its rules decided,
and every route of a game folds them and shows them; a log the rules could not have written
would break them all. So an imported log must replay through its ruleset to the end, as a
server loading it would, within the bounds the API holds what it is sent to. In this order
(docs/protocol.md, "What `bijse import` checks"), refused at the first problem with one line
that names the line of the file (`line 7 (card_picked): no duel d5 in this game`):

1. `verify` (server/log/verify.py): every line an event, seq 1, 2, 3 …, `seq` and `version`
   JSON integers, the hash chain, the seed, every draw;
2. every line as an export writes it: its keys, the game's id, `at` a time as the server
   writes one, `actor` null or a string;
3. the game (line 1): a ruleset of this server, the game's name and config as the API takes
   them for a new game;
4. every line in turn: its data within bounds (no string longer than any the server takes or
   makes, nothing the API refuses in a body), read by the ruleset's catalog (upcasters and
   all: a whole number where one goes), `game_created` on line 1 alone, nothing after
   `game_ended`, its actor a member, a start in the lobby, a member within the bounds of
   `add_player` (name, role, team, a new id and code, room in the game), then folded by the
   ruleset's `evolve`;
5. the end: an organizer to hand a token to, and every member's view, the organizers' and the
   public's, built and written as JSON at the log's last moment and now (a view that cannot be
   is traced back to the line after which it cannot).

The folding is what a server does when it loads the game, a stretch of lines at a time; the
state after each stretch is kept, so that a view that fails at the end is traced back with a
few folds of one stretch, not the whole log again.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from server.clock import iso, now_ms, parse_iso
from server.log.verify import Entry, Problem, brief, verify
from server.rules import RULESETS
from server.rules.core import Event, Json, Member, RuleError, Ruleset, fold
from server.rules.events import UnknownEvent
from server.rules.grown import one_command
from server.rules.roster import AddPlayer, AddPlayers, PlayerJoined, admit, require_lobby
from server.rules.validation import invalid
from server.store import chain
from server.store.bulk import paused_gc

# The keys of an exported line (server/store/chain.py); `version` only above 1.
KEYS = ("game_id", "seq", "type", "version", "at", "actor", "data", "prev_hash", "hash")
STRETCH = 1024  # lines folded between two kept states
SAID = 300  # the most characters of a refusal: one line, whatever a forged log holds
# The replay's `viewer=public` (server/game/replay.py, PUBLIC): a spectator who is nobody.
PUBLIC = Member("", "", "spectator", None, "")


class Refused(Exception):
    """The log cannot become a game of this server; the message, one line, says why."""


@dataclass(frozen=True)
class Bounds:
    """What the API holds what it is sent to, where only the web layer knows it (whoever wires
    the import hands it in: server/serve/cli.py): the body that creates a game (its name), and
    the check of a body read from its text (no control character in any string, not nested
    too deep), which raises RuleError naming the field. Left out, only the rules' own bounds
    are checked."""

    new_game: type[BaseModel] | None = None
    sent: Callable[[str, Json], None] | None = None


@dataclass(frozen=True)
class Opening:
    """A log that verifies and is written as an export writes it, of a game this server can
    play: what checks 1 to 3 found."""

    game_id: str
    ruleset: Ruleset[Any]
    seed: str  # revealed by game_ended, as hex
    longest: int  # the longest string the server takes or makes in a game of this ruleset
    moments: list[int]  # each line's `at`, in ms


@dataclass(frozen=True)
class Game:
    """A log admitted: its lines as events of its ruleset, and who gets the organizer's token."""

    opening: Opening
    events: list[Event]
    organizer: str


def examine(entries: Sequence[Entry], bounds: Bounds) -> Opening:
    """Checks 1 to 3: the log verifies, every line is as an export writes it, and line 1
    makes a game this server plays."""
    for problem in verify(entry.event for entry in entries)[:1]:
        if isinstance(problem, Problem) and problem.seq is not None:
            raise refused(entries[problem.seq - 1], problem.what)  # seq N is line N's
        raise Refused(one_line(problem))
    game_id = entries[0].event.get("game_id")
    moments = []
    for entry in entries:
        unlike = unlike_an_export(entry.event, game_id)
        if unlike:
            raise refused(entry, unlike)
        at = entry.event["at"]
        moment = written(at)
        if moment is None:
            said = "as 2026-12-03T13:06:33.939Z"
            raise refused(entry, f"at is {brief(at)}, not a time as the server writes one ({said})")
        moments.append(moment)
    first = entries[0]
    data = first.event["data"]
    ruleset = RULESETS.get(data["ruleset"]) if isinstance(data.get("ruleset"), str) else None
    if ruleset is None:
        named, known = brief(data.get("ruleset")), ", ".join(RULESETS)
        raise refused(first, f"data.ruleset: no ruleset {named} on this server ({known})")
    if data.get("game_id") != game_id:
        raise refused(first, f"data.game_id is {brief(data.get('game_id'))}, not {game_id}")
    asked = {key: data[key] for key in ("ruleset", "name", "config") if key in data}
    try:
        if bounds.new_game is not None:
            bounds.new_game.model_validate(asked)  # the body of POST /api/games
    except ValidationError as error:
        raise refused(first, invalid(error, "data").message) from None
    try:
        ruleset.config.model_validate(data.get("config"))  # as the referee takes it
    except ValidationError as error:
        raise refused(first, invalid(error, "data.config").message) from None
    models: list[type[BaseModel]] = [ruleset.config, *ruleset.commands.values(), AddPlayers]
    if bounds.new_game is not None:
        models.append(bounds.new_game)
    longest = max(len(chain.GENESIS), *(max_length(m.model_json_schema()) for m in models))
    ended = entries[-1].event  # the only game_ended, if the replay finds nothing after it
    seed = ended["data"].get("seed") if ended["type"] == "game_ended" else None
    return Opening(game_id, ruleset, seed if isinstance(seed, str) else "", longest, moments)


def unlike_an_export(line: Json, game_id: Any) -> str | None:
    """What keeps a line that verifies from being the line an export writes (`seq`, `type`,
    `version` and `data` are verify's, `at` is `written`'s): it would not come out of this
    database as it went in."""
    for key in KEYS:
        if key not in line and key != "version":
            return f"no {key} (an exported line has {', '.join(KEYS)})"
    for key in line:
        if key not in KEYS:
            return f"{brief(key)} is not a key of an exported line"
    if line["game_id"] != game_id:
        return f"game_id is {brief(line['game_id'])}, but line 1 is of game {brief(game_id)}"
    if not isinstance(game_id, str):
        return f"game_id is {brief(game_id)}, not a string"
    if not isinstance(line["actor"], str | None):
        return f"actor is {brief(line['actor'])}, neither a player_id nor null"
    return None


def written(at: Any) -> int | None:
    """A line's `at` in ms, if it is a time as the server writes one (what reads back and is
    written again the same); else None."""
    try:
        moment = parse_iso(at) if isinstance(at, str) else None
        return moment if moment is not None and iso(moment) == at else None
    except (ValueError, OverflowError):
        return None


def replay(opening: Opening, entries: Sequence[Entry], bounds: Bounds) -> Game:
    """Checks 4 and 5: every line read and folded in turn, then the views of the end."""
    ruleset = opening.ruleset
    read, evolve = ruleset.read, ruleset.evolve
    events: list[Event] = []
    kept: list[tuple[int, Any]] = [(0, None)]  # (lines folded, the state after them)
    state: Any = None
    ended = 0  # the line of game_ended
    with paused_gc():
        for start in range(0, len(entries), STRETCH):
            with one_command():  # dicts grow in place within a stretch: the kept states stand
                for entry in entries[start : start + STRETCH]:
                    line = entry.event
                    kind, data = line["type"], line["data"]
                    if ended:
                        raise refused(entry, f"nothing may follow game_ended (line {ended})")
                    if state is not None and kind == "game_created":
                        raise refused(entry, "a log has one game_created, on its first line")
                    problem = unbounded(entry.text, data, opening, bounds)
                    if problem:
                        raise refused(entry, problem)
                    try:
                        event = read(kind, data, line.get("version", 1))
                    except UnknownEvent as error:
                        raise refused(entry, f"{ruleset.id} cannot read it: {error}") from None
                    if state is None:
                        state = begun(entry, ruleset, data["config"])
                    problem = unruly(state.roster, line["actor"], event)
                    if problem:
                        raise refused(entry, problem)
                    try:
                        folded = evolve(state, event)
                    except Exception as error:  # evolve trusts the events it is given
                        raise refused(entry, explained(event, error, state.roster)) from None
                    state = folded
                    events.append(event)
                    if kind == "game_ended":
                        ended = entry.number
            kept.append((len(events), state))
    organizer = next((m for m in state.roster.members.values() if m.role == "organizer"), None)
    if organizer is None:
        raise Refused("the log has no organizer to hand a token to")
    last = opening.moments[-1]
    for now in (last, now_ms()):
        failed = unseen(ruleset, state, now)
        if failed:
            viewer, why = failed
            line = traced(ruleset, events, kept, viewer, now)
            moment = "at the log's last moment" if now == last else "now"
            whose = "the public's" if viewer is PUBLIC else f"{viewer.player_id}'s"
            raise refused(entries[line - 1], f"{whose} view cannot be built {moment}: {why}")
    return Game(opening, events, organizer.player_id)


def begun(entry: Entry, ruleset: Ruleset[Any], config: Json) -> Any:
    """The state before line 1, of the config that line sets."""
    try:
        return ruleset.initial_state(config)
    except Exception as error:
        raise refused(entry, f"data.config: {type(error).__name__}: {error}") from None


def unbounded(text: str, data: Json, opening: Opening, bounds: Bounds) -> str | None:
    """A string of a line's data longer than any the server takes or makes in a game of this
    ruleset (the longest a command, the config or a new game may hold, or a hash's 64 hex
    digits), or what the API refuses in any body it is sent. A line no longer than that holds
    no such string: only a longer one is walked."""
    if len(text) > opening.longest:
        too_long = overlong(data, opening.longest)
        if too_long:
            path, length = too_long
            most = f"{opening.longest} in a {opening.ruleset.id} game"
            return f"data{path}: {length:,} characters, longer than any string can be ({most})"
    if bounds.sent is not None:
        try:
            bounds.sent(text, data)
        except RuleError as error:  # "name: ..." of the data's fields, "body: ..." of itself
            said = error.message
            return "data" + said.removeprefix("body") if said.startswith("body") else f"data.{said}"
    return None


def overlong(data: Json, longest: int) -> tuple[str, int] | None:
    """Where in `data` a string (or a key) is longer than `longest` (`.name`, `.cards.0.title`;
    a key: the path to it and the key), and its length."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if len(item) > longest:
                return path, len(item)
        elif isinstance(item, dict):
            for key, value in item.items():
                if len(key) > longest:
                    return f"{path} (a key)", len(key)
                stack.append((f"{path}.{key}", value))
        elif isinstance(item, list):
            stack.extend((f"{path}.{n}", value) for n, value in enumerate(item))
    return None


def max_length(schema: Any) -> int:
    """The largest `maxLength` in a JSON schema."""
    if isinstance(schema, dict):
        own = schema.get("maxLength")
        found = own if type(own) is int else 0
        return max(found, *(max_length(value) for value in schema.values()), 0)
    if isinstance(schema, list):
        return max((max_length(value) for value in schema), default=0)
    return 0


def unruly(roster: Any, actor: str | None, event: Event) -> str | None:
    """What the rules common to every game refuse in a line, on the roster before it."""
    if actor is not None and actor not in roster.members:
        return f"actor {named(actor)} is not a member of this game"
    try:
        if event.type == "game_started":
            require_lobby(roster)
        fact = event.fact
        if isinstance(fact, PlayerJoined):
            # The bounds of add_player, and room in the game (roster.admit).
            asked = {"name": fact.name, "role": fact.role, "team": fact.team}
            try:
                admit(roster, AddPlayer.model_validate(asked))
            except ValidationError as error:
                return invalid(error, "data").message
            if fact.player_id in roster.members:
                return f"{named(fact.player_id)} has joined already"
            holder = roster.codes.get(fact.code)
            if holder is not None:
                return f"code {named(fact.code)} is {holder}'s already"
    except RuleError as error:
        return error.message
    return None


def explained(event: Event, error: Exception, roster: Any) -> str:
    """Why evolve could not fold an event, in the words of its data where they say it: a key
    the state has no entry for is named by the field that holds it (`no duel d5`)."""
    if isinstance(error, KeyError) and len(error.args) == 1:
        key = error.args[0]
        field = holder(event.data, key)
        if field is not None and isinstance(key, str) and key in roster.members:
            return f"{named(key)} is a member, but no {field} a {event.type} can name"
        if field is not None:
            return f"no {field} {named(key)} in this game"
    return f"the rules cannot fold it: {type(error).__name__}: {error}"


def named(value: Any) -> str:
    """A value a refusal names: a short string as it is, anything else as brief JSON."""
    short = isinstance(value, str) and len(value) <= 64 and value.isprintable()
    return value if short else brief(value)


def holder(data: Json, key: Any) -> str | None:
    """The thing a field of `data` whose value is `key` (or holds it in a list) names:
    `duel_id` a duel, `players` a player, `challenger` a challenger."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        name, item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.items())
        elif isinstance(item, list):
            if key in item and name:
                return name.removesuffix("_ids").removesuffix("s")
            stack.extend((name, value) for value in item)
        elif item == key and type(item) is type(key) and name:
            return name.removesuffix("_id")
    return None


def unseen(ruleset: Ruleset[Any], state: Any, now: int) -> tuple[Member, str] | None:
    """The first viewer (each member, then the public) whose view cannot be built or written
    as JSON at `now`, built as the server does: each audience's shared part once (a row at a
    time when it has rows), each viewer's private part, and one whole view an audience."""
    shown: set[str] = set()
    for viewer in (*state.roster.members.values(), PUBLIC):
        why = unseen_by(ruleset, state, viewer, now, shown)
        if why:
            return viewer, why
    return None


def unseen_by(
    ruleset: Ruleset[Any], state: Any, viewer: Member, now: int, shown: set[str]
) -> str | None:
    """Why the viewer's view cannot be built (its audience's shared part too, unless `shown`
    has it already)."""
    sight = ruleset.parts
    try:
        audience = sight.audience(viewer)
        if audience not in shown:
            rows = sight.rows(audience)
            orjson.dumps(
                rows.whole(state, now) if rows is not None else sight.shared(state, audience, now)
            )
            orjson.dumps(ruleset.view(state, viewer, now))
            shown.add(audience)
        orjson.dumps(sight.private(state, viewer, now))
    except Exception as error:  # a view of events its rules never decided
        return f"{type(error).__name__}: {error}"
    return None


def traced(
    ruleset: Ruleset[Any],
    events: list[Event],
    kept: list[tuple[int, Any]],
    viewer: Member,
    now: int,
) -> int:
    """The line after which the viewer's view at `now` cannot be built, as it can before it:
    halving among the kept states, then among the lines of one stretch, each folded from the
    state kept before it."""

    def fails(state: Any) -> bool:
        if state is None or (viewer is not PUBLIC and viewer.player_id not in state.roster.members):
            return False  # before line 1, or before the viewer joined
        return unseen_by(ruleset, state, viewer, now, set()) is not None

    low, high = 0, len(kept) - 1  # the view is built at kept[low], fails at kept[high]
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fails(kept[middle][1]) else (middle, high)
    (first, state), last = kept[low], kept[high][0]
    with paused_gc():
        while last - first > 1:
            middle = (first + last) // 2
            folded = fold(ruleset, events[first:middle], state)
            if fails(folded):
                last = middle
            else:
                first, state = middle, folded
    return last


def refused(entry: Entry, what: str) -> Refused:
    """The refusal of a line: `line N (type): what`."""
    line = entry.event
    kind = line.get("type") if isinstance(line, dict) else None
    of_kind = f" ({kind})" if isinstance(kind, str) and len(kind) <= 40 else ""
    return Refused(one_line(f"line {entry.number}{of_kind}: {what}"))


def one_line(text: str) -> str:
    """A refusal as one line of at most SAID characters."""
    text = " ".join(text[: SAID * 2].split())
    return text if len(text) <= SAID else text[: SAID - 1] + "…"
