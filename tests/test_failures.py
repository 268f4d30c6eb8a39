"""Failed writes in the log: once a cause and minute, with a count, not once a command."""

import logging
from collections.abc import Iterator

import pytest

from server.game import failures
from server.game.failures import Failures
from server.game.scribe import Scribe
from server.store import Append, Store, Unavailable, Unstorable
from server.store.seal import Rows
from tests.lines import Line

FULL = "sqlite3.OperationalError: database or disk is full"
DOWN = "ConnectionRefusedError: [Errno 111] Connect call failed"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def lines() -> Iterator[list[logging.LogRecord]]:
    """What the failures write to the server's log (uvicorn's logger)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    level = failures.logger.level
    failures.logger.setLevel(logging.WARNING)  # the server's default, whatever ran before
    failures.logger.addHandler(handler)
    yield records
    failures.logger.removeHandler(handler)
    failures.logger.setLevel(level)


def test_a_cause_is_logged_at_once_then_counted_and_told_once_a_minute(
    lines: list[logging.LogRecord],
) -> None:
    clock = Clock()
    told = Failures(clock=clock)
    told.failed(FULL, 3)
    assert [r.levelno for r in lines] == [logging.WARNING]
    assert FULL in lines[0].getMessage() and "3 commands refused" in lines[0].getMessage()
    for _ in range(500):  # a busy server on a full disk: hundreds of batches a minute
        clock.now += 0.1
        told.failed(FULL, 2)
    assert len(lines) == 1
    assert (told.failing, told.refused) == (FULL, 1003)
    told.failed(DOWN, 1)  # another cause is news: told at once
    assert len(lines) == 2 and DOWN in lines[1].getMessage()
    clock.now += 20  # a minute after the first line: the next failure tells the count
    told.failed(FULL, 1)
    assert len(lines) == 3
    assert "1001 commands refused" in lines[2].getMessage(), lines[2].getMessage()
    assert "in the last 70 s" in lines[2].getMessage()
    told.failed(DOWN, 4)
    told.succeeded()
    assert told.failing is None
    assert [r.getMessage() for r in lines[3:]] == [
        f"writes to the store succeed again (refused since the last line: 4 commands by {DOWN})"
    ]
    told.succeeded()
    assert len(lines) == 4
    told.failed(FULL, 1)  # a new spell: the failing time starts again
    assert (told.failing, told.refused) == (FULL, 1)


def test_writes_that_flap_are_told_at_most_once_a_minute(
    lines: list[logging.LogRecord],
) -> None:
    """A disk on the edge of full lets some commits through: failing and working by turns."""
    clock = Clock()
    told = Failures(clock=clock)
    for _ in range(300):
        told.failed(FULL, 1)
        assert told.failing == FULL
        told.succeeded()
        assert told.failing is None
        clock.now += 0.1
    assert [r.getMessage().split(" (")[0] for r in lines] == [
        f"writes to the store fail: {FULL}",
        "writes to the store succeed again",
    ]
    clock.now += 60  # the next write that works tells what was refused meanwhile
    told.succeeded()
    assert len(lines) == 3 and "299 commands by" in lines[2].getMessage()
    told.succeeded()
    assert len(lines) == 3


async def test_a_bug_in_a_write_is_logged_once_with_its_traceback(
    store: Store, lines: list[logging.LogRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = f"bug-{store.url.get_backend_name()}"
    scribe = Scribe(store, lambda appends: None)
    scribe.start()
    real_write = store.backend.write

    async def buggy(rows: Rows) -> None:
        raise RuntimeError("a bug")

    try:
        monkeypatch.setattr(store.backend, "write", buggy)
        for n in range(5):
            with pytest.raises(Unavailable) as refused:
                await scribe.write(Append(game, 0, [Line("x", {})], 1, None, f"c{n}"))
            assert not isinstance(refused.value, Unstorable)  # 503: worth a retry
        assert [r.levelno for r in lines] == [logging.ERROR]
        assert lines[0].exc_info is not None and "RuntimeError: a bug" in lines[0].getMessage()
        assert scribe.failures.failing == "a bug: RuntimeError: a bug"
        monkeypatch.setattr(store.backend, "write", real_write)
        await scribe.write(Append(game, 0, [Line("x", {})], 1, None, "c0"))
        assert scribe.failures.failing is None
        assert "4 commands by a bug" in lines[-1].getMessage()
    finally:
        await scribe.stop()
