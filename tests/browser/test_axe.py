"""axe-core on every main screen, in Czech: no serious or critical violation.

axe-core (MPL-2.0, https://github.com/dequelabs/axe-core) is vendored minified in
tests/browser/vendor/ with its license; the phones here let Playwright inject it past the app's
Content-Security-Policy (`bypass_csp`, these contexts only). The games are set up over HTTP as in
test_widths.py; each screen is opened on one phone, checked once it shows, and every finding is
listed at the end. A rule axe keeps experimental (off by default) is turned on where the app
must meet it: an accessible name that contains the visible text (WCAG 2.5.3).
"""

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    duel,
    events,
    local,
    new_game,
    new_gm_game,
    new_rank_game,
    server_view,
)

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
BLOCKING = ("serious", "critical")
# Waits for the animations that end (a notice fading in would read as low contrast).
SETTLED = """() => Promise.all(document.getAnimations()
  .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
  .map((a) => a.finished.catch(() => null)))"""
# One finding a line: impact, rule, what it asks, and the first few elements it found.
RUN = """async () => {
  const result = await axe.run(document, {
    resultTypes: ["violations"],
    rules: { "label-content-name-mismatch": { enabled: true } },
  });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")),
    html: v.nodes[0]?.html.slice(0, 120) ?? "",
  }));
}"""


@dataclass
class Checker:
    """One Czech phone; `look` opens a screen and runs axe on it."""

    page: Page
    live_server: str
    found: list[str] = field(default_factory=list)
    minor: list[str] = field(default_factory=list)
    screens: list[str] = field(default_factory=list)

    async def look(
        self,
        name: str,
        url: str,
        ready: str,
        prepare: Callable[[Page], Awaitable[Any]] | None = None,
    ) -> None:
        await self.page.goto(local(url, self.live_server) if "://" in url else url)
        await expect(self.page.get_by_test_id(ready).first).to_be_visible()
        if prepare:
            await prepare(self.page)
        await self.page.evaluate(SETTLED)
        if not await self.page.evaluate("() => typeof axe === 'object'"):
            await self.page.add_script_tag(path=AXE)
        violations: list[dict[str, Any]] = await self.page.evaluate(RUN)
        self.screens.append(name)
        for v in violations:
            where = ", ".join(v["nodes"])
            line = f"{name}: {v['impact']} {v['id']} ({v['help']}): {where}; {v['html']}"
            (self.found if v["impact"] in BLOCKING else self.minor).append(line)

    def assert_clean(self) -> None:
        # The moderate and minor ones are printed (pytest -s, or with a failure), not failed on.
        print("\n".join(["axe, below serious:", *self.minor]))
        assert self.screens, "no screen was checked"
        found = "\n".join(self.found)
        assert not found, f"axe, serious or critical:\n{found}"


@pytest.fixture
async def axe(phone: Phone, live_server: str) -> AsyncIterator[Checker]:
    context = await phone(bypass_csp=True)
    yield Checker(await context.new_page(), live_server)


def join(member: dict[str, Any]) -> str:
    url: str = member["join_url"]
    return url


def org_url(game: dict[str, Any]) -> str:
    return f"/#/join/{game['gid']}/{game['org']}"


async def close_reveal(page: Page) -> None:
    await page.get_by_test_id("reveal-ok").click()


async def test_home_and_card_duel(axe: Checker, api: httpx.AsyncClient) -> None:
    await axe.look("home", "/#/games", "create-form")
    game = await new_game(api, ["Alice", "Bob"])
    gid, org = game["gid"], game["org"]
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    await axe.look("cd-player-lobby", join(alice), "my-code")
    await duel(api, game, {"Alice": STUN_CARD, "Bob": None})
    await axe.look("cd-pick", join(bob), "duel")
    view = await server_view(api, gid, bob["token"])
    card = next(c["card_id"] for c in view["me"]["cards"] if c["title"] == WOUND_CARD)
    pick = {"type": "pick", "duel_id": view["duel"]["duel_id"], "card_id": card}
    await command(api, gid, bob["token"], pick)
    await axe.look("cd-reveal", join(bob), "reveal")
    await axe.look("cd-stunned", join(bob), "reveal", close_reveal)
    await axe.look("cd-organizer", org_url(game), "game-status")
    await axe.look("cd-invites", "/#/invites", "invite-url")
    await command(api, gid, org, {"type": "end_game"})
    ended = next(e for e in await events(api, gid, org) if e["type"] == "duel_ended")
    await axe.look("cd-ended", join(alice), "game-over")
    await axe.look("replay", f"/#/replay/{gid}/{ended['seq']}", "replay-events")
    await axe.look("games", "/#/games", "open-game-0")
    axe.assert_clean()


async def test_rank_bases(axe: Checker, api: httpx.AsyncClient) -> None:
    game = await new_rank_game(api)
    gid, people = game["gid"], game["people"]
    red4, blue2 = people["red4"], people["blue2"]
    await axe.look("rb-player", join(red4), "my-code")
    await command(api, gid, red4["token"], {"type": "duel", "target": blue2["code"]})
    await axe.look("rb-duel-incoming", join(blue2), "duel-incoming")
    await axe.look("rb-leader", join(people["red-leader"]), "base-team")
    await axe.look("rb-organizer", org_url(game), "game-status")
    await axe.look("rb-board", join(people["board"]), "board")
    axe.assert_clean()


async def test_dice_combat(axe: Checker, api: httpx.AsyncClient) -> None:
    sheets = [
        {"name": "Hrdina Bohumil", "side": "Družina", "player": "Alice", "lives": 80},
        {"name": "Skřetí náčelník", "side": "Skřeti", "str": 3, "lives": 40},
    ]
    game = await new_gm_game(api, "dice-combat", ["Alice"], sheets)
    gid, org = game["gid"], game["org"]
    hero, orc = game["ids"]["Hrdina Bohumil"], game["ids"]["Skřetí náčelník"]
    alice = game["players"]["Alice"]
    await axe.look("dc-player", join(alice), f"my-combatant-{hero}")
    await command(api, gid, org, {"type": "begin_fight", "combatants": [hero, orc]})
    await axe.look("dc-gm", org_url(game), "dice-gm")
    axe.assert_clean()


async def test_stamina_deck(axe: Checker, api: httpx.AsyncClient) -> None:
    sword = {"lives": 5, "melee": 3, "weapon": {"name": "Šavle", "melee": True, "ranged": False}}
    characters = [
        {"name": "Rytíř Bořivoj", "side": "Hrad", "player": "Anna", "x": 3, "y": 3, **sword},
        {"name": "Lapka z Lesa", "side": "Les", "player": "Bob", "x": 4, "y": 3, **sword},
    ]
    game = await new_gm_game(api, "stamina-deck", ["Anna", "Bob"], characters)
    gid, org, ids = game["gid"], game["org"], game["ids"]
    anna = game["players"]["Anna"]
    await axe.look("sd-player", join(anna), f"deck-me-{ids['Rytíř Bořivoj']}")
    engage = {"type": "engage", "attacker": ids["Rytíř Bořivoj"], "defender": ids["Lapka z Lesa"]}
    await command(api, gid, org, engage)
    await command(api, gid, org, {"type": "start_round"})
    await axe.look("sd-player-bout", join(anna), "deck-hand")
    await axe.look("sd-gm", org_url(game), "deck-gm")
    axe.assert_clean()
