"""A game's log as a file: export it (NDJSON, hash-chained), import it into another database."""

import secrets
from collections.abc import AsyncIterator

import orjson

from server.clock import parse_iso
from server.log.verify import verify
from server.rules import RULESETS
from server.rules.core import Json
from server.rules.events import UnknownEvent
from server.store import Append, Recorded, Store, chain
from server.store.models import MAX_SEQ, GameRow

PAGE = 500  # events read and sent at a time: some milliseconds of work


def line(game_id: str, recorded: Recorded) -> Json:
    """An event as the exported log writes it (docs/protocol.md, "The exported log")."""
    line = chain.unsealed(
        game_id,
        recorded.seq,
        recorded.type,
        recorded.at,
        recorded.actor,
        recorded.data,
        recorded.prev_hash,
        recorded.version,
    )
    line["hash"] = recorded.hash
    return line


async def pages(
    store: Store, game_id: str, after: int = 0, limit: int = MAX_SEQ
) -> AsyncIterator[list[Json]]:
    """The log after `after`, at most `limit` events, oldest first, read a page at a time: a
    long log is never built whole, and the server answers others between two pages."""
    while limit > 0:
        page = await store.events(game_id, after, min(PAGE, limit))
        if page:
            yield [line(game_id, r) for r in page]
        if len(page) < min(PAGE, limit):
            return
        after, limit = page[-1].seq, limit - len(page)


async def opened(
    store: Store, game_id: str, after: int = 0, limit: int = MAX_SEQ
) -> AsyncIterator[list[Json]]:
    """`pages`, the first of them read already: a database that fails does so before an
    answer starts, and is answered with an error rather than a cut stream."""
    log = pages(store, game_id, after, limit)
    first: list[Json] = await anext(log, [])

    async def all_pages() -> AsyncIterator[list[Json]]:
        if first:
            yield first
        async for page in log:
            yield page

    return all_pages()


async def export(store: Store, game_id: str, after: int = 0) -> list[Json]:
    return [line async for page in pages(store, game_id, after) for line in page]


async def ndjson(log: AsyncIterator[list[Json]]) -> AsyncIterator[bytes]:
    """The lines as NDJSON, a page at a time."""
    async for page in log:
        yield b"".join(orjson.dumps(one) + b"\n" for one in page)


async def document(log: AsyncIterator[list[Json]], limit: int) -> AsyncIterator[bytes]:
    """`{"events": [...], "next"}` a page at a time. `next` is the `after` of the page that
    follows when this one is full (`limit` events), else null: the log ends here."""
    yield b'{"events":['
    count, last = 0, None
    async for page in log:
        yield (b"," if count else b"") + b",".join(orjson.dumps(one) for one in page)
        count, last = count + len(page), page[-1]["seq"]
    yield b'],"next":' + orjson.dumps(last if count == limit else None) + b"}"


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
    rules = RULESETS[ruleset]
    try:
        events = [rules.read(e["type"], e["data"], e.get("version", 1)) for e in lines]
    except UnknownEvent as error:
        raise Refused(f"the log holds an event this server cannot read: {error}") from error
    appends = [
        Append(game_id, e["seq"] - 1, [event], parse_iso(e["at"]), e.get("actor"))
        for e, event in zip(lines, events, strict=True)
    ]
    first = appends[0]
    first.game = GameRow(
        game_id=game_id, ruleset=ruleset, seed=ended["data"]["seed"], created_at=first.at
    )
    first.tokens = [(token, organizer)]
    await store.append(appends)  # sealed again by the store: the very hashes just verified
    return game_id, token
