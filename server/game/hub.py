"""Who watches which game, and what each of them is sent: a change costs what it touches.

A ruleset's view comes in parts (`Sight`): what every viewer of one audience sees (all players,
one team, the organizers) and what one viewer alone sees. After a write the hub computes each
audience's shared part once, turns what changed into one merge patch and serializes it once;
only the viewers the events touched get their private part computed again. A screen whose view
did not change is sent nothing. A shared part that grows with the game (the organizer's console:
every player, duel and member) is kept a row at a time (`Rows`): a change recomputes the rows it
names and those whose time has come, and is sent as a patch of those rows. A private part whose
`may` holds a refusal that ends with time (`until`: a stun running out) is computed again at the
first publish after that moment, touched or not.

A part kept a row at a time is sent at most once every `gather_ms` (bijse serve: GATHER_MS):
what the commands between touch is gathered and shown in one patch. A festival's console was
sent a patch at every group commit (70 a second, of a few rows each): most of the console's cost
to the server, and more bytes than a phone on a slow link takes. A change made by one of its own
viewers is shown at once, before its ack.

A message goes out at once when nothing waits before it and the socket's transport takes it
(no task switch per screen). A slow phone never holds up the others nor grows the server's
memory: each screen has its own short queue; when it falls behind by more than a few patches
they are dropped, and it gets one whole view when it reads again.

The hub also keeps each game's roll call (presence.py: who has joined, who is connected now),
which its organizers' screens are sent beside the view, never in it.
"""

import asyncio
import heapq
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import orjson

from server.clock import iso, now_ms, parse_iso
from server.game.patch import changes, diff
from server.game.presence import Presence
from server.rules.core import Json, Member, Ruleset, Sight
from server.rules.rows import Row, Rows

PATCH = '{"type":"patch"'
GATHER_MS = 100  # bijse serve's: a console's changes gathered for a tenth of a second at most
BEHIND = 8  # patches waiting for one screen before it is resynced with a whole view instead
MESSAGES = 256  # answers waiting for one screen (a client that sends and never reads): cut off


@lru_cache(maxsize=4096)
def moment(until: str) -> int:
    """An `until` of a view as ms (the same few are read again at every change of a view)."""
    return parse_iso(until)


class Audience:
    """The screens of one game that share a part of the view, and that part as last sent."""

    def __init__(self, key: str, seq: int, rows: Rows[Any] | None) -> None:
        self.key = key
        self.shared: Json = {}
        self.seq = seq
        self.rows = rows  # the shared part kept a row at a time, if it grows with the game
        self.due: list[tuple[int, Row]] = []  # (when, row): rows that change with time alone
        self.until: dict[Row, int] = {}  # each row's moment in `due` (older entries are stale)
        # (when, player_id): private parts that change with time alone, and each one's moment
        self.private_due: list[tuple[int, str]] = []
        self.private_until: dict[str, int] = {}
        # by member: a change that touches a few members finds their screens without looking
        # at everybody else's
        self.screens: dict[str, set[Screen]] = {}
        self.shown_at = 0  # ms: when its shared part was last computed
        # Gathered, not shown yet (Hub.gather): the members touched since, and the game as of
        # the latest change (its sight, state and seq); the timer that shows them.
        self.gathered: set[str] | None = None
        self.latest: tuple[Sight[Any], Any, int] | None = None
        self.timer: asyncio.TimerHandle | None = None

    def stop_gathering(self) -> set[str]:
        """What was gathered (the members touched), now to be shown or let go."""
        gathered, self.gathered, self.latest = self.gathered or set(), None, None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        return gathered

    def build(self, sight: Sight[Any], state: Any, now: int) -> Json:
        """The shared part computed whole; the patch from the one held before."""
        if self.rows is None:
            shared = sight.shared(state, self.key, now)
        else:
            shared, due = self.rows.build(state, now)
            heapq.heapify(due)
            self.due, self.until = due, {row: until for until, row in due}
        change = diff(self.shared, shared)
        self.shared = shared
        return change

    def renew(self, rows: Rows[Any], state: Any, touched: set[str], now: int) -> Json:
        """The rows that the touched members name or whose time has come, computed again in
        the part held; the patch of those rows (and of the head)."""
        shown = self.shared
        head = rows.head(state, now)
        change = diff({key: shown.get(key) for key in head}, head)
        shown.update(head)
        names = set(rows.named(state, touched, shown))
        while self.due and self.due[0][0] <= now:
            when, row = heapq.heappop(self.due)
            if self.until.get(row) == when:
                del self.until[row]
                names.add(row)
        for row in names:
            name, row_id = row
            content, until = rows.collections[name].row(state, row_id, now)
            if until is not None and self.until.get(row) != until:
                self.until[row] = until
                heapq.heappush(self.due, (until, row))
            held = shown[name]
            before = held.get(row_id)
            if content is None:
                if before is not None:
                    del held[row_id]
                    change.setdefault(name, {})[row_id] = None
            elif before is None:
                held[row_id] = content
                change.setdefault(name, {})[row_id] = content
            elif own := diff(before, content):
                held[row_id] = content
                change.setdefault(name, {})[row_id] = own
        return change

    def keep(self, player_id: str, private: Json) -> None:
        """Note when a viewer's private part changes with time alone: its `may`'s first `until`."""
        may = private.get("may")
        untils = [
            moment(v["until"]) for v in (may or {}).values() if type(v) is dict and "until" in v
        ]
        if untils and self.private_until.get(player_id) != (first := min(untils)):
            self.private_until[player_id] = first
            heapq.heappush(self.private_due, (first, player_id))

    def come_due(self, now: int) -> set[str]:
        """The viewers whose private part's time has come."""
        due = set()
        while self.private_due and self.private_due[0][0] <= now:
            when, player_id = heapq.heappop(self.private_due)
            if self.private_until.get(player_id) == when:
                del self.private_until[player_id]
                due.add(player_id)
        return due


class Screen:
    """One connected WebSocket and the member it shows the game to (thousands of them live for
    hours: slots, and one future only while the pump waits)."""

    __slots__ = (
        "audience",
        "close",
        "closed",
        "cut_off",
        "held",
        "hub",
        "member",
        "outbox",
        "patches",
        "private",
        "resync",
        "send",
        "seq",
        "waiter",
        "woken",
        "write",
    )

    def __init__(
        self,
        member: Member,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]] | None = None,
        write: Callable[[list[str]], bool] | None = None,
    ) -> None:
        self.member = member
        self.send = send
        self.close = close
        self.write = write  # messages out now, in one write, if the socket takes them
        self.hub: Hub | None = None
        self.held: list[str] | None = None  # delivered while the hub is corked, to go together
        self.audience: Audience | None = None
        self.private: Json = {}
        self.seq = 0  # the seq of the view the phone holds once everything queued is sent
        self.outbox: list[str] = []
        self.patches = 0  # of the outbox
        self.resync = False  # send a whole view instead of the patches dropped
        self.waiter: asyncio.Future[None] | None = None
        self.woken = False
        self.closed = False
        self.cut_off = False

    def deliver(self, message: str) -> bool:
        """Write a message at once when nothing waits before it and the socket takes it (True);
        else queue it for the pump. While the hub is corked it is held, and written with the
        others of this screen when the hub uncorks."""
        if self.held is not None:
            self.held.append(message)
            return True
        if (
            self.write is None
            or self.waiter is None  # the pump is sending, or not started
            or self.woken
            or self.outbox
            or self.resync
            or self.closed
        ):
            self.outbox.append(message)
            self.wake()
            return False
        if self.hub is not None and self.hub.held is not None:
            self.held = [message]
            self.hub.held.append(self)
            return True
        if not self.write([message]):
            self.outbox.append(message)
            self.wake()
            return False
        return True

    def release(self) -> None:
        """Write what was held, in one write; if the socket does not take it, to the pump."""
        held, self.held = self.held or [], None
        if self.write is None or self.closed or not self.write(held):
            self.outbox.extend(held)
            self.wake()

    def wake(self) -> None:
        """Something is queued, or the screen closed: the pump goes round."""
        self.woken = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def view(self) -> Json:
        assert self.audience is not None
        return {**self.audience.shared, **self.private}

    def post(self, message: Json) -> None:
        """Queue an ack, an error or a pong: never dropped, but a reader that never reads is cut
        off rather than kept in memory."""
        if len(self.outbox) >= MESSAGES:
            self.cut_off = self.closed = True
            self.wake()
        else:
            self.deliver(orjson.dumps(message).decode())

    def whole(self, seq: int, now: int) -> str:
        """The whole view as of `seq`, as a message; the phone holds `seq` once it is sent."""
        self.seq = seq
        message = {"type": "view", "seq": seq, "server_time": iso(now), "view": self.view()}
        return orjson.dumps(message).decode()

    def show(self, seq: int, now: int) -> None:
        """Send the whole view as of `seq`."""
        self.deliver(self.whole(seq, now))

    def patch(self, seq: int, patch: str, stamp: str, made: dict[int, str] | None = None) -> None:
        """Queue a patch (already JSON) from the view the phone will hold to the one at `seq`;
        `stamp` is the server time (ISO), `made` the same patch's messages by base, shared by
        the screens that get it (most hold the same base: one string serves them all)."""
        if self.resync:
            self.seq = seq
            return
        if self.patches >= BEHIND:
            self.resync = True  # the patches waiting are dropped when the pump comes round
            self.seq = seq
            self.wake()
            return
        message = None if made is None else made.get(self.seq)
        if message is None:
            message = (
                f'{{"type":"patch","seq":{seq},"base":{self.seq},'
                f'"server_time":"{stamp}","patch":{patch}}}'
            )
            if made is not None:
                made[self.seq] = message
        self.seq = seq
        if not self.deliver(message):
            self.patches += 1

    async def flush(self) -> None:
        """Send what is queued now (in a frame of its own: what was sent is not kept for the
        hours the pump may wait next)."""
        items, self.outbox, self.patches = self.outbox, [], 0
        for item in items:
            await self.send(item)

    async def pump(self) -> None:
        """Send what is queued, in order, until the screen closes."""
        while not self.closed:
            if not self.woken:
                self.waiter = asyncio.get_running_loop().create_future()
                await self.waiter
                self.waiter = None
            if self.cut_off:
                break
            self.woken = False
            if self.resync:
                # The patches waiting give way to one whole view, where the first of them stood
                # (so that no ack comes before the view that shows its command); answers stay.
                first = next((n for n, m in enumerate(self.outbox) if m.startswith(PATCH)), 0)
                answers = [m for m in self.outbox if not m.startswith(PATCH)]
                self.resync = False
                assert self.audience is not None  # a screen is seated before it is sent anything
                view = self.whole(self.audience.seq, now_ms())  # the audience's latest seq
                self.outbox = [*answers[:first], view, *answers[first:]]
            await self.flush()
        if self.cut_off and self.close is not None:
            await self.close()


class Hub:
    def __init__(self, gather_ms: int = 0) -> None:
        self.audiences: dict[str, dict[str, Audience]] = {}  # game -> audience key -> audience
        self.presence: dict[str, Presence] = {}  # game -> its roll call, while it has screens
        self.held: list[Screen] | None = None  # corked: the screens holding messages
        # A part kept a row at a time is shown at most this often (0: at every change).
        self.gather_ms = gather_ms

    @contextmanager
    def corked(self) -> Iterator[None]:
        """What the screens are delivered meanwhile goes out at the end, one write a screen
        (a patch and the ack of the command it shows: one system call, one packet)."""
        if self.held is not None:
            yield
            return
        self.held = []
        try:
            yield
        finally:
            screens, self.held = self.held, None
            for screen in screens:
                screen.release()

    def join(
        self,
        game_id: str,
        ruleset: Ruleset[Any],
        state: Any,
        seq: int,
        screen: Screen,
        now: int | None = None,
        joined: Iterable[str] = (),
    ) -> None:
        """Seat a screen on the game as of `seq`; the caller shows it or says it is up to date,
        then `greet`s it. `joined`: the members whose token the server has seen (read from the
        store when the game's first screen comes)."""
        sight = ruleset.parts
        now = now_ms() if now is None else now
        key = sight.audience(screen.member)
        audiences = self.audiences.setdefault(game_id, {})
        audience = audiences.get(key)
        if audience is None:
            audience = audiences[key] = Audience(key, seq, sight.rows(key))
            audience.build(sight, state, now)
        elif audience.seq != seq:  # the game moved on without a word to this audience yet
            # (rows kept one at a time cannot tell what changed meanwhile: built whole)
            self.refresh(audience, sight, state, seq, None if audience.rows else set(), now)
        audience.screens.setdefault(screen.member.player_id, set()).add(screen)
        screen.audience = audience
        screen.hub = self
        screen.private = sight.private(state, screen.member, now)
        audience.keep(screen.member.player_id, screen.private)
        screen.seq = seq
        presence = self.presence.get(game_id)
        if presence is None:
            presence = self.presence[game_id] = Presence(joined)
        presence.opened(screen.member.player_id)

    def greet(self, game_id: str, screen: Screen) -> None:
        """After its view: an organizer's screen is sent the roll call, and its changes from
        now on (presence.py)."""
        presence = self.presence.get(game_id)
        if presence is not None and screen.member.role == "organizer":
            presence.watch(screen, screen.post)

    def seen(self, game_id: str, player_id: str) -> None:
        """A member's token was seen for the first time: joined, on the organizers' screens."""
        presence = self.presence.get(game_id)
        if presence is not None:
            presence.seen(player_id)

    def leave(self, game_id: str, screen: Screen) -> None:
        screen.closed = True
        screen.wake()
        audiences = self.audiences.get(game_id, {})
        audience = screen.audience
        if audience is not None and audiences.get(audience.key) is audience:
            mine = audience.screens.get(screen.member.player_id, set())
            mine.discard(screen)
            if not mine:
                audience.screens.pop(screen.member.player_id, None)
            if not audience.screens:
                audience.stop_gathering()
                del audiences[audience.key]
                if not audiences:
                    del self.audiences[game_id]
            presence = self.presence.get(game_id)
            if presence is not None:
                presence.unwatch(screen)
                presence.closed(screen.member.player_id)
                if game_id not in self.audiences:  # nobody left to tell
                    presence.stop()
                    del self.presence[game_id]

    def publish(
        self,
        game_id: str,
        ruleset: Ruleset[Any],
        state: Any,
        seq: int,
        touched: set[str] | None,
        now: int | None = None,
        actors: Iterable[str] = (),
    ) -> None:
        """Show the game at `seq`; `touched` are the members whose private part may have
        changed since the last time (None: anybody's), `actors` those whose commands it shows
        (their screens see them before their acks)."""
        audiences = self.audiences.get(game_id)
        if not audiences:
            return
        now = now_ms() if now is None else now
        sight: Sight[Any] = ruleset.parts
        for audience in audiences.values():
            if (
                audience.rows is not None
                and touched is not None
                and (audience.gathered is not None or now < audience.shown_at + self.gather_ms)
                and audience.screens.keys().isdisjoint(actors)
            ):
                self.gather(audience, sight, state, seq, touched, now)
            else:
                self.refresh(audience, sight, state, seq, touched, now)

    def gather(
        self,
        audience: Audience,
        sight: Sight[Any],
        state: Any,
        seq: int,
        touched: set[str],
        now: int,
    ) -> None:
        """Hold a change of a part kept a row at a time until `gather_ms` after it was last
        shown, with the changes that come meanwhile."""
        gathered = audience.gathered
        audience.gathered = touched if gathered is None else gathered | touched
        audience.latest = (sight, state, seq)
        if audience.timer is None:
            wait = max(0, audience.shown_at + self.gather_ms - now) / 1000
            audience.timer = asyncio.get_running_loop().call_later(wait, self.show, audience)

    def show(self, audience: Audience) -> None:
        """Show what was gathered."""
        audience.timer = None
        if audience.latest is not None:
            sight, state, seq = audience.latest
            with self.corked():
                self.refresh(audience, sight, state, seq, set(), now_ms())

    @staticmethod
    def refresh(
        audience: Audience,
        sight: Sight[Any],
        state: Any,
        seq: int,
        touched: set[str] | None,
        now: int,
    ) -> None:
        """The audience's shared part once, serialized once for all of its screens; the private
        parts of the touched viewers only (and of those touched in what was gathered)."""
        if audience.gathered is not None:
            gathered = audience.stop_gathering()
            touched = None if touched is None else touched | gathered
        audience.shown_at = now
        if audience.rows is not None and touched is not None:
            common = audience.renew(audience.rows, state, touched, now)
        else:
            common = audience.build(sight, state, now)
        audience.seq = seq
        if touched is not None and audience.private_due:
            touched = touched | audience.come_due(now)
        text = orjson.dumps(common).decode() if common else None
        stamp, made = iso(now), dict[int, str]()
        if text is None and touched is not None:  # only the touched may have anything to hear
            members = [audience.screens[p] for p in touched if p in audience.screens]
        else:
            members = list(audience.screens.values())
        for screens in members:
            for screen in screens:
                if touched is None or screen.member.player_id in touched:
                    private = sight.private(state, screen.member, now)
                    own = changes(screen.private, private)  # touched: changed, most likely
                    if "may" in own:  # else its `until`s are those it had, kept already
                        audience.keep(screen.member.player_id, private)
                    screen.private = private
                    if own:
                        screen.patch(seq, orjson.dumps({**common, **own}).decode(), stamp)
                        continue
                if text is not None:
                    screen.patch(seq, text, stamp, made)
