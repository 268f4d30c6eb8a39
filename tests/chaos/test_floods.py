"""A socket that floods the server costs the other games nothing they notice.

One real `bijse serve` (SQLite, rate limits on, as it runs by default), two games: in one, pairs
of phones duel over WebSockets at a phone's pace (under the per-phone command limit); in the
other, one spectator's socket sends application pings and messages that are not JSON as fast as
the server takes them, then another sends WebSocket pings and pongs the same way (a raw client:
tests/rawsocket.py). Each flood is measured against the duels' quiet figure of the same run: a
command's p99, from sending it to its ack, stays under twice the quiet p99. The flooders read
everything they are sent; what they got must show the documented limit (docs/protocol.md, "Rate
limits"): a few pongs and `invalid` errors, then `rate_limited` ones, and the socket's pings
beyond the allowance unanswered.
"""

import asyncio
import contextlib
import gc
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.chaos.harness import rng
from tests.client import Game, Phone
from tests.conftest import free_port
from tests.figures import report
from tests.proxy import serve, stop
from tests.rawsocket import PING, TEXT, frame, handshake, unframed

PAIRS = 8
PACE_S = 0.11  # after each command of a pair: each phone stays under 10 commands a second
PHASE_S = 3.5
# A socket's allowance of pings, pongs and refused messages (docs/protocol.md, "Rate limits")
BURST, PER_SECOND = 20, 2
# Nobody is stunned or immune for long: the duels go on.
CONFIG = {"stun_s": 0, "escape_immunity_s": 0, "leave_after_s": 0}
PONG = 10  # the opcode of an unsolicited pong
FLOODS = {
    "application pings and refused messages": (
        frame(b'{"type":"ping"}', TEXT) + frame(b"not JSON", TEXT)
    )
    * 100,
    "WebSocket pings and pongs": (frame(b"", PING) + frame(b"", PONG)) * 500,
}


def p99(took: list[float]) -> float:
    ordered = sorted(took)
    return ordered[int(len(ordered) * 0.99)]


async def timed(phone: Phone, took: list[float], kind: str, **fields: Any) -> dict[str, Any]:
    start = time.perf_counter()
    answer = await phone.send(kind, **fields)
    took.append(time.perf_counter() - start)
    return answer


async def duels(a: Phone, b: Phone, b_code: str, until: float, took: list[float]) -> None:
    """Two players duel, at a phone's pace, until `until`."""
    pick = rng(f"floods-{b_code}")
    while time.monotonic() < until:
        answer = await timed(a, took, "challenge", target=b_code)
        await asyncio.sleep(PACE_S)
        if answer["type"] != "ack":
            continue
        assert a.view is not None
        duel_id = a.view["duel"]["duel_id"]
        last: Phone = a
        while last.view is not None and (last.view.get("duel") or {}).get("duel_id") == duel_id:
            for phone in (a, b):
                assert phone.view is not None
                card = pick.choice(phone.view["me"]["cards"])["card_id"]
                answer = await timed(phone, took, "pick", duel_id=duel_id, card_id=card)
                assert answer["type"] == "ack", answer
                await asyncio.sleep(PACE_S)
            last = b  # the later pick's phone holds the view after it


class Flood:
    """A socket sending `burst` as fast as the server reads it, and reading all it is sent."""

    def __init__(self, port: int, path: str, burst: bytes) -> None:
        self.sock, answer = handshake(port, path)
        assert b" 101 " in answer.split(b"\r\n")[0], answer
        self.burst = burst
        self.sent = 0
        self.lasted = 0.0  # seconds from the first byte sent to the socket's close
        self.heard = bytearray()
        self.going = True
        self.threads = [threading.Thread(target=self.send), threading.Thread(target=self.read)]

    def send(self) -> None:
        pending = memoryview(b"")
        with contextlib.suppress(OSError):
            while self.going:
                pending = pending or memoryview(self.burst)
                try:
                    sent = self.sock.send(pending)
                except TimeoutError:  # the server reads no more: the flood waits
                    continue
                pending, self.sent = pending[sent:], self.sent + sent

    def read(self) -> None:
        with contextlib.suppress(OSError):
            while self.going:
                try:
                    data = self.sock.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    return
                self.heard += data

    @contextlib.contextmanager
    def on(self) -> Iterator["Flood"]:
        self.sock.settimeout(0.2)  # the threads look at `going` this often
        began = time.monotonic()
        for thread in self.threads:
            thread.start()
        try:
            yield self
        finally:
            self.going = False
            for thread in self.threads:
                thread.join()
            self.sock.close()
            self.lasted = time.monotonic() - began

    def allowed(self) -> float:
        """What the limit lets through (docs/protocol.md, "Rate limits"): the burst, then the
        allowance's refill for as long as the flood really went on (a phase runs long on a slow
        machine), and one more refill for the moment between the server's clock and ours."""
        return BURST + PER_SECOND * (self.lasted + 1)

    def messages(self) -> list[dict[str, Any]]:
        """The server's text messages."""
        return [json.loads(payload) for kind, payload in unframed(self.heard) if kind == TEXT]

    def pongs(self) -> int:
        """WebSocket pongs among what the server sent (empty ones, as the pings were)."""
        return self.heard.count(b"\x8a\x00")


async def test_a_socket_flooding_pings_leaves_another_games_duels_as_fast(tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "server.log"
    base = f"http://127.0.0.1:{port}"
    server = await serve(
        port, f"sqlite:///{tmp_path / 'floods.db'}", log, env={"BIJSE_RATE_LIMITS": "on"}
    )
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            duelling = await Game.create(http, **CONFIG)
            players = [await duelling.add(f"P{n}") for n in range(2 * PAIRS)]
            await duelling.ok(duelling.organizer, "start_game")
            watched = await Game.create(http)
            spectators = [await watched.add(f"S{n}", "spectator") for n in range(len(FLOODS))]
        phones = [await Phone.connect(duelling.ws_url(base, p["token"])) for p in players]
        for phone in phones:
            await phone.until("view")

        async def phase(seconds: float = PHASE_S) -> list[float]:
            took: list[float] = []
            until = time.monotonic() + seconds
            # This process's own collections (it has run the suite so far) would count against
            # the server's latency, as in bench.duels: none while a phase is measured.
            gc.collect()
            gc.disable()
            try:
                await asyncio.gather(
                    *(
                        duels(phones[n], phones[n + 1], players[n + 1]["code"], until, took)
                        for n in range(0, len(phones), 2)
                    )
                )
            finally:
                gc.enable()
            return took

        await phase(1)  # warm: the first duels load what the later ones use
        quiet = await phase()
        figures, floods = {}, {}
        for (name, burst), spectator in zip(FLOODS.items(), spectators, strict=True):
            path = f"/ws/games/{watched.game_id}?token={spectator['token']}"
            with Flood(port, path, burst).on() as flood:
                try:
                    figures[name] = await phase()
                except TimeoutError:
                    raise AssertionError(f"{name}: a duel's command unanswered for 5 s") from None
            floods[name] = flood
        for phone in phones:
            await phone.close()
    finally:
        stop(server)
    ms = {name: f"{p99(took) * 1000:.1f} ms" for name, took in {"quiet": quiet, **figures}.items()}
    report(
        "socket floods",
        f"{PAIRS} duelling pairs in one game; a spectator of another game flooding "
        + " then ".join(FLOODS),
        f"command p99 {', '.join(f'{k} {v}' for k, v in ms.items())}",
    )
    for name, took in figures.items():
        assert len(took) > 100 and len(quiet) > 100, (name, len(took), len(quiet))
        assert p99(took) < 2 * p99(quiet), ms
    # The floods were floods, and the limit answered them as documented.
    app, frames = floods.values()
    answers = [m["type"] if m["type"] != "error" else m["code"] for m in app.messages()]
    within = answers.count("pong") + answers.count("invalid")
    assert app.sent > 100_000 and 0 < within <= app.allowed(), (app.sent, app.lasted, answers[:40])
    assert "rate_limited" in answers, answers[:40]
    assert frames.sent > 100_000 and 0 < frames.pongs() <= frames.allowed(), (
        frames.sent,
        frames.lasted,
        frames.pongs(),
    )
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
