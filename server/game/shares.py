"""Which worker process owns which game, when several serve one port (`--workers N`): each game
is one worker's, so its state lives in one memory and its commands need no lock across
processes. The door sends a request to its game's worker by the same function."""

import zlib
from collections.abc import Callable


def worker_of(game_id: bytes, workers: int) -> int:
    """The worker that owns a game."""
    return zlib.crc32(game_id) % workers


def owns(worker: int, workers: int) -> Callable[[str], bool]:
    """Whether a game is this worker's."""
    return lambda game_id: worker_of(game_id.encode(), workers) == worker
