"""card-duel's screens for tests/browser/test_widths.py: every screen a member meets (a
challenge, a duel, a reveal, a stun, a death, a special card's effect), the console with its
open rows, and the shell's screens its game shows: the invites, the replay, the list of games."""

from typing import Any

import httpx
from playwright.async_api import Page, expect

from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    command,
    duel,
    events,
    new_game,
    server_view,
)
from tests.browser.test_widths import Phones, join, org_url

# Long names, as a real camp has them: the reveal and the rows must wrap, not overflow.
CHALLENGER = "Bohumila Procházková"
OPPONENT = "Maximilián Pospíšil"


async def screens(phones: Phones, api: httpx.AsyncClient) -> None:
    game = await new_game(api, [CHALLENGER, OPPONENT, "Cyril", "Dana"], stun_s=900)
    gid, org = game["gid"], game["org"]
    players = game["players"]
    challenger, opponent = players[CHALLENGER], players[OPPONENT]
    await command(
        api,
        gid,
        org,
        {"type": "grant_item", "player_id": challenger["player_id"], "item": "crossbow"},
    )
    await phones.look("cd-player", join(challenger), "my-code")

    async def type_code(page: Page) -> None:
        await page.get_by_test_id("challenge-code").fill(opponent["code"])

    await phones.look("cd-challenge", join(challenger), "challenge-form", type_code)

    await duel(api, game, {CHALLENGER: STUN_CARD, OPPONENT: None})
    await phones.look("cd-duel-pick", join(opponent), "duel")
    await phones.look("cd-duel-picked", join(challenger), "my-pick")
    await duel_pick(api, game, OPPONENT, WOUND_CARD)
    await phones.look("cd-reveal-loser", join(opponent), "reveal")
    await phones.look("cd-reveal-winner", join(challenger), "reveal")

    async def close_reveal(page: Page) -> None:
        await page.get_by_test_id("reveal-ok").click()

    await phones.look("cd-stunned", join(opponent), "reveal", close_reveal)

    scythe = {"title": "Kosa Smrti", "big": 9, "small": 9, "kind": "death", "ranged": False}
    await command(
        api,
        gid,
        org,
        {"type": "grant_card", "player_id": players["Dana"]["player_id"], "card": scythe},
    )
    await duel(api, game, {"Dana": "Kosa Smrti", "Cyril": WOUND_CARD})
    await phones.look("cd-dead", join(players["Cyril"]), "reveal", close_reveal)

    curse = {"title": "Kletba", "big": 3, "small": 2, "kind": "special", "ranged": False}
    curse |= {"effect": "Kletba: 10 minut mluvíš jen ve verších", "effect_s": 600}
    grant = {"type": "grant_card", "player_id": challenger["player_id"], "card": curse}
    await command(api, gid, org, grant)
    await duel(api, game, {CHALLENGER: "Kletba", "Dana": WOUND_CARD})
    await phones.look("cd-effect-reveal", join(players["Dana"]), "reveal")
    await phones.look("cd-effect", join(players["Dana"]), "reveal", close_reveal)

    async def open_rows(page: Page) -> None:
        await page.get_by_test_id(f"player-open-{challenger['player_id']}").click()
        await page.get_by_test_id(f"grant-card-{challenger['player_id']}").click()
        await expect(page.get_by_test_id("grant-form")).to_be_visible()

    await phones.look("cd-console", org_url(game), "game-status", open_rows)
    await phones.look("cd-invites", "/#/invites", "invite-url")

    await command(api, gid, org, {"type": "end_game"})
    ended = next(e for e in await events(api, gid, org) if e["type"] == "duel_ended")
    await phones.look("cd-ended", join(challenger), "game-over")
    await phones.look("replay", f"/#/replay/{gid}/{ended['seq']}", "replay-view")
    await phones.look("games", "/#/games", "open-game-0")


async def duel_pick(api: httpx.AsyncClient, game: dict[str, Any], name: str, title: str) -> None:
    """`name` picks the card titled `title` in their open duel."""
    player = game["players"][name]
    view = await server_view(api, game["gid"], player["token"])
    card = next(c["card_id"] for c in view["me"]["cards"] if c["title"] == title)
    pick = {"type": "pick", "duel_id": view["duel"]["duel_id"], "card_id": card}
    await command(api, game["gid"], player["token"], pick)
