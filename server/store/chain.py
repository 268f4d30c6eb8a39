"""The log's hash chain: every event carries the SHA-256 of the previous one's canonical form.

An exported line is {"game_id", "seq", "type", "at", "actor", "data", "prev_hash", "hash"},
and "version" after "type" when the event's version is above 1 (a line without it is version 1,
so lines written before events had versions keep their hashes);
`hash` is the SHA-256 (hex) of the canonical JSON of the line without `hash`: keys sorted at
every level, no insignificant spaces, UTF-8. `prev_hash` is the previous line's hash, 64 zeros
for seq 1. Editing, deleting or swapping any event breaks every hash after it.
"""

import hashlib
from typing import Any

import orjson

from server.clock import iso

Json = dict[str, Any]  # a JSON object, as the store reads and writes it
GENESIS = "0" * 64


def canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def digest(line: Json) -> str:
    """The hash of a line; a `hash` key in it is left out (copied without it only if it has one:
    the writer hashes every event it seals, before it has one)."""
    body = {k: v for k, v in line.items() if k != "hash"} if "hash" in line else line
    return hashlib.sha256(canonical(body)).hexdigest()


def line(
    game_id: str,
    seq: int,
    type: str,
    at: int,
    actor: str | None,
    data: Json,
    prev_hash: str,
    version: int = 1,
) -> Json:
    """An event as the exported log writes it, sealed with its hash."""
    body = unsealed(game_id, seq, type, at, actor, data, prev_hash, version)
    body["hash"] = digest(body)
    return body


def unsealed(
    game_id: str,
    seq: int,
    type: str,
    at: int,
    actor: str | None,
    data: Json,
    prev_hash: str,
    version: int = 1,
) -> Json:
    """An exported line without its hash: `version` only above 1."""
    body: Json = {"game_id": game_id, "seq": seq, "type": type}
    if version != 1:
        body["version"] = version
    body.update(at=iso(at), actor=actor, data=data, prev_hash=prev_hash)
    return body


def shared(game_id: str, at: int, actor: str | None) -> tuple[bytes, bytes]:
    """What the canonical forms of one append's events share: the parts before and after `data`
    (keys in sorted order: actor, at, data, game_id, prev_hash, seq, type, version)."""
    who = b"null" if actor is None else quoted(actor)
    before = b'{"actor":' + who + b',"at":"' + iso(at).encode() + b'","data":'
    return before, b',"game_id":' + quoted(game_id) + b',"prev_hash":'


def event_digest(
    parts: tuple[bytes, bytes], data: bytes, prev_hash: str, seq: int, type: str, version: int
) -> str:
    """`digest(unsealed(...))` of an event, its canonical form put together from its parts
    (`parts` from `shared`, `data` its `canonical`) rather than a line built and sorted: the
    writer hashes every event it writes."""
    version_part = b"" if version == 1 else b',"version":' + str(version).encode()
    body = b"".join(
        (
            parts[0],
            data,
            parts[1],
            quoted(prev_hash),
            b',"seq":',
            str(seq).encode(),
            b',"type":',
            quoted(type),
            version_part,
            b"}",
        )
    )
    return hashlib.sha256(body).hexdigest()


def quoted(text: str) -> bytes:
    """A string as canonical JSON; ids, hashes and types (letters, digits, `_`, `-`, `.`) need
    no escaping and are written as they are, the rest by orjson."""
    if text.isascii() and text.replace("_", "").replace("-", "").replace(".", "").isalnum():
        return b'"' + text.encode() + b'"'
    return orjson.dumps(text)


def seal(lines: list[Json]) -> list[Json]:
    """Chain exported lines in place, keeping everything else they hold (tests use it to play a
    forger who rewrites the whole chain; the seed still catches a changed die)."""
    previous = GENESIS
    for entry in lines:
        entry["prev_hash"] = previous
        entry["hash"] = previous = digest(entry)
    return lines
