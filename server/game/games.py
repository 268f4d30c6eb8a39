"""The games in memory: each loaded from its log once (from its latest snapshot on), kept while
somebody plays or watches it, let go when idle, and brought up to date when another server
wrote to it (PostgreSQL NOTIFY) or a reconnecting phone holds a newer seq than this server."""

import asyncio
import time

from server.game import snapshots
from server.game.hub import Hub
from server.game.table import Table
from server.rules import RULESETS
from server.rules.core import RuleError, fold
from server.store import Store
from server.store.bulk import paused_gc

IDLE_S = 600.0  # a game nobody has watched or played for this long leaves memory (not the log)
SWEEP_S = 60.0
FRESH_S = 2.0  # how long a resume waits for a write of this server's to land


class Games:
    def __init__(self, store: Store, hub: Hub) -> None:
        self.store = store
        self.hub = hub
        self.snapshots = snapshots.Snapshots(store)
        self.tables: dict[str, Table] = {}
        self.loading: dict[str, asyncio.Task[Table | None]] = {}
        self.background: set[asyncio.Task[None]] = set()
        # The games being caught up in the background, each with whether another server wrote
        # again meanwhile (read again once this read is in).
        self.catching: dict[str, bool] = {}
        self.tokens: dict[str, tuple[str, str]] = {}  # token -> (game, player) of loaded games

    async def stop(self) -> None:
        # A catch-up still reading would fail as unavailable once the store closes (which
        # waits for the connection it holds): let it finish first.
        await asyncio.gather(*self.background, return_exceptions=True)
        await self.snapshots.stop()

    def forget(self, table: Table) -> None:
        """Drop a game whose memory may be behind its log: the next use reloads it."""
        if self.tables.get(table.game_id) is table:
            del self.tables[table.game_id]

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
            base, state, answers, packed = kept or (0, None, {}, 0)
            log, later = await self.store.history(game_id, ruleset.read, base)
            state = fold(ruleset, log, state)
        answers.update(later)
        seq = base + len(log)  # seq runs 1..N without gaps
        seed = bytes.fromhex(game.seed)
        table = Table(game_id, ruleset, seed, state, seq, state, seq, answers)
        table.snapshot_seq, table.snapshot_bytes = base, packed
        self.tables[game_id] = table
        self.snapshot_if_due(table)
        return table

    def snapshot_if_due(self, table: Table) -> None:
        """Snapshot a game once it is many events past its snapshot: of its state on disk."""
        if table.committed_seq - table.snapshot_seq >= snapshots.gap(table.snapshot_bytes):
            table.snapshot_seq = table.committed_seq
            self.snapshots.take(table)

    def unload_idle(self, now: float) -> None:
        """Let go of the games nobody watches or plays (a game created and forgotten, or
        thousands made by a script): the next use loads them from the log again."""
        for game_id, table in list(self.tables.items()):
            idle = now - table.used >= IDLE_S and not table.inflight and not table.waiting
            if idle and game_id not in self.hub.audiences:
                del self.tables[game_id]
        self.tokens = {t: owner for t, owner in self.tokens.items() if owner[0] in self.tables}

    def heard(self, game_id: str | None, seq: int) -> None:
        """Another server wrote to a game (or anything may have been missed: `None`). One
        catch-up a game at a time: a second one begun while the first read would find the table
        moved on by the first and give up, and what only it read waited for the next write."""
        games = list(self.tables) if game_id is None else [game_id]
        for gid in games:
            table = self.tables.get(gid)
            if table is None or (game_id is not None and table.committed_seq >= seq):
                continue
            if gid in self.catching:
                self.catching[gid] = True  # read again once this read is in
                continue
            self.catching[gid] = False
            task = asyncio.create_task(self.catching_up(gid))
            self.background.add(task)
            task.add_done_callback(self.background.discard)

    async def catching_up(self, game_id: str) -> None:
        """Catch the game up, and again while other servers wrote meanwhile (the table of now:
        a game reloaded meanwhile is another)."""
        try:
            while (table := self.tables.get(game_id)) is not None:
                await self.catch_up(table)
                if not self.catching[game_id]:
                    return
                self.catching[game_id] = False
        finally:
            del self.catching[game_id]

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
        state = before = table.state
        read = table.ruleset.read
        events = [read(r.type, r.data, r.version) for r in log]
        for recorded, event in zip(log, events, strict=True):
            state = table.ruleset.evolve(state, event)
            if recorded.command_id is not None:
                table.answers[recorded.command_id] = recorded.seq
        table.state = table.committed_state = state
        table.seq = table.committed_seq = log[-1].seq
        touched = table.ruleset.parts.touched(before, events, state)
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
