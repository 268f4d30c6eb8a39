"""A WebSocket client on a plain TCP socket, for what a polite client never does: frames of any
kind and size, a handshake with any headers, and never reading what the server sends."""

import base64
import os
import socket
import struct

CONT, TEXT, BINARY, CLOSE, PING = 0, 1, 2, 8, 9


def handshake(
    port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 5
) -> tuple[socket.socket, bytes]:
    """Opens `path` on 127.0.0.1:port; returns the socket and the server's answer head."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    fields = {
        "Host": f"127.0.0.1:{port}",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        "Sec-WebSocket-Version": "13",
        **(headers or {}),
    }
    head = "".join(f"{name}: {value}\r\n" for name, value in fields.items())
    sock.sendall(f"GET {path} HTTP/1.1\r\n{head}\r\n".encode("latin-1"))
    answer = b""
    while b"\r\n\r\n" not in answer:
        byte = sock.recv(1)
        if not byte:
            break
        answer += byte
    return sock, answer


def frame(payload: bytes, opcode: int = TEXT, fin: bool = True) -> bytes:
    """One frame (final unless told), masked as a client's must be."""
    size, first = len(payload), (0x80 if fin else 0) | opcode
    if size < 126:
        head = bytes([first, 0x80 | size])
    elif size < 1 << 16:
        head = bytes([first, 0x80 | 126]) + struct.pack("!H", size)
    else:
        head = bytes([first, 0x80 | 127]) + struct.pack("!Q", size)
    mask = os.urandom(4)
    key = (mask * (size // 4 + 1))[:size]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")
    return head + mask + masked


def unframed(data: bytes) -> list[tuple[int, bytes]]:
    """The server's whole frames at the start of `data` (unmasked, as a server's are): each
    frame's opcode and payload; a frame not all come yet ends the list."""
    found, start = [], 0
    while len(data) >= start + 2:
        size, at = data[start + 1] & 0x7F, start + 2
        if size == 126:
            size, at = int.from_bytes(data[at : at + 2], "big"), at + 2
        elif size == 127:
            size, at = int.from_bytes(data[at : at + 8], "big"), at + 8
        if len(data) < at + size:
            break
        found.append((data[start] & 0x0F, data[at : at + size]))
        start = at + size
    return found
