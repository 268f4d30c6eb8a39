"""Checking a game's log after the end: is it whole, and is every die what the seed says?

The first event (`game_created`) commits to the seed by its SHA-256; `game_ended` reveals it.
Every event that used chance carries `data.chance` = `{"stream", "from", "draws"}`, and
`chance.redo` recomputes those draws from the seed alone, so a die changed after the fact (or a
seed swapped) shows. Every line also carries the hash chain (server/store/chain.py), so an edited,
deleted or swapped event shows too. `bijse verify FILE` reads an exported NDJSON log
(`bijse export`, or `GET /api/games/{gid}/events` as NDJSON), or that route's JSON answer.
"""

import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

import orjson

from server.rules.chance import U64, redo
from server.rules.roster import code_of
from server.store import chain
from server.store.bulk import paused_gc

Json = dict[str, Any]
MAX_SIZE = 10_000  # the most sides of a die, or cards of a shuffle, a log may ask to redo


class Problem(str):
    """A problem as its words (`seq 7 (card_picked): the event was changed: ...`), which also
    knows the seq of the event it names (None: the log as a whole) and what is wrong with it
    apart, for `bijse import` to name the event by its line."""

    seq: int | None
    what: str

    def __new__(cls, words: str, seq: int | None = None, what: str | None = None) -> "Problem":
        problem = super().__new__(cls, words)
        problem.seq = seq
        problem.what = words if what is None else what
        return problem


def at(event: Json, what: str) -> Problem:
    """A problem of one event, named by its seq and type."""
    return Problem(f"seq {event['seq']} ({event['type']}): {what}", event["seq"], what)


def verify(lines: Iterable[Json]) -> list[str]:
    """The problems of a log, in the order of its events; an empty list for a good log."""
    events = list(lines)
    problems = whole(events) or chained(events)
    if problems:
        return problems
    created = events[0]
    if created["type"] != "game_created" or not isinstance(created["data"].get("seed_sha256"), str):
        what = "the log must begin with game_created carrying data.seed_sha256"
        return [Problem(f"seq 1: {what}", 1, what)]
    ended = next((e for e in events if e["type"] == "game_ended"), None)
    if ended is None:
        return [
            "the log has no game_ended: the seed is not revealed yet, "
            "so the dice cannot be verified (verify again after the end of the game)"
        ]
    seed = revealed(ended, created["data"]["seed_sha256"], problems)
    if seed is None:
        return problems
    for event in events:
        if "chance" in event["data"]:
            problem = redone(seed, event)
            if problem:
                problems.append(problem)
    return problems


def whole(events: list[Json]) -> list[str]:
    """Every line an event with seq, type and data; seq 1, 2, 3 ... without gaps; `seq` and
    `version` JSON integers (`2`, never `2.0`, `"2"` or `true`: an export writes them so, and
    the hash covers them as written), `version` above 1 (version 1 is written by leaving it
    out)."""
    if not events:
        return ["the log is empty"]
    for number, event in enumerate(events, start=1):
        if not isinstance(event, dict) or not {"seq", "type", "data"} <= event.keys():
            return [on_line(number, "not an event with seq, type and data")]
        if not isinstance(event["type"], str):
            return [on_line(number, f"type is {brief(event['type'])}, not the name of an event")]
        for field in ("seq", "version"):
            if field in event and not integer(event[field]):
                found = brief(event[field])
                return [on_line(number, f"{field} must be a JSON integer, found {found}")]
        if not isinstance(event["data"], dict):
            return [on_line(number, "data is not an object")]
        if event["seq"] != number:
            expected = "seq 1" if number == 1 else f"seq {number} after seq {number - 1}"
            return [on_line(number, f"expected {expected}, found seq {event['seq']}")]
        if event.get("version", 2) < 2:
            version = event["version"]
            return [on_line(number, f"version is {version}: a line of version 1 has no version")]
    return []


def on_line(number: int, what: str) -> Problem:
    """A problem of the `number`th line (which is the event of that seq, once seqs are right)."""
    return Problem(f"line {number}: {what}", number, what)


def integer(value: Any) -> TypeGuard[int]:
    """A JSON integer as read: not a float, a string, or a boolean (which Python counts as an
    int)."""
    return type(value) is int


def chained(events: list[Json]) -> list[str]:
    """Every line carries the hash of the one before and its own: an edited, deleted, inserted or
    swapped event breaks the chain at that event."""
    previous = chain.GENESIS
    for event in events:
        if not isinstance(event.get("hash"), str) or not isinstance(event.get("prev_hash"), str):
            return [at(event, "no prev_hash and hash (a log from bijse export has them)")]
        if event["prev_hash"] != previous:
            return [at(event, "prev_hash is not the hash of the event before it")]
        try:
            digest = chain.digest(event)
        except (TypeError, orjson.JSONEncodeError) as error:  # a number no log holds (2**70)
            return [at(event, f"cannot be hashed: {error}")]
        if digest != event["hash"]:
            return [at(event, "the event was changed: its hash does not match its content")]
        previous = event["hash"]
    return []


def revealed(ended: Json, committed: str, problems: list[str]) -> bytes | None:
    """The seed of game_ended, if it is 32 bytes whose SHA-256 game_created committed to."""
    text = ended["data"].get("seed")
    try:
        seed = bytes.fromhex(text) if isinstance(text, str) else b""
    except ValueError:
        seed = b""
    if len(seed) != 32:
        problems.append(at(ended, "data.seed is not 64 hex digits"))
        return None
    digest = hashlib.sha256(seed).hexdigest()
    if digest != committed.lower():
        committed_to = f"but game_created (seq 1) committed to {committed}"
        problems.append(at(ended, f"the seed's SHA-256 is {digest}, {committed_to}"))
        return None
    return seed


def redone(seed: bytes, event: Json) -> Problem | None:
    """What differs between the draws an event recorded and the draws its seed gives."""
    recorded = event["data"]["chance"]
    if not well_formed(recorded):
        return at(event, "data.chance is not {stream, from, draws} with dice and shuffles")
    draws = recorded["draws"]
    expected = redo(seed, recorded)
    for n, (found, true) in enumerate(zip(draws, expected, strict=False)):
        if dumps(found) != dumps(true):  # by their JSON: `true` is not the die's 1
            return at(event, f"draw {n} is {dumps(found)}, the seed gives {dumps(true)}")
    if event["type"] == "player_joined" and expected:
        code = code_of(expected[-1]["value"])
        if event["data"].get("code") != code:
            return at(event, f"the code is {event['data'].get('code')!r}, the seed gives {code!r}")
    return None


def well_formed(recorded: Any) -> bool:
    """Worth redoing: whole numbers where numbers go, and sizes a game uses (a forged
    `{"shuffle": 10**12}` must not make the verifier shuffle a trillion cards)."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("draws"), list):
        return False
    if not all(integer(recorded.get(key)) for key in ("stream", "from")):
        return False
    for draw in recorded["draws"]:
        if not isinstance(draw, dict):
            return False
        if "below" in draw:  # a member's code: any bound a draw can reach
            if not integer(draw["below"]) or not 0 < draw["below"] <= U64:
                return False
            continue
        size = draw.get("die", draw.get("shuffle"))
        least = 1 if "die" in draw else 0  # a die has a side at least; a shuffle may be empty
        if not integer(size) or not least <= size <= MAX_SIZE:
            return False
    return True


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


BRIEF = 60  # characters of a value a problem quotes


def brief(value: Any) -> str:
    """A value as JSON, cut short: a problem is one line, whatever a forged log holds."""
    text = dumps(value)
    return text if len(text) <= BRIEF else text[: BRIEF - 1] + "…"


class Entry(NamedTuple):
    """An event of a log file, where it is (its line of an NDJSON file, from 1, blank lines
    counted; or its place among a JSON document's `events`, from 1), and its JSON text."""

    number: int
    event: Any
    text: str


def read(text: str) -> list[Json]:
    """NDJSON, one event a line; or one JSON document `{"events": [...]}`."""
    return [entry.event for entry in entries(text)]


def entries(text: str) -> list[Entry]:
    """`read`, each event with where it is. JSON as RFC 8259 has it (orjson): no NaN or
    Infinity, no lone surrogate; a whole number beyond 64 bits is read as a float (and refused
    where the log holds integers). Lines end at "\n" alone: a string of an exported line holds
    U+2028 or U+2029 as such (docs/protocol.md, "The hash chain"), which `str.splitlines` would
    take for line ends."""
    try:
        document = orjson.loads(text)
    except orjson.JSONDecodeError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("events"), list):
        return [
            Entry(number, event, orjson.dumps(event).decode())
            for number, event in enumerate(document["events"], start=1)
        ]
    found = []
    with paused_gc():
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                try:
                    found.append(Entry(number, orjson.loads(line), line))
                except orjson.JSONDecodeError as error:
                    raise ValueError(f"line {number}: not JSON ({error.msg})") from None
    return found


def main(path: str) -> int:
    """Verify the log in the file at `path` ("-": standard input); 0 when it is good."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        events = read(text)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        print(f"bijse verify: cannot read {path}: {error}", file=sys.stderr)
        return 2
    problems = verify(events)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    rolled = sum(1 for e in events if "chance" in e["data"])
    print(f"{path}: {len(events)} events, {rolled} with dice or shuffles: all verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "-"))
