"""Colluding phones flooding the server with signed records of offline duels cost another game
nothing it notices.

A record of an offline duel is up to 30 texts, each with an ECDSA P-256 signature the server
checks on its event loop (about 2.8 ms of CPU a record, against 0.5 for a refused command of the
same size), and two colluding phones can make new, valid ones at will. Held back by the command
limit alone (at a314833), 20 phones took 4 s of the server's CPU in 10 s, and another game's
command p99 went from 10 ms quiet to 130 ms (140 ms behind the door).

One real `bijse serve` (SQLite, rate limits on, as it runs by default), in one process and behind
the door with two workers, two games on one worker: in one, pairs of phones duel over WebSockets
at a phone's pace (as in test_floods.py); in the other, 10 colluding pairs that registered their
keys send records of 10 rounds (30 texts, each signed by its own phone's key, a new duel each),
every phone as fast as the server lets it (the challengers over the WebSocket, the targets over
HTTP), from a process of their own (as attackers would: their own work is not the measuring
process's), for FLOOD_S. A duel command's p99, from sending it to its ack, stays within twice the
quiet p99 of the same run plus SLACK_MS, and what the server took of the records is what the
documented limits allow (docs/protocol.md, "Rate limits"). The figures: both p99s, the server's
CPU seconds in each phase, and the records written, refused by the rules and rate_limited.
"""

import asyncio
import gc
import json
import math
import multiprocessing
import time
import traceback
import uuid
from collections.abc import AsyncIterator
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import httpx
import pytest

from server.clock import parse_iso
from server.game.shares import worker_of
from server.game.table import Table
from server.web.limits import Limits, Pace, RateLimited
from tests.chaos.crowd import children, cpu_s
from tests.chaos.test_floods import CONFIG, duels, p99
from tests.client import Game, Phone
from tests.conftest import free_port
from tests.conftest import serve as serve_in_process
from tests.figures import report
from tests.proxy import serve, stop
from tests.rules import phones

PAIRS = 8  # duelling in the game that is measured
COLLUDING = 10  # pairs of phones in the game that floods
ROUNDS = 10  # a record of 30 texts, the most a record may hold: nobody wins the first 9
PHASE_S = FLOOD_S = 10.0
# What a shared machine's own hiccups add to a p99 of some 700 commands: 38 ms once in CI
# against 6.5-8 ms in every other run, the quiet phase's 5.7. Held back by the command limit
# alone, the flood took the p99 from 10 to 130 ms.
SLACK_MS = 40
# The documented limits (docs/protocol.md, "Rate limits"): records of offline duels per phone,
# and the turns they take on a worker.
BURST, EVERY_S = 10, 10
TURNS_PER_S, QUEUE_S = 20, 10
CHAIR, DAGGER = "Rána židlí", "Rána Ankh-Morporskou dýkou"  # 3/2 and 2/3: a chair beats a dagger
LIMITED = {"BIJSE_RATE_LIMITS": "on"}  # as `bijse serve` runs by default


def card(view: dict[str, Any], title: str) -> str:
    (found,) = [c["card_id"] for c in view["me"]["cards"] if c["title"] == title]
    return str(found)


class Pair:
    """Two colluding phones with registered keys, as their views showed them: every record they
    make is a new duel of ROUNDS rounds, A's chair against B's chair until B's dagger loses,
    dated a little after the one before."""

    def __init__(self, game_id: str, a: phones.Phone, b: phones.Phone, views: Any) -> None:
        self.game_id, self.a, self.b = game_id, a, b
        self.views = views
        self.at = parse_iso(views[0]["server_time"]) + 1_000
        self.made: list[list[str]] = []

    def prepare(self, count: int) -> None:
        """Make `count` records now, for `record` to give before it makes any."""
        self.made += [self.make() for _ in range(count)]

    def record(self) -> list[str]:
        return self.made.pop() if self.made else self.make()

    def make(self) -> list[str]:
        (va, vb), at = (v["view"] for v in self.views), self.at
        self.at += 100
        duel = phones.Exchange(self.game_id, self.a, self.b)
        for n in range(ROUNDS):
            picked = card(vb, DAGGER if n == ROUNDS - 1 else CHAIR)
            duel.challenge(card(va, CHAIR), va["me"]["revision"], at + 30 * n)
            duel.pick(picked, vb["me"]["revision"], at + 30 * n + 10)
            duel.reveal(at + 30 * n + 20)
        return duel.texts


async def colluding(game: Game, members: list[dict[str, Any]]) -> list[Pair]:
    """Each pair registers its phones' keys, and reads its views."""
    pairs = []
    for a, b in zip(members[::2], members[1::2], strict=True):
        keys = phones.Phone(a["player_id"]), phones.Phone(b["player_id"])
        for member, key in zip((a, b), keys, strict=True):
            await game.ok(member["token"], "register_key", public_key=key.public_key)
        views = [await game.view(member["token"]) for member in (a, b)]
        pairs.append(Pair(game.game_id, *keys, views))
    return pairs


class Tally:
    """What one flooding phone was answered: written (200), refused by the rules (by code),
    rate_limited (with the seconds it was told to wait)."""

    def __init__(self) -> None:
        self.written = 0
        self.refused: dict[str, int] = {}
        self.waits: list[int] = []

    @property
    def taken(self) -> int:
        """The records the server took from this phone (written, or refused by the rules)."""
        return self.written + sum(self.refused.values())


async def flood(send: Any, pair: Pair, until: float, tally: Tally) -> None:
    """Send new records one after the other until `until`; one refused `rate_limited` is sent
    again (with a new command_id, as the app does) as soon as the server said it may be."""
    texts = pair.record()
    while time.monotonic() < until:
        code, wait = await send(texts)
        if code == "rate_limited":
            tally.waits.append(wait)
            await asyncio.sleep(min(wait, until - time.monotonic()))
            continue
        if code is None:
            tally.written += 1
        else:
            tally.refused[code] = tally.refused.get(code, 0) + 1
        texts = pair.record()


def over_socket(phone: Phone) -> Any:
    async def send(texts: list[str]) -> tuple[str | None, int]:
        command_id = str(uuid.uuid4())
        command = {"type": "offline_duel", "record": texts}
        await phone.socket.send(
            json.dumps({"type": "command", "command_id": command_id, "command": command})
        )
        while True:  # a record may wait for its turn on the server for seconds
            answer = await phone.receive(timeout=30)
            if answer["type"] in ("ack", "error") and answer["command_id"] == command_id:
                break
        if answer["type"] == "ack":
            return None, 0
        assert answer["code"] != "internal", answer
        return answer["code"], answer.get("retry_after", 0)

    return send


def over_http(game: Game, token: str) -> Any:
    async def send(texts: list[str]) -> tuple[str | None, int]:
        answer = await game.command(token, "offline_duel", record=texts)
        if answer.status_code == 200:
            return None, 0
        assert answer.status_code < 500, answer.text
        if answer.status_code == 429:
            return "rate_limited", int(answer.headers["retry-after"])
        return answer.json()["error"]["code"], 0

    return send


def flooder(base: str, game_id: str, members: list[dict[str, Any]], conn: Connection) -> None:
    """The colluding phones, in a process of their own: they register their keys, say they are
    ready, flood until the time they are sent, and send back their tallies."""
    try:
        asyncio.run(flooding(base, game_id, members, conn))
    except BaseException:
        conn.send(traceback.format_exc())
        raise


async def flooding(
    base: str, game_id: str, members: list[dict[str, Any]], conn: Connection
) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        game = Game(http, game_id, "")
        # Warm: the server's first record loads what the later ones use (the first signature it
        # checks loads cryptography's OpenSSL backend, some 8 ms), as a pair that is not counted.
        members, warming = members[:-2], members[-2:]
        (warm,) = await colluding(game, warming)
        brought = await game.command(warming[0]["token"], "offline_duel", record=warm.record())
        assert brought.status_code == 200, brought.text
        pairs = await colluding(game, members)
        for pair in pairs:  # what the limits let both phones send: no signing while measured
            pair.prepare(2 * (BURST + math.ceil(FLOOD_S / EVERY_S) + 1))
        sockets = [await Phone.connect(game.ws_url(base, m["token"])) for m in members[::2]]
        for phone in sockets:
            await phone.until("view")
        conn.send("ready")
        until = await asyncio.to_thread(conn.recv)
        tallies = [Tally() for _ in members]
        senders = [
            over_socket(sockets[n // 2]) if n % 2 == 0 else over_http(game, members[n]["token"])
            for n in range(len(members))
        ]
        await asyncio.gather(
            *(
                flood(send, pairs[n // 2], until, tally)
                for n, (send, tally) in enumerate(zip(senders, tallies, strict=True))
            )
        )
        for phone in sockets:
            await phone.close()
    conn.send(tallies)


async def answer(conn: Connection, within: float) -> Any:
    """What the flooding process sends next; a traceback of it fails the test."""
    assert await asyncio.to_thread(conn.poll, within), f"the flooding process: silent {within} s"
    said = conn.recv()
    assert not isinstance(said, str) or said == "ready", said
    return said


async def games(http: httpx.AsyncClient, workers: int) -> tuple[Game, Game]:
    """The flooded game, and the measured one on the same worker (a door hands each game's
    requests to its worker; another worker's games would not share its event loop)."""
    flooded = await Game.create(http)
    while True:
        measured = await Game.create(http, **CONFIG)
        ids = (flooded.game_id.encode(), measured.game_id.encode())
        if worker_of(ids[0], workers) == worker_of(ids[1], workers):
            return flooded, measured


@pytest.mark.parametrize("workers", [1, 2])
async def test_phones_flooding_offline_records_leave_another_games_duels_as_fast(
    tmp_path: Path, workers: int
) -> None:
    port, log = free_port(), tmp_path / "server.log"
    base = f"http://127.0.0.1:{port}"
    database = f"sqlite:///{tmp_path / 'offline-flood.db'}"
    server = await serve(port, database, log, "--workers", str(workers), env=LIMITED)
    spawn = multiprocessing.get_context("spawn")  # no fork of a process with threads
    ours, theirs = spawn.Pipe()
    process = None
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            flooded, measured = await games(http, workers)
            players = [await measured.add(f"P{n}") for n in range(2 * PAIRS)]
            await measured.ok(measured.organizer, "start_game")
            colluders = [await flooded.add(f"C{n}") for n in range(2 * COLLUDING + 2)]
            await flooded.ok(flooded.organizer, "start_game")
        process = spawn.Process(target=flooder, args=(base, flooded.game_id, colluders, theirs))
        process.start()
        duelling = [await Phone.connect(measured.ws_url(base, p["token"])) for p in players]
        for phone in duelling:
            await phone.until("view")
        await answer(ours, 60)  # ready
        pids = [server.pid, *children(server.pid)]  # the door and its workers
        cpu: dict[bool, float] = {}

        async def phase(flooding: bool) -> list[float]:
            took: list[float] = []
            # As in test_floods: none of this process's collections while a phase is measured.
            gc.collect()
            gc.disable()
            used = sum(cpu_s(pid) for pid in pids)
            until = time.monotonic() + (FLOOD_S if flooding else PHASE_S)
            if flooding:
                ours.send(until)
            try:
                await asyncio.gather(
                    *(
                        duels(duelling[n], duelling[n + 1], players[n + 1]["code"], until, took)
                        for n in range(0, len(duelling), 2)
                    )
                )
            except TimeoutError:
                raise AssertionError("a duel's command unanswered for 5 s") from None
            finally:
                gc.enable()
            cpu[flooding] = sum(cpu_s(pid) for pid in pids) - used
            return took

        await phase(False)  # warm: the first duels load what the later ones use
        quiet = await phase(False)
        flooded_took = await phase(True)
        tallies: list[Tally] = await answer(ours, 60)
        for phone in duelling:
            await phone.close()
    finally:
        if process is not None:
            process.join(10)
            process.kill()
        ours.close()
        theirs.close()
        stop(server)
    ms = {"quiet": p99(quiet) * 1000, "flooded": p99(flooded_took) * 1000}
    written = sum(t.written for t in tallies)
    refused: dict[str, int] = {}
    for tally in tallies:
        for code, count in tally.refused.items():
            refused[code] = refused.get(code, 0) + count
    limited = sum(len(t.waits) for t in tallies)
    report(
        "offline records flood, " + ("one process" if workers == 1 else f"{workers} workers"),
        f"{PAIRS} duelling pairs in one game; {2 * COLLUDING} phones of another game on its "
        f"worker sending records of {3 * ROUNDS} signed texts for {FLOOD_S:.0f} s",
        f"command p99 quiet {ms['quiet']:.1f} ms, flooded {ms['flooded']:.1f} ms; server CPU "
        f"{cpu[False]:.1f} s, flooded {cpu[True]:.1f} s; records {written} written, "
        f"{sum(refused.values())} refused{f' {refused}' if refused else ''}, "
        f"{limited} rate_limited",
    )
    assert len(quiet) > 100 and len(flooded_took) > 100, (len(quiet), len(flooded_took))
    assert ms["flooded"] < 2 * ms["quiet"] + SLACK_MS, ms
    # The limits held: a phone's records, and the worker's turns (and a turn for each phone that
    # was waiting for one at the end); and the flood was one, held back by them alone.
    allowed = BURST + math.ceil(FLOOD_S / EVERY_S)
    assert all(t.taken <= allowed for t in tallies), [t.taken for t in tallies]
    taken, turns = sum(t.taken for t in tallies), FLOOD_S * TURNS_PER_S + 1 + len(tallies)
    assert min(turns, allowed * len(tallies)) / 2 < taken <= turns, (taken, turns)
    assert all(wait >= 1 for t in tallies for wait in t.waits)
    # The records were valid: each pair had one written (recorded, or void as the other phone
    # brought one first), its signatures checked.
    assert all(a.written + b.written > 0 for a, b in zip(tallies[::2], tallies[1::2], strict=True))
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]


@pytest.fixture
async def limited(tmp_path: Path) -> AsyncIterator[str]:
    """A real server with the rate limits on, as `bijse serve` runs by default."""
    async for url in serve_in_process(f"sqlite:///{tmp_path / 'limits.db'}", rate_limits=True):
        yield url


async def test_a_phones_records_are_limited_apart_from_its_commands_and_a_retry_is_free(
    limited: str,
) -> None:
    async with httpx.AsyncClient(base_url=limited) as http:
        game = await Game.create(http)
        members = [await game.add(name) for name in ("Anna", "Bob")]
        anna, bob = (member["token"] for member in members)
        await game.ok(game.organizer, "start_game")
        (pair,) = await colluding(game, members)
        sent, start = [], time.monotonic()
        while not sent or sent[-1][1].status_code != 429:
            body = {
                "command_id": str(uuid.uuid4()),
                "type": "offline_duel",
                "record": pair.record(),
            }
            url = f"/api/games/{game.game_id}/commands"
            sent.append((body, await http.post(url, json=body, headers=game.auth(anna))))
            refilled = (time.monotonic() - start) / EVERY_S
            assert len(sent) <= BURST + 1 + math.ceil(refilled), "never limited"
        (first, written), over = sent[0], sent[-1][1]
        assert len(sent) > BURST and written.status_code == 200, written.text
        assert all(a.status_code < 500 and a.status_code != 429 for _, a in sent[:-1])
        assert over.json()["error"]["code"] == "rate_limited", over.text
        assert 1 <= int(over.headers["retry-after"]) <= EVERY_S
        # A retry the server answers from memory costs nothing, and is not counted.
        again = await http.post(url, json=first, headers=game.auth(anna))
        assert again.json() == {"seq": written.json()["seq"], "duplicate": True}, again.text
        # Anna's other commands have a limit of their own; Bob's records a bucket of their own.
        challenge = await game.command(anna, "challenge", target=members[1]["code"])
        assert challenge.status_code != 429, challenge.text
        brought = await game.command(bob, "offline_duel", record=pair.record())
        assert brought.status_code < 500 and brought.status_code != 429, brought.text
        # Over the WebSocket, Anna's records are held back too.
        phone = await Phone.connect(game.ws_url(limited, anna))
        await phone.until("view")
        refused = await phone.send("offline_duel", command_id="ws", record=pair.record())
        await phone.close()
    assert refused["code"] == "rate_limited" and refused["command_id"] == "ws", refused
    assert refused["retry_after"] >= 1


async def test_records_take_turns_on_a_worker_and_wait_for_one_at_most_so_long() -> None:
    now = [1000.0]
    pace = Pace(1 / TURNS_PER_S, QUEUE_S, lambda: now[0])
    waits: list[float] = []
    with pytest.raises(RateLimited) as refused:  # once a turn would be more than QUEUE_S away
        while True:
            waits.append(pace.turn("records"))
    assert len(waits) in (QUEUE_S * TURNS_PER_S, QUEUE_S * TURNS_PER_S + 1)
    assert waits == pytest.approx([n / TURNS_PER_S for n in range(len(waits))])
    assert refused.value.retry_after == 1
    now[0] += 1
    assert pace.turn("records") == pytest.approx(len(waits) / TURNS_PER_S - 1)


async def test_a_record_is_counted_once_read_but_not_as_a_retry_nor_when_refused_a_turn() -> None:
    now = [1000.0]
    limits = Limits(enabled=True, clock=lambda: now[0])
    table = cast(Table, SimpleNamespace(answers={"sent": 7}, inflight={}))
    for n in range(BURST):
        now[0] += 1 / TURNS_PER_S  # its turn at once
        await limits.costly(table, "g/p2", "offline_duel", f"c{n}")
    await limits.costly(table, "g/p2", "offline_duel", "sent")  # answered from memory
    await limits.costly(table, "g/p2", "challenge", "other")  # no costly command
    with pytest.raises(RateLimited) as refused:
        await limits.costly(table, "g/p2", "offline_duel", "over")
    assert refused.value.retry_after == EVERY_S
    with pytest.raises(RateLimited):  # the worker's turns taken for QUEUE_S
        while True:
            limits.pace.turn("records")
    with pytest.raises(RateLimited) as refused:
        await limits.costly(table, "g/p3", "offline_duel", "c1")
    assert "on this server" in refused.value.message
    assert limits.limits["offline_duel"].buckets["g/p3"].tokens == BURST
    # Switched off (BIJSE_RATE_LIMITS=off), nothing is counted nor waited for.
    off = Limits(enabled=False)
    started = time.monotonic()
    for n in range(10 * BURST):
        await off.costly(table, "g/p2", "offline_duel", f"c{n}")
    assert time.monotonic() - started < 1 / TURNS_PER_S
