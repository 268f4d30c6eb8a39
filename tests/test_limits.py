"""The rate limits' buckets, on a clock the test moves."""

import pytest

from server.limits import KEYS, RATES, Limit, Limits, Rate, RateLimited


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
