"""The command pipeline: decide against the game's state, write the events, show the result.

Each game lives in memory as a `Table` (game/table.py, kept by game/games.py). A command is
decided against the newest state (including events still being written), so commands of one game
never wait for each other's disk flush; the scribe writes them in order, and viewers are shown
only states that are on disk.
"""

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

from pydantic import ValidationError

from server.clock import now_ms
from server.game.games import SWEEP_S, Games
from server.game.hub import Hub
from server.game.scribe import Scribe
from server.game.table import Answer, Table, Told
from server.rules import RULESETS
from server.rules.core import Command, Context, Event, Json, Member, RuleError
from server.rules.grown import one_command
from server.rules.roster import AddPlayers, decide_each, opening
from server.rules.validation import invalid
from server.store import Append, Conflict, Store, Unavailable
from server.store.models import GameRow

RETRIES = 5

logger = logging.getLogger("bijse.referee")


class Referee:
    def __init__(self, store: Store, hub: Hub, owns: Callable[[str], bool] | None = None) -> None:
        self.store = store
        self.hub = hub
        self.owns = owns  # of `--workers N`: which game ids are this worker's (None: all)
        self.scribe = Scribe(store, self.written)
        self.games = Games(store, hub)

    async def start(self) -> None:
        self.scribe.start()
        self.listener = asyncio.create_task(self.store.backend.listen(self.games.heard))
        self.sweeper = asyncio.create_task(self.sweep())

    async def stop(self) -> None:
        for task in (self.listener, self.sweeper):
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        await self.games.stop()
        await self.scribe.stop()

    async def sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            self.games.unload_idle(time.monotonic())

    async def create_game(self, ruleset_id: str, name: str, config: Json) -> tuple[str, str]:
        ruleset = RULESETS.get(ruleset_id)
        if ruleset is None:
            known = ", ".join(RULESETS)
            raise RuleError("invalid", f"unknown ruleset {ruleset_id!r}; known: {known}")
        try:
            settings = ruleset.config.model_validate(config).model_dump(mode="json")
        except ValidationError as error:
            raise invalid(error, "config") from None
        game_id = secrets.token_hex(8)
        while self.owns is not None and not self.owns(game_id):  # N tries on average
            game_id = secrets.token_hex(8)
        seed, token, now = secrets.token_bytes(32), new_token(), now_ms()
        _, events = opening(ruleset, game_id, name, settings, seed, now)
        game = GameRow(game_id=game_id, ruleset=ruleset.id, seed=seed.hex(), created_at=now)
        player_id = events[-1].data["player_id"]
        append = Append(game_id, 0, events, now, None, tokens=[(token, player_id)], game=game)
        await self.scribe.write(append)
        return game_id, token

    async def seat(self, game_id: str, token: str | None) -> tuple[Table, Member]:
        """Who a token is in a game: 401 for an unknown token, 403 for another game's."""
        if not token:
            raise RuleError("unauthorized", "a token is needed: Authorization: Bearer <token>")
        owner = self.games.tokens.get(token)
        if owner is None:
            owner = await self.store.token(token)
            if owner is None:
                raise RuleError("unauthorized", "unknown token")
            self.games.tokens[token] = owner
        if owner[0] != game_id:
            raise RuleError("forbidden", "this token belongs to another game")
        table = await self.games.table(game_id)
        member = table.member(owner[1])
        joined = await self.joined(table)
        if member.player_id not in joined:
            joined.add(member.player_id)  # before the write: a second seat meanwhile writes none
            try:
                await self.store.seen(token, now_ms())
            except Exception:  # the console's "joined" waits for the next time, play does not
                joined.discard(member.player_id)
                logger.exception("a token's first use was not written")
            else:
                self.hub.seen(game_id, member.player_id)
        return table, member

    async def joined(self, table: Table) -> set[str]:
        """The members of the game whose token the server has seen (tokens.seen_at), read once
        a table."""
        if table.joined is None:
            # Another command may have read them while this one waited (and seen a member since):
            # the table keeps the first. Asked of the table, not checked here: mypy (and mypyc's
            # compiled code with it) would take `table.joined` to be None still after the await.
            return table.joined_once(await self.store.joined(table.game_id))
        return table.joined

    async def execute(
        self,
        game_id: str,
        actor: Member,
        command_id: str | None,
        command: Command,
        told: Told | None = None,
    ) -> Answer:
        """Decide and write a command; a retried command id gets the first answer."""
        if actor.role not in type(command).roles:
            raise RuleError("forbidden", f"a {actor.role} may not do that")
        for _ in range(RETRIES):
            table = await self.games.table(game_id)
            if command_id is not None:
                if command_id in table.answers:
                    return Answer(table.answers[command_id], True, [])
                if command_id in table.inflight:
                    seq, written = table.inflight[command_id]
                    try:
                        await asyncio.shield(written)
                        return Answer(seq, True, [])
                    except Conflict:
                        # The first copy's write conflicted and it goes round again: so does
                        # this one, and finds the answer it gets (or decides it first).
                        self.games.forget(table)
                        continue
            try:
                return await self.decide_and_write(table, actor, command_id, command, told)
            except Conflict:
                # Another server wrote to this game: forget it, reload from the log, decide again.
                self.games.forget(table)
        raise RuleError("unavailable", "the game is too busy; try again")

    def execute_now(
        self,
        table: Table,
        actor: Member,
        command_id: str | None,
        command: Command,
        told: Told,
        landed: Callable[[int, BaseException | None], None],
    ) -> Answer | None:
        """Decide and submit a command without waiting (a socket's command, answered from the
        event loop's callback that read it): a retry answered from memory, or None when the
        command is on its way to disk, `told` its seq with its views and `landed` its seq and
        how its write ended (None: on disk). The caller has seen that nothing here must wait:
        the game is loaded and no copy of the command is in flight (`ready`)."""
        if actor.role not in type(command).roles:
            raise RuleError("forbidden", f"a {actor.role} may not do that")
        if command_id is not None and command_id in table.answers:
            return Answer(table.answers[command_id], True, [])
        pending = self.decide(table, actor, command_id, command, told)

        def done(written: asyncio.Future[None]) -> None:
            error = written.exception()
            if error is not None:
                self.failed(pending, error)
            landed(pending.seq, error)

        pending.written.add_done_callback(done)
        return None

    def ready(self, game_id: str, command_id: str | None) -> Table | None:
        """The game's table when a command can be decided on it now; None when it must wait:
        for the game to load, or for a copy of it in flight (whose answer it gets)."""
        table = self.games.tables.get(game_id)
        if table is None or (command_id is not None and command_id in table.inflight):
            return None
        table.used = time.monotonic()
        return table

    async def decide_and_write(
        self,
        table: Table,
        actor: Member,
        command_id: str | None,
        command: Command,
        told: Told | None = None,
    ) -> Answer:
        pending = self.decide(table, actor, command_id, command, told)
        try:
            await asyncio.shield(pending.written)  # a caller that gives up does not unmake it
        except (Conflict, Unavailable) as error:
            self.failed(pending, error)
            raise
        return Answer(pending.seq, False, pending.events, pending.tokens)

    def decide(
        self,
        table: Table,
        actor: Member,
        command_id: str | None,
        command: Command,
        told: Told | None,
    ) -> "Pending":
        """Decide a command on the table's newest state and send its events to the scribe."""
        now = now_ms()
        ctx = Context(now=now, actor=actor, seq=table.seq + 1, seed=table.seed)
        with one_command():
            if isinstance(command, AddPlayers):
                events, state = decide_each(table.ruleset, table.state, command.players, ctx)
            else:
                story = table.ruleset.play(table.state, command, ctx)
                events, state = story.events, story.state
            touched = table.ruleset.parts.touched(table.state, events, state)
        append = Append(table.game_id, table.seq, events, now, actor.player_id, command_id)
        tokens = []  # every member who joins gets a token
        for event in events:
            if event.type == "player_joined":
                tokens.append(new_token())
                append.tokens.append((tokens[-1], event.data["player_id"]))
        table.state = state
        table.seq += len(events)
        table.waiting[table.seq] = (table.state, touched, told)
        # Decided on top of the writes before it: if one of them fails, so does this one.
        written = table.writing = self.scribe.submit(append, table.writing)
        if command_id is not None:
            table.inflight[command_id] = (table.seq, written)
        return Pending(table, command_id, table.seq, events, tokens, written)

    def failed(self, pending: "Pending", error: BaseException) -> None:
        """A command's write failed: it is no longer in flight (a copy waiting on it goes round
        again, or is refused with it)."""
        if pending.command_id is not None:
            pending.table.inflight.pop(pending.command_id, None)
        if isinstance(error, Unavailable):  # memory is ahead of disk: reload later
            self.games.tables.pop(pending.table.game_id, None)

    def written(self, appends: list[Append]) -> None:
        """Events are on disk: remember the answers, and show the new states."""
        shown: dict[str, Table] = {}
        touched: dict[str, set[str] | None] = {}  # None: anybody's view may have changed
        actors: dict[str, set[str]] = {}  # whose commands each game's write shows
        tell: list[tuple[Told, int]] = []
        for append in appends:
            table = self.games.tables.get(append.game_id)
            if table is None:
                continue
            seq = append.expected_seq + len(append.events)
            waiting = table.waiting.pop(seq, None)
            if waiting is None:
                touched[table.game_id] = None
                continue
            state, members, told = waiting
            if told is not None:
                tell.append((told, seq))
            table.committed_state, table.committed_seq = state, seq
            if append.command_id is not None:
                table.answers[append.command_id] = seq
                table.inflight.pop(append.command_id, None)
            shown[table.game_id] = table
            if append.actor is not None:
                actors.setdefault(table.game_id, set()).add(append.actor)
            known = touched.setdefault(table.game_id, set())
            if known is not None:
                touched[table.game_id] = None if members is None else known | members
        with self.hub.corked():  # each screen's patches and acks go out in one write
            for table in shown.values():
                self.hub.publish(
                    table.game_id,
                    table.ruleset,
                    table.committed_state,
                    table.committed_seq,
                    touched[table.game_id],
                    actors=actors.get(table.game_id, ()),
                )
            for told, seq in tell:  # after the views: no ack comes before what it shows
                told(seq)
        for table in shown.values():
            self.games.snapshot_if_due(table)


@dataclass(slots=True)
class Pending:
    """A command decided and on its way to disk."""

    table: Table
    command_id: str | None
    seq: int  # of its last event: its answer
    events: list[Event]
    tokens: list[str]
    written: asyncio.Future[None]  # done once on disk, or failed (copies in flight wait on it)


def new_token() -> str:
    return secrets.token_urlsafe(24)
