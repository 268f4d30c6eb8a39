"""Security headers on every HTTP answer: the PWA's files, its entry points, the API, errors."""

import re

import httpx

from server.web.headers import HEADERS


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


async def test_join_links_take_no_host_that_is_not_a_host(live_server: str) -> None:
    async with httpx.AsyncClient(base_url=live_server) as http:
        game = (await http.post("/api/games", json={"ruleset": "card-duel", "name": "x"})).json()
        auth = {"Authorization": f"Bearer {game['organizer_token']}"}
        for host in ("evil.example/phish?", "a b", "evil.example@x"):
            answer = await http.get("/api/join-origin", headers={"Host": host})
            assert answer.status_code == 422, (host, answer.text)
            added = await http.post(
                f"/api/games/{game['game_id']}/players",
                json={"name": "Alice"},
                headers={**auth, "Host": host},
            )
            assert added.status_code == 422, (host, added.text)
        members = await http.get(f"/api/games/{game['game_id']}/players", headers=auth)
        assert len(members.json()["players"]) == 1  # the organizer: nobody was added
        fine = await http.get("/api/join-origin", headers={"Host": "laptop.local:8000"})
        assert fine.json() == {
            "join_origin": "http://laptop.local:8000",
            "route": "insecure",
            "ca_page": None,
        }
