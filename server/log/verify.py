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
from typing import Any

from server.rules.chance import U64, redo
from server.rules.roster import code_of
from server.store import chain

Json = dict[str, Any]
MAX_SIZE = 10_000  # the most sides of a die, or cards of a shuffle, a log may ask to redo


def verify(lines: Iterable[Json]) -> list[str]:
    """The problems of a log, in the order of its events; an empty list for a good log."""
    events = list(lines)
    problems = whole(events) or chained(events)
    if problems:
        return problems
    created = events[0]
    if created["type"] != "game_created" or not isinstance(created["data"].get("seed_sha256"), str):
        return ["seq 1: the log must begin with game_created carrying data.seed_sha256"]
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
    """Every line an event with seq, type and data; seq 1, 2, 3 ... without gaps."""
    if not events:
        return ["the log is empty"]
    for number, event in enumerate(events, start=1):
        if not isinstance(event, dict) or not {"seq", "type", "data"} <= event.keys():
            return [f"line {number}: not an event with seq, type and data"]
        if not isinstance(event["data"], dict):
            return [f"seq {event['seq']}: data is not an object"]
        if event["seq"] != number:
            expected = "seq 1" if number == 1 else f"seq {number} after seq {number - 1}"
            return [f"line {number}: expected {expected}, found seq {event['seq']}"]
    return []


def chained(events: list[Json]) -> list[str]:
    """Every line carries the hash of the one before and its own: an edited, deleted, inserted or
    swapped event breaks the chain at that event."""
    previous = chain.GENESIS
    for event in events:
        where = f"seq {event['seq']} ({event['type']})"
        if not isinstance(event.get("hash"), str) or not isinstance(event.get("prev_hash"), str):
            return [f"{where}: no prev_hash and hash (a log from bijse export has them)"]
        if event["prev_hash"] != previous:
            return [f"{where}: prev_hash is not the hash of the event before it"]
        if chain.digest(event) != event["hash"]:
            return [f"{where}: the event was changed: its hash does not match its content"]
        previous = event["hash"]
    return []


def revealed(ended: Json, committed: str, problems: list[str]) -> bytes | None:
    """The seed of game_ended, if it is 32 bytes whose SHA-256 game_created committed to."""
    where = f"seq {ended['seq']} ({ended['type']})"
    text = ended["data"].get("seed")
    try:
        seed = bytes.fromhex(text) if isinstance(text, str) else b""
    except ValueError:
        seed = b""
    if len(seed) != 32:
        problems.append(f"{where}: data.seed is not 64 hex digits")
        return None
    digest = hashlib.sha256(seed).hexdigest()
    if digest != committed.lower():
        problems.append(
            f"{where}: the seed's SHA-256 is {digest}, "
            f"but game_created (seq 1) committed to {committed}"
        )
        return None
    return seed


def redone(seed: bytes, event: Json) -> str | None:
    """What differs between the draws an event recorded and the draws its seed gives."""
    where = f"seq {event['seq']} ({event['type']})"
    recorded = event["data"]["chance"]
    if not well_formed(recorded):
        return f"{where}: data.chance is not {{stream, from, draws}} with dice and shuffles"
    draws = recorded["draws"]
    expected = redo(seed, recorded)
    for n, (found, true) in enumerate(zip(draws, expected, strict=False)):
        if found != true:
            return f"{where}: draw {n} is {dumps(found)}, the seed gives {dumps(true)}"
    if event["type"] == "player_joined" and expected:
        code = code_of(expected[-1]["value"])
        if event["data"].get("code") != code:
            return f"{where}: the code is {event['data'].get('code')!r}, the seed gives {code!r}"
    return None


def well_formed(recorded: Any) -> bool:
    """Worth redoing: whole numbers where numbers go, and sizes a game uses (a forged
    `{"shuffle": 10**12}` must not make the verifier shuffle a trillion cards)."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("draws"), list):
        return False
    if not all(isinstance(recorded.get(key), int) for key in ("stream", "from")):
        return False
    for draw in recorded["draws"]:
        if not isinstance(draw, dict):
            return False
        if "below" in draw:  # a member's code: any bound a draw can reach
            if not isinstance(draw["below"], int) or not 0 < draw["below"] <= U64:
                return False
            continue
        size = draw.get("die", draw.get("shuffle"))
        least = 1 if "die" in draw else 0  # a die has a side at least; a shuffle may be empty
        if not isinstance(size, int) or not least <= size <= MAX_SIZE:
            return False
    return True


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def read(text: str) -> list[Json]:
    """NDJSON, one event a line; or one JSON document `{"events": [...]}`."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("events"), list):
        return list(document["events"])
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number}: not JSON ({error.msg})") from None
    return events


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
