"""Snapshots: a game loaded from one is the game folded from its log; one that does not fit the
log or the code is ignored; what follows a snapshot is never lost."""

import asyncio
import dataclasses
import itertools
import os
import pickle
import random
import subprocess
import sys
import zlib
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from server.game import snapshots
from server.game.hub import Hub
from server.game.referee import Referee
from server.game.snapshots import fingerprint, pack, shape, unpack
from server.rules.card_duel import RULESET
from server.rules.card_duel.commands import Challenge, GrantItem, Pick
from server.rules.core import Event, RuleError, fold
from server.rules.roster import AddPlayer, StartGame
from server.store import Append, Snapshot, Store, migrate
from server.store.database import parse_url
from server.store.models import GameRow
from tests.rules.drivers import CardDuelGame

Commands = list[tuple[str | None, list[Event]]]  # each command's id and events, in order


def played(seed: int, length: int) -> Commands:
    """A random card-duel game of about `length` commands after its opening."""
    game = CardDuelGame({"stun_s": 1, "escape_immunity_s": 1, "leave_after_s": 1})
    players = [game.add(f"Hráč {n}") for n in range(4)]
    game.start()
    rng = random.Random(seed)
    for _ in range(length):
        game.now += rng.choice([0, 500, 2_000])
        a, b = rng.sample(players, 2)
        fighter = game.fighter(a)
        try:
            if fighter.duel_id is not None:
                card = rng.choice(fighter.cards)
                game.run(a, Pick(duel_id=fighter.duel_id, card_id=card.card_id))
            elif rng.random() < 0.1:
                game.run(game.organizer, GrantItem(player_id=a.player_id, item="crossbow"))
            else:
                game.run(a, Challenge(target=b.code))
        except RuleError:
            pass
    starts = [0, *(first - 1 for first in game.firsts[1:]), len(game.log)]
    return [
        (None if n == 0 else f"c{n}", game.log[start:end])
        for n, (start, end) in enumerate(itertools.pairwise(starts))
    ]


async def write(store: Store, game_id: str, commands: Commands) -> None:
    seq = 0
    for command_id, events in commands:
        append = Append(game_id, seq, events, 1_000 + seq, None, command_id)
        if seq == 0:
            append.game = GameRow(game_id=game_id, ruleset=RULESET.id, seed="00" * 32, created_at=1)
        await store.append([append])
        seq += len(events)


def log_of(commands: Commands) -> list[Event]:
    return [event for _, events in commands for event in events]


def answers_of(commands: Commands, upto: int) -> dict[str, int]:
    found, seq = {}, 0
    for command_id, events in commands:
        seq += len(events)
        if command_id is not None and seq <= upto:
            found[command_id] = seq
    return found


async def snapshot_at(store: Store, game_id: str, commands: Commands, seq: int) -> None:
    state = fold(RULESET, log_of(commands)[:seq])
    packed = pack(state, orjson.dumps(answers_of(commands, seq)))
    await store.save_snapshot(game_id, Snapshot(seq, "", shape(RULESET), packed), 1)


async def loaded(store: Store, game_id: str) -> Any:
    table = await Referee(store, Hub()).games.load(game_id)
    assert table is not None
    return table


async def sql(database_url: str, statement: str) -> None:
    engine = create_async_engine(parse_url(database_url))
    async with engine.begin() as conn:
        await conn.execute(text(statement))
    await engine.dispose()


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32), length=st.integers(1, 80), point=st.floats(0, 1))
async def test_a_game_loaded_from_a_snapshot_is_the_game_folded_from_its_log(
    store: Store, seed: int, length: int, point: float
) -> None:
    commands = played(seed, length)
    log = log_of(commands)
    game_id = f"h{seed}-{length}-{point}"[:32]
    await write(store, game_id, commands)
    at = max(1, round(point * len(log)))  # any seq, even in the middle of a command's events
    await snapshot_at(store, game_id, commands, at)
    table = await loaded(store, game_id)
    assert table.snapshot_seq == at  # the snapshot was used
    assert table.state == fold(RULESET, log)
    assert table.seq == table.committed_seq == len(log)
    assert table.answers == answers_of(commands, len(log))


async def test_a_snapshot_of_another_shape_or_log_is_ignored(
    store: Store, database_url: str
) -> None:
    commands = played(1, 40)
    log = log_of(commands)
    await write(store, "shape", commands)
    other = Snapshot(10, "", "an older shape", b"not even a pickle")
    await store.save_snapshot("shape", other, 1)
    assert (await store.snapshot("shape")) == dataclasses.replace(
        other, hash=(await store.hash_at("shape", 10)) or ""
    )
    table = await loaded(store, "shape")
    assert table.snapshot_seq == 0 and table.state == fold(RULESET, log)

    await write(store, "log", commands)
    await snapshot_at(store, "log", commands, 10)
    assert (await loaded(store, "log")).snapshot_seq == 10
    await sql(database_url, "UPDATE snapshots SET hash = 'another log' WHERE game_id = 'log'")
    table = await loaded(store, "log")
    assert table.snapshot_seq == 0 and table.state == fold(RULESET, log)
    assert table.answers == answers_of(commands, len(log))


async def test_a_snapshot_names_an_event_on_disk_and_is_never_replaced_by_an_older_one(
    store: Store,
) -> None:
    commands = played(2, 30)
    await write(store, "order", commands)
    await store.save_snapshot("order", Snapshot(10**6, "", shape(RULESET), b"x"), 1)
    assert await store.snapshot("order") is None  # no event at that seq: nothing written
    await snapshot_at(store, "order", commands, 20)
    await snapshot_at(store, "order", commands, 12)  # a slower write of an older one
    kept = await store.snapshot("order")
    assert kept is not None and kept.seq == 20
    upgraded = Snapshot(12, "", "the next shape", b"y")
    await store.save_snapshot("order", upgraded, 1)  # another shape replaces it, even older
    kept = await store.snapshot("order")
    assert kept is not None and (kept.seq, kept.shape) == (12, "the next shape")


def test_the_shape_follows_the_state_s_fields_and_the_ruleset_s_version() -> None:
    @dataclasses.dataclass(frozen=True)
    class Inner:
        n: int

    @dataclasses.dataclass(frozen=True)
    class Outer:
        inner: dict[str, Inner]

    before = fingerprint(Outer)
    assert len(before) == 2 and "n: <class 'int'>" in before[1]
    Inner.__annotations__["n"] = str  # a nested field changes its type
    assert fingerprint(Outer) != before
    assert shape(dataclasses.replace(RULESET, state_version=2)) != shape(RULESET)
    # The real state's classes, read from source as the build reads them (compiled, a class's
    # annotations lose their arguments: `Final[Layered[str, Fighter]]` is `Final`).
    walked = subprocess.run(
        [sys.executable, "-c", WALK],
        env={**os.environ, "BIJSE_PURE": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    fighter = "server.rules.card_duel.state.Fighter(player_id: typing.Final[str], "
    assert any(line.startswith(fighter) for line in walked)


WALK = """
from server.game.snapshots import fingerprint
from server.rules.card_duel.state import CardDuel
print("\\n".join(fingerprint(CardDuel)))
"""


async def referee_on(database_url: str) -> Referee:
    referee = Referee(Store.open(database_url), Hub())
    await referee.start()
    return referee


async def test_after_a_restart_from_a_snapshot_retries_are_answered_and_nothing_is_lost(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Snapshots taken while playing (every few events here), then more commands acknowledged,
    then the server gone without stopping (as by kill -9): the next load from the snapshot
    folds the events after it, and old command ids are still duplicates."""
    monkeypatch.setattr(snapshots, "EVERY", 6)
    await asyncio.to_thread(migrate.upgrade, parse_url(database_url))
    one = await referee_on(database_url)
    game_id, token = await one.create_game("card-duel", "Snap", {})
    table, organizer = await one.seat(game_id, token)
    ids = []
    for n in range(4):
        answer = await one.execute(game_id, organizer, f"add{n}", AddPlayer(name=f"P{n}"))
        ids.append(answer.events[0].data["player_id"])
    await one.execute(game_id, organizer, "start", StartGame())
    await asyncio.gather(*one.games.snapshots.writing)
    saved = await one.store.snapshot(game_id)
    assert saved is not None and saved.seq >= 6  # taken where the writes landed
    anna, bob = table.member(ids[0]), table.member(ids[1])
    last = await one.execute(game_id, anna, "duel", Challenge(target=bob.code))
    first_answers = dict(table.answers)
    state = table.committed_state
    await asyncio.gather(*one.games.snapshots.writing)
    for task in (one.listener, one.sweeper):  # gone without a word, as by kill -9
        task.cancel()
    await asyncio.gather(one.listener, one.sweeper, return_exceptions=True)
    await one.scribe.stop()
    await one.store.close()

    two = await referee_on(database_url)
    try:
        again = await two.games.table(game_id)
        assert 0 < again.snapshot_seq < last.seq
        assert again.committed_seq == last.seq and again.state == state
        assert again.answers == first_answers
        for command_id in ("add0", "start", "duel"):  # before and after the snapshot
            retry = await two.execute(game_id, organizer, command_id, AddPlayer(name="Again"))
            assert retry.duplicate and retry.seq == first_answers[command_id]
    finally:
        await two.stop()
        await two.store.close()


async def test_a_big_snapshot_puts_the_next_one_further_off(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot costs in proportion to its size: the next one waits for as many events as
    its size says (BYTES_AN_EVENT), not EVERY alone. Across a restart, too."""
    monkeypatch.setattr(snapshots, "EVERY", 6)
    monkeypatch.setattr(snapshots, "BYTES_AN_EVENT", 1)  # an event a byte: a long gap
    await asyncio.to_thread(migrate.upgrade, parse_url(database_url))
    one = await referee_on(database_url)
    try:
        game_id, token = await one.create_game("card-duel", "Big", {})
        table, organizer = await one.seat(game_id, token)
        for n in range(8):
            await one.execute(game_id, organizer, f"a{n}", AddPlayer(name=f"P{n}"))
        await asyncio.gather(*one.games.snapshots.writing)
        first = await one.store.snapshot(game_id)
        assert first is not None and table.snapshot_bytes == len(first.state) > 100
        for n in range(8, 40):  # more than EVERY, fewer than the snapshot's bytes
            await one.execute(game_id, organizer, f"a{n}", AddPlayer(name=f"P{n}"))
        await asyncio.gather(*one.games.snapshots.writing)
        assert table.committed_seq - first.seq > 30
        assert (await one.store.snapshot(game_id)) == first  # not yet
    finally:
        await one.stop()
        await one.store.close()

    two = await referee_on(database_url)  # a restart: the gap is the stored snapshot's
    try:
        again = await two.games.table(game_id)
        assert again.snapshot_seq == first.seq and again.snapshot_bytes == len(first.state)
        await asyncio.gather(*two.games.snapshots.writing)
        assert (await two.store.snapshot(game_id)) == first
        # Bytes that weigh more: the gap is EVERY again, long passed, and the next event takes it
        monkeypatch.setattr(snapshots, "BYTES_AN_EVENT", 10**9)
        await two.execute(game_id, organizer, "last", AddPlayer(name="Last"))
        await asyncio.gather(*two.games.snapshots.writing)
        later = await two.store.snapshot(game_id)
        assert later is not None and later.seq == again.committed_seq > first.seq
    finally:
        await two.stop()
        await two.store.close()


def test_a_snapshot_written_before_the_answers_were_json_is_still_read() -> None:
    """Snapshots of the last version pickled the answers as a dict."""
    state = RULESET.initial_state({})
    older = zlib.compress(pickle.dumps((state, {"c1": 3, "c2": 7})), 1)
    assert unpack(older) == (state, {"c1": 3, "c2": 7})
    assert unpack(pack(state, orjson.dumps({"c1": 3})))[1] == {"c1": 3}
