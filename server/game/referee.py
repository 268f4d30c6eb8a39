"""The command pipeline: decide against the game's state, write the events, show the result.

Each game lives in memory as a `Table`, rebuilt on first use from its log (from its latest
snapshot on, when it has a usable one: server/game/snapshots.py). A command is decided
against the newest state (including events still being written), so commands of one game never
wait for each other's disk flush; the scribe writes them in order, and viewers are shown only
states that are on disk.
"""

import asyncio
import gc
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from server.clock import now_ms
from server.game import snapshots
from server.game.hub import Hub
from server.game.scribe import Scribe
from server.rules import RULESETS
from server.rules.core import Command, Context, Event, Json, Member, RuleError, Ruleset, fold
from server.rules.grown import one_command
from server.rules.roster import AddPlayers, decide_each, opening
from server.rules.validation import invalid
from server.store import Append, Conflict, Store, Unavailable
from server.store.models import GameRow

RETRIES = 5
IDLE_S = 600.0  # a game nobody has watched or played for this long leaves memory (not the log)
SWEEP_S = 60.0
FRESH_S = 2.0  # how long a resume waits for a write of this server's to land


# Told the seq of a command's write as soon as it is on disk, with its views: a socket acks it in
# the same write as its patch, without waiting for its coroutine to be resumed.
Told = Callable[[int], None]


@dataclass
class Table:
    """One game in memory."""

    game_id: str
    ruleset: Ruleset[Any]
    seed: bytes
    state: Any  # after every decided event, written or not
    seq: int
    committed_state: Any  # after the last event on disk: the only state anybody is shown
    committed_seq: int
    answers: dict[str, int] = field(default_factory=dict)  # command_id -> seq of its last event
    inflight: dict[str, asyncio.Future[int]] = field(default_factory=dict)
    # seq -> (state, members touched, told of the write) of the decided writes not yet on disk
    waiting: dict[int, tuple[Any, set[str] | None, Told | None]] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)  # last asked for
    writing: asyncio.Future[None] | None = None  # the last write sent to the scribe
    snapshot_seq: int = 0  # the seq of the game's latest snapshot (taken, if not yet written)

    def member(self, player_id: str) -> Member:
        member: Member = self.committed_state.roster.members[player_id]
        return member


@dataclass(frozen=True, slots=True)
class Answer:
    seq: int
    duplicate: bool
    events: list[Event]
    tokens: list[str] = field(default_factory=list)  # the new players' tokens, for add_player


class Referee:
    def __init__(self, store: Store, hub: Hub, owns: Callable[[str], bool] | None = None) -> None:
        self.store = store
        self.hub = hub
        self.owns = owns  # of `--workers N`: which game ids are this worker's (None: all)
        self.scribe = Scribe(store, self.written)
        self.snapshots = snapshots.Snapshots(store)
        self.tables: dict[str, Table] = {}
        self.loading: dict[str, asyncio.Task[Table | None]] = {}
        self.tokens: dict[str, tuple[str, str]] = {}
        self.background: set[asyncio.Task[int | None]] = set()

    async def start(self) -> None:
        self.scribe.start()
        self.listener = asyncio.create_task(self.store.backend.listen(self.heard))
        self.sweeper = asyncio.create_task(self.sweep())

    async def stop(self) -> None:
        for task in (self.listener, self.sweeper):
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        # A catch-up still reading holds a database connection: let it finish before the
        # store closes (else the connection is dropped unclosed).
        await asyncio.gather(*self.background, return_exceptions=True)
        await self.scribe.stop()
        await self.snapshots.stop()

    async def sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            self.unload_idle(time.monotonic())

    def unload_idle(self, now: float) -> None:
        """Let go of the games nobody watches or plays (a game created and forgotten, or
        thousands made by a script): the next use loads them from the log again."""
        for game_id, table in list(self.tables.items()):
            idle = now - table.used >= IDLE_S and not table.inflight and not table.waiting
            if idle and game_id not in self.hub.audiences:
                del self.tables[game_id]
        self.tokens = {t: owner for t, owner in self.tokens.items() if owner[0] in self.tables}

    def heard(self, game_id: str | None, seq: int) -> None:
        """Another server wrote to a game (or anything may have been missed: `None`)."""
        games = list(self.tables) if game_id is None else [game_id]
        for gid in games:
            table = self.tables.get(gid)
            if table is not None and (game_id is None or table.committed_seq < seq):
                task = asyncio.create_task(self.catch_up(table))
                self.background.add(task)
                task.add_done_callback(self.background.discard)

    async def catch_up(self, table: Table) -> int | None:
        """Fold in what another server wrote, and show it; answers the seq the table is then at,
        as new as the log was read (None: left as it was). With a write of our own in flight,
        leave it: that write conflicts, and the game is reloaded before it is decided again."""
        if table.seq != table.committed_seq:
            return None
        seq = table.seq
        log = await self.store.events(table.game_id, seq)
        if self.tables.get(table.game_id) is not table or table.seq != seq:
            return None  # the table moved on while we read
        if not log:
            return seq
        state = table.state
        read = table.ruleset.read
        events = [read(r.type, r.data, r.version) for r in log]
        touched = table.ruleset.parts.touched(state, events)
        for recorded, event in zip(log, events, strict=True):
            state = table.ruleset.evolve(state, event)
            if recorded.command_id is not None:
                table.answers[recorded.command_id] = recorded.seq
        table.state = table.committed_state = state
        table.seq = table.committed_seq = log[-1].seq
        self.hub.publish(table.game_id, table.ruleset, state, table.seq, touched)
        self.snapshot_if_due(table)
        return table.seq

    async def fresh(self, game_id: str, after: int | None) -> Table:
        """The game as new as the seq a reconnecting phone holds (`after`, if it said): a
        resume never goes backwards. This server may not have heard yet of what
        another server wrote and showed the phone: it reads the log first. An `after` past the
        end of the log gets the log's newest state; with a write of this server's in flight,
        it waits for that write a while, then refuses (the phone reconnects)."""
        held = after or 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FRESH_S
        while True:
            table = await self.table(game_id)
            if table.committed_seq >= held:
                return table
            head = await self.catch_up(table)
            if head is not None and head < held:
                return table  # the log ends before `after`: there is nothing newer to show
            if head is None:
                if loop.time() > deadline:
                    raise RuleError(
                        "unavailable",
                        f"this server has the game at seq {table.committed_seq}, "
                        f"not yet at {held}; reconnect",
                    )
                await asyncio.sleep(0.01)  # a write of ours is on its way to disk

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

    async def table(self, game_id: str) -> Table:
        """The game's table, loaded from the log once even when many ask at the same time."""
        table = self.tables.get(game_id)
        if table is not None:
            table.used = time.monotonic()
            return table
        task = self.loading.get(game_id)
        if task is None:
            task = asyncio.ensure_future(self.load(game_id))
            self.loading[game_id] = task
            task.add_done_callback(lambda _: self.loading.pop(game_id, None))
        table = await asyncio.shield(task)
        if table is None:
            raise RuleError("not_found", f"no game {game_id}")
        return table

    async def load(self, game_id: str) -> Table | None:
        game = await self.store.game(game_id)
        if game is None:
            return None
        ruleset = RULESETS[game.ruleset]
        with paused_gc():
            kept = await snapshots.latest(self.store, game_id, ruleset)
            base, state, answers = kept or (0, None, {})
            log, later = await self.store.history(game_id, ruleset.read, base)
            state = fold(ruleset, log, state)
        answers.update(later)
        seq = base + len(log)  # seq runs 1..N without gaps
        seed = bytes.fromhex(game.seed)
        table = Table(game_id, ruleset, seed, state, seq, state, seq, answers, snapshot_seq=base)
        self.tables[game_id] = table
        self.snapshot_if_due(table)
        return table

    def snapshot_if_due(self, table: Table) -> None:
        """Snapshot a game once it is many events past its snapshot: of its state on disk."""
        if table.committed_seq - table.snapshot_seq >= snapshots.EVERY:
            table.snapshot_seq = table.committed_seq
            self.snapshots.take(
                table.game_id,
                table.ruleset,
                table.committed_seq,
                table.committed_state,
                table.answers,
            )

    async def seat(self, game_id: str, token: str | None) -> tuple[Table, Member]:
        """Who a token is in a game: 401 for an unknown token, 403 for another game's."""
        if not token:
            raise RuleError("unauthorized", "a token is needed: Authorization: Bearer <token>")
        owner = self.tokens.get(token)
        if owner is None:
            owner = await self.store.token(token)
            if owner is None:
                raise RuleError("unauthorized", "unknown token")
            self.tokens[token] = owner
        if owner[0] != game_id:
            raise RuleError("forbidden", "this token belongs to another game")
        table = await self.table(game_id)
        return table, table.member(owner[1])

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
            table = await self.table(game_id)
            if command_id is not None:
                if command_id in table.answers:
                    return Answer(table.answers[command_id], True, [])
                if command_id in table.inflight:
                    try:
                        return Answer(await asyncio.shield(table.inflight[command_id]), True, [])
                    except Conflict:
                        # The first copy's write conflicted and it goes round again: so does
                        # this one, and finds the answer it gets (or decides it first).
                        if self.tables.get(game_id) is table:
                            del self.tables[game_id]
                        continue
            try:
                return await self.decide_and_write(table, actor, command_id, command, told)
            except Conflict:
                # Another server wrote to this game: forget it, reload from the log, decide again.
                if self.tables.get(game_id) is table:
                    del self.tables[game_id]
        raise RuleError("unavailable", "the game is too busy; try again")

    async def decide_and_write(
        self,
        table: Table,
        actor: Member,
        command_id: str | None,
        command: Command,
        told: Told | None = None,
    ) -> Answer:
        now = now_ms()
        ctx = Context(now=now, actor=actor, seq=table.seq + 1, seed=table.seed)
        with one_command():
            if isinstance(command, AddPlayers):
                events, state = decide_each(table.ruleset, table.state, command.players, ctx)
            else:
                story = table.ruleset.play(table.state, command, ctx)
                events, state = story.events, story.state
            touched = table.ruleset.parts.touched(table.state, events)
        append = Append(table.game_id, table.seq, events, now, actor.player_id, command_id)
        tokens = []  # every member who joins gets a token
        for event in events:
            if event.type == "player_joined":
                tokens.append(new_token())
                append.tokens.append((tokens[-1], event.data["player_id"]))
        table.state = state
        table.seq += len(events)
        table.waiting[table.seq] = (table.state, touched, told)
        seq = table.seq
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        if command_id is not None:
            table.inflight[command_id] = future
        # Decided on top of the writes before it: if one of them fails, so does this one.
        written = table.writing = self.scribe.submit(append, table.writing)
        try:
            await asyncio.shield(written)  # a caller that gives up does not unmake the write
        except (Conflict, Unavailable) as error:
            future.set_exception(error)
            future.exception()  # retrieved: a duplicate waiting on it re-raises on its own
            if command_id is not None:
                table.inflight.pop(command_id, None)
            if isinstance(error, Unavailable):
                self.tables.pop(table.game_id, None)  # memory is ahead of disk: reload later
            raise
        future.set_result(seq)
        return Answer(seq, False, events, tokens)

    def written(self, appends: list[Append]) -> None:
        """Events are on disk: remember the answers, and show the new states."""
        shown: dict[str, Table] = {}
        touched: dict[str, set[str] | None] = {}  # None: anybody's view may have changed
        tell: list[tuple[Told, int]] = []
        for append in appends:
            table = self.tables.get(append.game_id)
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
                )
            for told, seq in tell:  # after the views: no ack comes before what it shows
                told(seq)
        for table in shown.values():
            self.snapshot_if_due(table)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Reading a long log makes millions of objects and no garbage cycles: the cycle collector
    would only rescan them again and again (it costs a third of a load)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def new_token() -> str:
    return secrets.token_urlsafe(24)
