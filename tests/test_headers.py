"""Security headers on every HTTP answer: the PWA's files, its entry points, the API, errors."""

import re

import httpx

from server.headers import HEADERS


async def test_every_answer_carries_the_security_headers(live_server: str) -> None:
    async with httpx.AsyncClient(base_url=live_server) as http:
        index = await http.get("/")
        module = re.search(r'src="(v/[^"]+/js/main\.js)"', index.text)
        assert module is not None, index.text[:500]
        answers = [
            index,
            await http.get("/" + module[1]),
            await http.get("/sw.js"),
            await http.get("/api/rulesets"),
            await http.post("/api/games", json={"ruleset": "nope", "name": "x"}),
            await http.get("/api/games/nope/view"),
            await http.get("/no/such/file"),
        ]
    for answer in answers:
        for name, value in HEADERS.items():
            assert answer.headers.get(name) == value, (answer.url, name)
    policy = answers[0].headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
