"""The command pipeline: conflicts with another server, storage failures, group commit."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import orjson
import pytest

from server.game.hub import Hub, Screen
from server.game.referee import Referee
from server.rules.card_duel.commands import Challenge, GrantItem
from server.rules.core import Member, RuleError
from server.rules.roster import AddPlayer, StartGame
from server.store import Store, migrate
from server.store.database import parse_url
from server.store.errors import Unavailable
from server.store.seal import Rows
from server.web import answer, sockets
from server.web.limits import Limits


async def open_referee(url: str) -> Referee:
    referee = Referee(Store.open(url), Hub())
    await referee.start()
    return referee


@pytest.fixture
async def pair(database_url: str) -> AsyncIterator[tuple[Referee, Referee]]:
    """Two servers on one database, as behind a load balancer."""
    await asyncio.to_thread(migrate.upgrade, parse_url(database_url))
    one, two = await open_referee(database_url), await open_referee(database_url)
    yield one, two
    for referee in (one, two):
        await referee.stop()
        await referee.store.close()


async def setup_game(referee: Referee) -> tuple[str, Member, list[Member]]:
    game_id, token = await referee.create_game("card-duel", "Test", {})
    table, organizer = await referee.seat(game_id, token)
    players = []
    for name in ("Anna", "Bob", "Cyril"):
        answer = await referee.execute(game_id, organizer, None, AddPlayer(name=name))
        players.append(table.member(answer.events[0].data["player_id"]))
    await referee.execute(game_id, organizer, "start", StartGame())
    return game_id, organizer, players


async def test_a_conflict_with_another_server_is_decided_again(
    pair: tuple[Referee, Referee],
) -> None:
    one, two = pair
    game_id, organizer, (anna, bob, cyril) = await setup_game(one)
    await two.games.table(game_id)  # the second server has the game in memory, then falls behind
    await one.execute(game_id, anna, "c1", Challenge(target=bob.code))
    # The second server decides against its stale state: Cyril may challenge Bob there. The
    # write conflicts, the game is reloaded, and the rules now refuse: Bob is busy.
    with pytest.raises(RuleError) as refused:
        await two.execute(game_id, cyril, "c2", Challenge(target=bob.code))
    assert refused.value.code == "busy"
    answer = await two.execute(
        game_id, organizer, "g1", GrantItem(player_id=cyril.player_id, item="crossbow")
    )
    log = await two.store.events(game_id)
    assert [r.seq for r in log] == list(range(1, answer.seq + 1))
    assert (await two.execute(game_id, anna, "c1", Challenge(target=bob.code))).duplicate


async def test_a_command_retried_to_a_server_behind_is_written_once(
    pair: tuple[Referee, Referee],
) -> None:
    """The log has no index of command ids: the key (game_id, seq) is what stops a second copy.
    The server that is behind decides the copy again on its stale state, its write lands on the
    seq the first copy took, and after reloading it answers with the first copy's seq."""
    one, two = pair
    game_id, _, (anna, bob, _) = await setup_game(one)
    await two.games.table(game_id)  # in memory on the second server, which then falls behind
    first = await one.execute(game_id, anna, "c1", Challenge(target=bob.code))
    again = await two.execute(game_id, anna, "c1", Challenge(target=bob.code))
    assert (again.seq, again.duplicate) == (first.seq, True)
    log = await two.store.events(game_id)
    assert [r.command_id for r in log].count("c1") == 1
    assert [r.seq for r in log] == list(range(1, first.seq + 1))


async def test_a_failed_write_is_refused_and_forgotten(
    pair: tuple[Referee, Referee], monkeypatch: pytest.MonkeyPatch
) -> None:
    referee, _ = pair
    game_id, _, (anna, bob, _) = await setup_game(referee)
    real_write = referee.store.backend.write

    async def broken(rows: Rows) -> None:
        raise Unavailable("disk full")

    monkeypatch.setattr(referee.store.backend, "write", broken)
    with pytest.raises(Unavailable):
        await referee.execute(game_id, anna, "c1", Challenge(target=bob.code))
    monkeypatch.setattr(referee.store.backend, "write", real_write)
    table = await referee.games.table(game_id)
    assert table.committed_state.fighters[anna.player_id].duel_id is None  # nothing half-kept
    answer = await referee.execute(game_id, anna, "c1", Challenge(target=bob.code))
    assert not answer.duplicate  # the same command id, retried after the failure, now applies


async def test_many_commands_share_one_transaction(
    pair: tuple[Referee, Referee], monkeypatch: pytest.MonkeyPatch
) -> None:
    referee, _ = pair
    game_id, organizer, players = await setup_game(referee)
    sizes: list[int] = []
    real_write = referee.store.backend.write

    async def counting(rows: Rows) -> None:
        sizes.append(len(rows.lengths))
        await real_write(rows)

    monkeypatch.setattr(referee.store.backend, "write", counting)
    grants = [
        referee.execute(
            game_id, organizer, f"g{n}", GrantItem(player_id=p.player_id, item="crossbow")
        )
        for n, p in enumerate(players)
    ]
    answers = await asyncio.gather(*grants)
    assert sorted(a.seq for a in answers) == [answers[0].seq + n for n in range(3)]
    assert sum(sizes) == 3 and max(sizes) > 1


async def test_unknown_games_and_tokens(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    await asyncio.to_thread(migrate.upgrade, parse_url(url))
    referee = await open_referee(url)
    try:
        with pytest.raises(RuleError) as missing:
            await referee.games.table("nope")
        assert missing.value.code == "not_found"
        with pytest.raises(RuleError) as unknown:
            await referee.seat("nope", "token")
        assert unknown.value.code == "unauthorized"
        with pytest.raises(RuleError) as bad:
            await referee.create_game("chess", "x", {})
        assert bad.value.code == "invalid"
    finally:
        await referee.stop()
        await referee.store.close()


@pytest.fixture
async def servers(postgres_url: str) -> AsyncIterator[tuple[Referee, Referee]]:
    """Two servers on one PostgreSQL database (SQLite has one server per file)."""
    await asyncio.to_thread(migrate.upgrade, parse_url(postgres_url))
    one, two = await open_referee(postgres_url), await open_referee(postgres_url)
    yield one, two
    for referee in (one, two):
        await referee.stop()
        await referee.store.close()


async def test_a_phone_on_one_server_sees_what_another_server_wrote(
    servers: tuple[Referee, Referee],
) -> None:
    """NOTIFY wakes the other servers, who read the new events from the table."""
    one, two = servers
    game_id, organizer, (anna, bob, _) = await setup_game(one)
    shown: list[dict[str, Any]] = []

    async def send(text: str) -> None:
        shown.append(orjson.loads(text))

    table = await two.games.table(game_id)  # Bob's phone is connected to the second server
    screen = Screen(table.member(bob.player_id), send)
    pump = asyncio.create_task(screen.pump())
    two.hub.join(game_id, table.ruleset, table.committed_state, table.committed_seq, screen)
    answer = await one.execute(game_id, anna, "c1", Challenge(target=bob.code))
    for _ in range(100):
        if shown and shown[-1]["seq"] == answer.seq:
            break
        await asyncio.sleep(0.05)
    assert shown[-1]["seq"] == answer.seq
    assert shown[-1]["patch"]["duel"]["opponent"]["player_id"] == anna.player_id
    # The second server now decides against the caught-up state: no conflict, no reload.
    again = await two.execute(
        game_id, organizer, "g1", GrantItem(player_id=bob.player_id, item="crossbow")
    )
    assert again.seq == answer.seq + 1
    assert (await two.execute(game_id, anna, "c1", Challenge(target=bob.code))).duplicate
    two.hub.leave(game_id, screen)
    await pump


async def test_after_losing_its_listener_a_server_catches_up_from_the_table(
    servers: tuple[Referee, Referee], postgres_url: str
) -> None:
    """Whether the reconnected listener gets the NOTIFY or misses it, it reads the table after
    reconnecting, so the second server ends up with the event either way."""
    one, two = servers
    game_id, _, (anna, bob, _) = await setup_game(one)
    table = await two.games.table(game_id)
    before = table.committed_seq
    admin = await asyncpg.connect(postgres_url)
    try:
        # Cut every LISTEN connection, then write while nobody is listening.
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
        )
        answer = await one.execute(game_id, anna, "c1", Challenge(target=bob.code))
        for _ in range(200):  # the listener reconnects (backoff from 0.5 s) and reads the table
            if two.games.tables[game_id].committed_seq == answer.seq:
                break
            await asyncio.sleep(0.05)
    finally:
        await admin.close()
    assert before < answer.seq == two.games.tables[game_id].committed_seq
    assert two.games.tables[game_id].committed_state.fighters[bob.player_id].duel_id is not None


async def test_a_duplicate_waiting_on_a_write_that_conflicts_goes_round_again(
    pair: tuple[Referee, Referee],
) -> None:
    """Two copies of one command at once on a server that fell behind: the first one's write
    conflicts; the copy waiting on it must not get that conflict, but the one answer."""
    one, two = pair
    game_id, organizer, (anna, bob, cyril) = await setup_game(one)
    await two.games.table(game_id)
    await one.execute(game_id, anna, "c1", Challenge(target=bob.code))  # two is now behind
    grant = GrantItem(player_id=cyril.player_id, item="crossbow")
    answers = await asyncio.gather(
        two.execute(game_id, organizer, "g1", grant),
        two.execute(game_id, organizer, "g1", grant),
        return_exceptions=True,
    )
    assert not [a for a in answers if isinstance(a, BaseException)], answers
    seqs = {a.seq for a in answers if not isinstance(a, BaseException)}
    assert len(seqs) == 1
    assert sorted(not a.duplicate for a in answers if not isinstance(a, BaseException)) == [
        False,
        True,
    ]
    log = await two.store.events(game_id)
    assert [r.seq for r in log if r.command_id == "g1"] == list(seqs)


async def test_a_resume_reads_what_another_server_wrote_first(
    pair: tuple[Referee, Referee],
) -> None:
    one, two = pair
    game_id, _, (anna, bob, _) = await setup_game(one)
    behind = (await two.games.table(game_id)).committed_seq
    seq = (await one.execute(game_id, anna, "c1", Challenge(target=bob.code))).seq
    assert behind < seq
    table = await two.games.fresh(game_id, seq)
    assert table.committed_seq == seq
    assert table.committed_state.fighters[bob.player_id].duel_id is not None
    # Past the end of the log (a restored database, a confused client): the newest there is.
    assert (await two.games.fresh(game_id, seq + 10)).committed_seq == seq
    assert (await two.games.fresh(game_id, None)).committed_seq == seq


async def test_a_command_decided_on_top_of_a_write_that_conflicts_is_decided_again(
    pair: tuple[Referee, Referee],
) -> None:
    """A write that conflicts takes down every write decided on top of it, even one that waited
    for a later batch and would now fit the log's end by its seq: it was decided on a state the
    log never had."""
    one, two = pair
    game_id, organizer, (anna, bob, cyril) = await setup_game(one)
    await two.games.table(game_id)
    await one.execute(game_id, cyril, "c1", Challenge(target=bob.code))  # two is now behind
    grant = GrantItem(player_id=anna.player_id, item="crossbow")
    first = asyncio.create_task(two.execute(game_id, organizer, "g1", grant))
    while two.scribe.queue or "g1" not in (await two.games.table(game_id)).inflight:
        await asyncio.sleep(0)  # until the grant's batch is on its way to the database
    # Decided on two's stale state plus the grant: Bob is free there. Its batch comes after the
    # grant's, which conflicts; by then the log ends at the seq this one expects.
    with pytest.raises(RuleError) as refused:
        await two.execute(game_id, anna, "c2", Challenge(target=bob.code))
    assert refused.value.code == "busy"
    assert not (await first).duplicate
    log = await two.store.events(game_id)
    assert [r.type for r in log].count("duel_started") == 1


def chatter() -> answer.Limited:
    """A socket's limits, off, for the referee's socket path without a socket."""
    return answer.Limited(Limits(enabled=False), "test")


def command_text(command_id: str, **command: Any) -> str:
    return orjson.dumps({"type": "command", "command_id": command_id, "command": command}).decode()


async def test_a_socket_command_answered_at_once_conflicts_and_is_decided_again(
    pair: tuple[Referee, Referee],
) -> None:
    """A socket's command is decided in the callback that read it, its write still to come:
    when that write conflicts with another server's, the command is handed back (`defer`) to be
    decided again, on the state the log has, and refused there; nothing was acked before."""
    one, two = pair
    game_id, _, (anna, bob, cyril) = await setup_game(one)
    await two.games.table(game_id)  # the second server has the game in memory, then falls behind
    await one.execute(game_id, anna, "c1", Challenge(target=bob.code))
    posted: list[Any] = []
    deferred: asyncio.Queue[answer.Later] = asyncio.Queue()
    text = command_text("c2", type="challenge", target=bob.code)
    now = answer.answer_now(
        two, chatter(), game_id, cyril, text, posted.append, deferred.put_nowait
    )
    assert now is None and posted == []  # on its way to disk
    later = await asyncio.wait_for(deferred.get(), 5)
    assert posted == []  # the conflict is no answer
    reply = await sockets.answer(two, chatter(), game_id, cyril, later, posted.append)
    assert reply is not None and (reply["command_id"], reply["code"]) == ("c2", "busy")
    log = await two.store.events(game_id)
    assert [r.command_id for r in log].count("c2") == 0


async def test_a_socket_command_answered_at_once_whose_write_fails_is_refused(
    pair: tuple[Referee, Referee], monkeypatch: pytest.MonkeyPatch
) -> None:
    referee, _ = pair
    game_id, _, (anna, bob, _) = await setup_game(referee)

    async def broken(rows: Rows) -> None:
        raise Unavailable("disk full")

    monkeypatch.setattr(referee.store.backend, "write", broken)
    posted: list[Any] = []
    text = command_text("c1", type="challenge", target=bob.code)
    now = answer.answer_now(referee, chatter(), game_id, anna, text, posted.append, print)
    assert now is None
    for _ in range(100):
        if posted:
            break
        await asyncio.sleep(0.01)
    assert [(p["type"], p["command_id"], p["code"]) for p in posted] == [
        ("error", "c1", "unavailable")
    ]
    table = await referee.games.table(game_id)  # reloaded: nothing of the command was kept
    assert table.committed_state.fighters[anna.player_id].duel_id is None


async def test_writes_heard_while_a_catch_up_reads_are_all_shown(
    pair: tuple[Referee, Referee],
) -> None:
    """Another server's writes, heard one after the other while the first read of them is on
    its way, are all folded in, whatever the reads find: a second catch-up begun meanwhile found
    the table moved on by the first and gave up, and what only it had read waited for the next
    write."""
    one, two = pair
    game_id, organizer, (anna, bob, cyril) = await setup_game(one)
    table = await two.games.table(game_id)
    read = two.store.events
    held: list[asyncio.Event] = []

    async def slow_read(game_id: str, after: int) -> Any:
        found = await read(game_id, after)  # the log as it is now; in when the test says
        held.append(gate := asyncio.Event())
        await gate.wait()
        return found

    two.store.events = slow_read  # type: ignore[method-assign]
    first = await one.execute(game_id, anna, "c1", Challenge(target=bob.code))
    two.games.heard(game_id, first.seq)
    while not held:
        await asyncio.sleep(0.01)
    grant = GrantItem(player_id=cyril.player_id, item="crossbow")
    last = await one.execute(game_id, organizer, "g1", grant)
    two.games.heard(game_id, last.seq)

    async def in_turn() -> None:
        """Each read comes back once the one before it is folded in."""
        released = 0
        while two.games.background or released < len(held):
            if released < len(held):
                held[released].set()
                released += 1
            await asyncio.sleep(0.05)

    await asyncio.wait_for(in_turn(), 10)
    assert table.committed_seq == last.seq
    assert "crossbow" in table.committed_state.fighters[cyril.player_id].items
