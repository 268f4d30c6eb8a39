"""`bijse serve --workers 2`: two processes behind one port, each owning a share of the games.
Every game is served and written by its own worker; a worker killed mid-duel is started again,
and its phones reconnect through the door and lose nothing."""

import asyncio
import os
import signal
from pathlib import Path

import httpx

from server.game.shares import worker_of
from tests.chaos.crowd import cpu_s
from tests.client import Game, Phone
from tests.conftest import free_port
from tests.proxy import serve, stop, until


def workers_of(pid: int) -> dict[int, int]:
    """Worker number -> pid, from the workers' command lines."""
    found = {}
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    for child in children:
        args = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        if b"--worker" in args:
            found[int(args[args.index(b"--worker") + 1].split(b"/")[0])] = int(child)  # n/N
    return found


def owned_by(game: Game) -> int:
    return worker_of(game.game_id.encode(), 2)


async def duel(game: Game, base: str, a: dict[str, str], b: dict[str, str]) -> None:
    """A whole duel over WebSockets; both phones hold its end."""
    alice = await Phone.connect(game.ws_url(base, a["token"]))
    bob = await Phone.connect(game.ws_url(base, b["token"]))
    await alice.until("view")
    await bob.until("view")
    assert (await alice.send("challenge", target=b["code"]))["type"] == "ack"
    await bob.until("view")
    assert bob.view is not None and alice.view is not None
    for _ in range(20):  # a round may end even: pick again
        if alice.view.get("duel") is None and bob.view.get("duel") is None:
            break
        for n, phone in enumerate((alice, bob)):
            mine = phone.view.get("duel")
            if mine is not None and mine.get("my_pick") is None:
                cards = phone.view["me"]["cards"]  # other cards each round: no endless ties
                card = cards[(mine["round"] + n) % len(cards)]["card_id"]
                answer = await phone.send("pick", duel_id=mine["duel_id"], card_id=card)
                assert answer["type"] == "ack", answer
        for phone in (alice, bob):
            while (phone.view.get("duel") or {}).get("my_pick") is not None:
                await phone.until("view")
    assert alice.view.get("duel") is None and alice.view["last_duel"]["outcomes"]
    await alice.close()
    await bob.close()


async def test_two_workers_each_serve_their_games_and_a_killed_one_comes_back(
    tmp_path: Path,
) -> None:
    port = free_port()
    database = f"sqlite:///{tmp_path / 'w.db'}"
    server = await serve(port, database, tmp_path / "w.log", "--workers", "2")
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            answering = {(await http.get("/healthz")).json()["worker"] for _ in range(6)}
            assert answering == {0, 1}  # requests without a game take turns
            games: dict[int, Game] = {}
            owners = []
            for _ in range(6):
                game = await Game.create(http)
                owners.append(owned_by(game))
                games.setdefault(owners[-1], game)
            # Creations take turns, and a worker names the games it creates as its own: each
            # worker gets every other game, not what random ids would give it.
            assert owners == [owners[0], 1 - owners[0]] * 3, owners
            for game in games.values():
                a, b = await game.add("Alice"), await game.add("Bob")
                await game.ok(game.organizer, "start_game")
                await duel(game, base, a, b)
                assert (await game.view(a["token"]))["view"]["me"]["name"] == "Alice"

            # Worker 0 dies mid-duel: the door starts it again; the phone reconnects with
            # after=, gets the game from the log, and the duel goes on.
            game = games[0]
            c, d = await game.add("Cyril"), await game.add("Dana")
            cyril = await Phone.connect(game.ws_url(base, c["token"]))
            await cyril.until("view")
            acked = await cyril.send("challenge", target=d["code"])
            assert acked["type"] == "ack"
            while cyril.seq < acked["seq"]:
                await cyril.until("view")
            killed = workers_of(server.pid)[0]
            os.kill(killed, signal.SIGKILL)

            async def back() -> bool:
                again = workers_of(server.pid).get(0)
                if again in (None, killed):
                    return False
                return (await http.get("/healthz")).status_code == 200

            await until(back, "worker 0 started again", server)
            await asyncio.sleep(0.5)
            # It holds the newest seq already: the new worker sends nothing until it changes,
            # and its pick in the duel it held goes through (the challenge was not lost).
            held, seq = cyril.view, cyril.seq
            assert held is not None and held.get("duel") is not None
            cyril = await Phone.connect(game.ws_url(base, c["token"], after=seq))
            cyril.view, cyril.seq = held, seq
            card = held["me"]["cards"][0]["card_id"]
            picked = await cyril.send("pick", duel_id=held["duel"]["duel_id"], card_id=card)
            assert picked["type"] == "ack" and picked["seq"] == acked["seq"] + 1, picked
            while cyril.seq < picked["seq"]:
                await cyril.until("view")
            assert cyril.view["duel"]["my_pick"] is not None
            await cyril.close()
            log = await game.events()
            assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
            assert workers_of(server.pid)[1] != killed  # the other worker was not touched
    finally:
        stop(server)


async def test_without_their_door_the_workers_stop(tmp_path: Path) -> None:
    """A door killed outright leaves no worker serving its games on alone (beside the workers
    of the next door, each game would have two writers)."""
    port = free_port()
    database = f"sqlite:///{tmp_path / 'w.db'}"
    server = await serve(port, database, tmp_path / "w.log", "--workers", "2")
    workers = list(workers_of(server.pid).values())
    assert len(workers) == 2
    server.kill()
    server.wait()

    async def gone() -> bool:
        return not any(Path(f"/proc/{pid}/cmdline").exists() for pid in workers) or all(
            Path(f"/proc/{pid}/cmdline").read_bytes() == b"" for pid in workers
        )

    await until(gone, "the workers stopped")


async def test_a_request_line_in_pieces_is_waited_for_without_spinning(tmp_path: Path) -> None:
    port = free_port()
    database = f"sqlite:///{tmp_path / 'w.db'}"
    server = await serve(port, database, tmp_path / "w.log", "--workers", "2")
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /heal")
        await writer.drain()
        before = cpu_s(server.pid)
        await asyncio.sleep(1)  # the door has half a request line, and waits for the rest
        assert cpu_s(server.pid) - before < 0.3
        writer.write(b"thz HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
        assert answer.startswith(b"HTTP/1.1 200") and b'"ok":true' in answer
        writer.close()
        await writer.wait_closed()
    finally:
        stop(server)
