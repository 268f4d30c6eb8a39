"""A phone of an offline duel, in Python, as docs/rules/card-duel.md ("Offline duels") describes it:
its own P-256 key, and the signed QR texts it shows. The tests settle duels with it as two real
phones would, then cheat with it in every way the server must refuse."""

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from server.rules.card_duel.offline import b64, digest, key_id


@dataclass
class Phone:
    player_id: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )

    @property
    def public_key(self) -> str:
        raw = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64(raw)

    def sign(self, body: dict[str, Any]) -> str:
        """`<body>~<signature>`: compact JSON, and r ‖ s as WebCrypto gives it."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        r, s = decode_dss_signature(self.key.sign(text.encode(), ec.ECDSA(hashes.SHA256())))
        return f"{text}~{b64(r.to_bytes(32) + s.to_bytes(32))}"


@dataclass
class Exchange:
    """The texts of one offline duel so far, A the challenger and B the target."""

    game_id: str
    a: Phone
    b: Phone
    texts: list[str] = field(default_factory=list)
    nonce: str = ""
    card: str = ""
    by_id: bool = False  # round 1 names each key by its id (`i`), not whole (`K`)

    def shown(self, phone: Phone) -> dict[str, str]:
        return {"i": key_id(phone.public_key)} if self.by_id else {"K": phone.public_key}

    def challenge(self, card: str, revision: int, at: int, ranged: bool = False) -> str:
        self.card, self.nonce = card, b64(secrets.token_bytes(16))
        body: dict[str, Any] = {"t": "c"}
        if self.texts:  # a round nobody won: the next one
            n = len(self.texts) // 3 + 1
            body |= {"p": digest(self.texts[-1]), "n": n}
        else:
            body |= {"g": self.game_id, "d": b64(secrets.token_bytes(8)), "a": self.a.player_id}
            body |= {"v": revision, "r": int(ranged), **self.shown(self.a), "n": 1}
        body |= {"at": at, "h": digest(f"{card}.{self.nonce}")}
        return self.add(self.a.sign(body))

    def pick(self, card: str, revision: int, at: int, face: dict[str, Any] | None = None) -> str:
        body: dict[str, Any] = {"t": "p", "p": digest(self.texts[-1])}
        if len(self.texts) == 1:
            body |= {"b": self.b.player_id, "v": revision, **self.shown(self.b)}
        shown = {} if face is None else {"f": face}
        return self.add(self.b.sign(body | {"c": card} | shown | {"at": at}))

    def reveal(self, at: int, card: str | None = None, face: dict[str, Any] | None = None) -> str:
        body = {"t": "r", "p": digest(self.texts[-1]), "c": card or self.card, "k": self.nonce}
        shown = {} if face is None else {"f": face}
        return self.add(self.a.sign(body | shown | {"at": at}))

    def add(self, text: str) -> str:
        self.texts.append(text)
        return text
