"""A seeded fuzzer of the WebSocket side, against a real `bijse serve` process.

Malformed, binary and oversized messages, unknown and wrong ids, bad query values, foreign
tokens and origins, a thousand connections that come and go, and readers that never read.
Every bad message must get a clear error (or the documented close code), the server must log
no traceback, play a normal duel afterwards, and give its memory back.

BIJSE_CHAOS_SCALE=20 runs twenty times as much and prints the figures; BIJSE_FUZZ_SEED picks
another seed (the seed is printed with the figures, so that a failure can be replayed).
"""

import asyncio
import json
import os
import random
import string
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import websockets
from websockets.typing import Origin

from tests.client import Game, Phone
from tests.conftest import free_port
from tests.figures import report
from tests.proxy import serve, stop
from tests.rawsocket import BINARY, PING, TEXT, frame, handshake
from tests.test_sockets import rss_mib

SCALE = int(os.environ.get("BIJSE_CHAOS_SCALE", "1"))
SEED = int(os.environ.get("BIJSE_FUZZ_SEED", "20261201"))
RSS_TOLERANCE_MIB = 20  # after everything has closed, over the baseline taken before
COMMANDS = ["challenge", "pick", "leave_duel", "grant_card", "grant_item", "heal", "revive"]
COMMANDS += ["cancel_duel", "start_game", "dance", "", "add_player", "end_game "]
MESSAGES_PER_SOCKET = 40


@dataclass
class Figures:
    messages: int = 0
    stalled_pings: int = 0
    connections: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)
    acks: int = 0

    def line(self) -> str:
        return (
            f"messages {self.messages} (+ {self.stalled_pings} pings never read), "
            f"connections {self.connections}, acks {self.acks}, "
            f"errors {dict(sorted(self.errors.items()))}, "
            f"closes {dict(sorted(self.closes.items()))}"
        )


@dataclass
class World:
    port: int
    http: httpx.AsyncClient
    game: Game  # the one fuzzed
    other: Game  # another game, for its tokens
    people: list[dict[str, Any]]
    figures: Figures

    def ws(self, game_id: str, query: str = "") -> str:
        return f"ws://127.0.0.1:{self.port}/ws/games/{game_id}{query}"


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[tuple[World, Any, Path]]:
    port, log = free_port(), tmp_path / "server.log"
    server = await serve(port, f"sqlite:///{tmp_path / 'fuzz.db'}", log)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            game, other = await Game.create(http), await Game.create(http)
            people = [await game.add(name) for name in ("Anna", "Bob", "Cyril")]
            await game.add("Dana", role="spectator")
            await other.add("Eva")
            await game.ok(game.organizer, "start_game")
            yield World(port, http, game, other, people, Figures()), server, log
    finally:
        stop(server)


def junk(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON value, often of the wrong type, sometimes with control characters."""
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, 2**53, 10**30, 3.5, -0.0])
    if kind == 3:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(12)))
    if kind == 4:
        return rng.choice(["\x00", "a\x00b", "\x1b[2J", "\u0085", "\ufeff", "😀" * 20, "x" * 300])
    if kind == 5:
        return rng.choice(["p2", "p3", "d9", "c4", "c7.2", "ZZZZ", "crossbow", "p999"])
    if kind == 6:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["title", "big", "kind", "x"]): junk(rng, depth + 1) for _ in range(3)}


def message(rng: random.Random, world: World) -> tuple[str | bytes, str]:
    """A message to send and what kind of answer it must get: "error" (with the code after
    the colon, or any code), "answer" (an ack or an error), or "pong"."""
    kind = rng.randrange(12)
    command_id = str(uuid.UUID(int=rng.getrandbits(128)))
    if kind == 0:
        text = json.dumps({"type": "command", "command_id": command_id, "command": {}})
        return text[: rng.randrange(1, len(text))], "error:invalid"  # cut short
    if kind == 1:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64))), "error:invalid"
    if kind == 2:
        return "x" * (64 * 1024 + 1 + rng.randrange(1000)), "error:too_large"
    if kind == 3:
        return json.dumps({"type": rng.choice(["hello", "pong", "view", 7, None])}), "error"
    if kind == 4:
        return json.dumps(junk(rng)), "error"
    if kind == 5:
        return json.dumps({"type": "ping", "extra": junk(rng)}), "pong"
    if kind == 6:
        body = {"type": "command", "command_id": junk(rng), "command": {"type": "heal"}}
        return json.dumps(body), "error"
    command: dict[str, Any] = {"type": rng.choice(COMMANDS)}
    if kind < 10:
        for name in rng.sample(["target", "duel_id", "card_id", "player_id", "card", "item"], 2):
            command[name] = junk(rng)
    else:  # well formed, for the rules to judge: an ack, or a refusal in the current state
        someone = rng.choice(world.people)
        command = rng.choice(
            [
                {"type": "challenge", "target": someone["code"]},
                {"type": "pick", "duel_id": f"d{rng.randrange(40)}", "card_id": "c7.2"},
                {"type": "heal", "player_id": someone["player_id"]},
                {"type": "grant_item", "player_id": someone["player_id"], "item": "crossbow"},
                {"type": "cancel_duel", "duel_id": f"d{rng.randrange(40)}"},
            ]
        )
    text = json.dumps({"type": "command", "command_id": command_id, "command": command})
    return text, f"answer:{command_id}"


async def answer_to(socket: websockets.ClientConnection, expected: str) -> dict[str, Any]:
    """The next message that is not a view, a patch or the organizers' presence."""
    while True:
        got: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 10))
        if got["type"] not in ("view", "patch", "presence"):
            return got


def clear(error: dict[str, Any]) -> None:
    assert error["type"] == "error", error
    assert error["code"] and error["code"] == error["code"].lower() and error["code"] != "internal"
    assert isinstance(error["message"], str) and len(error["message"]) > 5, error


async def fuzz_messages(rng: random.Random, world: World, count: int) -> None:
    tokens = [world.game.organizer, *(p["token"] for p in world.people)]
    sent = 0
    while sent < count:
        url = world.ws(world.game.game_id, f"?token={rng.choice(tokens)}")
        async with websockets.connect(url, max_size=None) as socket:
            world.figures.connections += 1
            for _ in range(min(MESSAGES_PER_SOCKET, count - sent)):
                text, expected = message(rng, world)
                await socket.send(text)
                sent += 1
                world.figures.messages += 1
                got = await answer_to(socket, expected)
                if expected == "pong":
                    assert got["type"] == "pong", got
                elif expected.startswith("answer:"):
                    assert got.get("command_id") in (expected[7:], None), (text[:200], got)
                    if got["type"] == "ack":
                        world.figures.acks += 1
                    else:
                        clear(got)
                        world.figures.errors[got["code"]] += 1
                else:
                    clear(got)
                    code = expected.partition(":")[2]
                    assert not code or got["code"] == code, (text[:200], got)
                    world.figures.errors[got["code"]] += 1


def bad_query(rng: random.Random, world: World) -> tuple[str, dict[str, Any], str, int]:
    """A connection that must be refused: its URL, options, error code and close code."""
    game, token = world.game.game_id, world.people[0]["token"]
    kind = rng.randrange(7)
    if kind == 0:
        after = rng.choice(["²", "٣", "-1", "1e3", "", "9" * 40, "0x10", " 7", "\x00"])
        return world.ws(game, f"?token={token}&after={quote(after)}"), {}, "invalid", 4400
    if kind == 1:
        bad = rng.choice(["%00", "%FF", "x", "%0A" + token, token[:-1], "A" * 65, ""])
        return world.ws(game, f"?token={bad}"), {}, "unauthorized", 4401
    if kind == 2:  # another game's token
        return world.ws(game, f"?token={world.other.organizer}"), {}, "forbidden", 4403
    if kind == 3:  # a game that does not exist, or an id no game could have
        gid = rng.choice(["0" * 16, "%00", "x" * 300, "%F0%9F%98%80"])
        return world.ws(gid, f"?token={token}"), {}, "forbidden", 4403
    if kind == 4:
        origin = rng.choice(["https://evil.example", "null", "http://127.0.0.1:1"])
        return world.ws(game, f"?token={token}"), {"origin": Origin(origin)}, "forbidden", 4403
    if kind == 5:  # no token at all, and a first message that is no hello
        return world.ws(game), {"first": json.dumps({"type": "ping"})}, "unauthorized", 4401
    return world.ws(game), {"first": json.dumps(junk(rng))}, "unauthorized", 4401


async def fuzz_connections(rng: random.Random, world: World, count: int) -> None:
    for _ in range(count):
        url, options, code, close = bad_query(rng, world)
        first = options.pop("first", None)
        async with websockets.connect(url, **options) as socket:
            world.figures.connections += 1
            if first is not None:
                await socket.send(first)
                world.figures.messages += 1
            got = json.loads(await asyncio.wait_for(socket.recv(), 10))
            clear(got)
            assert got["code"] == code, (url, got)
            world.figures.errors[got["code"]] += 1
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(socket.recv(), 10)
            assert socket.close_code == close, (url, socket.close_code)
            world.figures.closes[close] += 1


async def oversized_frames(world: World, count: int) -> None:
    """Over `bijse serve`'s 1 MiB frame limit: closed with 1009."""
    url = world.ws(world.game.game_id, f"?token={world.game.organizer}")
    for _ in range(count):
        async with websockets.connect(url) as socket:
            world.figures.connections += 1
            await socket.recv()  # the view
            world.figures.messages += 1
            # The server may close while the frame is still being sent: `send` then fails.
            with pytest.raises(websockets.ConnectionClosed):
                await socket.send("y" * (1024 * 1024 + 1))
                while True:
                    await asyncio.wait_for(socket.recv(), 10)
            assert socket.close_code == 1009, socket.close_code
            world.figures.closes[1009] += 1


def churn(rng: random.Random, world: World, count: int) -> None:
    """Connections that come and go: closed at once, after the handshake, or half-way
    through it, or after a frame cut short."""
    path = f"/ws/games/{world.game.game_id}?token={world.people[1]['token']}"
    for n in range(count):
        sock, _ = handshake(world.port, path)
        world.figures.connections += 1
        what = n % 4
        if what == 1:
            sock.sendall(frame(b'{"type":"ping"}')[:5])  # a frame cut short
        elif what == 2:
            sock.sendall(frame(b"\x00" * 10, BINARY) + frame(b"z", PING))
        elif what == 3:
            sock.sendall(frame(json.dumps({"type": "ping"}).encode(), TEXT) * 3)
        sock.close()


def stalled(world: World, seconds: float) -> None:
    """A reader that never reads, pinging as fast as the server takes it."""
    path = f"/ws/games/{world.game.game_id}?token={world.people[2]['token']}"
    sock, _ = handshake(world.port, path)
    world.figures.connections += 1
    sock.setblocking(False)
    burst = (frame(b'{"type":"ping"}') + frame(b"s" * 100, PING)) * 20
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            try:
                sock.send(burst)
                world.figures.stalled_pings += 40
            except BlockingIOError:
                time.sleep(0.005)
            except OSError:
                break
    finally:
        sock.close()


async def duel(world: World) -> None:
    """A normal duel, start to end, in a fresh game."""
    base = f"http://127.0.0.1:{world.port}"
    game = await Game.create(world.http)
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    a = await Phone.connect(game.ws_url(base, anna["token"]))
    b = await Phone.connect(game.ws_url(base, bob["token"]))
    await a.until("view")
    await b.until("view")
    assert (await a.send("challenge", target=bob["code"]))["type"] == "ack"
    while b.view is None or b.view.get("duel") is None:
        await b.receive()
    duel_id = b.view["duel"]["duel_id"]
    assert a.view is not None
    picks = [(a, a.view["me"]["cards"][0]), (b, b.view["me"]["cards"][2])]
    for phone, card in picks:
        ack = await phone.send("pick", duel_id=duel_id, card_id=card["card_id"])
        assert ack["type"] == "ack", ack
    while b.seq < ack["seq"]:
        await b.receive()
    assert b.view["last_duel"]["duel_id"] == duel_id
    await a.close()
    await b.close()


async def test_the_socket_side_survives_a_seeded_fuzzer(world: tuple[World, Any, Path]) -> None:
    it, server, log = world
    rng = random.Random(SEED)
    started = time.monotonic()
    await duel(it)  # warm: the baseline is a server that has served
    await asyncio.sleep(0.5)
    before = rss_mib(server.pid)
    stalls = [asyncio.create_task(asyncio.to_thread(stalled, it, 3 + SCALE)) for _ in range(3)]
    await fuzz_messages(rng, it, 400 * SCALE)
    await fuzz_connections(rng, it, 60 * SCALE)
    await oversized_frames(it, 2 * SCALE)
    await asyncio.to_thread(churn, rng, it, 1000 * SCALE)
    await asyncio.gather(*stalls)
    peak = rss_mib(server.pid)
    await duel(it)
    assert (await it.http.get("/healthz")).status_code == 200
    await asyncio.sleep(2)
    after = rss_mib(server.pid)
    text = log.read_text()
    tracebacks = text.count("Traceback")
    print(
        f"\nfuzz seed {SEED} scale {SCALE}: {it.figures.line()}; tracebacks {tracebacks}; "
        f"RSS {before:.1f} -> {peak:.1f} (peak) -> {after:.1f} MiB; "
        f"{time.monotonic() - started:.1f} s"
    )
    f = it.figures
    report(
        "WebSocket fuzzing (malformed, binary, oversized, wrong ids, bad queries, stalled readers)",
        f"{f.messages} messages, {f.connections} connections, {f.stalled_pings} pings never read",
        f"{tracebacks} tracebacks, {sum(f.errors.values())} clear errors, "
        f"RSS {before:.0f} → {peak:.0f} → {after:.0f} MiB",
    )
    assert tracebacks == 0 and "ERROR" not in text, text[-3000:]
    assert after - before < RSS_TOLERANCE_MIB, (before, peak, after)
