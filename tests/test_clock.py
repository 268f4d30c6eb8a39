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
