"""Group commit: many appends in one transaction, and one bad append sinks nobody else."""

import asyncio

import pytest

from server.game.scribe import Scribe
from server.store import Append, Conflict, Store, Unstorable
from tests.lines import Line

BAD = {
    "nul": lambda: Append("bad", 1, [Line("x", {})], 1, None, "a\x00b"),  # PostgreSQL: 22021
    "surrogate": lambda: Append("bad", 1, [Line("x", {})], 1, None, "\ud800"),
    "big": lambda: Append("bad", 1, [Line("x", {"n": 2**70})], 1, None, "c"),  # not JSON
}


def append(game_id: str, expected: int, command_id: str) -> Append:
    return Append(game_id, expected, [Line("x", {"n": expected})], 1, None, command_id)


@pytest.mark.parametrize("bad", list(BAD))
async def test_a_bad_append_fails_alone_and_the_rest_of_its_batch_is_written(
    store: Store, bad: str
) -> None:
    tag = f"{bad}-{store.url.get_backend_name()}"
    games = [f"{tag}-a", f"{tag}-b", f"{tag}-c"]
    written: list[Append] = []
    scribe = Scribe(store, written.extend)
    scribe.start()
    try:
        await asyncio.gather(*(scribe.write(append(g, 0, "first")) for g in games))
        broken = BAD[bad]()
        broken.game_id = games[1]
        if bad == "nul" and store.url.get_backend_name() == "sqlite":
            broken.events = BAD["big"]().events  # SQLite stores NUL: break it another way
        batch = [
            append(games[0], 1, "a1"),
            broken,  # games[1] at 1
            append(games[1], 2, "b2"),  # decided on top of the broken one: cannot stand
            append(games[2], 1, "c1"),
            append(games[0], 2, "a2"),
        ]
        results = await asyncio.gather(*(scribe.write(a) for a in batch), return_exceptions=True)
        assert results[0] is None and results[3] is None and results[4] is None, results
        assert isinstance(results[1], Unstorable), results
        assert isinstance(results[2], Conflict), results
        assert [r.seq for r in await store.events(games[0])] == [1, 2, 3]
        assert [r.seq for r in await store.events(games[1])] == [1]
        assert [r.seq for r in await store.events(games[2])] == [1, 2]
        assert [(a.game_id, a.command_id) for a in written[3:]] == [
            (games[0], "a1"),
            (games[2], "c1"),
            (games[0], "a2"),
        ]
        # The game whose append failed goes on from where its log ends.
        await scribe.write(append(games[1], 1, "b1-again"))
        assert [r.seq for r in await store.events(games[1])] == [1, 2]
    finally:
        await scribe.stop()


async def test_a_batch_that_the_scribe_cannot_even_turn_into_rows_does_not_stop_it(
    store: Store,
) -> None:
    game = f"rows-{store.url.get_backend_name()}"
    scribe = Scribe(store, lambda appends: None)
    scribe.start()
    try:
        bad = BAD["big"]()
        bad.game_id, bad.expected_seq = game, 0
        with pytest.raises(Unstorable):
            await scribe.write(bad)
        await scribe.write(append(game, 0, "after"))
        assert [r.command_id for r in await store.events(game)] == ["after"]
    finally:
        await scribe.stop()
