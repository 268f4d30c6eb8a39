"""A game's log as a file: export it (NDJSON, hash-chained), import it into another database."""

import secrets
from collections.abc import AsyncIterator, Sequence

import orjson

from server.log.admit import Bounds, Refused, examine, replay
from server.log.verify import Entry
from server.rules.core import Json
from server.store import Append, Conflict, Recorded, Store, Unavailable, Unstorable, chain
from server.store.bulk import paused_gc
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


class Unwritable(Exception):
    """The log is sound, but this database does not take it: it has the game already, or the
    write failed. The message says why."""


async def load(
    store: Store, entries: Sequence[Entry], bounds: Bounds | None = None
) -> tuple[str, str]:
    """Write a log as a game of this database, if it is one its rules could have written
    (server/log/admit.py, which raises Refused); answers its id and a new organizer token
    (tokens never leave the server in a log). Writes nothing unless it writes it all."""
    bounds = bounds or Bounds()
    opening = examine(entries, bounds)
    try:
        if await store.game(opening.game_id) is not None:
            raise Unwritable(f"this database already has game {opening.game_id}")
    except Unavailable as error:
        raise Unwritable(f"the database cannot be read: {error}") from None
    game = replay(opening, entries, bounds)
    lines = [entry.event for entry in entries]
    moments, game_id = opening.moments, opening.game_id
    with paused_gc():
        appends = [
            Append(game_id, line["seq"] - 1, [event], moment, line["actor"])
            for line, event, moment in zip(lines, game.events, moments, strict=True)
        ]
    first = appends[0]
    first.game = GameRow(
        game_id=opening.game_id,
        ruleset=opening.ruleset.id,
        seed=opening.seed,
        created_at=first.at,
    )
    token = secrets.token_urlsafe(24)
    first.tokens = [(token, game.organizer)]
    try:
        with paused_gc():  # the rows of a long log, made at once
            await store.append(appends)  # sealed again by the store: the very hashes verified
    except Unstorable as error:
        raise Refused(f"the database cannot hold a value of the log: {error}") from None
    except (Conflict, Unavailable) as error:
        raise Unwritable(f"the database did not take the log: {error}") from None
    return opening.game_id, token
