"""The event store's write path: CPU per append.

Opens a store on a fresh SQLite file (migrated as a server migrates it), creates 100 games, then
appends batches shaped like a busy server's group commits: 2-20 appends a batch from any of the
games, each append 1-3 events of card-duel-like data. One batch is written at a time, as the
scribe does (on the event loop's thread: server/store/backends.py, SqliteBackend). It prints the
process's CPU time per append (every thread: building the rows, the SQL, the hash chain, the
commit) and appends a second. Wall time is mostly the disk's flush; the CPU is what this
measures (`--no-sync` turns the flush off, in this benchmark's database only, to see the CPU
without the waits).

    .venv/bin/python -m bench.store [--appends 20000] [--rounds 5] [--no-sync]
"""

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from server.store import Append, Store, migrate
from server.store.backends import SqliteBackend
from server.store.database import parse_url
from server.store.models import GameRow

GAMES = 100
START = 1_780_000_000_000  # ms: a moment of 2026


class Line(NamedTuple):
    type: str
    data: dict[str, Any]
    version: int = 1


def event(rng: random.Random, n: int, at: int) -> Line:
    a, b = f"p{rng.randrange(500):03d}", f"p{rng.randrange(500):03d}"
    outcomes = [
        {"player_id": a, "result": "won", "wounds": 0, "effect": None},
        {"player_id": b, "result": "lost", "wounds": rng.randrange(3), "effect": "stunned"},
    ]
    data = {
        "duel_id": f"d{n}",
        "challenger": a,
        "target": b,
        "round": rng.randrange(1, 4),
        "ranged": rng.random() < 0.5,
        "outcomes": outcomes,
        "until": at + 30_000,
        "deadline": None,
    }
    return Line("duel_ended", data, rng.choice((1, 1, 2)))


def batches(appends: int, seqs: dict[str, int], rng: random.Random) -> list[list[Append]]:
    """Batches of 2-20 appends of 1-3 events, continuing each game where `seqs` says it ends."""
    made: list[list[Append]] = []
    count = 0
    at = START
    while count < appends:
        batch = []
        for _ in range(min(rng.randint(2, 20), appends - count)):
            game_id = f"game{rng.randrange(GAMES):03d}"
            at += rng.randrange(3)
            events = [event(rng, count + k, at) for k in range(rng.randint(1, 3))]
            actor = None if rng.random() < 0.05 else f"p{rng.randrange(500):03d}"
            batch.append(Append(game_id, seqs[game_id], events, at, actor, f"c{count}"))
            seqs[game_id] += len(events)
            count += 1
        made.append(batch)
    return made


async def main(appends: int, rounds: int, sync: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        await asyncio.to_thread(migrate.upgrade, parse_url(url))
        store = Store.open(url)
        backend = store.backend
        assert isinstance(backend, SqliteBackend)
        if not sync:  # this benchmark's connection only (the event loop's thread's, which
            # writes group commits): no production path has a hook
            backend.connection().execute("PRAGMA synchronous=OFF")
        rng = random.Random(7)
        seqs = {f"game{n:03d}": 0 for n in range(GAMES)}
        created = []
        for game_id in seqs:
            first = Append(
                game_id, 0, [Line("game_created", {"ruleset": "card-duel"})], START, None
            )
            first.game = GameRow(game_id=game_id, ruleset="card-duel", seed="00" * 32, created_at=1)
            first.tokens = [(f"token-{game_id}", "organizer")]
            created.append(first)
            seqs[game_id] = 1
        await store.append(created)
        for batch in batches(1000, seqs, rng):  # warm: caches, statements
            await store.append(batch)
        print(f"{appends} appends a round, {'synchronous=FULL' if sync else 'no sync'}")
        print("round  µs/append  appends/s")
        cpus = []
        for n in range(rounds):
            work = batches(appends, seqs, rng)
            cpu_before, wall_before = time.process_time(), time.perf_counter()
            for batch in work:
                await store.append(batch)
            cpu = (time.process_time() - cpu_before) / appends * 1e6
            wall = time.perf_counter() - wall_before
            cpus.append(cpu)
            print(f"{n + 1:5}  {cpu:9.1f}  {appends / wall:9.0f}")
        # Other processes on the machine only ever add CPU time (caches, shared cores): the
        # least round is the steadiest figure.
        print(f"least  {min(cpus):9.1f}")
        print(f"median {statistics.median(cpus):9.1f}")
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=20_000, help="appends a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-sync", action="store_true", help="PRAGMA synchronous=OFF")
    options = parser.parse_args()
    asyncio.run(main(options.appends, options.rounds, not options.no_sync))
