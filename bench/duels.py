"""Duels per second: N simulated phones duel in pairs over WebSockets against a real server,
optionally all in one game and watched by players who only watch.

Prints commands and duels per second, p50/p99 latency from sending a command to both duellists
holding a view that includes it, bytes and messages each watching phone receives per duel, the
server's peak RSS and CPU, and (same run, same disk) the raw durable SQLite single-event insert
rate with the ratio of the two. `--compare` runs the pairs in games of two, then in one game with
the watchers (4,800 unless told: a festival of 5,000) and the organizer's console open, and prints
the ratios; `--pairs N` runs both N times by turns and prints each pair's ratios and their
medians (the machine's speed drifts between runs). A run of one game keeps its console open
unless `--no-console`.

A duel is played as the PWA plays it: the challenger sends its first pick with the challenge
(`card_id`), the target picks, and both pick again while rounds are drawn. `--pick-apart`: the
challenger picks once the duel has started instead (a command more a duel).

The phones answer at once (a closed loop: each pair has a command in flight all the time, the
most a server can be asked). `--think S`: each phone looks at its screen for S seconds on
average (from half to one and a half of it, at random) before each challenge and each pick, as
a player in the field does: the same phones at a human pace.

    .venv/bin/python -m bench.duels [--phones 200] [--per-game 2 | --one-game] [--watchers 0]
                                    [--console | --no-console] [--seconds 10] [--compare]
                                    [--pairs 1] [--pick-apart] [--think 0] [--profile]
"""

import argparse
import asyncio
import contextlib
import gc
import os
import random
import sqlite3
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop

from bench import profile as sampler
from bench.live import (
    Held,
    cpu_by_process,
    cpu_seconds,
    family,
    memory_kib,
    new_game,
    scratch,
    server,
)
from bench.wsclient import Closed, Link

SETUP_TIMEOUT = 300  # s: creating the games and connecting every phone
COMMAND_TIMEOUT = 30  # s: a command still unanswered this long after the end fails the run
CONNECTING = 50  # phones connecting at once


@dataclass
class Layout:
    phones: int  # duelling phones, in pairs
    per_game: int  # duelling phones per game
    watchers: int  # players who only watch, spread over the games
    one_game: bool
    console: bool = False  # each game's organizer console open (a socket of the organizer's)
    pick_apart: bool = False  # the challenger picks after its challenge, not with it
    think: float = 0.0  # s a phone looks at its screen before each command, on average

    def games(self) -> list[tuple[int, int]]:
        """(duellists, watchers) of each game."""
        if self.one_game:
            return [(self.phones, self.watchers)]
        count = max(1, self.phones // self.per_game)
        return [
            (self.per_game, self.watchers // count + (n < self.watchers % count))
            for n in range(count)
        ]

    def describe(self) -> str:
        games = self.games()
        size = sum(games[0])
        where = f"{len(games)} game{'s' * (len(games) > 1)} of {size}"
        console = ", the console open" if self.console else ""
        pace = f", {self.think:g} s to think before a command" if self.think else ""
        return f"{self.phones} duelling + {self.watchers} watching phones, {where}{console}{pace}"


class Watcher:
    """A connected player who never sends a command: counts what it receives, parses nothing."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.bytes = 0
        self.messages = 0
        self.reconnects = 0
        self.closing = False
        self.first = asyncio.Event()
        self.link: Link | None = None
        self.reopening: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self.link = await Link.open(self.url + self.resume(), self.receive)
        self.link.closed.add_done_callback(self.closed)

    def closed(self, _: object) -> None:
        if not self.closing:
            self.reopen()

    def resume(self) -> str:
        return ""

    def heard(self, raw: bytes) -> bool:
        """False: what the socket holds is wrong, reconnect."""
        return True

    def count(self) -> None:
        """From now on count only what the duels bring."""
        self.bytes = self.messages = 0

    def receive(self, raw: bytes) -> None:
        self.bytes += len(raw)
        self.messages += 1
        if not self.heard(raw):
            self.reopen()
        elif not self.first.is_set():
            self.first.set()

    def reopen(self) -> None:
        """A new connection (resuming with after=), once: the old one is dropped."""
        if self.closing or (self.reopening is not None and not self.reopening.done()):
            return
        self.reconnects += 1
        if self.link is not None:
            self.link.heard = lambda raw: None
            self.link.abort()
        self.reopening = asyncio.create_task(self.open())

    async def close(self) -> None:
        self.closing = True
        if self.reopening is not None:
            with contextlib.suppress(Exception):
                await self.reopening
        if self.link is not None:
            await self.link.close()


class Phone(Watcher):
    """A duellist: holds its view (whole views and patches), sends commands, awaits acks."""

    def __init__(self, url: str, code: str) -> None:
        super().__init__(url)
        self.code = code
        self.held = Held()
        self.acks: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.waiting: list[tuple[int, asyncio.Future[None]]] = []
        self.sent = 0

    def resume(self) -> str:
        return f"&after={self.held.seq}" if self.held.seq else ""

    def heard(self, raw: bytes) -> bool:
        message = orjson.loads(raw)
        kind = message["type"]
        if kind in ("view", "patch"):
            if not self.held.take(message):
                return False  # reopen() drops the acks of this socket
            still = []
            for seq, held in self.waiting:
                if seq <= self.held.seq:
                    held.set_result(None)
                else:
                    still.append((seq, held))
            self.waiting = still
        elif kind in ("ack", "error"):
            future = self.acks.pop(message["command_id"], None)
            if future is not None:
                future.set_result(message)
        return True

    def reopen(self) -> None:
        self.drop_acks()
        super().reopen()

    def drop_acks(self) -> None:
        """Acks on a socket being replaced never come: those commands count as refused."""
        for future in self.acks.values():
            future.set_result({"type": "error", "code": "reconnected"})
        self.acks = {}

    async def send(self, command: dict[str, Any]) -> dict[str, Any]:
        self.sent += 1
        command_id = f"{self.code}-{self.sent}"  # unique in the game: codes are
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.acks[command_id] = future
        message = {"type": "command", "command_id": command_id, "command": command}
        try:
            assert self.link is not None
            self.link.send(orjson.dumps(message))
        except Closed:
            self.acks.pop(command_id, None)
            return {"type": "error", "code": "reconnected"}
        return await future

    async def holds(self, seq: int) -> None:
        if self.held.seq < seq:
            future = asyncio.get_running_loop().create_future()
            self.waiting.append((seq, future))
            await future

    @property
    def view(self) -> dict[str, Any]:
        return self.held.view


async def timed(
    sender: Phone, both: tuple[Phone, Phone], command: dict[str, Any], latencies: list[float]
) -> dict[str, Any]:
    # No timer a command (they cost the load generator a tenth of its CPU): the run's own
    # timeout in duelling() catches a command that is never answered.
    start = time.perf_counter()
    answer = await sender.send(command)
    if answer["type"] == "ack":
        for phone in both:
            await phone.holds(answer["seq"])
        latencies.append(time.perf_counter() - start)
    return answer


async def duel_pair(
    a: Phone,
    b: Phone,
    until: float,
    latencies: list[float],
    counts: dict[str, int],
    pick_apart: bool = False,
    think: float = 0.0,
) -> None:
    rng = random.Random()

    def card(phone: Phone) -> str:
        return str(rng.choice(phone.view["me"]["cards"])["card_id"])

    async def thought() -> None:
        if think:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))

    while time.perf_counter() < until:
        await thought()
        challenge = {"type": "challenge", "target": b.code}
        if not pick_apart:  # the challenger's first pick goes with the challenge, as the PWA's
            challenge["card_id"] = card(a)
        answer = await timed(a, (a, b), challenge, latencies)
        counts["commands"] += 1
        if answer["type"] != "ack":
            counts["refused"] += 1
            await asyncio.sleep(0.01)
            continue
        duel_id = a.view["duel"]["duel_id"]
        while a.view.get("duel") and a.view["duel"]["duel_id"] == duel_id:
            pickers = [p for p in (a, b) if p.view["duel"].get("my_pick") is None]
            await thought()
            # Both at once; a task for the first of two only (tasks cost the load generator).
            sent = [
                timed(
                    p, (a, b), {"type": "pick", "duel_id": duel_id, "card_id": card(p)}, latencies
                )
                for p in pickers
            ]
            first = asyncio.ensure_future(sent[0]) if len(sent) == 2 else None
            answers = [await each for each in sent[first is not None :]]
            if first is not None:
                answers.append(await first)
            counts["commands"] += len(answers)
            counts["refused"] += sum(x["type"] != "ack" for x in answers)
        counts["duels"] += 1


def raw_insert_rate(folder: Path, seconds: float = 3.0) -> float:
    """Durable single-event inserts a second: WAL, synchronous=FULL, one commit per event."""
    path = folder / "raw.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE events (game_id TEXT, seq INTEGER, type TEXT, data TEXT, at INTEGER,"
        " PRIMARY KEY (game_id, seq))"
    )
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        n += 1
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO events VALUES ('g', ?, 'card_picked', '{\"x\": 1}', 0)", (n,))
        db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    db.close()
    return n / elapsed


async def seated(base: str, layout: Layout) -> tuple[list[Phone], list[Watcher]]:
    """Creates the games and connects every phone (and console); each holds its first view.
    A console counts as a watcher."""
    ws_base = base.replace("http", "ws", 1)
    phones: list[Phone] = []
    watchers: list[Watcher] = []
    config = {"stun_s": 0, "escape_immunity_s": 0}
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for duellists, watching in layout.games():
            gid, organizer, members = await new_game(http, duellists + watching, config)
            if layout.console:
                watchers.append(Watcher(f"{ws_base}/ws/games/{gid}?token={organizer}"))
            for n, member in enumerate(members):
                url = f"{ws_base}/ws/games/{gid}?token={member['token']}"
                if n < duellists:
                    phones.append(Phone(url, member["code"]))
                else:
                    watchers.append(Watcher(url))
    gate = asyncio.Semaphore(CONNECTING)

    async def connect(each: Watcher) -> None:
        async with gate:
            await each.open()
            await each.first.wait()

    await asyncio.gather(*(connect(each) for each in [*phones, *watchers]))
    return phones, watchers


async def duelling(
    base: str, layout: Layout, seconds: float, pid: int, profile: Path | None
) -> dict[str, Any]:
    async with asyncio.timeout(SETUP_TIMEOUT):
        phones, watchers = await seated(base, layout)
    await asyncio.sleep(0.5)  # the last first views are out
    # The load generator's own collections would count against the server's latency: what lives
    # to the end is frozen, and nothing is collected while the duels are measured.
    gc.collect()
    gc.freeze()
    gc.disable()
    for each in [*phones, *watchers]:
        each.count()
    latencies: list[float] = []
    counts = {"commands": 0, "duels": 0, "refused": 0}
    spies = [] if profile is None else sampler.record(family(pid), seconds, profile)
    start, server_cpu, own_cpu = time.perf_counter(), cpu_seconds(pid), time.process_time()
    by_process = cpu_by_process(pid)
    until = start + seconds
    pairs = [(phones[i], phones[i + 1]) for i in range(0, len(phones) - 1, 2)]
    async with asyncio.timeout(seconds + 2 * COMMAND_TIMEOUT):
        await asyncio.gather(
            *(
                duel_pair(a, b, until, latencies, counts, layout.pick_apart, layout.think)
                for a, b in pairs
            )
        )
    elapsed = time.perf_counter() - start
    gc.enable()
    cores = (cpu_seconds(pid) - server_cpu) / elapsed, (time.process_time() - own_cpu) / elapsed
    processes = {
        role: (cpu - by_process.get(role, 0.0)) / elapsed
        for role, cpu in cpu_by_process(pid).items()
    }
    for spy in spies:
        spy.wait(timeout=60)
    heard = [(w.bytes, w.messages) for w in watchers]
    duellists = sum(p.bytes for p in phones), sum(p.messages for p in phones)
    for each in [*phones, *watchers]:
        await each.close()
    latencies.sort()
    duels = max(counts["duels"], 1)
    heard_duels = duels / len(layout.games())  # a watcher hears the duels of its own game
    listeners = max(len(heard), 1)
    return {
        "elapsed": elapsed,
        "commands": counts["commands"],
        "server_cores": cores[0],
        "own_cores": cores[1],
        "process_cores": processes,
        "commands_per_s": counts["commands"] / elapsed,
        "duels_per_s": counts["duels"] / elapsed,
        "refused": counts["refused"],
        "reconnects": sum(each.reconnects for each in [*phones, *watchers]),
        "whole_views": sum(p.held.views for p in phones),
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "max_ms": latencies[-1] * 1000,
        "watcher_bytes": sum(b for b, _ in heard) / listeners / heard_duels,
        "watcher_messages": sum(m for _, m in heard) / listeners / heard_duels,
        "watcher_max_bytes": max((b for b, _ in heard), default=0) / heard_duels,
        "duellist_bytes": duellists[0] / (2 * duels),
        "duellist_messages": duellists[1] / (2 * duels),
    }


def measure(
    layout: Layout, seconds: float, url: str, profile: Path | None = None
) -> dict[str, Any]:
    own = time.process_time()
    with server(url) as (base, pid):
        result = uvloop.run(duelling(base, layout, seconds, pid, profile))
        result["rss_mb"] = memory_kib(pid, "VmHWM") / 1024
        result["cpu"] = cpu_seconds(pid)
    result["own_cpu"] = time.process_time() - own
    return result


def report(layout: Layout, result: dict[str, Any], url: str) -> None:
    print(
        f"{layout.describe()}, {result['elapsed']:.1f} s, "
        f"database {url.split(':')[0]}, {os.cpu_count()} cores"
    )
    print(f"commands/s        {result['commands_per_s']:8.0f}   (refused: {result['refused']})")
    print(f"duels/s           {result['duels_per_s']:8.0f}")
    print(f"latency p50       {result['p50_ms']:8.1f} ms   (command sent -> both views hold it)")
    print(f"latency p99       {result['p99_ms']:8.1f} ms   (max {result['max_ms']:.1f} ms)")
    if layout.watchers:
        print(
            f"per watcher/duel  {result['watcher_bytes']:8.0f} B in "
            f"{result['watcher_messages']:.2f} messages   "
            f"(the most-fed watcher {result['watcher_max_bytes']:.0f} B)"
        )
    print(
        f"per duellist/duel {result['duellist_bytes']:8.0f} B in "
        f"{result['duellist_messages']:.2f} messages   (its own duels)"
    )
    print(
        f"reconnects        {result['reconnects']:8d}   "
        f"(whole views taken by duellists: {result['whole_views']})"
    )
    print(f"server peak RSS   {result['rss_mb']:8.0f} MB")
    print(
        f"CPU seconds       server {result['cpu']:.1f}, "
        f"load generator {result['own_cpu']:.1f} (whole run)"
    )
    print(
        f"cores in use      server {result['server_cores']:.2f}, "
        f"load generator {result['own_cores']:.2f} (while measured)"
    )
    per = 1e6 / max(result["commands_per_s"], 1)
    print(
        f"CPU a command     server {result['server_cores'] * per:.0f} µs, "
        f"load generator {result['own_cores'] * per:.0f} µs"
    )
    processes = result["process_cores"].items()
    split = ", ".join(f"{role} {cores * per:.0f}" for role, cores in processes)
    print(f"  by process      {split} µs")


def compare(apart: list[dict[str, Any]], together: list[dict[str, Any]]) -> None:
    """The ratios of each pair of runs (separate games, then one game), and their medians."""
    duels = [t["duels_per_s"] / a["duels_per_s"] for a, t in zip(apart, together, strict=True)]
    p99 = [t["p99_ms"] / a["p99_ms"] for a, t in zip(apart, together, strict=True)]
    heard = statistics.median(t["watcher_bytes"] for t in together)
    if apart[1:]:
        print(f"one game / separate games, median of {len(duels)} pairs:")
        shown = (f"{d:.2f} (p99 {p:.2f})" for d, p in zip(duels, p99, strict=True))
        print("  pairs: " + ", ".join(shown))
    else:
        print("one game / separate games:")
    print(f"duels/s ratio     {statistics.median(duels):8.2f}   (to reach: >= 0.8)")
    print(f"p99 ratio         {statistics.median(p99):8.2f}   (to reach: <= 2)")
    print(f"per watcher/duel  {heard:8.0f} B   (to reach: <= 200 B)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=200, help="duelling phones (pairs)")
    parser.add_argument(
        "--per-game",
        type=int,
        default=2,
        help="duelling phones per game (2: a game per pair; 200: one big game)",
    )
    parser.add_argument("--one-game", action="store_true", help="every phone in one game")
    parser.add_argument(
        "--watchers",
        type=int,
        default=None,
        help="connected players who only watch (default 0; 4,800 with --compare)",
    )
    parser.add_argument(
        "--console",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep each game's organizer console open (default: in a run of one game)",
    )
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument(
        "--profile", action="store_true", help="sample the server with py-spy: its CPU split"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="the pairs in games of two, then in one game with the watchers; prints the ratios",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="with --compare: run both so many times, by turns, and print the median ratios",
    )
    parser.add_argument(
        "--pick-apart",
        action="store_true",
        help="the challenger picks once the duel has started, not with its challenge",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds a phone looks at its screen before each command, on average (0: none)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="default: a fresh SQLite file under bench/.data on this disk",
    )
    args = parser.parse_args()
    if args.phones % 2 or args.per_game % 2:
        parser.error("phones duel in pairs: --phones and --per-game are even")
    watchers = args.watchers if args.watchers is not None else 4800 * args.compare
    with scratch("run-") as folder:
        runs = (
            [Layout(args.phones, 2, 0, False), Layout(args.phones, 0, watchers, True)]
            if args.compare
            else [Layout(args.phones, args.per_game, watchers, args.one_game)]
        )
        for layout in runs:
            layout.console = layout.one_game if args.console is None else args.console
            layout.pick_apart = args.pick_apart
            layout.think = args.think
        results = []
        # The machine's speed drifts from one minute to the next: a comparison is made of runs
        # by turns, and its ratios are the medians of theirs.
        for n, layout in enumerate(runs * (args.pairs if args.compare else 1)):
            url = args.database_url or f"sqlite:///{folder / f'bench{n}.db'}"
            spied = folder / f"profile{n}.txt" if args.profile else None
            results.append(measure(layout, args.seconds, url, spied))
            report(layout, results[-1], url)
            if spied is not None:
                sampler.show(spied, results[-1]["elapsed"], results[-1]["commands"])
            print()
        if args.compare:
            compare(results[0::2], results[1::2])
        if not args.database_url:
            raw = raw_insert_rate(folder)
            print(f"raw SQLite durable single-event inserts/s {raw:8.0f}")
            print(
                "ratio commands/s / raw inserts/s          "
                f"{results[-1]['commands_per_s'] / raw:8.2f}"
            )


if __name__ == "__main__":
    main()
