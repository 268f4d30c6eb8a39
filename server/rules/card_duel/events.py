"""The events of card-duel, as typed records, and the upcasters of their older lines.

Times are ISO 8601 UTC strings with milliseconds, as written on the wire. A card (`CardFace`)
carries `effect` and `effect_s` only when it is `special`: every line written before special
cards is a line today's server writes for a plain card, with the same meaning, so the events
that carry cards kept their versions (`effect_suffered` is new, at version 1).
"""

from typing import Literal

import msgspec

from server.clock import iso, parse_iso
from server.rules import roster
from server.rules.card_duel.cards import CardFace
from server.rules.card_duel.state import Effect
from server.rules.events import UNSET, Fact, Json, Unset

CancelReason = Literal["organizer", "timeout", "left", "game_ended"]
# The organizer's config default when leaving a duel was added: duels logged before it could be
# left from then on (server/rules/card_duel/config.py, Config.leave_after_s).
LEAVE_AFTER_MS = 60_000


class FighterJoined(roster.PlayerJoined, frozen=True):
    """A member joins; a player is dealt the starting cards (an organizer or spectator none)."""

    cards: tuple[CardFace, ...] | Unset = UNSET


class DuelStarted(Fact, frozen=True):
    """v2: `leave_from` is always written (v1 lines before leaving existed have none)."""

    kind = "duel_started"
    version = 2
    duel_id: str
    challenger: str
    target: str
    ranged: bool
    at: str
    deadline: str | None
    leave_from: str


class CardPicked(Fact, frozen=True):
    kind = "card_picked"
    duel_id: str
    round: int
    player_id: str
    card_id: str


class RoundRevealed(Fact, frozen=True):
    """Both picks shown. With no winner the duel goes on, and the next round's `deadline` (None:
    no timeout) and `leave_from` are written; with a winner neither is. (Lines written before
    rounds had their own time leave both out: no deadline, and the duel's own leave_from.)"""

    kind = "round_revealed"
    duel_id: str
    round: int
    cards: dict[str, CardFace]
    winners: list[str]
    deadline: str | Unset | None = UNSET
    leave_from: str | Unset = UNSET


class Outcome(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    player_id: str
    effect: Effect
    until: str | None


class DuelEnded(Fact, frozen=True):
    kind = "duel_ended"
    duel_id: str
    outcomes: list[Outcome]


class DuelCancelled(Fact, frozen=True):
    kind = "duel_cancelled"
    duel_id: str
    reason: CancelReason
    players: list[str]
    by: str | Unset = UNSET  # who left, when one did


class PlayerEscaped(Fact, frozen=True):
    kind = "player_escaped"
    duel_id: str
    player_id: str
    until: str


class PlayerStunned(Fact, frozen=True):
    kind = "player_stunned"
    duel_id: str
    player_id: str
    until: str


class PlayerWounded(Fact, frozen=True):
    kind = "player_wounded"
    duel_id: str
    player_id: str


class PlayerKilled(Fact, frozen=True):
    kind = "player_killed"
    duel_id: str
    player_id: str


class EffectSuffered(Fact, frozen=True):
    """A winning special card's effect on the player it beat (`card_id`: the card). `until` is
    the duel's end + `effect_s`, or None for an effect with no time of its own."""

    kind = "effect_suffered"
    duel_id: str
    player_id: str
    card_id: str
    effect: str
    effect_s: int | None
    until: str | None


class PlayerHealed(Fact, frozen=True):
    kind = "player_healed"
    player_id: str


class CardGranted(Fact, frozen=True):
    kind = "card_granted"
    player_id: str
    card: CardFace


class ItemGranted(Fact, frozen=True):
    kind = "item_granted"
    player_id: str
    item: str


class PlayerRevived(Fact, frozen=True):
    """A dead player is back with a fresh hand and nothing else."""

    kind = "player_revived"
    player_id: str
    cards: tuple[CardFace, ...]


class KeyRegistered(Fact, frozen=True):
    """A phone's public key for offline duels, its player's key from now on; a record signed
    by an earlier one still counts. v2: no longer a change of the fighter (its `revision`), so
    that registering a key again never voids a record signed before; a v1 line (earlier logs)
    still counts as one on replay, as it did when it was written."""

    kind = "key_registered"
    version = 2
    player_id: str
    key_id: str
    public_key: str


class OfflineDuelRecorded(Fact, frozen=True):
    """An offline duel taken into the log: the signed record as the phones made it, then the
    duel's events as an online duel writes them (duel_started … duel_ended, same duel_id).
    `forfeit`: the challenger, who saw the pick and did not reveal; else None."""

    kind = "offline_duel_recorded"
    duel_id: str
    challenger: str
    target: str
    at: str  # the challenge, by the challenger's phone
    forfeit: str | None
    record: list[str]


VoidReason = Literal["conflict", "dead", "stunned", "immune", "busy", "needs_crossbow"]
VOIDS_KEPT = 20  # void records a player's duels may leave in the log; more are refused


class OfflineDuelVoid(Fact, frozen=True):
    """A well-signed offline duel that the log could not take: `conflict` when it moved on for
    either player meanwhile, else why one of them could not duel at the duel's time."""

    kind = "offline_duel_void"
    duel_id: str
    challenger: str
    target: str
    at: str
    reason: VoidReason
    record: list[str]


DisputeReason = Literal["revealed", "acted"]


class OfflineDuelDisputed(Fact, frozen=True):
    """An offline duel whose record and the log truly disagree, for the organizer to decide
    (nothing else changes): `revealed`, the challenger's whole record (`record`) came after the
    target's forfeit claim was recorded, and its cards decide otherwise; `acted`, the loser of
    an offline duel recorded just before duelled in `duels` (begun after the offline duel) while
    the record says it was stunned or dead."""

    kind = "offline_duel_disputed"
    duel_id: str
    challenger: str
    target: str
    reason: DisputeReason
    duels: list[str]
    record: list[str] | None
    loser: str | None  # `acted`: who duelled while out; else None
    effect: Literal["stun", "death"] | None  # `acted`: what the record did to the loser


Ruling = Literal["record", "log"]


class DisputeSettled(Fact, frozen=True):
    """The organizer's ruling on a disputed offline duel: `record`, the phones' record stands;
    `log`, what the log holds stands. The server changes nothing else: the organizer applies
    the ruling's consequences with the console's commands (heal, revive, grant a card)."""

    kind = "dispute_settled"
    duel_id: str
    challenger: str
    target: str
    ruling: Ruling


def upcast_key_registered_v1_v2(data: Json) -> Json:
    """The same fields: only what replay does with the line differs (see KeyRegistered)."""
    return data


def upcast_duel_started_v1_v2(data: Json) -> Json:
    """Duels logged before leaving existed could be left from the default wait on."""
    if "leave_from" in data:
        return data
    return {**data, "leave_from": iso(parse_iso(data["at"]) + LEAVE_AFTER_MS)}


EVENTS = roster.EVENTS.extended(
    [
        FighterJoined,
        DuelStarted,
        CardPicked,
        RoundRevealed,
        DuelEnded,
        DuelCancelled,
        PlayerEscaped,
        PlayerStunned,
        PlayerWounded,
        PlayerKilled,
        EffectSuffered,
        PlayerHealed,
        CardGranted,
        ItemGranted,
        PlayerRevived,
        KeyRegistered,
        OfflineDuelRecorded,
        OfflineDuelVoid,
        OfflineDuelDisputed,
        DisputeSettled,
    ],
    {
        ("duel_started", 1): upcast_duel_started_v1_v2,
        ("key_registered", 1): upcast_key_registered_v1_v2,
    },
)
