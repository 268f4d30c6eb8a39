"""Server time: integer milliseconds inside, ISO 8601 UTC with milliseconds on the wire."""

import time
from datetime import UTC, datetime
from functools import lru_cache


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@lru_cache(maxsize=8192)  # the same untils and event times are shown again and again
def iso(ms: int) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
    )


def iso_or_none(ms: int | None) -> str | None:
    return None if ms is None else iso(ms)


def parse_iso(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)
