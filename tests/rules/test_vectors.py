"""The server's card-duel outcomes against the shared test vectors (tests/vectors/card_duel.json),
which the phone's own code (an offline duel needs no server) must match too
(tests/browser/test_vectors.py)."""

import json
from pathlib import Path
from typing import Any

import pytest

from server.clock import parse_iso
from server.rules.card_duel.cards import Card, CardSpec
from server.rules.card_duel.decide import reveal
from server.rules.card_duel.events import DuelEnded, RoundRevealed
from server.rules.card_duel.evolve import initial_state
from server.rules.card_duel.state import Duel

VECTORS = json.loads((Path(__file__).parents[1] / "vectors" / "card_duel.json").read_text())
NOW = 1_800_000_000_000


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["name"])
def test_the_server_gives_each_vectors_outcome(case: dict[str, Any]) -> None:
    state = initial_state(VECTORS["config"])
    cards = {p: Card.issue(f"k{p}", CardSpec.model_validate(case[p])) for p in ("a", "b")}
    duel = Duel("d1", ("a", "b"), False, None, NOW)
    facts = reveal(state, duel, cards, NOW)
    revealed = facts[0]
    assert isinstance(revealed, RoundRevealed)
    assert revealed.winners == case["winners"]
    ended = [f for f in facts if isinstance(f, DuelEnded)]
    outcomes = [
        {
            "player": o.player_id,
            "effect": o.effect,
            "for_s": None if o.until is None else (parse_iso(o.until) - NOW) // 1000,
        }
        for o in (ended[0].outcomes if ended else [])
    ]
    assert outcomes == case["outcomes"]


def test_the_vectors_cover_every_kind_and_every_turn_of_the_rules() -> None:
    cases = VECTORS["cases"]
    kinds = {case[p]["kind"] for case in cases for p in ("a", "b")}
    assert kinds == {"escape", "stun", "wound", "death", "special"}
    effects = {o["effect"] for case in cases for o in case["outcomes"]}
    assert effects == {"escape", "escape_failed", "stun", "wound", "death", "special"}
    assert {len(case["winners"]) for case in cases} == {0, 1, 2}
