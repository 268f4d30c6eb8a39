"""End to end over a real uvicorn: two phones duel by code over WebSockets."""

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import websockets
from starlette.applications import Starlette
from starlette.types import ASGIApp
from websockets.typing import Origin, Subprotocol

from server.game.hub import Hub
from server.game.patch import apply
from server.web import socket_protocol, sockets
from server.web.app import create_app
from server.web.forwarded import Proxies, behind
from tests.client import Game, Phone
from tests.conftest import free_port, serve, serve_app
from tests.proxy import serve as serve_process
from tests.proxy import stop
from tests.rawsocket import CONT, PING, TEXT, frame, handshake, unframed

serving = contextlib.asynccontextmanager(serve)


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def test_two_phones_duel_to_a_stun_and_a_third_is_refused(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http, stun_s=300)
    anna, bob, cyril = await game.add("Anna"), await game.add("Bob"), await game.add("Cyril")
    await game.ok(game.organizer, "start_game")
    a = await Phone.connect(game.ws_url(live_server, anna["token"]))
    b = await Phone.connect(game.ws_url(live_server, bob["token"]))
    c = await Phone.connect(game.ws_url(live_server, cyril["token"]))
    for phone in (a, b, c):
        await phone.until("view")

    ack = await a.send("challenge", target=bob["code"].lower())
    assert ack["type"] == "ack" and ack["duplicate"] is False
    while b.view is None or b.view.get("duel") is None:
        await b.receive()
    duel = b.view["duel"]
    assert duel["opponent"] == {"player_id": anna["player_id"], "name": "Anna"}
    assert "players" not in b.view  # no roster in a player's view: the directory has it
    # Cyril is not in the duel: his phone is sent nothing.
    with pytest.raises(TimeoutError):
        await c.receive(timeout=0.3)

    assert a.view is not None
    chair = next(c for c in a.view["me"]["cards"] if c["title"] == "Rána židlí")
    dagger = next(c for c in b.view["me"]["cards"] if c["title"] == "Rána Ankh-Morporskou dýkou")
    assert (await a.send("pick", duel_id=duel["duel_id"], card_id=chair["card_id"]))[
        "type"
    ] == "ack"
    while not b.view["duel"]["opponent_picked"]:
        await b.receive()
    assert chair["card_id"] not in json.dumps(b.view), "the pick stays secret until the reveal"
    last = await b.send("pick", duel_id=duel["duel_id"], card_id=dagger["card_id"])
    assert last["type"] == "ack"
    while b.seq < last["seq"]:
        await b.receive()
    me = b.view["me"]
    assert me["stunned_until"] is not None and b.view.get("duel") is None
    outcome = b.view["last_duel"]
    assert outcome["rounds"][0]["winners"] == [anna["player_id"]]
    assert outcome["outcomes"] == [
        {"player_id": bob["player_id"], "effect": "stun", "until": me["stunned_until"]}
    ]

    refused = await c.send("challenge", target=bob["code"])
    assert refused["type"] == "error" and refused["code"] == "stunned"
    for phone in (a, b, c):
        await phone.close()


async def test_reconnect_with_after_misses_nothing(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    b = await Phone.connect(game.ws_url(live_server, bob["token"]))
    await b.until("view")
    held = b.seq
    await b.close()
    # While Bob's phone is in a dead spot, Anna challenges him and the organizer grants a card.
    await game.ok(anna["token"], "challenge", target=bob["code"])
    card = {"title": "Kuš", "big": 5, "small": 0, "kind": "wound", "ranged": True}
    seq = await game.ok(game.organizer, "grant_card", player_id=bob["player_id"], card=card)
    again = await Phone.connect(game.ws_url(live_server, bob["token"], after=held))
    message = await again.until("view")
    assert message["seq"] == seq
    assert message["view"]["duel"]["opponent"]["player_id"] == anna["player_id"]
    assert "Kuš" in [c["title"] for c in message["view"]["me"]["cards"]]
    await again.close()
    # Up to date: the server says nothing until something changes, then sends that.
    current = await Phone.connect(game.ws_url(live_server, bob["token"], after=seq))
    current.view, current.seq = message["view"], seq  # the view the phone kept
    with pytest.raises(TimeoutError):
        await current.receive(timeout=0.3)
    await game.ok(game.organizer, "grant_item", player_id=bob["player_id"], item="crossbow")
    patched = await current.until("view")
    assert patched["type"] == "patch" and patched["base"] == seq
    # Only what changed: the crossbow, one more revision of Bob's fighter (an offline duel signs
    # it), and the ranged challenge it brings (busy for now).
    revision = message["view"]["me"]["revision"] + 1
    assert patched["patch"] == {
        "me": {"items": ["crossbow"], "revision": revision},
        "may": {"challenge:ranged": {"code": "busy"}},
    }
    assert current.view["me"]["items"] == ["crossbow"]
    assert current.view == (await game.view(bob["token"]))["view"]
    await current.close()


async def test_a_resume_on_a_server_that_fell_behind_never_goes_backwards(
    tmp_path: Path,
) -> None:
    """Two servers on one database; the second holds the game but has not heard of the first
    one's writes (on SQLite nobody tells it). A phone that saw them and reconnects to the second
    with `after=` must not be shown the older view the second one still holds."""
    url = f"sqlite:///{tmp_path / 'two.db'}"
    async with contextlib.AsyncExitStack() as stack:
        one, two = [await stack.enter_async_context(serving(url)) for _ in "12"]
        game = await Game.create(await stack.enter_async_context(httpx.AsyncClient(base_url=one)))
        anna, bob = await game.add("Anna"), await game.add("Bob")
        await game.ok(game.organizer, "start_game")
        there = await Phone.connect(game.ws_url(two, bob["token"]))
        await there.until("view")  # the second server holds the game from now on
        await there.close()
        seq = await game.ok(anna["token"], "challenge", target=bob["code"])
        here = await Phone.connect(game.ws_url(one, bob["token"]))
        await here.until("view")
        assert here.seq == seq
        await here.close()

        back = await Phone.connect(game.ws_url(two, bob["token"], after=seq))
        game.http = await stack.enter_async_context(httpx.AsyncClient(base_url=two))
        await game.ok(game.organizer, "grant_item", player_id=bob["player_id"], item="crossbow")
        first = json.loads(await asyncio.wait_for(back.socket.recv(), 5))
        assert first.get("base", first["seq"]) >= seq, f"after={seq}, then {first}"
        back.view, back.seq = here.view, here.seq  # what the phone kept
        if first["type"] == "patch":
            back.view, back.seq = apply(back.view, first["patch"]), first["seq"]
        assert back.view == (await game.view(bob["token"]))["view"]
        assert back.view is not None and back.view["me"]["items"] == ["crossbow"]
        await back.close()


async def test_ping_and_bad_messages_get_clear_errors(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna = await game.add("Anna")
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    await phone.socket.send(json.dumps({"type": "ping"}))
    pong = await phone.until("pong")
    assert pong["server_time"].endswith("Z")
    cases = [
        ("{not json", "invalid"),
        ("[1]", "invalid"),
        (json.dumps({"type": "dance"}), "invalid"),
        (json.dumps({"type": "command", "command_id": "x", "command": "pick"}), "invalid"),
        (
            json.dumps(
                {"type": "command", "command_id": "x", "command": {"type": "pick"}, "extra": 1}
            ),
            "invalid",
        ),
        (json.dumps({"type": "command", "command": {"type": "start_game"}}), "invalid"),
        ("x" * 70_000, "too_large"),
    ]
    for text, code in cases:
        await phone.socket.send(text)
        message = await phone.until("error")
        assert message["code"] == code, (text[:40], message)
    await phone.socket.send(b"\x00\x01")
    assert (await phone.until("error"))["code"] == "invalid"
    refused = await phone.send("start_game")
    assert refused["code"] == "forbidden"
    duplicate_id = "same-id"
    await phone.send("challenge", command_id=duplicate_id, target="ZZZZ")
    await phone.close()


@pytest.mark.parametrize(
    ("token", "code", "close"), [(None, "unauthorized", 4401), ("wrong", "unauthorized", 4401)]
)
async def test_a_bad_token_is_refused_and_closed(
    live_server: str, http: httpx.AsyncClient, token: str | None, code: str, close: int
) -> None:
    game = await Game.create(http)
    url = game.ws_url(live_server, token or "")
    async with websockets.connect(url) as socket:
        message = json.loads(await asyncio.wait_for(socket.recv(), 5))
        assert message["type"] == "error" and message["code"] == code
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == close


async def test_a_retried_command_over_the_socket_is_not_repeated(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    await game.add("Anna")
    organizer = await Phone.connect(game.ws_url(live_server, game.organizer))
    first = await organizer.send("start_game", command_id="start-1")
    again = await organizer.send("start_game", command_id="start-1")
    assert first["type"] == again["type"] == "ack"
    assert (again["seq"], again["duplicate"]) == (first["seq"], True)
    assert [e["type"] for e in await game.events()].count("game_started") == 1
    await organizer.close()


# Hostile input: each bad thing gets a clear error message and a close code, and leaves nothing
# behind in the server. These run on a server of their own, whose hub they can look into.


@dataclass
class Served:
    url: str
    app: Starlette
    http: httpx.AsyncClient

    def hub(self) -> Hub:
        hub: Hub = self.app.state.referee.hub
        return hub

    def ws(self, game: Game, query: str = "") -> str:
        return f"{self.url.replace('http', 'ws', 1)}/ws/games/{game.game_id}{query}"


@asynccontextmanager
async def running(app: Starlette, outside: ASGIApp | None = None) -> AsyncIterator[Served]:
    async for url in serve_app(outside or app):
        async with httpx.AsyncClient(base_url=url) as http:
            yield Served(url, app, http)


@pytest.fixture
async def served(database_url: str) -> AsyncIterator[Served]:
    async with running(create_app(database_url, rate_limits=False)) as it:
        yield it


async def refused(url: str, code: str, close: int, **options: Any) -> dict[str, Any]:
    """Connects, expects one error message with `code` and then the close code `close`."""
    async with websockets.connect(url, **options) as socket:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 5))
        assert message["type"] == "error" and message["code"] == code, message
        assert message["command_id"] is None
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == close, (socket.close_code, message)
    return message


async def no_screens_left(served: Served, game: Game) -> None:
    for _ in range(100):
        if game.game_id not in served.hub().audiences:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"screens left in the hub: {served.hub().audiences[game.game_id]}")


@pytest.mark.parametrize("after", ["²", "٣", "-1", "1.0", "", " 1", "9" * 5000, str(2**31)])
async def test_a_bad_after_is_refused_and_leaves_no_screen_behind(
    served: Served, after: str
) -> None:
    game = await Game.create(served.http)
    url = served.ws(game, f"?token={game.organizer}&after={quote(after)}")
    message = await refused(url, "invalid", 4400)
    assert message["message"].startswith("after: a whole number"), message
    await no_screens_left(served, game)
    # A good one still works, and its screen goes when it closes.
    phone = await Phone.connect(served.ws(game, f"?token={game.organizer}&after=0"))
    assert (await phone.until("view"))["type"] == "view"
    assert game.game_id in served.hub().audiences
    await phone.close()
    await no_screens_left(served, game)


@pytest.mark.parametrize("token", ["%00", "%00abc", "a%0Ab", "%FF%FE", "x" * 5000, "%20"])
async def test_a_token_no_database_could_hold_is_unauthorized(served: Served, token: str) -> None:
    game = await Game.create(served.http)
    await refused(served.ws(game, f"?token={token}"), "unauthorized", 4401)
    await no_screens_left(served, game)


async def test_a_nul_in_a_command_id_is_invalid_and_sinks_nobody(served: Served) -> None:
    game = await Game.create(served.http)
    anna = await game.add("Anna")
    phone = await Phone.connect(served.ws(game, f"?token={game.organizer}"))
    await phone.until("view")
    for bad in ("a\x00b", "\x00", "line\nbreak", "tab\there", "del\x7f", "c1\x85"):
        command = {"type": "command", "command_id": bad, "command": {"type": "start_game"}}
        await phone.socket.send(json.dumps(command))
        answer = await phone.until("error")  # for a command_id it cannot name: null
        assert (answer["code"], answer["command_id"]) == ("invalid", None), (bad, answer)
        assert "command_id" in answer["message"], answer
        body = {"command_id": bad, "type": "start_game"}
        response = await served.http.post(
            f"/api/games/{game.game_id}/commands", json=body, headers=game.auth(game.organizer)
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "invalid"
    # Nor in anything else the server would store: a name, a card's title.
    response = await served.http.post(
        f"/api/games/{game.game_id}/players",
        json={"name": "Bo\x00b"},
        headers=game.auth(game.organizer),
    )
    assert response.status_code == 422, response.text
    card = {"title": "Kuš\x00", "big": 5, "small": 0, "kind": "wound"}
    answer = await phone.send("grant_card", player_id=anna["player_id"], card=card)
    assert answer["code"] == "invalid", answer
    # The game goes on: the same socket and HTTP both still write.
    assert (await phone.send("start_game"))["type"] == "ack"
    await game.ok(game.organizer, "grant_item", player_id=anna["player_id"], item="crossbow")
    await phone.close()


async def test_the_token_in_a_hello_message_or_the_subprotocol(served: Served) -> None:
    game = await Game.create(served.http)
    anna = await game.add("Anna")
    # hello: the first message, instead of ?token=
    async with websockets.connect(served.ws(game, "?after=0")) as socket:
        await socket.send(json.dumps({"type": "hello", "token": anna["token"]}))
        phone = Phone(socket)
        assert (await phone.until("view"))["view"]["me"]["name"] == "Anna"
        assert (await phone.send("challenge", target="ZZZZ"))["code"] == "game_not_running"
        # A second hello is no command.
        await socket.send(json.dumps({"type": "hello", "token": anna["token"]}))
        assert (await phone.until("error"))["code"] == "invalid"
    # The subprotocol: only the fixed name is echoed back, never the token.
    offered = [Subprotocol("bijse"), Subprotocol(f"bijse.token.{anna['token']}")]
    async with websockets.connect(served.ws(game), subprotocols=offered) as socket:
        assert socket.subprotocol == "bijse"
        assert socket.response is not None
        assert anna["token"] not in str(socket.response.headers)
        assert (await Phone(socket).until("view"))["view"]["me"]["name"] == "Anna"
    organizer = [Subprotocol(f"bijse.token.{game.organizer}")]
    async with websockets.connect(served.ws(game), subprotocols=organizer) as socket:
        assert socket.subprotocol is None
        assert "players" in (await Phone(socket).until("view"))["view"]


@pytest.mark.parametrize(
    "first",
    [
        json.dumps({"type": "ping"}),
        json.dumps({"type": "hello"}),
        json.dumps({"type": "hello", "token": 7}),
        json.dumps({"type": "hello", "token": "wrong"}),
        json.dumps({"type": "hello", "token": "\u0000"}),
        "{not json",
        b"\x00binary",
    ],
)
async def test_without_a_token_the_first_message_must_be_a_hello(
    served: Served, first: str | bytes
) -> None:
    game = await Game.create(served.http)
    async with websockets.connect(served.ws(game)) as socket:
        await socket.send(first)
        message = json.loads(await asyncio.wait_for(socket.recv(), 5))
        assert message["type"] == "error" and message["code"] == "unauthorized", message
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == 4401
    await no_screens_left(served, game)


async def test_a_socket_that_says_nothing_is_closed_after_the_hello_deadline(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sockets, "HELLO_S", 0.3)
    game = await Game.create(served.http)
    message = await refused(served.ws(game, "?after=0"), "unauthorized", 4401)
    assert "hello" in message["message"]


async def test_a_foreign_origin_is_refused_and_the_own_origin_accepted(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'origin.db'}"
    async with running(create_app(url, public_url="https://bijse.example/")) as served:
        game = await Game.create(served.http)
        address = served.url.removeprefix("http://")
        token = f"?token={game.organizer}"
        for origin in (
            "https://evil.example",
            "null",
            f"http://{address}.evil",
            "http://bijse.example",
        ):
            message = await refused(
                served.ws(game, token), "forbidden", 4403, origin=Origin(origin)
            )
            assert "origin" in message["message"].lower(), message
        for origin in (f"http://{address}", "https://bijse.example", "https://BIJSE.example:443"):
            async with websockets.connect(served.ws(game, token), origin=Origin(origin)) as ok:
                assert (await Phone(ok).until("view"))["type"] == "view", origin
        await no_screens_left(served, game)


async def test_behind_a_trusted_proxy_the_forwarded_host_is_the_own_origin(
    tmp_path: Path,
) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'proxied.db'}")
    async with running(app, behind(app, Proxies("127.0.0.1"))) as served:
        game = await Game.create(served.http)
        url = served.ws(game, f"?token={game.organizer}")
        forwarded = {"X-Forwarded-Host": "bijse.test", "X-Forwarded-Proto": "https"}
        async with websockets.connect(
            url, origin=Origin("https://bijse.test"), additional_headers=forwarded
        ) as ok:
            assert (await Phone(ok).until("view"))["type"] == "view"
        await refused(
            url,
            "forbidden",
            4403,
            origin=Origin("https://other.test"),
            additional_headers=forwarded,
        )


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


PINGS = {
    "json": frame(b'{"type":"ping"}') * 50,
    "frames": frame(b"p" * 100, PING) * 50,  # WebSocket pings: answered below the application
}


def flood(
    port: int, path: str, seconds: float, burst: bytes, sample: Any = None
) -> tuple[int, str]:
    """A client that sends pings as fast as the server takes them and never reads; returns
    the bytes sent and how it ended."""
    sock, answer = handshake(port, path)
    assert b" 101 " in answer.split(b"\r\n")[0], answer
    sock.setblocking(False)
    sent, start, ended = 0, time.monotonic(), "still open"
    try:
        while time.monotonic() - start < seconds:
            try:
                sent += sock.send(burst)
            except BlockingIOError:
                pass
            except OSError as error:
                ended = type(error).__name__
                break
            if sample is not None:
                sample()
            time.sleep(0.001)
    finally:
        sock.close()
    return sent, ended


@pytest.mark.parametrize("pings", list(PINGS))
async def test_a_reader_that_never_reads_costs_bounded_memory_given_back_at_close(
    tmp_path: Path, pings: str
) -> None:
    port = free_port()
    server = await serve_process(port, f"sqlite:///{tmp_path / 'stall.db'}", tmp_path / "log")
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            game = await Game.create(http)
            await asyncio.sleep(0.5)
            base = rss_mib(server.pid)
            peak = [base]
            path = f"/ws/games/{game.game_id}?token={game.organizer}"
            sent, ended = await asyncio.to_thread(
                flood, port, path, 5, PINGS[pings], lambda: peak.append(rss_mib(server.pid))
            )
            await asyncio.sleep(1)
            after = rss_mib(server.pid)
            rss = f"RSS {base:.0f} -> {max(peak):.0f} -> {after:.0f} MiB"
            figures = f"sent {sent >> 10} KiB ({ended}); {rss}"
            assert max(peak) - base < 12, figures
            assert after - base < 8, figures
            assert (await http.get("/healthz")).status_code == 200
            phone = await Phone.connect(game.ws_url(f"http://127.0.0.1:{port}", game.organizer))
            assert (await phone.until("view"))["type"] == "view"
            await phone.close()
    finally:
        stop(server)


async def test_a_reader_that_never_reads_is_cut_off(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WebSocket pings fill the server's buffer for the peer, and the peer is aborted. (JSON
    pings stop sooner: their answers fill the peer's own TCP window, its sends stall, and
    uvicorn's keepalive ping, unanswered, closes it after 20 + 20 s.)"""
    monkeypatch.setattr(socket_protocol, "STALL_S", 1.0)
    game = await Game.create(served.http)
    port = int(served.url.rsplit(":", 1)[1])
    path = f"/ws/games/{game.game_id}?token={game.organizer}"
    start = time.monotonic()
    sent, ended = await asyncio.to_thread(flood, port, path, 15, PINGS["frames"])
    assert ended in ("ConnectionResetError", "BrokenPipeError"), (sent, ended)
    assert time.monotonic() - start < 10
    await no_screens_left(served, game)


async def test_no_token_reaches_the_log_even_at_the_most_verbose_level(tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "log"
    database = f"sqlite:///{tmp_path / 'log.db'}"
    server = await serve_process(port, database, log, "--log-level", "trace")
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base) as http:
            game = await Game.create(http)
            anna = await game.add("Anna")
            await http.get(f"/healthz?token={anna['token']}&x=1")  # HTTP never reads it: still
            phone = await Phone.connect(game.ws_url(base, anna["token"], after=0))
            await phone.until("view")
            await phone.close()
            url = f"{base.replace('http', 'ws', 1)}/ws/games/{game.game_id}?%74oken={anna['token']}"
            async with websockets.connect(url) as socket:
                assert (await Phone(socket).until("view"))["type"] == "view"
            bad = f"{base.replace('http', 'ws', 1)}/ws/games/{game.game_id}?token=x{anna['token']}"
            await refused(bad, "unauthorized", 4401)
            plain = f"{base.replace('http', 'ws', 1)}/ws/games/{game.game_id}"
            async with websockets.connect(plain) as socket:
                await socket.send(json.dumps({"type": "hello", "token": anna["token"]}))
                assert (await Phone(socket).until("view"))["type"] == "view"
            offered = [Subprotocol("bijse"), Subprotocol(f"bijse.token.{anna['token']}")]
            async with websockets.connect(plain, subprotocols=offered) as socket:
                assert (await Phone(socket).until("view"))["type"] == "view"
    finally:
        stop(server)
    text = log.read_text()
    assert "WebSocket /ws/games/" in text and "GET /healthz" in text, text[-2000:]
    assert anna["token"] not in text, [line for line in text.splitlines() if anna["token"] in line]
    assert game.organizer not in text


def messages(rng: random.Random, count: int) -> tuple[bytes, list[str]]:
    """`count` commands the server refuses, each naming its id, as a phone may send them in
    one go: most in a frame of their own, some in two fragments, some long (a 16-bit length),
    some that must wait, with WebSocket pings between them; and their ids in order."""
    data, ids = b"", []
    for n in range(count):
        ids.append(f"c{n}")
        pad = "x" * rng.choice([0, 0, 200])  # over 125 bytes: the 16-bit length form
        # A costly command waits for its turn (server/web/limits.py): what follows waits too.
        kind = "offline_duel" if rng.random() < 0.15 else "nope"
        text = json.dumps(
            {"type": "command", "command_id": ids[-1], "command": {"type": kind, "pad": pad}}
        ).encode()
        if rng.random() < 0.2:
            cut = rng.randrange(1, len(text))
            data += frame(text[:cut], TEXT, fin=False) + frame(text[cut:], CONT)
        else:
            data += frame(text)
        if rng.random() < 0.2:
            data += frame(b"are you there", PING)
    return data, ids


@pytest.mark.parametrize("seed", range(4))
async def test_messages_are_answered_in_order_however_they_arrive(
    tmp_path: Path, seed: int
) -> None:
    """Whole frames, fragments, pings, and reads that end anywhere in a frame: every message
    is answered, once, in the order sent (a whole text frame is read past websockets' parser,
    the rest through it; a command is answered in the callback that read it unless it must
    wait, and then what follows it waits too). Rate limits on: costly commands wait."""
    rng = random.Random(seed)
    async with (
        serving(f"sqlite:///{tmp_path / 'order.db'}", rate_limits=True) as url,
        httpx.AsyncClient(base_url=url) as http,
    ):
        game = await Game.create(http)
        await asyncio.to_thread(in_order, rng, url, game, seed % 2 == 1)


def in_order(rng: random.Random, url: str, game: Game, hello: bool) -> None:
    port = int(url.rsplit(":", 1)[1])
    path = f"/ws/games/{game.game_id}?token={game.organizer}"
    data, ids = messages(rng, 40)
    if hello:  # the token in a hello: what comes with it waits for the screen to be seated
        path = f"/ws/games/{game.game_id}"
        data = frame(json.dumps({"type": "hello", "token": game.organizer}).encode()) + data
    sock, answer = handshake(port, path)
    assert b" 101 " in answer.split(b"\r\n")[0], answer
    try:
        at = 0
        while at < len(data):  # pieces that end anywhere, a frame's header included
            step = rng.choice([1, 3, 7, 50, 400, 5000])
            sock.sendall(data[at : at + step])
            at += step
            if rng.random() < 0.3:
                time.sleep(0.002)
        heard: list[str] = []
        received = b""
        while len(heard) < len(ids):
            received += sock.recv(65536)
            heard = [
                json.loads(payload)["command_id"]
                for opcode, payload in unframed(received)
                if opcode == TEXT and b'"error"' in payload
            ]
    finally:
        sock.close()
    assert heard == ids


async def test_a_whole_text_frame_is_read_past_websockets_parser(
    live_server: str, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frames phones send (masked, whole, one message each) skip websockets' parser: the
    ordering test above holds for them, not only for what goes through it."""
    taken: list[bool] = []
    whole_text = socket_protocol.LeanWebSocketProtocol.whole_text

    def counted(self: socket_protocol.LeanWebSocketProtocol) -> bool:
        taken.append(whole_text(self))
        return taken[-1]

    monkeypatch.setattr(socket_protocol.LeanWebSocketProtocol, "whole_text", counted)
    game = await Game.create(http)
    phone = await Phone.connect(game.ws_url(live_server, game.organizer))
    await phone.until("view")
    for _ in range(5):
        await phone.socket.send(json.dumps({"type": "ping"}))
        await phone.until("pong")
    await phone.close()
    assert taken.count(True) == 5, taken


async def test_a_read_that_ends_inside_a_frame_leaves_the_rest_to_that_frame(
    live_server: str, http: httpx.AsyncClient
) -> None:
    """A read can end anywhere: what comes next is the rest of websockets' frame, even when it
    looks like a whole frame of its own (here the rest of a command's text, masked, reads
    0x81 0x85 ...: a five-byte text frame). It must not be taken for one."""
    game = await Game.create(http)
    port = int(live_server.rsplit(":", 1)[1])
    path = f"/ws/games/{game.game_id}?token={game.organizer}"
    mask = b"\xc0" * 4  # a byte from 0x80 to 0xbf masks to a printable one
    lookalike = bytes([0x81, 0x85, *[0x90] * 4, *[0x90] * 5])  # masks to "AEPPPPPPPPP"
    before = b'{"type":"command","command_id":"c0","command":{"type":"nope","pad":"'
    text = before + bytes(b ^ 0xC0 for b in lookalike) + b'xyz"}}'
    masked = bytes(b ^ 0xC0 for b in text)
    sent = bytes([0x81, 0x80 | 126]) + len(text).to_bytes(2, "big") + mask + masked
    cut = 4 + 4 + len(before)  # the read ends where the lookalike begins

    def talk() -> list[Any]:
        sock, answer = handshake(port, path)
        assert b" 101 " in answer.split(b"\r\n")[0], answer
        try:
            sock.sendall(sent[:cut])
            time.sleep(0.2)
            sock.sendall(sent[cut:] + frame(json.dumps({"type": "ping"}).encode()))
            received: bytes = b""
            while not any(b'"pong"' in p for _, p in unframed(received)):
                received += sock.recv(65536)
            return [json.loads(p) for opcode, p in unframed(received) if opcode == TEXT]
        finally:
            sock.close()

    heard = await asyncio.wait_for(asyncio.to_thread(talk), 15)
    assert [(m["type"], m.get("command_id")) for m in heard if m["type"] in ("error", "pong")] == [
        ("error", "c0"),
        ("pong", None),
    ]
