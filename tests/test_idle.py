"""Idle games leave memory: a game nobody watches or plays is let go and loads again on use."""

import asyncio
import time
from pathlib import Path

from server.game.games import IDLE_S
from server.game.hub import Screen
from server.rules.card_duel.commands import Challenge
from server.store import migrate
from server.store.database import parse_url
from tests.test_referee import open_referee, setup_game


async def nowhere(text: str) -> None:
    pass


async def test_an_idle_game_is_unloaded_and_comes_back_from_its_log(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'idle.db'}"
    await asyncio.to_thread(migrate.upgrade, parse_url(url))
    referee = await open_referee(url)
    try:
        watched, _, _ = await setup_game(referee)
        idle, organizer, (anna, bob, _) = await setup_game(referee)
        state = referee.games.tables[idle].committed_state
        table = referee.games.tables[watched]
        screen = Screen(table.member(organizer.player_id), nowhere)  # somebody watches this one
        referee.hub.join(watched, table.ruleset, table.committed_state, table.committed_seq, screen)
        token_count = len(referee.games.tokens)

        referee.games.unload_idle(time.monotonic() + IDLE_S / 2)  # not idle long enough
        assert set(referee.games.tables) == {watched, idle}
        referee.games.unload_idle(time.monotonic() + IDLE_S)
        assert set(referee.games.tables) == {watched}  # the watched game stays, however long
        assert len(referee.games.tokens) < token_count  # the idle game's tokens went with it

        # The next use loads it from the log: the same state, and it plays on.
        again = await referee.games.table(idle)
        assert again.committed_state == state
        answer = await referee.execute(idle, anna, "c1", Challenge(target=bob.code))
        assert not answer.duplicate and answer.seq == again.committed_seq
        referee.hub.leave(watched, screen)
        referee.games.unload_idle(time.monotonic() + IDLE_S)
        assert referee.games.tables == {}
    finally:
        await referee.stop()
        await referee.store.close()
