"""Replay speed: project a long card-duel log, and start a server on such a database.

Plays a game of 200 fighters through the rules until the log holds N events (default
1,000,000), writes it to a fresh SQLite file through the store, then prints:
- projection: events a second folded by the rules from events already in memory;
- load: events a second for reading the game from the database and folding it (what a server
  does on the first request for a game after a start);
- start: seconds from launching `bijse serve` on that database to its first answer, and to the
  first view of the big game: once with no snapshot (the whole log is folded, and the server
  snapshots the game), then, after that server stopped, once more from the snapshot.

    .venv/bin/python -m bench.replay [--events 1000000]
"""

import argparse
import asyncio
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx

from bench.live import ROOT, free_port, scratch
from server.game.hub import Hub
from server.game.referee import Referee
from server.rules import RULESETS
from server.rules.card_duel.commands import Challenge, Pick
from server.rules.core import Context, Event, Member, RuleError, fold
from server.rules.roster import AddPlayer, StartGame, opening
from server.store import Append, Store, migrate
from server.store.bulk import paused_gc
from server.store.models import GameRow

RULES = RULESETS["card-duel"]


def play(events: int) -> tuple[list[Event], list[int]]:
    """A log of about `events` events, and for each command the number of its events."""
    config = RULES.config(stun_s=0, escape_immunity_s=0).model_dump(mode="json")
    state, log = opening(RULES, "big", "bench", config, b"\0" * 32, 0)
    sizes = [len(log)]
    organizer = state.roster.members[log[-1].data["player_id"]]

    def run(command: object, actor: Member, now: int) -> list[Event]:
        nonlocal state
        ctx = Context(now=now, actor=actor, seq=len(log) + 1, seed=b"\0" * 32)
        new = RULES.decide(state, command, ctx)  # type: ignore[arg-type]
        for event in new:
            state = RULES.evolve(state, event)
        log.extend(new)
        sizes.append(len(new))
        return new

    fighters = []
    for n in range(200):
        joined = run(AddPlayer(name=f"P{n}"), organizer, 0)[0].data
        fighters.append(state.roster.members[joined["player_id"]])
    run(StartGame(), organizer, 0)
    rng = random.Random(7)
    now = 1_000
    while len(log) < events:
        now += 10
        a, b = rng.sample(fighters, 2)
        try:
            duel_id = run(Challenge(target=b.code), a, now)[-1].data["duel_id"]
        except RuleError:
            continue
        while duel_id in state.duels:
            for p in (a, b):
                if duel_id in state.duels:
                    card = rng.choice(state.fighters[p.player_id].cards)
                    run(Pick(duel_id=duel_id, card_id=card.card_id), p, now)
    return log, sizes


async def write(url: str, log: list[Event], sizes: list[int]) -> None:
    store = Store.open(url)
    game = GameRow(game_id="big", ruleset=RULES.id, seed="00" * 32, created_at=0)
    batch: list[Append] = []
    seq = 0
    for size in sizes:
        append = Append("big", seq, log[seq : seq + size], 1_000 + seq, None)
        if seq == 0:
            append.game, append.tokens = game, [("bench-organizer", "p2")]
        batch.append(append)
        seq += size
        if len(batch) == 2_000:
            await store.append(batch)
            batch = []
    if batch:
        await store.append(batch)
    await store.close()


async def load(url: str) -> float:
    referee = Referee(Store.open(url), Hub())
    start = time.perf_counter()
    table = await referee.games.table("big")
    elapsed = time.perf_counter() - start
    assert table.seq > 0
    await referee.games.snapshots.stop()
    await referee.store.close()
    return elapsed


def snapshots(path: Path, forget: bool = False) -> list[tuple[int, int]]:
    """The snapshots in the database, as (seq, bytes); `forget`: delete them first."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        if forget:
            db.execute("DELETE FROM snapshots")
        return db.execute("SELECT seq, length(state) FROM snapshots").fetchall()
    finally:
        db.close()


def start_server(url: str) -> tuple[float, float]:
    port = free_port()
    began = time.perf_counter()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.serve.cli",
            "serve",
            "--port",
            str(port),
            "--database-url",
            url,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        while True:
            try:
                httpx.get(f"{base}/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.02)
        up = time.perf_counter() - began
        response = httpx.get(
            f"{base}/api/games/big/view",
            timeout=600,
            headers={"Authorization": "Bearer bench-organizer"},
        )
        response.raise_for_status()
        return up, time.perf_counter() - began
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    with scratch("replay-") as folder:
        path = folder / "replay.db"
        url = f"sqlite:///{path}"
        began = time.perf_counter()
        log, sizes = play(args.events)
        print(f"played {len(log)} events in {time.perf_counter() - began:.1f} s", flush=True)
        migrate.upgrade(Store.open(url).url)
        began = time.perf_counter()
        asyncio.run(write(url, log, sizes))
        print(f"wrote them in {time.perf_counter() - began:.1f} s", flush=True)
        began = time.perf_counter()
        with paused_gc():  # as the server folds a log it loads
            fold(RULES, log)
        projection = len(log) / (time.perf_counter() - began)
        loading = asyncio.run(load(url))
        snapshots(path, forget=True)  # the load above snapshotted the game: not yet
        up, first_view = start_server(url)
        ((seq, size),) = snapshots(path)  # written by that server, after it folded the log
        again, snapshot_view = start_server(url)
    print(f"projection        {projection:10.0f} events/s (rules only, events in memory)")
    rate = len(log) / loading
    print(f"load from SQLite  {rate:10.0f} events/s ({loading:.1f} s: read, parse, fold)")
    print(f"server start      {up:10.2f} s to its first answer")
    print(f"first view        {first_view:10.2f} s after launch (folds the {len(log)}-event game)")
    print(f"snapshot          {size / 1024:10.0f} KiB at seq {seq}, written by that server")
    print(f"server start      {again:10.2f} s to its first answer, once more")
    print(f"first view        {snapshot_view:10.2f} s after launch, from the snapshot")


if __name__ == "__main__":
    main()
