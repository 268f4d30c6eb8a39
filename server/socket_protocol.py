"""uvicorn's WebSocket protocol (websockets' sans-I/O one), lean enough for ten thousand phones.

A socket lives for hours and mostly waits. Per connection uvicorn keeps an `asyncio.Queue` of
received messages (four deques and an Event: about 2.4 KiB) and an `asyncio.Event` for flow
control, and holds on to the handshake's request and response with all their headers. Here the
queue is a list with one waiter, the event a flag with one waiter, and the handshake is let go
once the socket is open. The behaviour is uvicorn's own: only the containers change.
"""

import asyncio
import logging
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State


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
# A peer that takes none of what is written to it for this long is cut off: a phone in a dead
# spot reconnects with after=, and a client that never reads holds nothing for more than this.
STALL_S = 30.0
logger = logging.getLogger("bijse.sockets")


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol, with lean containers (above) and two more limits on a peer that does
    not read. Once the transport's buffer is full (uvicorn stops sending there), a WebSocket
    ping is not answered: websockets queues a pong for every ping, below the application, and
    a client that pings and never reads grew the server by megabytes a second. And a peer that
    stays full for STALL_S is aborted: a polite close would wait for it to read, forever."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Mailbox()  # type: ignore[assignment]
        self.writable = Flag()  # type: ignore[assignment]
        self.stall: asyncio.TimerHandle | None = None

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall is None:
            self.stall = self.loop.call_later(STALL_S, self.cut_off)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.stall is not None:
            self.stall.cancel()
            self.stall = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.stall is not None:
            self.stall.cancel()
            self.stall = None
        super().connection_lost(exc)

    def cut_off(self) -> None:
        self.stall = None
        logger.info("%s: a WebSocket that read nothing for %g s is cut off", self.client, STALL_S)
        self.transport.abort()

    def handle_ping(self) -> None:
        if self.writable.is_set():
            super().handle_ping()
        else:
            self.conn.data_to_send()  # the pong, which the peer would not read: dropped

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

    def write_text(self, texts: list[str]) -> bool:
        """Frame text messages and write them at once, in one write, if the socket is open and
        its transport takes more; else False, and the caller queues them and awaits `send`
        (which waits for the transport to drain). A change shown to ten thousand screens costs
        a write each, not a task switch each."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        conn = self.conn
        if conn.state is not State.OPEN or conn.extensions or conn.expect_continuation_frame:
            return False
        parts = conn.data_to_send()  # anything websockets queued (a pong) goes first
        for text in texts:
            data = text.encode()
            parts.append(text_frame_header(len(data)))
            parts.append(data)
        self.transport.write(b"".join(parts))
        return True


def text_frame_header(size: int) -> bytes:
    """The header of an unmasked, final text frame of `size` bytes (RFC 6455 5.2), as
    websockets writes it: framed here, a message skips building a Frame object to serialize."""
    if size < 126:
        return bytes((0x81, size))
    if size < 0x10000:
        return b"\x81\x7e" + size.to_bytes(2, "big")
    return b"\x81\x7f" + size.to_bytes(8, "big")


# How every socket is run, by `bijse serve` and by the tests' servers alike. No
# permessage-deflate: a view is a few KiB, and compressing every one costs the server more CPU
# than the bytes it saves.
OPTIONS: dict[str, Any] = {
    "ws": LeanWebSocketProtocol,
    "ws_max_size": 1024 * 1024,
    "ws_per_message_deflate": False,
}
