"""Server time: integer milliseconds inside, ISO 8601 UTC with milliseconds on the wire."""

import re
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
    """The ms of an ISO time; the server's own form (`iso`'s, read in every event that carries a
    time) by its second, looked up, and its three digits of milliseconds."""
    if len(text) == 24 and text[19] == "." and text[23] == "Z":
        seconds, digits = whole_second(text[:19]), text[20:23]
        if seconds is not None and digits.isascii() and digits.isdigit():
            return seconds * 1000 + int(digits)
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)


SECOND = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", re.ASCII)


@lru_cache(maxsize=1024)
def whole_second(text: str) -> int | None:
    """The seconds since the epoch of a time in the server's form without its fraction, read as
    UTC; None for text of another form (datetime reads more forms than the server writes)."""
    if not SECOND.fullmatch(text):
        return None
    return round(datetime.fromisoformat(text + "+00:00").timestamp())
