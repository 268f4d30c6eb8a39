"""uvicorn's WebSocket protocol (websockets' sans-I/O one), lean enough for ten thousand phones.

A socket lives for hours and mostly waits. Per connection uvicorn keeps an `asyncio.Queue` of
received messages (four deques and an Event: about 2.4 KiB) and an `asyncio.Event` for flow
control, and holds on to the handshake's request and response with all their headers. Here the
queue is a list with one waiter, the event a flag with one waiter, and the handshake is let go
once the socket is open. The behaviour is uvicorn's own: only the containers change.
"""

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class Mailbox:
    """The received messages of one socket, for its one reader (what the protocol asks of its
    queue: put_nowait, get, empty)."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self.items.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def get(self) -> Any:
        while not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        return self.items.pop(0)

    def empty(self) -> bool:
        return not self.items


class Flag:
    """An `asyncio.Event` for the one sender of a socket: set, clear, wait."""

    __slots__ = ("up", "waiters")

    def __init__(self) -> None:
        self.up = True
        self.waiters: list[asyncio.Future[None]] = []

    def is_set(self) -> bool:
        return self.up

    def set(self) -> None:
        self.up = True
        waiters, self.waiters = self.waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self.up = False

    async def wait(self) -> None:
        if self.up:
            return
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        await waiter


WRITE = "bijse.write_text"  # the scope extension: a message written now, without awaiting


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Mailbox()  # type: ignore[assignment]
        self.writable = Flag()  # type: ignore[assignment]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if hasattr(self, "scope"):
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[WRITE] = self.write_text

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept":
            # The handshake is answered: its request and response are not needed again.
            self.request = self.response = None  # type: ignore[assignment]

    def write_text(self, text: str) -> bool:
        """Frame and write a text message at once if the socket is open and its transport takes
        more; else False, and the caller queues it and awaits `send` (which waits for the
        transport to drain). A change shown to ten thousand screens costs a write each, not a
        task switch each."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        self.conn.send_text(text.encode())
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


# How every socket is run, by `bijse serve` and by the tests' servers alike. No
# permessage-deflate: a view is a few KiB, and compressing every one costs the server more CPU
# than the bytes it saves.
OPTIONS: dict[str, Any] = {
    "ws": LeanWebSocketProtocol,
    "ws_max_size": 1024 * 1024,
    "ws_per_message_deflate": False,
}
