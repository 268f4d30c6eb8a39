"""One storage conformance suite, run against a SQLite file and a PostgreSQL server."""

import asyncio
import contextlib
import fcntl
import gc
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.store import Append, Conflict, Store, Unavailable, chain, migrate
from server.store.database import parse_url
from server.store.models import GameRow
from tests.lines import Line


def game(game_id: str) -> GameRow:
    return GameRow(game_id=game_id, ruleset="card-duel", seed="00" * 32, created_at=1)


def batch(game_id: str, expected: int, *types: str, command_id: str | None = None) -> Append:
    events = [Line(t, {"n": expected + i}) for i, t in enumerate(types, 1)]
    return Append(game_id, expected, events, at=1000 + expected, actor="p1", command_id=command_id)


async def test_append_then_read_back_in_order(store: Store) -> None:
    first = batch("g1", 0, "game_created", "player_joined")
    first.game, first.tokens = game("g1"), [("secret-token", "p2")]
    await store.append([first])
    await store.append([batch("g1", 2, "game_started", command_id="c1")])
    log = await store.events("g1")
    assert [(r.seq, r.type, r.data) for r in log] == [
        (1, "game_created", {"n": 1}),
        (2, "player_joined", {"n": 2}),
        (3, "game_started", {"n": 3}),
    ]
    assert log[2].command_id == "c1" and log[0].command_id is None
    assert log[2].at == 1002 and log[2].actor == "p1"
    assert [r.seq for r in await store.events("g1", after=1)] == [2, 3]
    assert await store.token("secret-token") == ("g1", "p2")
    assert await store.tokens("g1") == {"p2": "secret-token"}
    row = await store.game("g1")
    assert row is not None and row.seed == "00" * 32


async def test_a_taken_seq_is_refused(store: Store) -> None:
    await store.append([batch("g2", 0, "a", "b")])
    with pytest.raises(Conflict):
        await store.append([batch("g2", 1, "c")])
    assert [r.type for r in await store.events("g2")] == ["a", "b"]


async def test_a_gap_is_refused(store: Store) -> None:
    await store.append([batch("g3", 0, "a")])
    with pytest.raises(Conflict):
        await store.append([batch("g3", 5, "b")])
    assert [r.seq for r in await store.events("g3")] == [1]


async def test_a_mixed_batch_writes_nothing(store: Store) -> None:
    await store.append([batch("g4", 0, "a")])
    good, stale = batch("g5", 0, "x", "y"), batch("g4", 0, "b")
    with pytest.raises(Conflict):
        await store.append([good, stale])
    assert await store.events("g5") == []
    assert [r.type for r in await store.events("g4")] == ["a"]


async def test_batches_of_one_game_chain_in_one_transaction(store: Store) -> None:
    await store.append([batch("g6", 0, "a"), batch("g6", 1, "b", "c"), batch("g7", 0, "z")])
    assert [r.seq for r in await store.events("g6")] == [1, 2, 3]
    with pytest.raises(Conflict):  # the second batch does not continue where the first ends
        await store.append([batch("g6", 3, "d"), batch("g6", 3, "e")])
    assert [r.seq for r in await store.events("g6")] == [1, 2, 3]


@contextlib.asynccontextmanager
async def turns() -> AsyncIterator[list[int]]:
    """Counts the event loop's turns meanwhile (in a list of one): a loop stuck in a blocking
    call takes none."""
    count = [0]

    async def tick() -> None:
        while True:
            count[0] += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    try:
        yield count
    finally:
        ticker.cancel()


async def test_an_import_sized_write_leaves_the_event_loop_free(store: Store) -> None:
    """A write of thousands of events (an imported log) must not stop the sockets meanwhile: the
    event loop runs other work while it is written."""
    big = batch("g-big", 0, *["imported"] * 5000)
    async with turns() as taken:
        before = taken[0]
        await store.append([big])
        assert taken[0] - before >= 10
    assert [r.seq for r in await store.events("g-big", after=4998)] == [4999, 5000]


async def test_a_write_waits_for_another_writers_lock_without_stopping_the_event_loop(
    tmp_path: Path,
) -> None:
    """Another process holding the SQLite file's write lock (an import, say) for longer than a
    commit takes: a command's write waits for it, and the sockets are served meanwhile."""
    path = tmp_path / "bijse.db"
    await asyncio.to_thread(migrate.upgrade, parse_url(f"sqlite:///{path}"))
    store = Store.open(f"sqlite:///{path}")
    await store.append([batch("g-held", 0, "a")])
    with open(f"{path}-writer.lock", "a") as other:  # another open file: another writer
        fcntl.flock(other, fcntl.LOCK_EX)
        # Let go by a thread of its own: were the event loop stuck waiting, the test goes on.
        release = threading.Timer(0.4, fcntl.flock, (other, fcntl.LOCK_UN))
        release.start()
        async with turns() as taken:
            write = asyncio.create_task(store.append([batch("g-held", 1, "b")]))
            await asyncio.sleep(0.2)
            assert not write.done()  # it waits for the lock
            assert taken[0] >= 10  # and the event loop goes on
            await asyncio.wait_for(write, 5)
        release.join()
    assert [r.type for r in await store.events("g-held")] == ["a", "b"]
    await store.close()


async def test_concurrent_appenders_one_wins_each_seq_and_no_gaps(
    store: Store, database_url: str
) -> None:
    """Two writers (two stores, as two server processes would be) race for the same seqs."""
    rival = Store.open(database_url)
    try:
        await store.append([batch("g9", 0, "created")])

        async def writer(writer_store: Store, name: str) -> int:
            wins = 0
            for _ in range(15):
                head = (await writer_store.events("g9"))[-1].seq
                try:
                    await writer_store.append([batch("g9", head, name)])
                    wins += 1
                except Conflict:
                    pass
            return wins

        same_seq = [store.append([batch("g9", 1, "left")]), rival.append([batch("g9", 1, "right")])]
        results = await asyncio.gather(*same_seq, return_exceptions=True)
        assert sum(r is None for r in results) == 1
        assert sum(isinstance(r, Conflict) for r in results) == 1
        wins = await asyncio.gather(writer(store, "a"), writer(rival, "b"))
        log = await store.events("g9")
        assert [r.seq for r in log] == list(range(1, len(log) + 1))
        assert len(log) == 2 + sum(wins)
    finally:
        await rival.close()


async def test_a_writer_overtaken_by_another_is_refused_and_then_chains_on(
    store: Store, database_url: str
) -> None:
    """A server knows where its own last write left a game; another server writing after it
    makes that knowledge stale, and the next append on top of it must conflict, not fork."""
    rival = Store.open(database_url)
    try:
        await store.append([batch("g10", 0, "created")])
        await rival.append([batch("g10", 1, "rival")])
        with pytest.raises(Conflict):
            await store.append([batch("g10", 1, "stale")])
        await store.append([batch("g10", 2, "after")])
        log = await store.events("g10")
        assert [(r.seq, r.type) for r in log] == [(1, "created"), (2, "rival"), (3, "after")]
        assert [r.prev_hash for r in log[1:]] == [r.hash for r in log[:-1]]
    finally:
        await rival.close()


async def test_the_rows_written_are_the_lines_sealed(store: Store) -> None:
    """What the writer puts on disk: the data as given (key order kept), and each event's hash
    that of its exported line (a version above 1, no actor, non-ASCII text)."""
    data = {"z": 1, "a": {"ž": "čaj 🍵", "b": [None, 2.5, True]}}
    created = Append("g11", 0, [Line("a", data), Line("b", {}, 3)], 1_780_000_000_123, None)
    await store.append([created, batch("g11", 2, "c", command_id="c1")])
    log = await store.events("g11")
    previous = chain.GENESIS
    for r in log:
        line = chain.line("g11", r.seq, r.type, r.at, r.actor, r.data, previous, r.version)
        assert (r.prev_hash, r.hash) == (line["prev_hash"], line["hash"])
        previous = r.hash
    assert [(r.version, r.actor, r.command_id) for r in log] == [
        (1, None, None),
        (3, None, None),
        (1, "p1", "c1"),
    ]
    assert list(log[0].data) == ["z", "a"]


async def test_a_closing_store_waits_for_its_reads_and_then_refuses_more(
    postgres_url: str,
) -> None:
    """A read still running when the server stops would keep its connection past the pool's
    end, never closed (asyncpg warns when it is collected); a read after would open a new
    one. The store waits for the first and refuses the second."""
    await asyncio.to_thread(migrate.upgrade, parse_url(postgres_url))
    store = Store.open(postgres_url)
    await store.append([batch("closing", 0, "game_created")])
    reading = asyncio.ensure_future(store.events("closing"))
    await asyncio.sleep(0)  # the read has its connection
    await store.close()
    assert [r.seq for r in await reading] == [1]
    with pytest.raises(Unavailable, match="closed"):
        await store.events("closing")
    del reading, store
    gc.collect()  # an unclosed connection warns here, and the suite fails on warnings
