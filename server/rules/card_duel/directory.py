"""What the directory of members carries for a card duel: each player's offline-duel key, so
that a phone holds every key before it walks into a dead spot and a QR text may name its key by
id instead of showing it whole (docs/rules/card-duel.md, "Offline duels")."""

import hashlib

from server.rules.card_duel.state import CardDuel
from server.rules.core import Json


def directory(state: CardDuel) -> tuple[str, dict[str, Json]]:
    """{player_id: {"key": its latest registered public key}}, tagged by a digest of them all:
    a key registered changes the directory's ETag, so a phone revalidating gets it."""
    keys = {pid: fighter.key for pid, fighter in state.fighters.items() if fighter.key}
    tag = hashlib.blake2b(repr(sorted(keys.items())).encode(), digest_size=6).hexdigest()
    return (f".{tag}" if keys else ""), {pid: {"key": key} for pid, key in keys.items()}
