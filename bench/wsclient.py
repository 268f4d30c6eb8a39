"""A lean WebSocket client for the load benches: an asyncio protocol that frames and parses
RFC 6455 itself, one callback a message.

The benches measure the server. A general client library (a task, a queue and a future a
message) cost the load generator as much CPU as the server it drove, on the same two cores;
this one costs a fraction. It still speaks the protocol for real: a handshake checked against
`Sec-WebSocket-Accept`, masked frames with a fresh key each, fragments joined, pings answered,
and a close handshake.
"""

import asyncio
import base64
import hashlib
import os
import struct
from collections.abc import Callable
from urllib.parse import urlsplit

from websockets.speedups import apply_mask

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA
MAX_MESSAGE = 2**22


class Closed(Exception):
    """The connection is closed: nothing more can be sent."""


class Link(asyncio.Protocol):
    """One connection. `heard(payload)` gets each whole text or binary message as bytes."""

    def __init__(self, heard: Callable[[bytes], None]) -> None:
        self.heard = heard
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.fragments: list[bytes] = []
        self.key = base64.b64encode(os.urandom(16))
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.upgraded = False

    @classmethod
    async def open(cls, url: str, heard: Callable[[bytes], None], timeout: float = 30) -> "Link":
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        loop = asyncio.get_running_loop()
        transport, link = await loop.create_connection(lambda: cls(heard), host, port)
        link.transport = transport  # uvloop may call connection_made only after this returns
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        transport.write(
            f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {link.key.decode()}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        async with asyncio.timeout(timeout):
            await link.opened
        return link

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no asyncio.Transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        error = ConnectionError("closed during the handshake")
        if not self.opened.done():
            self.opened.set_exception(error)
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.upgraded and not self.handshake():
            return
        self.frames()

    def handshake(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head, self.buffer = bytes(self.buffer[:end]), self.buffer[end + 4 :]
        lines = head.split(b"\r\n")
        accept = base64.b64encode(hashlib.sha1(self.key + GUID).digest())
        headers = dict(line.split(b": ", 1) for line in lines[1:] if b": " in line)
        fields = {k.lower(): v for k, v in headers.items()}
        if (
            not lines[0].startswith(b"HTTP/1.1 101")
            or fields.get(b"sec-websocket-accept") != accept
        ):
            self.opened.set_exception(ConnectionError(lines[0].decode(errors="replace")))
            self.abort()
            return False
        self.upgraded = True
        self.opened.set_result(None)
        return True

    def frames(self) -> None:
        buffer = self.buffer
        at = 0
        while len(buffer) - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            size, start = second & 0x7F, at + 2
            if size == 126:
                if len(buffer) - at < 4:
                    break
                size, start = struct.unpack_from("!H", buffer, at + 2)[0], at + 4
            elif size == 127:
                if len(buffer) - at < 10:
                    break
                size, start = struct.unpack_from("!Q", buffer, at + 2)[0], at + 10
            if second & 0x80 or size > MAX_MESSAGE:  # a server never masks
                self.abort()
                return
            if len(buffer) - start < size:
                break
            payload = bytes(buffer[start : start + size])
            at = start + size
            self.frame(first & 0x80, first & 0x0F, payload)
            if self.transport is None:
                return
        del buffer[:at]

    def frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode == PING:
            self.write(PONG, payload)
        elif opcode == CLOSE:
            if not self.closed.done():
                self.write(CLOSE, payload[:2])
            self.abort()
        elif opcode in (TEXT, BINARY, 0):
            if not fin:
                self.fragments.append(payload)
                return
            if self.fragments:
                payload = b"".join([*self.fragments, payload])
                self.fragments = []
            self.heard(payload)

    def write(self, opcode: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise Closed
        size = len(payload)
        if size < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 65536:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        mask = os.urandom(4)
        self.transport.write(head + mask + apply_mask(payload, mask))

    def send(self, text: bytes) -> None:
        """A text message (UTF-8 bytes). Raises Closed once the connection is gone."""
        self.write(TEXT, text)

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    async def close(self) -> None:
        """The close handshake: a close frame, then the server's answer or a second."""
        try:
            self.write(CLOSE, struct.pack("!H", 1000))
        except Closed:
            return
        try:
            async with asyncio.timeout(1):
                await asyncio.shield(self.closed)
        except TimeoutError:
            self.abort()
