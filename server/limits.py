"""Rate limits that protect a game: how often one address or one token may create games, add
players, send commands, and fail to authenticate.

Each limit is a token bucket per key: `burst` at once, then `per_second` on average. An answer
over the limit is 429 `rate_limited` with `Retry-After` (on a socket: an `error` with
`retry_after`). A whole festival may share one address behind a NAT, so the per-address limits
are wide; the per-token ones are what one phone or one organizer could need. `BIJSE_RATE_LIMITS
=off` (or `create_app(rate_limits=False)`) turns them all off, for load tests.
"""

import math
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from server.rules.core import RuleError

T = TypeVar("T")
KEYS = 10_000  # buckets kept per limit before the full (idle) ones are let go


@dataclass(frozen=True, slots=True)
class Rate:
    burst: int
    per_second: float


RATES = {
    "create_game": Rate(10, 1 / 60),  # per address: ten games, then one a minute
    "add_players": Rate(30, 1),  # per organizer (a list of up to 500 is one)
    "command": Rate(30, 10),  # per member: a phone taps a few times a second at most
    "address": Rate(1000, 500),  # commands per address: a festival behind one NAT
    "auth_failure": Rate(20, 1 / 6),  # unknown tokens per address: twenty, then ten a minute
}


class RateLimited(RuleError):
    def __init__(self, what: str, retry_after: float) -> None:
        self.retry_after = max(1, math.ceil(retry_after))
        super().__init__("rate_limited", f"too many {what}; try again in {self.retry_after} s")


class Bucket:
    __slots__ = ("at", "tokens")

    def __init__(self, tokens: float, at: float) -> None:
        self.tokens = tokens
        self.at = at


class Limit:
    """One rate, a bucket per key."""

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}

    def bucket(self, key: str) -> Bucket:
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= KEYS:
                self.forget_full(now)
            bucket = self.buckets[key] = Bucket(self.rate.burst, now)
        else:
            refill = (now - bucket.at) * self.rate.per_second
            bucket.tokens, bucket.at = min(self.rate.burst, bucket.tokens + refill), now
        return bucket

    def wait(self, key: str) -> float:
        """Seconds until `key` may act again (0: now)."""
        bucket = self.bucket(key)
        return 0.0 if bucket.tokens >= 1 else (1 - bucket.tokens) / self.rate.per_second

    def take(self, key: str) -> float:
        """Spend one for `key` if it has one; else the seconds until it does."""
        wait = self.wait(key)
        if wait == 0:
            self.buckets[key].tokens -= 1
        return wait

    def forget_full(self, now: float) -> None:
        """Buckets that have refilled say nothing a new bucket would not: drop them (and, if
        an attacker keeps them all busy, the oldest half, so memory stays bounded)."""
        full = [
            key
            for key, bucket in self.buckets.items()
            if bucket.tokens + (now - bucket.at) * self.rate.per_second >= self.rate.burst
        ]
        for key in full:
            del self.buckets[key]
        if len(self.buckets) >= KEYS:
            for key in list(self.buckets)[: KEYS // 2]:
                del self.buckets[key]


class Limits:
    def __init__(
        self, enabled: bool | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if enabled is None:
            enabled = os.environ.get("BIJSE_RATE_LIMITS", "on").lower() not in ("off", "0", "no")
        self.enabled = enabled
        self.limits = {name: Limit(rate, clock) for name, rate in RATES.items()}

    def take(self, name: str, key: str, what: str) -> None:
        """Spend one of `name` for `key`, or raise RateLimited."""
        if self.enabled and (wait := self.limits[name].take(key)):
            raise RateLimited(what, wait)

    def command(self, member_key: str, address: str) -> None:
        self.take("command", member_key, "commands from this phone")
        self.take("address", address, "commands from this address")

    async def authenticate(self, address: str, seat: Callable[[], Awaitable[T]]) -> T:
        """`seat()` (who a token is), refused outright for an address that has failed too
        often; an unknown token counts against its address."""
        self.before_authenticating(address)
        try:
            return await seat()
        except RuleError as error:
            if error.code == "unauthorized":
                self.failed_authentication(address)
            raise

    def before_authenticating(self, address: str) -> None:
        """Refuse an address that has failed too often, before looking at its token."""
        if self.enabled and (wait := self.limits["auth_failure"].wait(address)):
            raise RateLimited("unknown tokens from this address", wait)

    def failed_authentication(self, address: str) -> None:
        if self.enabled:
            self.limits["auth_failure"].take(address)
