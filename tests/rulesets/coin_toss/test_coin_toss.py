"""A ruleset is one folder on each side: coin-toss lives here, under tests/, and a real server
started with `BIJSE_RULESETS=tests.rulesets` loads it as it loads the four real ones; the PWA
learns it from `/api/rulesets`, creates it, plays it and ends it in Chromium. No shared file of
the server or the PWA names it, nor any other ruleset."""

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Playwright, expect

from server.rules import RULESETS, discover
from server.web.shell import Shell
from tests.browser.conftest import phones
from tests.browser.helpers import shot
from tests.conftest import free_port
from tests.proxy import serve, stop

ROOT = Path(__file__).resolve().parents[3]
IDS = sorted({**RULESETS, **discover(["tests.rulesets"])})  # every ruleset, wherever it lives
RULESET_ID = re.compile(rf"""["'`]({"|".join(map(re.escape, IDS))})["'`]""")


def named_outside(folder: str, inside: str, suffixes: tuple[str, ...]) -> list[str]:
    """Quoted ruleset ids in `folder` outside its `inside` part."""
    found = []
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix not in suffixes or (ROOT / inside) in path.parents:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if RULESET_ID.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_shared_file_names_a_ruleset() -> None:
    assert named_outside("pwa", "pwa/js/rulesets", (".js", ".html", ".css")) == []
    assert named_outside("server", "server/rules", (".py",)) == []


def test_its_styles_are_linked_by_the_shell() -> None:
    """Its styles.css is served with its screens, and js/rulesets.js is told to link it."""
    coin = discover(["tests.rulesets"])["coin-toss"]
    assert coin.phone is not None
    shell = Shell(ROOT / "pwa", {"js/rulesets/coin-toss": coin.phone})
    assert shell.assets["js/rulesets/coin-toss/styles.css"].media_type == "text/css"
    assert 'const STYLED = ["coin-toss"];' in shell.assets["js/rulesets.js"].body.decode()


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    port = free_port()
    process = await serve(
        port,
        f"sqlite:///{tmp_path / 'coin.db'}",
        tmp_path / "server.log",
        "--workers",
        "1",
        "--open-creation",
        env={"BIJSE_RULESETS": "tests.rulesets"},
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


async def test_the_server_loads_it_as_any_other(server: str) -> None:
    async with httpx.AsyncClient(base_url=server) as api:
        listed = {r["id"]: r for r in (await api.get("/api/rulesets")).json()}
        assert {"card-duel", "coin-toss"} <= set(listed)
        assert listed["coin-toss"]["config_schema"]["properties"]["tosses"]["maximum"] == 20
        screens = await api.get("/js/rulesets/coin-toss/screens.js")
        assert screens.status_code == 200 and "export function screen" in screens.text
        assert (await api.get("/js/rulesets/coin-toss/nothing.js")).status_code == 404


async def test_played_end_to_end_in_chromium(server: str, pw: Playwright, browser: Browser) -> None:
    async with phones(pw, browser, server) as phone:
        organizer = await (await phone()).new_page()
        await organizer.goto("/#/games")
        await organizer.get_by_test_id("config-ruleset").select_option("coin-toss")
        await organizer.get_by_test_id("game-name").fill("Mince")
        await organizer.get_by_test_id("config-tosses").fill("2")
        await organizer.get_by_test_id("create-game").click()
        await expect(organizer.get_by_test_id("coin-console")).to_be_visible()
        await expect(organizer.get_by_test_id("game-name")).to_have_text("Mince")
        for name in ("Alice", "Bob"):
            await organizer.get_by_test_id("player-name").fill(name)
            await organizer.get_by_test_id("add-player").click()
            await expect(organizer.get_by_test_id("coin-tally")).to_contain_text(name)
        await organizer.get_by_test_id("start-game").click()
        await expect(organizer.get_by_test_id("game-status")).to_have_attribute(
            "data-status", "running"
        )
        await shot(organizer, "coin/console")

        invites = await organizer.evaluate(
            """async () => {
              const s = JSON.parse(localStorage.getItem("bijse.sessions"))[0];
              const auth = {headers: {Authorization: `Bearer ${s.token}`}};
              return (await (await fetch(`/api/games/${s.game_id}/invites`, auth)).json()).invites;
            }"""
        )
        alice = next(i for i in invites if i["name"] == "Alice")
        path = re.sub(r"^https?://[^/]+", "", alice["join_url"])

        player = await (await phone()).new_page()
        await player.goto(path)
        await expect(player.get_by_test_id("my-code")).to_have_text(alice["code"])
        for left in ("1", "0"):
            await expect(player.get_by_test_id("coin-toss")).to_be_enabled()
            await player.get_by_test_id("coin-toss").click()
            await expect(player.get_by_test_id("coin-left")).to_contain_text(left)
        # The view says no more: the button greys and the server's reason is in words.
        await expect(player.get_by_test_id("coin-toss")).to_be_disabled()
        await expect(player.get_by_test_id("coin-refused")).to_have_text(
            "Už jsi hodil všemi mincemi."
        )
        await expect(player.locator('[data-testid="coin-tosses"] li')).to_have_count(2)
        # Its own stylesheet (pwa/styles.css), linked by the shell under the CSP.
        await expect(player.locator(".ct-side").first).to_have_css("font-weight", "700")
        await shot(player, "coin/player")

        await organizer.get_by_test_id("end-game").click()
        await organizer.get_by_test_id("end-game-confirm").click()
        await expect(player.get_by_test_id("game-over")).to_be_visible()
        await expect(player.get_by_test_id("game-over-mine")).to_contain_text("Hodil jsi")
        await expect(player.get_by_test_id("game-over-replay")).to_be_visible()
        await shot(player, "coin/over")
        await player.get_by_test_id("game-over-replay").click()
        events = player.get_by_test_id("replay-events")
        tossed = re.compile("Alice hází: (Panna|Orel)")  # its own words, from its own folder
        await expect(events).to_contain_text(tossed)
        await expect(player.get_by_test_id("replay-prev-toss")).to_be_visible()
        await shot(player, "coin/replay")
        missing = await player.evaluate("[...(globalThis.bijseMissingWords ?? [])]")
        assert missing == [], missing
