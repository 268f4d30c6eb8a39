"""The rate limits' buckets, on a clock the test moves."""

import json
import math
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import websockets

from server.limits import KEYS, RATES, Limit, Limits, Rate, RateLimited
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
    assert refused.value.code == "rate_limited" and refused.value.retry_after == 60
    limits.take("create_game", "10.0.0.2", "games")  # another address is not held up


def test_failed_authentications_close_an_address_until_they_refill() -> None:
    clock = Clock()
    limits = Limits(enabled=True, clock=clock)
    for _ in range(RATES["auth_failure"].burst):
        limits.before_authenticating("10.0.0.1")
        limits.failed_authentication("10.0.0.1")
    with pytest.raises(RateLimited):
        limits.before_authenticating("10.0.0.1")
    clock.now += 1 / RATES["auth_failure"].per_second
    limits.before_authenticating("10.0.0.1")


def test_switched_off_nothing_is_limited() -> None:
    limits = Limits(enabled=False, clock=Clock())
    for _ in range(10 * RATES["create_game"].burst):
        limits.take("create_game", "10.0.0.1", "games")
        limits.failed_authentication("10.0.0.1")
        limits.before_authenticating("10.0.0.1")


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


async def test_unknown_tokens_close_the_address_then_even_a_good_token_waits(limited: str) -> None:
    async with httpx.AsyncClient(base_url=limited) as http:
        game = await Game.create(http)
        guesses = [
            await http.get(f"/api/games/{game.game_id}/view", headers=bearer(f"guess-{n}"))
            for n in range(RATES["auth_failure"].burst + 2)
        ]
        good = await http.get(f"/api/games/{game.game_id}/view", headers=bearer(game.organizer))
        async with websockets.connect(
            f"{limited.replace('http', 'ws', 1)}/ws/games/{game.game_id}?token={game.organizer}"
        ) as ws:
            message = json.loads(await ws.recv())
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
            assert ws.close_code == 4429
    statuses = [g.status_code for g in guesses]
    assert statuses[: RATES["auth_failure"].burst] == [401] * RATES["auth_failure"].burst
    assert all(refused(g) for g in guesses[RATES["auth_failure"].burst :])
    assert refused(good)
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
