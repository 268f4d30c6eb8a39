"""The rate limits' buckets, on a clock the test moves."""

import asyncio
import json
import math
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from server.rules.core import RuleError
from server.web.limits import CHATTER, KEYS, RATES, Limit, Limits, Rate, RateLimited
from tests.client import Game
from tests.conftest import serve


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_gives_its_burst_then_its_rate() -> None:
    clock = Clock()
    limit = Limit(Rate(burst=3, per_second=0.5), clock)
    assert [limit.take("a") for _ in range(3)] == [0, 0, 0]
    assert limit.take("a") == pytest.approx(2.0)  # one more token in 2 s
    assert limit.take("b") == 0  # another key has its own bucket
    clock.now += 1
    assert limit.take("a") == pytest.approx(1.0)
    clock.now += 1
    assert limit.take("a") == 0
    clock.now += 100
    assert [limit.take("a") for _ in range(4)][-1] > 0  # refilled to the burst, no further


def test_over_the_limit_is_rate_limited_with_whole_seconds_to_wait() -> None:
    clock = Clock()
    limits = Limits(enabled=True, clock=clock)
    for _ in range(RATES["create_game"].burst):
        limits.take("create_game", "10.0.0.1", "games")
    with pytest.raises(RateLimited) as refused:
        limits.take("create_game", "10.0.0.1", "games")
    assert refused.value.retry_after == 60 and "games" in refused.value.message
    limits.take("create_game", "10.0.0.2", "games")  # another address is not held up


async def test_unknown_tokens_are_refused_429_once_an_address_failed_too_often() -> None:
    clock = Clock()
    limits = Limits(enabled=True, clock=clock)

    async def unknown() -> None:
        raise RuleError("unauthorized", "unknown token")

    async def known() -> str:
        return "seated"

    async def answer(seat: Any, address: str = "10.0.0.1") -> str:
        try:
            return str(await limits.authenticate(address, seat))
        except RuleError as error:
            return error.code
        except RateLimited:
            return "rate_limited"

    burst = RATES["auth_failure"].burst
    assert [await answer(unknown) for _ in range(burst + 2)] == ["unauthorized"] * burst + [
        "rate_limited"
    ] * 2
    assert await answer(known) == "seated"  # a good token of that address is let in
    assert await answer(unknown, "10.0.0.2") == "unauthorized"  # another address is not held up
    clock.now += 1 / RATES["auth_failure"].per_second
    assert await answer(unknown) == "unauthorized"


async def test_switched_off_nothing_is_limited() -> None:
    limits = Limits(enabled=False, clock=Clock())

    async def unknown() -> None:
        raise RuleError("unauthorized", "unknown token")

    for _ in range(10 * RATES["create_game"].burst):
        limits.take("create_game", "10.0.0.1", "games")
        with pytest.raises(RuleError) as refused:
            await limits.authenticate("10.0.0.1", unknown)
        assert refused.value.code == "unauthorized"
    assert limits.allowance() is None


def test_a_sockets_allowance_gives_its_burst_then_its_rate() -> None:
    clock = Clock()
    allowance = Limits(enabled=True, clock=clock).allowance()
    assert allowance is not None
    assert [allowance.take() for _ in range(CHATTER.burst)] == [0] * CHATTER.burst
    assert allowance.take() == pytest.approx(1 / CHATTER.per_second)
    clock.now += 1 / CHATTER.per_second
    assert allowance.take() == 0


def test_the_environment_switches_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIJSE_RATE_LIMITS", "off")
    assert not Limits().enabled
    monkeypatch.setenv("BIJSE_RATE_LIMITS", "on")
    assert Limits().enabled


def test_memory_stays_bounded_under_many_keys() -> None:
    clock = Clock()
    limit = Limit(Rate(burst=2, per_second=0.001), clock)
    for n in range(3 * KEYS):
        limit.take(f"10.{n}")  # every bucket busy: none refills in time
    assert len(limit.buckets) <= KEYS


@pytest.fixture
async def limited(tmp_path: Path) -> AsyncIterator[str]:
    """A real server with the rate limits on, as `bijse serve` runs by default."""
    async for url in serve(f"sqlite:///{tmp_path / 'limits.db'}", rate_limits=True):
        yield url


def refused(answer: httpx.Response) -> bool:
    if answer.status_code != 429:
        return False
    assert answer.json()["error"]["code"] == "rate_limited"
    assert int(answer.headers["retry-after"]) >= 1
    return True


async def test_creating_games_is_limited_per_address(limited: str) -> None:
    async with httpx.AsyncClient(base_url=limited) as http:
        game = {"ruleset": "card-duel", "name": "Les"}
        answers = [await http.post("/api/games", json=game) for _ in range(12)]
    assert [a.status_code for a in answers[:10]] == [201] * 10
    assert all(refused(a) for a in answers[10:])
    assert int(answers[-1].headers["retry-after"]) == 60


async def test_unknown_tokens_are_limited_but_a_good_token_of_their_address_is_not(
    limited: str,
) -> None:
    async with httpx.AsyncClient(base_url=limited) as http:
        game = await Game.create(http)
        guesses = [
            await http.get(f"/api/games/{game.game_id}/view", headers=bearer(f"guess-{n}"))
            for n in range(RATES["auth_failure"].burst + 2)
        ]
        good = await http.get(f"/api/games/{game.game_id}/view", headers=bearer(game.organizer))
        socket = f"{limited.replace('http', 'ws', 1)}/ws/games/{game.game_id}"
        async with websockets.connect(f"{socket}?token=guess") as ws:
            message = json.loads(await ws.recv())
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
            assert ws.close_code == 4429
        async with websockets.connect(f"{socket}?token={game.organizer}") as ws:
            assert json.loads(await ws.recv())["type"] == "view"
    statuses = [g.status_code for g in guesses]
    assert statuses[: RATES["auth_failure"].burst] == [401] * RATES["auth_failure"].burst
    assert all(refused(g) for g in guesses[RATES["auth_failure"].burst :])
    assert good.status_code == 200
    assert message["type"] == "error" and message["code"] == "rate_limited"
    assert message["retry_after"] >= 1


async def test_commands_are_limited_per_phone_over_http_and_websocket(limited: str) -> None:
    async with httpx.AsyncClient(base_url=limited) as http:
        game = await Game.create(http)
        alice = await game.add("Alice")
        rate = RATES["command"]
        answers, start = [], time.monotonic()
        while not answers or answers[-1].status_code != 429:
            answers.append(await game.command(alice["token"], "challenge", target="NOPE"))
            # The bucket refills while the burst is sent: on a slow machine, a few more pass.
            refilled = (time.monotonic() - start) * rate.per_second
            assert len(answers) <= rate.burst + 1 + math.ceil(refilled), "never limited"
        assert len(answers) > rate.burst
        assert 429 not in {a.status_code for a in answers[:-1]}  # refused by the rules
        assert refused(answers[-1])
        limited_at, sent = time.monotonic(), 0
        async with websockets.connect(
            f"{limited.replace('http', 'ws', 1)}/ws/games/{game.game_id}?token={alice['token']}"
        ) as ws:
            await ws.recv()  # the view
            while True:  # the same phone's bucket: empty, but for what refilled meanwhile
                sent += 1
                command = {"type": "challenge", "target": "NOPE"}
                body = {"type": "command", "command_id": f"over{sent}", "command": command}
                await ws.send(json.dumps(body))
                message = json.loads(await ws.recv())
                if message["code"] == "rate_limited":
                    break
                refilled = (time.monotonic() - limited_at) * rate.per_second
                assert sent <= 1 + math.ceil(refilled), "the socket is not limited"
            assert message["command_id"] == f"over{sent}"
            assert message["retry_after"] >= 1
            await ws.send(json.dumps({"type": "ping"}))  # the socket stays open
            assert json.loads(await ws.recv())["type"] == "pong"


async def test_a_sockets_pings_and_refused_messages_are_limited_and_it_stays_open(
    limited: str,
) -> None:
    async with httpx.AsyncClient(base_url=limited) as http:
        game = await Game.create(http)
    url = f"{limited.replace('http', 'ws', 1)}/ws/games/{game.game_id}?token={game.organizer}"
    async with websockets.connect(url) as ws:
        await ws.recv()  # the view
        assert json.loads(await ws.recv())["type"] == "presence"  # (an organizer's socket)
        for _ in range(CHATTER.burst):
            await ws.send(json.dumps({"type": "ping"}))
        answers = [json.loads(await ws.recv())["type"] for _ in range(CHATTER.burst)]
        await ws.send("not JSON")  # refused: over the allowance, as rate_limited
        over = json.loads(await ws.recv())
        await asyncio.sleep(over["retry_after"])
        await ws.send(json.dumps({"type": "ping"}))
        again = json.loads(await ws.recv())
    assert answers == ["pong"] * CHATTER.burst
    assert over["code"] == "rate_limited" and over["retry_after"] >= 1, over
    assert again["type"] == "pong"
