"""Who of a game has joined and who has it open now: the organizers' live roll call.

Presence is no part of the game's state (no rule turns on it, nothing of it is in the log), so it
travels beside the view, never in it: a message of its own, `presence`, sent to the organizers'
screens only. A member has *joined* once the server has seen their token (tokens.seen_at: it
survives a restart) and is *connected* while at least one of their screens is open on this
server. An organizer's screen is sent the whole roll call when it is seated, then the entries
that changed, gathered for GATHER_S: a phone flapping in a dead spot (closed and open again
meanwhile) is sent as nothing, and ten thousand phones arriving at once are a few messages.
"""

import asyncio
from collections.abc import Callable, Iterable

from server.rules.core import Json

GATHER_S = 0.5  # changes gathered into one message


def message(members: Json, whole: bool) -> Json:
    return {"type": "presence", "whole": whole, "members": members}


class Presence:
    """One game's roll call, its organizers' screens, and the changes not yet sent to them."""

    __slots__ = ("changed", "joined", "screens", "sent", "timer", "watchers")

    def __init__(self, joined: Iterable[str]) -> None:
        self.joined = set(joined)
        self.screens: dict[str, int] = {}  # member -> screens open
        self.sent: dict[str, Json] = {}  # member -> entry as the watchers last heard it
        self.changed: set[str] = set()
        self.timer: asyncio.TimerHandle | None = None
        # the organizers' screens: each one's `post` (a bounded queue: a screen that never
        # reads is cut off, not kept growing)
        self.watchers: dict[object, Callable[[Json], None]] = {}

    def entry(self, player_id: str) -> Json:
        return {"joined": player_id in self.joined, "connected": self.screens.get(player_id, 0) > 0}

    def whole(self) -> Json:
        """Every member who has joined or has a screen open (the others: neither)."""
        members = self.joined | self.screens.keys()
        return {p: self.entry(p) for p in sorted(members)}

    def opened(self, player_id: str) -> None:
        self.screens[player_id] = self.screens.get(player_id, 0) + 1
        self.joined.add(player_id)  # (a screen is seated by its token: seen)
        self.touch(player_id)

    def closed(self, player_id: str) -> None:
        left = self.screens.get(player_id, 0) - 1
        if left > 0:
            self.screens[player_id] = left
        else:
            self.screens.pop(player_id, None)
            self.touch(player_id)

    def seen(self, player_id: str) -> None:
        if player_id not in self.joined:
            self.joined.add(player_id)
            self.touch(player_id)

    def watch(self, screen: object, post: Callable[[Json], None]) -> None:
        """An organizer's screen: sent the whole roll call now, the changes from then on."""
        self.send()  # what changed before goes to the others first, so all hold the same
        self.watchers[screen] = post
        post(message(self.whole(), whole=True))

    def unwatch(self, screen: object) -> None:
        self.watchers.pop(screen, None)

    def touch(self, player_id: str) -> None:
        """A member's entry may have changed: sent with the others' within GATHER_S."""
        self.changed.add(player_id)
        if self.timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (the hub alone, in a test): at once
                self.send()
                return
            self.timer = loop.call_later(GATHER_S, self.send)

    def send(self) -> None:
        """The entries that changed since last sent, in one message to every watcher."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        changed, self.changed = self.changed, set()
        change: Json = {}
        for player_id in sorted(changed):
            entry = self.entry(player_id)
            if self.sent.get(player_id, {"joined": False, "connected": False}) != entry:
                change[player_id] = entry
            self.sent[player_id] = entry
        if change:
            for post in list(self.watchers.values()):
                post(message(change, whole=False))

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
