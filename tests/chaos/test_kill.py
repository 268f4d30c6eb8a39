"""kill -9 of a real server at random moments under load, cycle after cycle: after each restart
every acknowledged event is in the log at the seq it was acknowledged with, the log has no gaps
and its hash chain holds, and a command cut off by the kill, sent again, happens once."""

import asyncio
import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chaos.harness import SCALE, Server, broken_chain, effects, read_log, rng
from tests.client import Game
from tests.figures import report

CYCLES = 4 * SCALE
WORKERS = 6  # commands in flight at once: several share a group commit
FIRST_ACKS = 10  # acks of a cycle before the kill may come
REFUSED = {409}  # what the rules may answer a command of this load (none, as it happens)


@dataclass
class Load:
    """What the clients sent and were answered, across every cycle."""

    game: Game
    players: list[dict[str, Any]]
    acked: dict[str, int] = field(default_factory=dict)  # command id -> seq
    cut: dict[str, dict[str, Any]] = field(default_factory=dict)  # sent, never answered
    bad: list[str] = field(default_factory=list)  # answers no command of this load may get

    def body(self, rng: random.Random) -> dict[str, Any]:
        """A card granted to a player, titled with its command id: the event says which
        command wrote it."""
        command_id = uuid.uuid4().hex
        card = {"title": command_id, "big": 1, "small": 1, "kind": "stun"}
        player = rng.choice(self.players)["player_id"]
        return {"command_id": command_id, "type": "grant_card", "player_id": player, "card": card}

    async def send(self, http: httpx.AsyncClient, body: dict[str, Any]) -> httpx.Response | None:
        try:
            response = await http.post(
                f"/api/games/{self.game.game_id}/commands",
                json=body,
                headers=self.game.auth(self.game.organizer),
            )
        except httpx.TransportError:
            return None  # the server is gone
        if response.status_code == 200:
            self.acked[body["command_id"]] = response.json()["seq"]
        elif response.status_code not in REFUSED:
            self.bad.append(f"{response.status_code} {response.text[:200]}")
        return response

    async def worker(self, http: httpx.AsyncClient, rng: random.Random) -> None:
        """Commands one after the other until the server is killed under it."""
        while True:
            body = self.body(rng)
            if await self.send(http, body) is None:
                self.cut[body["command_id"]] = body
                return


@pytest.mark.parametrize("workers", [1, 2])
async def test_kill_9_at_random_moments_under_load(
    database: str, workers: int, tmp_path: Path
) -> None:
    name = "SQLite" if database.startswith("sqlite") else "PostgreSQL"
    name += f", --workers {workers}" if workers > 1 else ""
    random = rng(f"kill-{name}")
    server = Server(database, tmp_path / "server.log", workers=workers)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            game = await Game.create(http)
            players = [await game.add(f"P{n}") for n in range(4)]
            await game.ok(game.organizer, "start_game")
        load = Load(game, players)
        lost: list[str] = []
        moved: list[str] = []
        problems: list[str] = []
        retried = 0
        for cycle in range(CYCLES):
            async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
                load.game.http = http
                before = len(load.acked)
                workers = [
                    asyncio.create_task(load.worker(http, rng(f"kill-{name}-{cycle}-{n}")))
                    for n in range(WORKERS)
                ]
                for _ in range(1000):  # until the load is going (at most 10 s)
                    if len(load.acked) >= before + FIRST_ACKS or all(w.done() for w in workers):
                        break
                    await asyncio.sleep(0.01)
                await asyncio.sleep(random.uniform(0, 0.3))  # the random moment
                server.kill()
                await asyncio.wait_for(asyncio.gather(*workers), 20)
            assert len(load.acked) > before, f"cycle {cycle}: no command was acknowledged"
            await server.start()

            log = await read_log(database, game.game_id)
            problems += [f"cycle {cycle}: {p}" for p in broken_chain(log)]
            by_seq = {r.seq: r for r in log}
            where = {r.command_id: r.seq for r in log if r.command_id is not None}
            for command_id, seq in load.acked.items():
                if command_id not in where:
                    lost.append(command_id)
                elif where[command_id] != seq or by_seq[seq].data["card"]["title"] != command_id:
                    moved.append(command_id)
            # The commands the kill cut off: sent again, each is written once (now, or it was
            # written before the kill and this is its answer).
            async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
                for command_id, body in list(load.cut.items()):
                    answer = await load.send(http, body)
                    assert answer is not None and answer.status_code == 200, answer
                    assert answer.json()["duplicate"] == (command_id in where), body
                    del load.cut[command_id]
                    retried += 1
        log = await read_log(database, game.game_id)
        twice = sorted(c for c, n in effects(log).items() if n > 1)
        problems += broken_chain(log)
    finally:
        server.stop()
    report(
        f"kill -9 under load, {name}, {CYCLES} cycles",
        f"{len(load.acked)} acks; {retried} cut off by the kill, sent again",
        f"{len(lost)} lost, {len(moved)} moved, {len(problems)} gaps, {len(twice)} twice, "
        f"{len(load.bad)} bad answers",
    )
    assert not lost and not moved and not problems and not twice and not load.bad, (
        lost,
        moved,
        problems,
        twice,
        load.bad,
    )
    assert server.died() == 0, server.log.read_text()
