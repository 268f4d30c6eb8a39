"""uvicorn's WebSocket protocol (websockets' sans-I/O one), lean enough for ten thousand phones.

A socket lives for hours and mostly waits. Per connection uvicorn keeps an `asyncio.Queue` of
received messages (four deques and an Event: about 2.4 KiB) and an `asyncio.Event` for flow
control, and holds on to the handshake's request and response with all their headers. Here the
queue is a list with one waiter, the event a flag with one waiter, and the handshake is let go
once the socket is open. The behaviour is uvicorn's own but for the limits on a peer that
floods or does not read (below), and text that is not UTF-8, which closes the socket (1007) with
one line in the log instead of a traceback.
"""

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame
from websockets.protocol import State
from websockets.streams import StreamReader

from server.web.limits import Allowance, whole_seconds

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover (websockets without its C extension)
    from websockets.utils import apply_mask


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
PONG = b"\x8a"  # the first byte of a whole pong frame
THROTTLE = "bijse.throttle"  # the scope extension: the socket's allowance of chatter, in force
# The scope extension through which the application hands the protocol a function that
# answers a text message at once (True), in the callback that read it: no task switch, no
# queue. False: the message goes to the queue, for the application's `receive`.
HEAR = "bijse.hear"
BURST = 16  # messages answered at once in one go; then the event loop's other callbacks run
# How much of what a peer sent is parsed at a time: one read can bring 256 KiB, and that much of
# the smallest frames (six bytes each), parsed at once, held the event loop for 0.2 s.
PARSE = 2048
# A peer that takes none of what is written to it for this long is cut off: a phone in a dead
# spot reconnects with after=, and a client that never reads holds nothing for more than this.
STALL_S = 30.0
logger = logging.getLogger("bijse.sockets")
# Where websockets' parser waits when it is between frames (in StreamReader.at_eof, for data).
BETWEEN_FRAMES = StreamReader.at_eof.__code__


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol, with lean containers (above) and limits on a peer that floods or
    does not read.

    What a peer sends is parsed PARSE bytes at a time, and no further while one of its messages
    waits for the application (uvicorn stops reading then too, but parses the whole of a read
    first). Once the application gives the socket an allowance (THROTTLE), WebSocket pings and
    pongs spend from it as the application's pings and refused messages do; over it, a ping
    gets no pong and nothing more of the peer is parsed or read for the whole seconds it must
    wait. Once the transport's buffer is full (uvicorn stops sending there), a WebSocket ping is
    not answered either: websockets queues a pong for every ping, below the application, and a
    client that pings and never reads grew the server by megabytes a second. And a peer that
    stays full for STALL_S is aborted: a polite close would wait for it to read, forever."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Mailbox()  # type: ignore[assignment]
        self.writable = Flag()  # type: ignore[assignment]
        self.stall: asyncio.TimerHandle | None = None
        self.allowance: Allowance | None = None
        self.throttled: asyncio.TimerHandle | None = None  # not read until it fires
        self.unread = b""  # received, parsed up to `parsed`
        self.parsed = 0
        self.heard: Callable[[str], bool] | None = None  # HEAR's
        # The application holds a message from the queue: the next waits in the queue too.
        self.in_app = False
        self.burst = 0  # messages answered at once since parsing resumed
        self.resuming: asyncio.Handle | None = None  # parsing goes on after a burst

    def data_received(self, data: bytes) -> None:
        self.unread, self.parsed = self.unread[self.parsed :] + data, 0
        self.parse()

    def parse(self) -> None:
        """Parse what the peer sent, PARSE bytes at a time, until one of its messages waits for
        the application, it is throttled, or BURST of its messages were answered (the rest is
        parsed at the event loop's next turn); read more from it only once all is parsed."""
        self.burst = 0
        while self.parsed < len(self.unread) and not (
            self.read_paused or self.throttled or self.burst >= BURST or self.transport.is_closing()
        ):
            if self.whole_text():
                continue
            piece = self.unread[self.parsed : self.parsed + PARSE]
            self.parsed += PARSE
            super().data_received(piece)
        if self.transport.is_closing():
            self.unread, self.parsed = b"", 0  # none of the rest is wanted
            return
        if self.parsed >= len(self.unread):
            self.unread, self.parsed = b"", 0
        elif self.burst >= BURST and self.resuming is None:
            self.resuming = self.loop.call_soon(self.resume_parsing)
        if self.read_paused or self.throttled or self.unread:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def whole_text(self) -> bool:
        """Take a whole text frame (masked, unfragmented: a phone's message) at `parsed`
        straight to the application, when websockets' parser is between frames: its generators
        and Frame objects cost more than the command itself. Anything else (a control frame, a
        fragment, a frame not all here, a frame over the size limit) is left to websockets."""
        conn, data, at = self.conn, self.unread, self.parsed
        if len(data) - at < 6 or data[at] != 0x81 or conn.state is not State.OPEN or conn.debug:
            return False  # (under websockets' debug log, its parser logs every frame: let it)
        size, head = data[at + 1] ^ 0x80, at + 2  # masked: the high bit was set
        if size == 126:
            size, head = int.from_bytes(data[at + 2 : at + 4], "big"), at + 4
        elif size > 126:  # not masked (websockets refuses it), or a length of 64 bits
            return False
        end = head + 4 + size
        limit = conn.max_message_size
        if end > len(data) or (limit is not None and size > limit) or conn.extensions:
            return False
        waiting: Any = conn.parser  # the generators it waits in, down to the one that reads
        while (inner := waiting.gi_yieldfrom) is not None:
            waiting = inner
        if waiting.gi_code is not BETWEEN_FRAMES or conn.current_size:
            return False
        self.parsed = end
        self.curr_msg_data_type = "text"
        self.frames = [apply_mask(data[head + 4 : end], data[head : head + 4])]
        self.send_receive_event_to_app()
        return True

    def resume_parsing(self) -> None:
        self.resuming = None
        self.parse()

    def hear(self, heard: Callable[[str], bool]) -> None:
        """From now on, text messages go to `heard` first (HEAR)."""
        self.heard = heard

    def throttle(self, allowance: Allowance) -> Callable[[], float]:
        """From now on the peer's WebSocket pings and pongs spend from `allowance`, and so does
        every message the application counts with the function returned."""
        self.allowance = allowance
        return self.spend

    def spend(self) -> float:
        """One of the allowance, or the seconds until there is one: the peer is not read for
        them (rounded up to whole seconds, as the application tells it)."""
        wait = 0.0 if self.allowance is None else self.allowance.take()
        if wait and self.throttled is None:
            self.throttled = self.loop.call_later(whole_seconds(wait), self.unthrottle)
        return wait

    def unthrottle(self) -> None:
        self.throttled = None
        self.parse()

    async def receive(self) -> Any:
        """uvicorn's: the next message; once every message is taken, the peer is parsed on."""
        self.in_app = False  # done with the one before
        message = await self.queue.get()
        self.in_app = True
        if self.read_paused and self.queue.empty():
            self.read_paused = False
            self.parse()
        return message

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, but text that is not UTF-8 is one line in the log, not a traceback."""
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:  # the application is past closing: the peer's close is awaited
            return
        if self.curr_msg_data_type == "bytes":
            self.queue.put_nowait({"type": "websocket.receive", "bytes": data})
        else:
            try:
                text = data.decode()
            except UnicodeDecodeError:
                logger.info("%s: a WebSocket text message that is not UTF-8; closed", self.client)
                self.conn.send_close(1007, "text that is not UTF-8")
                self.handle_parser_exception()
                return
            heard = self.heard
            if heard is not None and not self.in_app and heard(text):
                self.burst += 1
                return
            self.queue.put_nowait({"type": "websocket.receive", "text": text})
        self.read_paused = True  # parse() reads no further until the application takes it

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
        for timer in (self.stall, self.throttled, self.resuming):
            if timer is not None:
                timer.cancel()
        self.stall = self.throttled = self.resuming = None
        self.heard = None
        super().connection_lost(exc)

    def cut_off(self) -> None:
        self.stall = None
        logger.info("%s: a WebSocket that read nothing for %g s is cut off", self.client, STALL_S)
        self.transport.abort()

    def handle_ping(self) -> None:
        """uvicorn writes what websockets has queued: a pong for this ping and for each later
        one parsed with it. Each spends from the allowance; over it, or when the peer does not
        read, they are dropped."""
        output = [
            data
            for data in self.conn.data_to_send()
            if data[:1] != PONG or (self.writable.is_set() and not self.spend())
        ]
        self.transport.write(b"".join(output))

    def handle_pong(self, event: Frame) -> None:
        self.spend()
        super().handle_pong(event)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if hasattr(self, "scope"):
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[WRITE] = self.write_text
            extensions[THROTTLE] = self.throttle
            extensions[HEAR] = self.hear

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept":
            # The handshake is answered: its request and response are not needed again.
            self.request = self.response = None  # type: ignore[assignment]
        elif message["type"] == "websocket.close" and self.unread:
            self.parse()  # the peer's own close may be in what it sent already

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
        parts = conn.data_to_send() if conn.writes else []  # a pong websockets queued goes first
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


# How long a connection kept alive after an answer may wait for its next request. A client that
# sends into one the server has just closed gets no answer (httpx: ReadError; behind Caddy: 502 to
# a phone's command), so the server outlives the clients' own idle pools: Caddy's to an upstream
# (2 min), Go's (90 s), aiohttp's (15 s), httpx's (5 s, which uvicorn's default of 5 s raced).
KEEP_ALIVE_S = 130

# How every connection is run, by `bijse serve` and by the tests' servers alike. No
# permessage-deflate: a view is a few KiB, and compressing every one costs the server more CPU
# than the bytes it saves.
OPTIONS: dict[str, Any] = {
    "ws": LeanWebSocketProtocol,
    "ws_max_size": 1024 * 1024,
    "ws_per_message_deflate": False,
    "timeout_keep_alive": KEEP_ALIVE_S,
}
