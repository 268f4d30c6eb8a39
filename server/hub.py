"""Who watches which game, and what each of them is shown.

After every write the hub computes each connected screen's view and sends it when it changed.
A slow phone never holds up the others: each screen has its own outgoing queue, and a view that
is still waiting to be sent is replaced by a newer one (a view is a whole picture, so the newest
is all a phone needs).
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from server.clock import iso, now_ms
from server.rules.core import Json, Member, Ruleset


class Screen:
    """One connected WebSocket and the member it shows the game to."""

    def __init__(self, member: Member, send: Callable[[str], Awaitable[None]]) -> None:
        self.member = member
        self.send = send
        self.shown: Json | None = None
        self.outbox: list[list[Any]] = []  # [kind, message]; a queued view is updated in place
        self.queued_view: list[Any] | None = None
        self.ready = asyncio.Event()
        self.closed = False

    def post(self, message: Json) -> None:
        """Queue an ack, an error or a pong: these are never dropped."""
        self.outbox.append(["message", message])
        self.ready.set()

    def show(self, seq: int, view: Json, now: int) -> None:
        if view == self.shown:
            return
        self.shown = view
        message = {"type": "view", "seq": seq, "server_time": iso(now), "view": view}
        if self.queued_view is not None:
            self.queued_view[1] = message
            return
        self.queued_view = ["view", message]
        self.outbox.append(self.queued_view)
        self.ready.set()

    async def pump(self) -> None:
        """Send what is queued, in order, until the screen closes."""
        while not self.closed:
            await self.ready.wait()
            self.ready.clear()
            items, self.outbox = self.outbox, []
            for item in items:
                if item is self.queued_view:
                    self.queued_view = None
                await self.send(orjson.dumps(item[1]).decode())


class Hub:
    def __init__(self) -> None:
        self.screens: dict[str, set[Screen]] = {}

    def join(self, game_id: str, screen: Screen) -> None:
        self.screens.setdefault(game_id, set()).add(screen)

    def leave(self, game_id: str, screen: Screen) -> None:
        screen.closed = True
        screen.ready.set()
        screens = self.screens.get(game_id)
        if screens is not None:
            screens.discard(screen)
            if not screens:
                del self.screens[game_id]

    def publish(self, game_id: str, ruleset: Ruleset[Any], state: Any, seq: int) -> None:
        now = now_ms()
        for screen in self.screens.get(game_id, ()):
            screen.show(seq, ruleset.view(state, screen.member, now), now)
