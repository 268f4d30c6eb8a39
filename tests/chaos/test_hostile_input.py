"""What a hostile or broken client sends, against real `bijse serve` processes.

- JSON of any depth and escaping (hypothesis: arrays and objects up to past orjson's own limit
  of 1,024 levels, a backslash escape or a raw C1 character at any level, in a key or a value)
  is never a 5xx nor `internal`: over HTTP with a good and a bad token, creating a game with
  none, and on the WebSocket in a hello and in a command. Too deep (over 32 levels) and a
  control character are 422 `invalid` (on a socket: the error; a hello: 4401).
- A hundred unknown tokens from one address do not keep a good token of that address out; the
  unknown ones are answered 429 once the address has failed twenty times.
- Text that is not UTF-8 closes its socket with 1007 and no traceback in the log.
- A hello's `token`, however its JSON spells the key, is kept out of the most verbose log.
- The OpenAPI document states the control-character rule on every string of a request body,
  and the depth limit.
"""

import asyncio
import json
import re
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from tests.chaos.harness import SEED
from tests.client import Game, Phone
from tests.conftest import free_port
from tests.figures import report
from tests.proxy import serve, stop
from tests.rawsocket import CLOSE, TEXT, frame, handshake, unframed

DEPTH = 32  # docs/protocol.md, "Limits": arrays and objects nested at most this deep
ORJSON_DEPTH = 1024  # deeper, orjson itself refuses the text: malformed JSON
EXAMPLES = 200
# (how a string's JSON spells a character, whether that character is a control character)
ESCAPES = [
    (r"\u0001", True),
    (r"\u0000", True),
    (r"\n", True),
    (r"\t", True),
    (r"\u001f", True),
    (r"\u007f", True),
    (r"\u0085", True),
    (r"\u009F", True),
    ("\x7f", True),  # raw: JSON lets DEL and the C1 characters stand in a string as they are
    ("\x85", True),
    (r"\\", False),
    (r"\"", False),
    (r"\/", False),
    (r"\u0074", False),
    (r"\u00e9", False),
    (r"\u00a0", False),
    (r"\ud83d\ude00", False),
    ("", False),
]


@dataclass(frozen=True)
class Nested:
    """A JSON value nested `depth` arrays and objects deep, with one string spelled with
    `escape` at level `at` (in a key, where that level is an object and `in_key` says)."""

    depth: int
    kinds: str  # "[" and "{", repeated level by level
    escape: str
    control: bool
    at: int
    in_key: bool

    def text(self) -> str:
        odd = f'"a{self.escape}b"'
        inner = odd if self.at == self.depth else "0"
        for level in reversed(range(self.depth)):
            here = level == self.at
            if self.kinds[level % len(self.kinds)] == "[":
                inner = f"[{odd},{inner}]" if here else f"[{inner}]"
            elif here and self.in_key:
                inner = f"{{{odd}:{inner}}}"
            else:
                inner = f'{{"s":{odd},"k":{inner}}}' if here else f'{{"k":{inner}}}'
        return inner

    def refusals(self, around: int) -> list[str]:
        """What the server may refuse this value for, `around` levels deep in a body (the first
        it finds: none, and it is refused for what it means, if at all)."""
        levels = around + self.depth
        if levels > ORJSON_DEPTH:
            return ["malformed JSON"]  # orjson reads no deeper: nothing else is seen
        deep = [f"nested deeper than {DEPTH} levels"] if levels > DEPTH else []
        return deep + (["control characters are not allowed"] if self.control else [])


NESTED = st.builds(
    lambda depth, kinds, escape, at, in_key: Nested(depth, kinds, *escape, min(at, depth), in_key),
    st.one_of(st.integers(0, DEPTH + 8), st.integers(960, ORJSON_DEPTH + 6)),
    st.text(alphabet="[{", min_size=1, max_size=3),
    st.sampled_from(ESCAPES),
    st.integers(0, ORJSON_DEPTH + 6),
    st.booleans(),
)


def refused_for(reasons: list[str], code: str, message: str) -> None:
    """The error is `invalid`, for one of the reasons the value has."""
    assert code == "invalid" and any(reason in message for reason in reasons), (code, message)


@asynccontextmanager
async def server(tmp_path: Path, *more: str, limits: str = "off") -> AsyncIterator[str]:
    port, log = free_port(), tmp_path / "server.log"
    process = await serve(
        port,
        f"sqlite:///{tmp_path / 'hostile.db'}",
        log,
        *more,
        env={"BIJSE_RATE_LIMITS": limits},
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


def ws(base: str) -> str:
    return base.replace("http", "ws", 1)


@contextmanager
def hello(base: str, game_id: str, text: str) -> Iterator[tuple[dict[str, Any], ClientConnection]]:
    """A socket whose first message is `text`, and the first message the server sends."""
    with connect(f"{ws(base)}/ws/games/{game_id}", open_timeout=5) as socket:
        socket.send(text)
        yield json.loads(socket.recv(timeout=5)), socket


def closed_with(socket: ClientConnection) -> int | None:
    with pytest.raises(websockets.ConnectionClosed):
        socket.recv(timeout=5)
    return socket.close_code


def answer_to(socket: ClientConnection, command_id: str) -> dict[str, Any]:
    """The answer to the one message on its way, which names `command_id` if the server could
    read it (views and patches may come first)."""
    while True:
        message: dict[str, Any] = json.loads(socket.recv(timeout=5))
        if message["type"] in ("ack", "error") and message["command_id"] in (command_id, None):
            return message


async def test_no_json_of_any_depth_or_escaping_is_a_server_error(tmp_path: Path) -> None:
    async with server(tmp_path) as base:
        async with httpx.AsyncClient(base_url=base) as client:
            game = await Game.create(client)
            alice = await game.add("Alice")
        counts = await asyncio.to_thread(property_run, base, game, alice["token"])
        log = (tmp_path / "server.log").read_text()
    report(
        "hostile JSON",
        f"{EXAMPLES} values nested 0-{ORJSON_DEPTH + 6} levels with escapes, each sent as an "
        "HTTP command (good and bad token), a new game, a hello and a socket command",
        ", ".join(f"{n} {what}" for what, n in counts.items()),
    )
    assert "Traceback" not in log, log[-3000:]


def property_run(base: str, game: Game, token: str) -> Counter[str]:
    """The property, example by example, from a thread (the clients here block)."""
    counts: Counter[str] = Counter()
    sent = iter(range(10**9))

    @seed(SEED)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(NESTED)
    def each(value: Nested) -> None:
        n, text = next(sent), value.text()
        reasons = value.refusals(1)  # in an HTTP body, a hello
        counts["refused" if reasons else "not refused"] += 1
        path = f"/api/games/{game.game_id}/commands"
        command = f'{{"command_id":"h{n}","type":"challenge","target":{text}}}'
        for bearer in (token, "x" * 32):
            answer = http.post(path, content=command, headers={"Authorization": f"Bearer {bearer}"})
            error = answer.json()["error"]
            assert 400 <= answer.status_code < 500 and error["code"] != "internal", answer.text
            if bearer != token:  # the token is checked first
                assert (answer.status_code, error["code"]) == (401, "unauthorized"), answer.text
            elif reasons:
                assert answer.status_code == 422, answer.text
                refused_for(reasons, error["code"], error["message"])
        created = http.post("/api/games", content=f'{{"ruleset":"card-duel","name":{text}}}')
        assert created.status_code in (201, 422), created.text
        if reasons:
            assert created.status_code == 422, created.text
            refused_for(reasons, **created.json()["error"])
        first_message = f'{{"type":"hello","token":"{token}","x":{text}}}'
        with hello(base, game.game_id, first_message) as (first, socket):
            if reasons:  # not a hello: the socket cannot be seated
                assert first["code"] == "unauthorized" and closed_with(socket) == 4401, first
            else:
                assert first["type"] == "view", first
        seated.send(
            f'{{"type":"command","command_id":"w{n}",'
            f'"command":{{"type":"challenge","target":{text}}}}}'
        )
        reply = answer_to(seated, f"w{n}")
        assert reply["type"] == "error" and reply["code"] != "internal", reply
        if reasons := value.refusals(2):
            refused_for(reasons, reply["code"], reply["message"])

    seat = f"{ws(base)}/ws/games/{game.game_id}?token={token}"
    with httpx.Client(base_url=base, timeout=10) as http, connect(seat) as seated:
        seated.recv(timeout=10)  # the view
        each()
    return counts


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_hundred_unknown_tokens_keep_no_good_token_of_their_address_out(
    tmp_path: Path,
) -> None:
    async with server(tmp_path, limits="on") as base, httpx.AsyncClient(base_url=base) as http:
        game = await Game.create(http)
        alice = await game.add("Alice")
        view = f"/api/games/{game.game_id}/view"
        guesses = [(await http.get(view, headers=bearer(f"guess-{n}"))) for n in range(60)]
        refusals = [await refused_hello(base, game.game_id, f"guess{n}") for n in range(40)]
        start = time.monotonic()
        good = await http.get(view, headers=bearer(alice["token"]))
        async with websockets.connect(f"{ws(base)}/ws/games/{game.game_id}") as socket:
            await socket.send(json.dumps({"type": "hello", "token": alice["token"]}))
            seated = await Phone(socket).until("view")
        let_in = time.monotonic() - start
        still = await http.get(view, headers=bearer("guess-again"))
    statuses = [answer.status_code for answer in guesses]
    report(
        "unknown tokens",
        "60 over HTTP and 40 in hellos from one address, then a good token of that address",
        f"{statuses.count(401)} x 401, then 429 and 4429; the good token in over HTTP and the "
        f"socket in {let_in * 1000:.0f} ms",
    )
    assert statuses[:20] == [401] * 20, statuses  # twenty at once (docs/protocol.md)
    for answer in [*guesses[20:], still]:
        assert answer.status_code == 429 and int(answer.headers["retry-after"]) >= 1, answer
        assert answer.json()["error"]["code"] == "rate_limited"
    assert all(refusal == ("rate_limited", 4429) for refusal in refusals), refusals
    assert good.status_code == 200 and seated["seq"] >= 2, good.text
    assert let_in < 2


async def refused_hello(base: str, game_id: str, token: str) -> tuple[str, int | None]:
    async with websockets.connect(f"{ws(base)}/ws/games/{game_id}") as socket:
        await socket.send(json.dumps({"type": "hello", "token": token}))
        message = json.loads(await socket.recv())
        with pytest.raises(websockets.ConnectionClosed):
            await socket.recv()
        return message["code"], socket.close_code


def close_code(sock: socket.socket) -> int | None:
    """Read the server's frames until its close frame: its code (None: the connection ended
    without one)."""
    data = b""
    while more := sock.recv(65536):
        data += more
        for kind, payload in unframed(data):
            if kind == CLOSE:
                return int.from_bytes(payload[:2], "big")
    return None


async def test_text_that_is_not_utf8_closes_the_socket_with_1007_and_no_traceback(
    tmp_path: Path,
) -> None:
    async with server(tmp_path, "--log-level", "info") as base:
        async with httpx.AsyncClient(base_url=base) as http:
            game = await Game.create(http)
            port = int(base.rsplit(":", 1)[1])
            path = f"/ws/games/{game.game_id}?token={game.organizer}"
            codes = []
            for bad in (b"\xff", b'{"type": "ping", "x": "\xc3"}', b"\xed\xa0\x80"):
                sock, answer = handshake(port, path)
                with sock:
                    assert b" 101 " in answer.split(b"\r\n")[0], answer
                    sock.sendall(frame(bad, TEXT))
                    codes.append(close_code(sock))
            assert (await http.get("/healthz")).status_code == 200
        lines = (tmp_path / "server.log").read_text().splitlines()
    told = [line for line in lines if "UTF-8" in line or "utf-8" in line]
    assert codes == [1007] * 3, codes
    assert not [line for line in lines if "Traceback" in line or "Error" in line], lines[-40:]
    assert len(told) <= 3 and all(len(line) < 200 for line in told), told


async def test_a_hello_token_stays_out_of_the_log_however_its_json_spells_it(
    tmp_path: Path,
) -> None:
    async with server(tmp_path, "--log-level", "trace") as base:
        async with httpx.AsyncClient(base_url=base) as http:
            game = await Game.create(http)
            alice = await game.add("Alice")
        token = alice["token"]
        spellings = [
            f'{{"type": "hello", "\\u0074oken": "{token}"}}',
            f'{{"type":"hello","tok\\u0065n"\n:\t"{token}"}}',
            f'{{"\\u0074\\u006F\\u006b\\u0065\\u006E":"{token}","type":"hello"}}',
            f'{{"type": "hello", "token" : "{token}"}}',
        ]
        for text in spellings:
            async with websockets.connect(f"{ws(base)}/ws/games/{game.game_id}") as socket:
                await socket.send(text)
                assert (await Phone(socket).until("view"))["type"] == "view", text
    log = (tmp_path / "server.log").read_text()
    assert "< TEXT" in log  # the frames were logged: there was something to hide
    assert token not in log, [line for line in log.splitlines() if token in line]


def strings(
    schema: Any, components: dict[str, Any], where: str, seen: set[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every string schema a request body's schema holds, through its references (not an
    enum's or a const's: those name their values)."""
    if isinstance(schema, list):
        for item in schema:
            yield from strings(item, components, where, seen)
    elif isinstance(schema, dict):
        name = schema.get("$ref", "").rpartition("/")[2]
        if name and name not in seen:
            seen.add(name)
            yield from strings(components[name], components, name, seen)
        if schema.get("type") == "string" and "enum" not in schema and "const" not in schema:
            yield where, schema
        for key, item in schema.items():
            yield from strings(item, components, f"{where}/{key}", seen)


async def test_the_openapi_document_states_the_rules_on_every_string_and_the_depth(
    tmp_path: Path,
) -> None:
    async with server(tmp_path) as base, httpx.AsyncClient(base_url=base) as http:
        document = (await http.get("/api/openapi.json")).json()
    components, seen = document["components"]["schemas"], set[str]()
    bodies = {
        f"{method.upper()} {path}": operation["requestBody"]
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
        if isinstance(operation, dict) and "requestBody" in operation
    }
    found = [
        found
        for name, body in bodies.items()
        for found in strings(body["content"], components, name, seen)
    ]
    assert len(bodies) == 3 and len(found) > 50, (list(bodies), len(found))
    for name, body in bodies.items():
        assert f"nested at most {DEPTH} levels" in body["description"], name
    for where, schema in found:
        patterns = [schema.get("pattern"), *(p.get("pattern") for p in schema.get("allOf", []))]
        # ECMA-262's `$` (JSON Schema's) is the end of the string: Python's \Z
        compiled = [re.compile(p.replace("$", r"\Z")) for p in patterns if p]
        assert all(c.search("ab") for c in compiled), (where, schema)
        for character in ("\x00", "\n", "\x1f", "\x7f", "\x85", "\x9f"):
            assert not all(c.search(f"ab{character}") for c in compiled), (where, schema)
