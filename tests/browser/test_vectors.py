"""The phone's own duel rules (pwa/js/rulesets/card-duel/outcome.js, which settles an offline
duel with no server) against the shared test vectors, which the server passes too
(tests/rules/test_vectors.py)."""

import json
from pathlib import Path

from tests.browser.helpers import Phone
from tests.rules.test_offline_vectors import offline_vectors

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "card_duel.json").read_text()
)

OFFLINE = offline_vectors()  # the offline texts' vectors, from docs/rules/card-duel.md


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


async def test_the_phone_gives_the_offline_texts_vectors_of_the_docs(phone: Phone) -> None:
    """qrtext.js against the offline duel's shared vectors in docs/rules/card-duel.md (`key_id`, the
    commitment, `prev`, each text's signature), which the server passes too
    (tests/rules/test_offline_vectors.py); and round 1's key read as the server reads it."""
    page = await (await phone()).new_page()
    await page.goto("/")
    found = await page.evaluate(
        """async (vectors) => {
        const q = await import("/js/rulesets/card-duel/qrtext.js");
        const all = (list, f) => Promise.all(list.map(f));
        return {
            key_id: await all(vectors.key_id, (c) => q.keyIdOf(q.unb64url(c.public_key))),
            commitment: await all(vectors.commitment, (c) => q.commitment(c.card_id, c.nonce)),
            prev: await all(vectors.prev, (c) => q.prevOf(c.text)),
            signed: await all(vectors.prev, (c) => q.signedBy(q.parse(c.text), c.key)),
            shown: [{ i: "x" }, { K: "y" }, {}, { i: "x", K: "y" }, { i: "" }, { i: "x", K: null }]
                .map((body) => q.keyShown(body)),
        };
    }""",
        OFFLINE,
    )
    assert found == {
        "key_id": [c["key_id"] for c in OFFLINE["key_id"]],
        "commitment": [c["h"] for c in OFFLINE["commitment"]],
        "prev": [c["prev"] for c in OFFLINE["prev"]],
        "signed": [True] * len(OFFLINE["prev"]),
        "shown": ["x", "y", None, None, None, "x"],
    }
