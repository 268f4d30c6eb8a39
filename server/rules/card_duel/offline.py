"""A duel settled by two phones with no network, brought to the server afterwards.

The phones exchange signed QR texts (docs/rules/card-duel.md, "Offline duels"): the challenger
commits to its card (a hash of the card and a nonce), the target answers with its pick, the
challenger reveals; a round with no winner repeats. Each text is `<body>~<signature>`, the body
compact JSON, the signature ECDSA P-256 over the body's bytes by the key its player registered.
Either phone sends the whole record; the server checks every signature, the chain and the
commitments, then the duel against the log: each player's `revision` (how many times the log
changed its fighter) must be the one its phone signed, or the log has moved on and the duel is
void. A record that stops after a pick is a claim that the challenger saw the pick and did not
reveal: after REVEAL_MS the challenger forfeits. Pure: no clock but the command's, no I/O.
"""

import base64
import hashlib
import itertools
from dataclasses import dataclass, replace

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from server.rules.card_duel.cards import Card
from server.rules.core import RuleError

REVEAL_MS = 10 * 60_000  # how long a challenger who saw the pick has to reveal
SKEW_MS = 2 * 60_000  # how far a phone's clock may be ahead of the server's, or of the other's
OLDEST_MS = 24 * 3_600_000  # a record older than this is refused


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def digest(text: str) -> str:
    """base64url of SHA-256: how a text names the one before it, and a commitment."""
    return b64(hashlib.sha256(text.encode()).digest())


def key_id(public_key: str) -> str:
    """A registered key's short name: the first 8 bytes of SHA-256 of its 65 raw bytes."""
    return b64(hashlib.sha256(unb64(public_key)).digest()[:8])


def public_key(text: str) -> ec.EllipticCurvePublicKey:
    """A P-256 public key from base64url of its uncompressed point (0x04 ‖ X ‖ Y)."""
    try:
        raw = unb64(text)
        if len(raw) != 65 or raw[0] != 4:
            raise ValueError("not an uncompressed point")
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError as error:
        raise RuleError("invalid", f"public_key: not a P-256 public key ({error})") from error


# -- the bodies ----------------------------------------------------------------------------------


class Body(msgspec.Struct, frozen=True, tag_field="t", forbid_unknown_fields=True):
    at: int  # ms since the epoch, by the signer's phone (set to the server's time when online)


class Commit(Body, frozen=True, tag="c"):
    """The challenger's card, hidden: round 1 also names the game, the challenge and A."""

    n: int
    h: str  # digest of "<card_id>.<nonce>"
    g: str | None = None
    d: str | None = None
    a: str | None = None
    v: int | None = None
    r: int | None = None
    key: str | None = msgspec.field(default=None, name="K")  # A's public key, for B's phone
    i: str | None = None  # or its key id, when B's phone holds the key (a smaller QR)
    p: str | None = None


class Face(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The face of the card a pick or a reveal plays, for the other phone to settle the round
    with (a phone knows its own cards only): what a plain card lacks is left out."""

    title: str
    big: int
    small: int
    kind: str
    ranged: bool = False
    effect: str | None = None
    effect_s: int | None = None


def shows(face: Face | None, card: Card) -> bool:
    """Whether a face shown on the other phone is the card played (or none was shown)."""
    if face is None:
        return True
    held = (card.title, card.big, card.small, card.kind, card.ranged, card.effect, card.effect_s)
    shown = (face.title, face.big, face.small, face.kind, face.ranged, face.effect, face.effect_s)
    return held == shown


class Pick(Body, frozen=True, tag="p"):
    """The target's card, in the open: round 1 also names B and its revision."""

    p: str
    c: str
    f: Face | None = None
    b: str | None = None
    v: int | None = None
    key: str | None = msgspec.field(default=None, name="K")  # B's public key, for A's phone
    i: str | None = None  # or its key id, when A's phone holds the key


class Reveal(Body, frozen=True, tag="r"):
    p: str
    c: str
    k: str  # the nonce
    f: Face | None = None


BODY = msgspec.json.Decoder(Commit | Pick | Reveal)


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    body: Commit | Pick | Reveal
    signed: bytes
    signature: bytes


def message(text: str) -> Message:
    body, _, signature = text.rpartition("~")
    try:
        parsed = BODY.decode(body)
        raw = unb64(signature)
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as error:
        raise RuleError("invalid", f"record: a text that is no signed message ({error})") from error
    if len(raw) != 64:
        raise RuleError("invalid", "record: a signature is 64 bytes (r ‖ s)")
    return Message(text, parsed, body.encode(), raw)


def verify(key: ec.EllipticCurvePublicKey, signed: Message) -> None:
    r, s = int.from_bytes(signed.signature[:32]), int.from_bytes(signed.signature[32:])
    try:
        key.verify(encode_dss_signature(r, s), signed.signed, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as error:
        raise RuleError("bad_signature", "a message is not signed by its player's key") from error


# -- a whole record ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Round:
    n: int
    commit: Commit
    pick: Pick
    reveal: Reveal | None  # None: the last round of a forfeit claim


def record_id(texts: list[str] | tuple[str, ...]) -> str:
    """What makes two copies of a record one duel: the digest of its challenge."""
    return digest(texts[0])


@dataclass(frozen=True, slots=True)
class Record:
    game_id: str
    challenger: str
    target: str
    revisions: tuple[int, int]
    # As the phones showed them to each other in round 1: a public key (`K`), or a key id (`i`)
    # until `known` puts the registered key it names in its place.
    keys: tuple[str, str]
    by_id: tuple[bool, bool]  # which of `keys` is a key id
    ranged: bool
    at: int  # the challenge
    rounds: tuple[Round, ...]
    texts: tuple[str, ...]

    @property
    def forfeit(self) -> bool:
        return self.rounds[-1].reveal is None

    @property
    def ended(self) -> int:
        """When the duel was decided: the last reveal, or the pick the challenger left open."""
        last = self.rounds[-1]
        return last.reveal.at if last.reveal is not None else last.pick.at

    @property
    def forfeit_due(self) -> int:
        """When a challenger who saw the last pick and kept its card forfeits: REVEAL_MS after
        that round's challenge or its pick, whichever is later, so that neither phone can
        shorten the challenger's time by dating its text early."""
        last = self.rounds[-1]
        return max(last.commit.at, last.pick.at) + REVEAL_MS


def read(texts: list[str]) -> tuple[Record, list[Message]]:
    """The record's shape: c, p, r rounds, perhaps ending c, p; each text naming the one
    before; round 1 naming the game, the duel, both players and both keys. Signatures are
    checked by `signed`, last: they are the costly part."""
    messages = [message(text) for text in texts]
    first = messages[0].body
    if not isinstance(first, Commit) or not (first.g and first.d and first.a and shown(first)):
        raise RuleError(
            "invalid", "record: it opens with the challenge of round 1 (g, d, a, and K or i)"
        )
    if first.n != 1 or first.p is not None or first.r not in (0, 1) or first.v is None:
        raise RuleError("invalid", "record: the challenge is round 1, names no text before it")
    for before, after in itertools.pairwise(messages):
        if getattr(after.body, "p", None) != digest(before.text):
            raise RuleError("broken_record", "record: a text does not name the one before it")
    rounds: list[Round] = []
    for start in range(0, len(messages), 3):
        commit, pick, reveal = ([m.body for m in messages[start : start + 3]] + [None, None])[:3]
        n = len(rounds) + 1
        if not isinstance(commit, Commit) or not isinstance(pick, Pick) or commit.n != n:
            raise RuleError("invalid", f"record: round {n} is a challenge, then a pick")
        if reveal is not None and not isinstance(reveal, Reveal):
            raise RuleError("invalid", f"record: round {n} ends with the reveal")
        again = (
            commit.g,
            commit.d,
            commit.a,
            commit.v,
            commit.r,
            commit.key,
            commit.i,
            pick.b,
            pick.v,
            pick.key,
            pick.i,
        )
        if n > 1 and any(field is not None for field in again):
            raise RuleError("invalid", f"record: round {n} names no game nor players again")
        rounds.append(Round(n, commit, pick, reveal))
    pick = rounds[0].pick
    if not (pick.b and shown(pick)) or pick.v is None:
        raise RuleError("invalid", "record: the first pick names its player, revision and key")
    if pick.b == first.a:
        raise RuleError("invalid", "record: a player cannot duel itself")
    record = Record(
        game_id=first.g,
        challenger=first.a,
        target=pick.b,
        revisions=(first.v, pick.v),
        keys=(shown(first), shown(pick)),
        by_id=(first.key is None, pick.key is None),
        ranged=first.r == 1,
        at=first.at,
        rounds=tuple(rounds),
        texts=tuple(texts),
    )
    return record, messages


def shown(body: Commit | Pick) -> str:
    """The key a round 1 text shows: its public key `K` or, instead, the id `i` of a key its
    player registered; exactly one, non-empty ("" when not so: `read` refuses it)."""
    if (body.key is None) == (body.i is None):
        return ""
    return body.key or body.i or ""


def known(record: Record, keys: tuple[tuple[str, ...], tuple[str, ...]]) -> Record:
    """The keys the phones showed each other are keys their players registered, then or
    before: a key registered later (the same or a new one) never unsigns a record. A key id
    is replaced by the registered key it names."""
    found = []
    for shown_key, by_id, held in zip(record.keys, record.by_id, keys, strict=True):
        named = [key for key in held if key_id(key) == shown_key] if by_id else [shown_key]
        if not named or named[0] not in held:
            raise RuleError("bad_signature", "a phone showed a key its player never registered")
        found.append(named[0])
    return replace(record, keys=(found[0], found[1]), by_id=(False, False))


def signed(record: Record, messages: list[Message]) -> None:
    """Every challenge and reveal signed by the key the challenger showed, every pick by the
    target's (`known` has checked that they are their players' keys)."""
    challenger, target = (public_key(key) for key in record.keys)  # read once, not a text
    for signed_message in messages:
        verify(target if isinstance(signed_message.body, Pick) else challenger, signed_message)


def timed(record: Record, now: int) -> None:
    """Times in order, within the clock skew of two phones, neither ahead of the server's
    beyond it nor older than OLDEST_MS."""
    times = [body.at for r in record.rounds for body in (r.commit, r.pick, r.reveal) if body]
    if any(later < earlier - SKEW_MS for earlier, later in itertools.pairwise(times)):
        raise RuleError("clock_skew", "record: its times go back further than two clocks differ")
    if max(times) > now + SKEW_MS or min(times) < now - OLDEST_MS:
        raise RuleError("clock_skew", "record: dated ahead of the server's clock or too long ago")


def committed(record: Record) -> None:
    """Each reveal opens its round's commitment."""
    for played in record.rounds:
        reveal = played.reveal
        if reveal is not None and digest(f"{reveal.c}.{reveal.k}") != played.commit.h:
            raise RuleError(
                "bad_commitment", f"round {played.n}: the reveal is not the card committed"
            )
