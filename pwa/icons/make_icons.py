"""Draw the app icons (pure Python, no Pillow): python3 pwa/icons/make_icons.py

Two playing cards, crossed, on forest green. The maskable icon keeps the cards inside
the central safe zone (a circle of 80 % of the width).
"""

import math
import struct
import zlib
from pathlib import Path

Rgb = tuple[int, int, int]
GREEN = (20, 83, 45)
WHITE = (250, 250, 245)
RED = (200, 30, 40)
INK = (25, 25, 25)
HERE = Path(__file__).parent


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def in_rounded_rect(x: float, y: float, half_w: float, half_h: float, r: float) -> bool:
    dx, dy = abs(x) - (half_w - r), abs(y) - (half_h - r)
    if dx <= 0 or dy <= 0:
        return abs(x) <= half_w and abs(y) <= half_h
    return dx * dx + dy * dy <= r * r


def card_colour(x: float, y: float, angle: float, pip: Rgb) -> Rgb | None:
    """Colour of a card rotated by angle (unit coordinates, card centred at 0, 0); None outside."""
    c, s = math.cos(angle), math.sin(angle)
    u, v = c * x + s * y, -s * x + c * y
    if not in_rounded_rect(u, v, 0.21, 0.30, 0.04):
        return None
    if not in_rounded_rect(u, v, 0.19, 0.28, 0.03):
        return INK
    if abs(u) + abs(v) * 0.75 <= 0.10:  # a diamond pip
        return pip
    return WHITE


def pixel(x: float, y: float, scale: float) -> Rgb:
    x, y = x / scale, y / scale
    for dx, angle, pip in ((0.10, 0.30, RED), (-0.10, -0.30, INK)):
        colour = card_colour(x - dx, y, angle, pip)
        if colour is not None:
            return colour
    return GREEN


def draw(size: int, scale: float) -> bytes:
    samples = ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75))
    rows = []
    for j in range(size):
        row = bytearray()
        for i in range(size):
            acc = [0, 0, 0]
            for sx, sy in samples:
                colour = pixel((i + sx) / size - 0.5, (j + sy) / size - 0.5, scale)
                for k in range(3):
                    acc[k] += colour[k]
            row += bytes(round(a / len(samples)) for a in acc)
        rows.append(bytes(row))
    return png(size, size, rows)


if __name__ == "__main__":
    (HERE / "icon-192.png").write_bytes(draw(192, 1.15))
    (HERE / "icon-512.png").write_bytes(draw(512, 1.15))
    (HERE / "icon-maskable-512.png").write_bytes(draw(512, 0.85))
