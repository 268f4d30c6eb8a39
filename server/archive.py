"""A game's log as a file: export it (NDJSON, hash-chained), import it into another database."""

import secrets
from typing import Any

from server.clock import iso, parse_iso
from server.models import GameRow
from server.rules import RULESETS
from server.rules.core import Event, Json
from server.store import Append, Store
from server.verify import verify


def line(game_id: str, recorded: Any) -> Json:
    """An event as the exported log writes it (PROTOCOL.md, "The log and its seed")."""
    return {
        "game_id": game_id,
        "seq": recorded.seq,
        "type": recorded.type,
        "at": iso(recorded.at),
        "actor": recorded.actor,
        "data": recorded.data,
        "prev_hash": recorded.prev_hash,
        "hash": recorded.hash,
    }


async def export(store: Store, game_id: str, after: int = 0) -> list[Json]:
    return [line(game_id, r) for r in await store.events(game_id, after)]


class Refused(Exception):
    """The log cannot be imported; the message says why."""


async def load(store: Store, lines: list[Json]) -> tuple[str, str]:
    """Write a verified log as a game of this database; answers its id and a new organizer
    token (tokens never leave the server in a log)."""
    problems = verify(lines)
    if problems:
        raise Refused("the log does not verify: " + problems[0])
    game_id = lines[0]["data"].get("game_id") or lines[0].get("game_id")
    ruleset = lines[0]["data"].get("ruleset")
    if not isinstance(game_id, str) or ruleset not in RULESETS:
        raise Refused("game_created names no game id or no known ruleset")
    if await store.game(game_id) is not None:
        raise Refused(f"this database already has game {game_id}")
    organizer = next(
        (
            e["data"]["player_id"]
            for e in lines
            if e["type"] == "player_joined" and e["data"].get("role") == "organizer"
        ),
        None,
    )
    if organizer is None:
        raise Refused("the log has no organizer to hand a token to")
    ended = next(e for e in lines if e["type"] == "game_ended")
    token = secrets.token_urlsafe(24)
    appends = [
        Append(
            game_id, e["seq"] - 1, [Event(e["type"], e["data"])], parse_iso(e["at"]), e.get("actor")
        )
        for e in lines
    ]
    first = appends[0]
    first.game = GameRow(
        game_id=game_id, ruleset=ruleset, seed=ended["data"]["seed"], created_at=first.at
    )
    first.tokens = [(token, organizer)]
    await store.append(appends)  # sealed again by the store: the very hashes just verified
    return game_id, token
