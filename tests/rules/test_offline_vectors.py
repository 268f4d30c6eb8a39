"""The offline duel's shared vectors (`key_id`, the commitment, `prev`), read from the block that
docs/rules/card-duel.md ("Offline duels", "Shared vectors of the texts") holds, against the server's
code; the phone's qrtext.js is checked against the same block in tests/browser/test_vectors.py."""

import itertools
import json
import re
from pathlib import Path
from typing import Any

from server.rules.card_duel.offline import (
    Pick,
    digest,
    key_id,
    message,
    public_key,
    verify,
)

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules" / "card-duel.md"


def offline_vectors() -> dict[str, Any]:
    """The page's one fenced block marked ```json offline-vectors."""
    text = PAGE.read_text("utf-8")
    found: list[str] = re.findall(r"^```json offline-vectors\n(.*?)^```$", text, re.M | re.S)
    assert len(found) == 1, "docs/rules/card-duel.md must hold one ```json offline-vectors block"
    vectors: dict[str, Any] = json.loads(found[0])
    return vectors


VECTORS = offline_vectors()


def test_the_docs_hold_vectors_of_each_kind() -> None:
    assert len(VECTORS["key_id"]) >= 1
    assert len(VECTORS["commitment"]) >= 1
    assert len(VECTORS["prev"]) >= 2


def test_key_id_is_the_first_8_bytes_of_sha256_of_the_raw_key() -> None:
    for case in VECTORS["key_id"]:
        assert key_id(case["public_key"]) == case["key_id"]
        assert len(case["key_id"]) == 11 and "=" not in case["key_id"]


def test_the_commitment_hashes_card_id_dot_nonce() -> None:
    for case in VECTORS["commitment"]:
        assert digest(f"{case['card_id']}.{case['nonce']}") == case["h"]
        assert len(case["h"]) == 43 and "=" not in case["h"]


def test_prev_is_the_digest_of_the_whole_text_and_each_text_is_signed() -> None:
    texts = VECTORS["prev"]
    for case in texts:
        assert digest(case["text"]) == case["prev"]
        signed = message(case["text"])  # split at the last "~"
        assert signed.signed == case["text"].rpartition("~")[0].encode()
        verify(public_key(case["key"]), signed)  # raises bad_signature otherwise
    for before, after in itertools.pairwise(texts):
        assert message(after["text"]).body.p == before["prev"]
    # The vectors' round: the challenge commits to the commitment vector, the reveal opens it,
    # and the pick's face has a "~" in its title.
    challenge, pick, reveal = (message(case["text"]).body for case in texts[:3])
    commitment = VECTORS["commitment"][0]
    assert challenge.h == commitment["h"]  # type: ignore[union-attr]
    assert (reveal.c, reveal.k) == (commitment["card_id"], commitment["nonce"])  # type: ignore[union-attr]
    assert isinstance(pick, Pick) and pick.f is not None and "~" in pick.f.title
    ids = {case["public_key"]: case["key_id"] for case in VECTORS["key_id"]}
    assert challenge.i == ids[texts[0]["key"]]  # type: ignore[union-attr]
    assert pick.i == ids[texts[1]["key"]]
