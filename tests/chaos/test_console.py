"""The organizer's console in a festival-sized game: a command costs what it touches, not the
game's size; a list of 500 added to a game of 50,000 holds the server up briefly; and a game
refuses members beyond its cap. Real `bijse serve`, real SQLite file, the console on a real
WebSocket."""

import asyncio
import statistics
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import websockets

from server.game.patch import bare
from server.rules.roster import MAX_MEMBERS
from tests.chaos.harness import Server
from tests.client import Game, Phone
from tests.figures import report

BULK = 500  # the most one list may add
CYCLES = 30  # challenge and cancel, in each game


async def grown(http: httpx.AsyncClient, game: Game, members: int) -> list[dict[str, Any]]:
    """Players added in lists of 500 until the game has `members` (its organizer included)."""
    added: list[dict[str, Any]] = []
    have = len((await game.view(game.organizer))["view"]["members"])
    while have < members:
        names = [{"name": f"P{have + n}"} for n in range(min(BULK, members - have))]
        answer = await add(http, game, names)
        assert answer.status_code == 201, answer.text
        added += answer.json()["players"]
        have += len(names)
    return added


async def add(http: httpx.AsyncClient, game: Game, names: list[dict[str, str]]) -> httpx.Response:
    return await http.post(
        f"/api/games/{game.game_id}/players",
        json={"players": names},
        headers=game.auth(game.organizer),
        timeout=60,
    )


@asynccontextmanager
async def console(base: str, game: Game) -> AsyncIterator[Phone]:
    """The organizer's console, reading every message into the view it holds."""
    # A game of thousands is a first view of megabytes.
    screen = Phone(await websockets.connect(game.ws_url(base, game.organizer), max_size=None))
    await screen.until("view", timeout=60)

    async def read() -> None:
        while True:
            await screen.receive(timeout=3600)

    reading = asyncio.create_task(read())
    try:
        yield screen
    finally:
        reading.cancel()
        with suppress(asyncio.CancelledError):
            await reading
        await screen.close()


async def cycle(game: Game, a: dict[str, Any], b: dict[str, Any], took: list[float]) -> None:
    """A challenges B, the organizer cancels the duel: two commands that change the console."""
    began = time.perf_counter()
    challenge = await game.command(a["token"], "challenge", target=b["code"])
    took.append(time.perf_counter() - began)
    assert challenge.status_code == 200, challenge.text
    duel_id = (await game.view(a["token"]))["view"]["duel"]["duel_id"]
    began = time.perf_counter()
    await game.ok(game.organizer, "cancel_duel", duel_id=duel_id)
    took.append(time.perf_counter() - began)


async def test_a_command_costs_the_console_what_it_touches(tmp_path: Path) -> None:
    """In a game of 5,000 with the console open, a command takes what it takes in a game of two
    (a console rebuilt whole took 14 times as long), and the console still holds the whole view."""
    server = Server(f"sqlite:///{tmp_path / 'bijse.db'}", tmp_path / "server.log")
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            config = {"stun_s": 0, "escape_immunity_s": 0}
            big, small = [await Game.create(http, **config) for _ in range(2)]
            players = await grown(http, big, 5_000), await grown(http, small, 3)
            for game in (big, small):
                await game.ok(game.organizer, "start_game")
            took: tuple[list[float], list[float]] = ([], [])
            async with console(server.base, big) as watching, console(server.base, small):
                for _ in range(CYCLES):  # in turn: both games meet the same moments
                    for game, pair, times in zip((big, small), players, took, strict=True):
                        await cycle(game, pair[0], pair[1], times)
                whole = (await big.view(big.organizer))["view"]
                for _ in range(50):  # the last patches on their way
                    if watching.view is not None and bare(watching.view) == bare(whole):
                        break
                    await asyncio.sleep(0.1)
                assert watching.view is not None and bare(watching.view) == bare(whole)
    finally:
        server.stop()
    in_big, in_small = (statistics.median(times) * 1000 for times in took)
    report("console", "commands in a game of 5,000 with the console open", f"p50 {in_big:.1f} ms")
    report("console", "the same commands in a game of 2", f"p50 {in_small:.1f} ms")
    assert in_big <= 2 * in_small + 1, (in_big, in_small)


async def held_while_adding(base: str, http: httpx.AsyncClient, game: Game) -> list[float]:
    """With the game's console open, the longest wait of a tiny request while a list of 500 is
    added, in ms, three times."""
    held: list[float] = []
    async with console(base, game), httpx.AsyncClient(base_url=base) as probe:
        for round in range(3):
            names = [{"name": f"N{round}.{n}"} for n in range(BULK)]
            adding = asyncio.create_task(add(http, game, names))
            gaps = [0.0]
            while not adding.done():  # how long the server keeps a tiny request waiting
                began = time.perf_counter()
                assert (await probe.get("/healthz")).status_code == 200
                gaps.append(time.perf_counter() - began)
            assert (await adding).status_code == 201
            held.append(max(gaps) * 1000)
    return held


async def test_a_game_of_50000_takes_a_list_of_500_briefly_and_stops_at_its_cap(
    tmp_path: Path,
) -> None:
    """With the console open, adding 500 to a game of 50,000 holds the server's loop up about as
    long as adding them to a new game does (it took 1.5 s when the console and the roster were
    rebuilt whole: the loop's hold grew with the game); a game refuses members beyond its cap,
    a list that would cross it whole."""
    server = Server(f"sqlite:///{tmp_path / 'bijse.db'}", tmp_path / "server.log")
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            small = await Game.create(http)
            alone = await held_while_adding(server.base, http, small)
            game = await Game.create(http)
            await grown(http, game, 50_000)
            held = await held_while_adding(server.base, http, game)
            # The median of three: one of them meets the game's snapshot (every 10,000 events),
            # packed by a child process that takes a core of the two for a second and a half.
            done = "500 added to a game of 50,000, console open, 3 times"
            report("console", done, "loop held " + ", ".join(f"{ms:.0f}" for ms in held) + " ms")
            new = "500 added to a new game, console open, 3 times"
            report("console", new, "loop held " + ", ".join(f"{ms:.0f}" for ms in alone) + " ms")
            # A machine's speed varies by two from day to day: the new game on the same server,
            # just before, is the measure (1.5 s against some 50 ms is what this guards; a
            # busy neighbour on the two cores has made it 96 ms against 37).
            assert statistics.median(held) < 3 * statistics.median(alone) + 50, (held, alone)

            await grown(http, game, MAX_MEMBERS - 100)
            crossing = await add(http, game, [{"name": f"X{n}"} for n in range(101)])
            assert crossing.status_code == 409, crossing.text
            assert crossing.json()["error"]["code"] == "game_full"
            members = (await game.view(game.organizer))["view"]["members"]
            assert len(members) == MAX_MEMBERS - 100
            await grown(http, game, MAX_MEMBERS)
            one_more = await http.post(
                f"/api/games/{game.game_id}/players",
                json={"name": "Late", "command_id": uuid.uuid4().hex},
                headers=game.auth(game.organizer),
            )
            assert one_more.status_code == 409 and one_more.json()["error"]["code"] == "game_full"
    finally:
        server.stop()
