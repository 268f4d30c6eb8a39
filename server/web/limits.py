"""Rate limits that protect a game: how often one address or one token may create games, add
players, send commands (and costly ones: records of offline duels), and fail to authenticate.

Each limit is a token bucket per key: `burst` at once, then `per_second` on average. An answer
over the limit is 429 `rate_limited` with `Retry-After` (on a socket: an `error` with
`retry_after`). A whole festival may share one address behind a NAT, so the per-address limits
are wide; the per-token ones are what one phone or one organizer could need, and a socket has an
allowance of its own for what is not a command (server/web/sockets.py). `BIJSE_RATE_LIMITS=off` (or
`create_app(rate_limits=False)`) turns them all off, for load tests.

A costly command (COSTLY: a record of an offline duel, whose checks hold the event loop for
milliseconds) spends one of a per-member rate of its own as well, then waits for its turn on the
worker: turns come PACE_S apart, so that however many phones send them, the loop spends most of
its time on everything else; one whose turn is more than QUEUE_S away is refused 429.
"""

import asyncio
import math
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from server.game.table import Table
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
    # Per member, besides "command": a record of an offline duel makes the server check up to 30
    # ECDSA signatures (some 2.8 ms of CPU, where a refused command of its size costs 0.5), and
    # two colluding phones can make new valid ones at will. A phone brings each duel once, a
    # handful at a time after a day in a dead spot: ten at once, then one every 10 s.
    "offline_duel": Rate(10, 1 / 10),
}
# Commands that cost far more than a command to check, each counted also by the rate of its name.
COSTLY = {"offline_duel": "records of offline duels"}
# Costly commands take turns on a worker PACE_S apart, whoever sends them (a record of 30 texts,
# some 5 ms of CPU with its request and its write, every 50 ms: a tenth of a core at most, and
# 72,000 records an hour), and wait up to QUEUE_S for theirs.
PACE_S, QUEUE_S = 0.05, 10.0
# Per socket: pings (the application's and WebSocket ones), pongs and refused messages. The PWA
# pings every 15 s, and uvicorn's keepalive gets a pong every 20 s.
CHATTER = Rate(20, 2)


def whole_seconds(wait: float) -> int:
    """A wait as the whole seconds a client is told (and a socket is not read for)."""
    return max(1, math.ceil(wait))


class RateLimited(Exception):
    """Over a rate limit (the web layer answers 429 `rate_limited` with `Retry-After`)."""

    def __init__(self, what: str, retry_after: float) -> None:
        self.retry_after = whole_seconds(retry_after)
        self.message = f"too many {what}; try again in {self.retry_after} s"
        super().__init__(self.message)


class Bucket:
    __slots__ = ("at", "tokens")

    def __init__(self, tokens: float, at: float) -> None:
        self.tokens = tokens
        self.at = at

    def refill(self, rate: Rate, now: float) -> None:
        self.tokens = min(rate.burst, self.tokens + (now - self.at) * rate.per_second)
        self.at = now

    def take(self, rate: Rate) -> float:
        """Spend one if there is one; else the seconds until there is."""
        if self.tokens < 1:
            return (1 - self.tokens) / rate.per_second
        self.tokens -= 1
        return 0.0


class Allowance:
    """One rate, one bucket: what a single socket may send besides commands."""

    __slots__ = ("bucket", "clock", "rate")

    def __init__(self, rate: Rate, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.clock = clock
        self.bucket = Bucket(rate.burst, clock())

    def take(self) -> float:
        """Spend one if there is one; else the seconds until there is."""
        self.bucket.refill(self.rate, self.clock())
        return self.bucket.take(self.rate)


class Pace:
    """Turns `gap` seconds apart, in the order they are asked for, none more than `most`
    seconds ahead."""

    __slots__ = ("clock", "free", "gap", "most")

    def __init__(self, gap: float, most: float, clock: Callable[[], float]) -> None:
        self.gap = gap
        self.most = most
        self.clock = clock
        self.free = clock()  # the next turn

    def turn(self, what: str) -> float:
        """The seconds until the next turn, which is booked; RateLimited if it is too far."""
        now = self.clock()
        at = max(now, self.free)
        if at - now > self.most:
            raise RateLimited(what, at - now - self.most)
        self.free = at + self.gap
        return at - now


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
            bucket.refill(self.rate, now)
        return bucket

    def take(self, key: str) -> float:
        """Spend one for `key` if it has one; else the seconds until it does."""
        return self.bucket(key).take(self.rate)

    def give_back(self, key: str) -> None:
        """One spent by `key` for nothing."""
        bucket = self.buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(self.rate.burst, bucket.tokens + 1)

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
        self.clock = clock
        self.limits = {name: Limit(rate, clock) for name, rate in RATES.items()}
        self.pace = Pace(PACE_S, QUEUE_S, clock)

    def take(self, name: str, key: str, what: str) -> None:
        """Spend one of `name` for `key`, or raise RateLimited."""
        if self.enabled and (wait := self.limits[name].take(key)):
            raise RateLimited(what, wait)

    def command(self, member_key: str, address: str) -> None:
        self.take("command", member_key, "commands from this phone")
        self.take("address", address, "commands from this address")

    def costs(self, command_type: object) -> bool:
        """Whether a command is costly (`costly` may make it wait)."""
        return self.enabled and isinstance(command_type, str) and command_type in COSTLY

    async def costly(
        self, table: Table, member_key: str, command_type: object, command_id: str
    ) -> None:
        """Once a command is read, before the referee has it: a costly one (COSTLY) spends one
        of its own rate too, then waits for its turn on this worker (one refused a turn is not
        counted against its phone). Not a retry that the referee answers from memory, deciding
        nothing: the `command_id` of a command written, or being written, in this game (the
        app sends each try of a record with a new one, and is counted each time)."""
        if not self.costs(command_type):
            return
        assert isinstance(command_type, str)
        if command_id in table.answers or command_id in table.inflight:
            return
        what = COSTLY[command_type]
        self.take(command_type, member_key, f"{what} from this phone")
        try:
            wait = self.pace.turn(f"{what} on this server")
        except RateLimited:
            self.limits[command_type].give_back(member_key)
            raise
        if wait:
            await asyncio.sleep(wait)

    async def authenticate(self, address: str, seat: Callable[[], Awaitable[T]]) -> T:
        """`seat()` (who a token is). A token that verifies is let in, whatever else its address
        sent: a festival shares one address, and phones may hold stale tokens. An unknown one
        counts against its address, and once the address has failed too often it is answered
        429 rather than 401 until the bucket refills."""
        try:
            return await seat()
        except RuleError as error:
            failed = error.code == "unauthorized" and self.enabled
            if failed and (wait := self.limits["auth_failure"].take(address)):
                raise RateLimited("unknown tokens from this address", wait) from None
            raise

    def allowance(self) -> Allowance | None:
        """A new socket's allowance of pings, pongs and refused messages (None: unlimited)."""
        return Allowance(CHATTER, self.clock) if self.enabled else None
