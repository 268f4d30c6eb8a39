"""A request's head (its line and headers) comes whole, soon and bounded, or the connection is
closed.

uvicorn closes a connection kept alive after an answer, but never one whose request has not all
come: a client that connected and sent nothing, or a header a byte a second (slowloris), held its
descriptor for good, and 1,100 of them left none for anyone else. Nor does httptools bound a
head: 100 MB of headers were taken in. Here a head must be whole within HEAD_S of the connection
(or of the first byte of the next request on a connection kept alive), and within HEAD_MAX bytes.
Under `--workers N` the door holds a connection to the same rules while it reads the head
(server/serve/door.py), and hands what it read to the worker with the connection.
"""

import asyncio
import re
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

HEAD_S = 10.0  # seconds from the connection (or the next request's first byte) to a whole head
HEAD_MAX = 32 * 1024  # bytes a head may take without ending
END = re.compile(rb"\r?\n\r?\n")  # the blank line that ends a head
TOO_LARGE = b"the request head is over 32 KiB"


def whole(data: bytes | bytearray, since: int = 0) -> bool:
    """Whether `data` holds the end of a head; bytes before `since` were looked at already."""
    return END.search(data, max(0, since - 3)) is not None


class TimelyHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools, which uvicorn's "auto" picks), with a head that must
    be whole within HEAD_S and HEAD_MAX: too late, the connection is closed without an answer;
    too large, it is answered 431. `head` is what the door read of the connection already: it is
    taken as if it had just come, before anything read from the socket."""

    def __init__(self, *args: Any, head: bytes = b"", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head = head
        self.due: asyncio.TimerHandle | None = None  # while a head is coming
        self.taken = 0  # bytes received while it is coming

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.expect_head()
        head, self.head = self.head, b""
        if head:
            self.data_received(head)

    def expect_head(self) -> None:
        if self.due is None:
            self.due = self.loop.call_later(HEAD_S, self.too_late)
            self.taken = 0

    def head_came(self) -> None:
        if self.due is not None:
            self.due.cancel()
            self.due = None

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.expect_head()  # the next request of a connection kept alive

    def on_headers_complete(self) -> None:
        self.head_came()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        # Parsed in pieces no larger than what a coming head may still take, so that one that
        # does not end within HEAD_MAX is refused there. A piece in which a head begins counts
        # whole: a later head on a connection kept alive may be refused a little before.
        while data:
            room = HEAD_MAX - self.taken if self.due is not None else HEAD_MAX
            piece, data = data[:room], data[room:]
            super().data_received(piece)
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return  # answered 400, or a WebSocket now
            if self.due is not None:
                self.taken += len(piece)
                if self.taken >= HEAD_MAX:
                    self.head_came()
                    self.refuse()
                    return

    def connection_lost(self, exc: Exception | None) -> None:
        self.head_came()
        super().connection_lost(exc)

    def too_late(self) -> None:
        self.due = None
        self.transport.close()

    def refuse(self) -> None:
        """431, in plain text as uvicorn answers a request that is not HTTP (its 400)."""
        content = [STATUS_LINE[431]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: text/plain; charset=utf-8\r\n",
                b"content-length: " + str(len(TOO_LARGE)).encode() + b"\r\n",
                b"connection: close\r\n\r\n",
                TOO_LARGE,
            ]
        )
        self.transport.write(b"".join(content))
        self.transport.close()
