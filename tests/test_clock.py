"""Server time on the wire: ISO 8601 UTC with milliseconds, and back."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from server.clock import iso, parse_iso

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# From year 1 to 9999: what datetime can show.
MOMENTS = st.integers(min_value=-62_135_596_800_000, max_value=253_402_300_799_999)


@given(MOMENTS)
def test_iso_is_the_utc_moment_with_milliseconds(ms: int) -> None:
    moment = EPOCH + timedelta(milliseconds=ms)
    assert iso(ms) == moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@given(MOMENTS)
def test_parse_iso_reads_what_iso_writes(ms: int) -> None:
    assert parse_iso(iso(ms)) == ms


def test_known_moments() -> None:
    assert iso(0) == "1970-01-01T00:00:00.000Z"
    assert iso(-1) == "1969-12-31T23:59:59.999Z"
    assert iso(1_764_600_000_123) == "2025-12-01T14:40:00.123Z"
    assert iso(-30_610_224_000_000) == "1000-01-01T00:00:00.000Z"
    assert iso(-30_610_224_000_001) == "0999-12-31T23:59:59.999Z"


def by_datetime(text: str) -> int | str:
    """What datetime reads a time as (the ms), or the error it refuses it with."""
    try:
        return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError as error:
        return type(error).__name__


def read(text: str) -> int | str:
    try:
        return parse_iso(text)
    except ValueError as error:
        return type(error).__name__


# The server's own form with any character changed: parse_iso reads its own form by a shortcut,
# which must take what datetime takes and refuse what it refuses.
CHARACTERS = st.sampled_from("0123456789 +-_.:TZz\u0661\uff11\u00b2x")


@given(MOMENTS, st.lists(st.tuples(st.integers(0, 23), CHARACTERS), max_size=3))
def test_parse_iso_reads_a_time_as_datetime_does(ms: int, changes: list[tuple[int, str]]) -> None:
    text = list(iso(ms))
    for at, character in changes:
        text[at] = character
    assert read("".join(text)) == by_datetime("".join(text))
