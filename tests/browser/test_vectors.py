"""The phone's own duel rules (pwa/js/rulesets/card-duel/outcome.js, which settles an offline
duel with no server) against the shared test vectors, which the server passes too
(tests/rules/test_vectors.py)."""

import json
from pathlib import Path

from tests.browser.helpers import Phone

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "card_duel.json").read_text()
)


async def test_the_phone_gives_each_vectors_outcome(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    found = await page.evaluate(
        """async (vectors) => {
        const { winnersOf, outcomesOf } = await import("/js/rulesets/card-duel/outcome.js");
        return vectors.cases.map((c) => {
            const cards = { a: c.a, b: c.b };
            const winners = winnersOf(cards);
            return { name: c.name, winners, outcomes: outcomesOf(cards, winners, vectors.config) };
        });
    }""",
        VECTORS,
    )
    assert len(found) == len(VECTORS["cases"]) > 0
    for case, ours in zip(VECTORS["cases"], found, strict=True):
        expected = {"name": case["name"], "winners": case["winners"], "outcomes": case["outcomes"]}
        assert ours == expected, case["name"]
