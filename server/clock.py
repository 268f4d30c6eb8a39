"""Server time: integer milliseconds inside, ISO 8601 UTC with milliseconds on the wire."""

import time
from datetime import UTC, datetime, timedelta
from functools import lru_cache

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@lru_cache(maxsize=8192)  # the same untils and deadlines are shown in view after view
def iso(ms: int) -> str:
    return f"{second(ms // 1000)}{ms % 1000:03d}Z"


@lru_cache(maxsize=1024)  # a second's thousand milliseconds: datetime once for them all
def second(s: int) -> str:
    return (EPOCH + timedelta(seconds=s)).isoformat()[:19] + "."  # "0999-...": 4 digits


def iso_or_none(ms: int | None) -> str | None:
    return None if ms is None else iso(ms)


def parse_iso(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)
