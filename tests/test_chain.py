"""The writer's hashes, put together from parts, are the hashes of the exported lines."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.store import chain

# Any unicode (escapes, non-ASCII, astral planes), and the ids, hashes and types the writer
# writes as they are (chain.quoted).
texts = st.text() | st.text("abcXYZ019_-.")
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats() | texts
json: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)


@given(
    game_id=texts,
    seq=st.integers(1, 2**31 - 1),
    type_=texts,
    at=st.integers(-(10**12), 10**14),
    actor=st.none() | texts,
    data=st.dictionaries(texts, json, max_size=8),
    prev_hash=st.just(chain.GENESIS)
    | st.text("0123456789abcdef", min_size=64, max_size=64)
    | texts,
    version=st.just(1) | st.integers(2, 2**31),
)
def test_an_event_digest_is_the_digest_of_its_line(
    game_id: str,
    seq: int,
    type_: str,
    at: int,
    actor: str | None,
    data: chain.Json,
    prev_hash: str,
    version: int,
) -> None:
    line = chain.unsealed(game_id, seq, type_, at, actor, data, prev_hash, version)
    parts = chain.shared(game_id, at, actor)
    assert chain.event_digest(
        parts, chain.canonical(data), prev_hash, seq, type_, version
    ) == chain.digest(line)
