"""rank-bases in the PWA: a duel by code and its reveal, a delivery recorded at the base that moves
the public scoreboard live, the rank hidden until tapped, a raid with ordered defenders and a part
taken, a new paper, and the organizer's console from creating the game to its end."""

from typing import Any

from httpx import AsyncClient
from playwright.async_api import BrowserContext, Page, expect

from tests.browser.helpers import (
    Phone,
    command,
    invite_url,
    local,
    new_rank_game,
    top_shot,
    watch_errors,
)

BIG_SCREEN = {
    "viewport": {"width": 1280, "height": 720},
    "is_mobile": False,
    "has_touch": False,
    "device_scale_factor": 1,
}


def token_of(invite: dict[str, Any]) -> str:
    """The token at the end of an invite's join URL (…/#/join/<game>/<token>)."""
    token: str = invite["join_url"].rsplit("/", 1)[1]
    return token


async def open_as(context: BrowserContext, member: dict[str, Any], live_server: str) -> Page:
    page = await context.new_page()
    await page.goto(local(member["join_url"], live_server))
    return page


async def test_duel_then_delivery_moves_the_scoreboard_live(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_rank_game(api)
    people = game["people"]
    red4, blue2 = people["red4"], people["blue2"]
    attacker = await open_as(await phone(), red4, live_server)
    target = await open_as(await phone(), blue2, live_server)
    leader = await open_as(await phone(), people["red-leader"], live_server)
    board = await open_as(await phone(**BIG_SCREEN), people["board"], live_server)
    errors = [*map(watch_errors, (attacker, target, leader, board))]

    await expect(board.get_by_test_id("score-red")).to_have_text("0")
    await expect(board.get_by_test_id("score-chart")).to_be_visible()
    await top_shot(attacker, "30-rank-player-home")

    # red4 touches blue2 and opens the duel by code; blue2 reveals.
    await attacker.get_by_test_id("duel-code").fill(blue2["code"].lower())
    # Players do not know each other's codes: no name before the server opens the duel.
    await expect(attacker.get_by_test_id("duel-target")).to_have_count(0)
    await attacker.get_by_test_id("duel-submit").click()
    await expect(attacker.get_by_test_id("duel-waiting")).to_be_visible()
    await expect(target.get_by_test_id("duel-incoming")).to_be_visible()
    await expect(target.get_by_test_id("duel-opponent")).to_have_text("Rudý 4")
    await top_shot(target, "31-rank-duel-incoming")
    await target.get_by_test_id("reveal-duel").click()

    await expect(attacker.get_by_test_id("duel-verdict")).to_have_attribute("data-outcome", "won")
    await expect(target.get_by_test_id("duel-verdict")).to_have_attribute("data-outcome", "lost")
    await expect(target.get_by_test_id("duel-result")).to_contain_text("Hum Cimil")  # 4
    await expect(target.get_by_test_id("duel-result")).to_contain_text("Gukumatz")  # 2
    await top_shot(attacker, "32-rank-duel-won")
    await top_shot(target, "33-rank-duel-lost")
    await attacker.get_by_test_id("duel-result-ok").click()
    await target.get_by_test_id("duel-result-ok").click()
    await expect(attacker.get_by_test_id("my-carrying")).to_have_attribute("data-papers", "1")
    await expect(target.get_by_test_id("my-paper")).to_have_attribute("data-has-paper", "false")
    await expect(target.get_by_test_id("no-paper-banner")).to_be_visible()

    # The red base records the delivery: the scoreboard moves with no reload.
    points_before = int(
        await board.get_by_test_id("score-chart").get_attribute("data-points") or "0"
    )
    await leader.get_by_test_id(f"deliver-{red4['player_id']}").click()
    panel = leader.get_by_test_id("deliver-panel")
    await expect(panel.get_by_test_id("deliver-papers")).to_contain_text("1 cizí papírek")
    await expect(panel.get_by_test_id("deliver-total")).to_have_text("1")
    await top_shot(leader, "34-rank-leader-deliver")
    await leader.get_by_test_id("deliver-confirm").click()

    await expect(board.get_by_test_id("score-red")).to_have_text("1")
    await expect(board.get_by_test_id("score-blue")).to_have_text("0")
    await expect(leader.get_by_test_id("base-score")).to_have_text("1")
    await expect(attacker.get_by_test_id("my-carrying")).to_have_attribute("data-papers", "0")
    await expect(board.get_by_test_id("score-chart")).to_have_attribute(
        "data-points", str(points_before + 1)
    )
    await expect(board.get_by_test_id("team-tile-red")).to_contain_text("1")
    assert board.url.endswith("#/")  # never reloaded: still the page the join link opened
    await top_shot(board, "35-rank-board")

    # The red base has no paper to hand out: its players hold theirs (the server's refusal).
    issue = leader.get_by_test_id(f"issue-paper-{red4['player_id']}")
    await expect(issue).to_have_count(0)
    # The end tells each phone its own outcome, the result, and links the replay.
    await command(api, game["gid"], game["org"], {"type": "end_game"})
    over = attacker.get_by_test_id("game-over")
    await expect(over.get_by_test_id("game-over-mine")).to_contain_text("Rudí: 1. místo, 1 bod.")
    await expect(over.get_by_test_id("game-over-mine")).to_contain_text("Hum Cimil")
    await expect(over.get_by_test_id("game-over-winners")).to_contain_text("Rudí")
    await expect(over.get_by_test_id("final-score-blue")).to_contain_text("0")
    await expect(over.get_by_test_id("game-over-replay")).to_have_attribute(
        "href", f"#/replay/{game['gid']}"
    )
    lost = target.get_by_test_id("game-over-mine")
    await expect(lost).to_contain_text("Modří: 2. místo, 0 bodů.")
    home = leader.get_by_test_id("game-over")
    await expect(home.get_by_test_id("game-over-mine")).to_contain_text("Rudí: 1. místo")
    await expect(home.get_by_test_id("final-score-red")).to_contain_text("1")
    await top_shot(attacker, "36-rank-player-end")
    assert not [e for page_errors in errors for e in page_errors]


async def test_the_rank_shows_only_while_held_or_just_after_a_tap(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_rank_game(api)
    page = await open_as(await phone(), game["people"]["red3"], live_server)  # Kinich Ahau
    errors = watch_errors(page)
    reveal = page.get_by_test_id("rank-reveal")
    await expect(reveal).to_be_visible()
    await expect(page.get_by_test_id("my-rank")).to_have_count(0)
    assert "Kinich Ahau" not in await page.locator("body").inner_text()

    await reveal.tap()
    await expect(page.get_by_test_id("my-rank")).to_contain_text("Kinich Ahau")
    await expect(page.get_by_test_id("my-rank")).to_have_attribute("data-rank", "3")
    await top_shot(page, "36-rank-shown")
    await expect(page.get_by_test_id("my-rank")).to_have_count(0, timeout=5000)  # hidden again
    assert "Kinich Ahau" not in await page.locator("body").inner_text()

    # Held: shown while the finger stays, hidden as soon as it lifts.
    box = await reveal.bounding_box()
    assert box and box["height"] >= 48
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    await page.wait_for_timeout(1200)
    await expect(page.get_by_test_id("my-rank")).to_be_visible()
    await page.mouse.up()
    await expect(page.get_by_test_id("my-rank")).to_have_count(0, timeout=500)
    assert not errors


async def test_raid_with_defenders_in_order_a_part_and_a_new_paper(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_rank_game(api)
    people = game["people"]
    red3, blue1, blue2 = people["red3"], people["blue1"], people["blue2"]
    raider = await open_as(await phone(), red3, live_server)
    base = await open_as(await phone(), people["blue-leader"], live_server)
    home = await open_as(await phone(), people["red-leader"], live_server)
    errors = [*map(watch_errors, (raider, base, home))]

    await raider.get_by_test_id("raid-team-blue").click()
    await expect(raider.get_by_test_id("raid-confirm")).to_contain_text("Modří")
    await raider.get_by_test_id("raid-confirm").click()
    await expect(raider.get_by_test_id("raid-state")).to_have_attribute(
        "data-state", "awaiting_defenders"
    )
    await top_shot(raider, "37-rank-raid-waiting")

    # The blue base names blue1 then blue2 (ranks 1 and 2: the raider's 3 beats both).
    await expect(base.locator('[data-testid^="incoming-raid-"]')).to_contain_text("Rudý 3")
    await base.get_by_test_id(f"defender-{blue1['player_id']}").click()
    await base.get_by_test_id(f"defender-{blue2['player_id']}").click()
    await expect(base.get_by_test_id("defend-order")).to_have_text("1. Modrý 1 → 2. Modrý 2")
    await top_shot(base, "38-rank-leader-defenders")
    await base.get_by_test_id("defend-submit").click()

    await expect(raider.get_by_test_id("raid-state")).to_have_attribute("data-state", "won")
    await expect(raider.get_by_test_id("raid-fights")).to_have_attribute("data-fights", "2")
    await expect(raider.get_by_test_id("take-part-blue-4")).to_be_visible()
    await top_shot(raider, "39-rank-raid-won")
    await raider.get_by_test_id("take-part-blue-4").click()
    await expect(raider.get_by_test_id("raid-state")).to_have_attribute("data-state", "done")
    await expect(raider.get_by_test_id("raid-part")).to_contain_text("4")
    await raider.get_by_test_id("raid-ok").click()
    carrying = raider.get_by_test_id("my-carrying")
    await expect(carrying).to_have_attribute("data-papers", "2")
    await expect(carrying).to_have_attribute("data-parts", "1")
    await expect(base.get_by_test_id("base-tree")).not_to_contain_text("4")

    # blue1 lost their paper: the base issues a new one for a life.
    issue = base.get_by_test_id(f"issue-paper-{blue1['player_id']}")
    await expect(issue).to_contain_text("3 → 2")
    await issue.click()
    await expect(base.get_by_test_id(f"team-lives-{blue1['player_id']}")).to_have_text("2 životy")
    await expect(base.get_by_test_id(f"team-paper-{blue1['player_id']}")).to_have_text("má papírek")
    await expect(base.get_by_test_id(f"issue-paper-{blue1['player_id']}")).to_have_count(0)

    # Home: two papers and the first blue part (to the stash) score 2 + 2 * 4.
    await home.get_by_test_id(f"deliver-{red3['player_id']}").click()
    await expect(home.get_by_test_id("deliver-total")).to_have_text("10")
    await expect(home.get_by_test_id("deliver-part-blue-4")).to_contain_text("do úschovy")
    await home.get_by_test_id("deliver-confirm").click()
    await expect(home.get_by_test_id("base-score")).to_have_text("10")
    await expect(home.get_by_test_id("base-stash")).to_contain_text("4")
    await top_shot(home, "40-rank-leader-after-delivery")
    assert not [e for page_errors in errors for e in page_errors]


async def test_console_from_creation_to_the_end(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    console = await (await phone()).new_page()
    errors = watch_errors(console)
    await console.goto("/")
    await console.get_by_test_id("game-name").fill("Mayové")
    await console.get_by_test_id("config-ruleset").select_option("rank-bases")
    await console.get_by_test_id("config-teams").fill("Rudí\nModří")
    await expect(console.get_by_test_id("config-team-ids")).to_contain_text("Modří → modri")
    await console.get_by_test_id("rank-lives-5").fill("2")
    await top_shot(console, "41-rank-create")
    await console.get_by_test_id("create-game").click()
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")
    await expect(console.get_by_test_id("config-ranks")).to_contain_text("Ix Chel")

    # Too early to start: the view says so (may), the button waits and the reasons are shown.
    await expect(console.get_by_test_id("start-game")).to_be_disabled()
    await expect(console.get_by_test_id("start-refused")).to_be_visible()
    await expect(console.get_by_test_id("team-check-rudi")).to_contain_text("chybí velitel")

    for team, prefix in (("rudi", "R"), ("modri", "M")):
        await console.get_by_test_id("list-team").select_option(team)
        await console.get_by_test_id("player-list-input").fill(
            "\n".join(f"{prefix}{i}" for i in range(1, 6))
        )
        await console.get_by_test_id("add-players").click()
        await expect(console.get_by_test_id("add-status")).to_have_text("Přidáno 5 hráčů.")
        await console.get_by_test_id("player-name").fill(f"Velitel {prefix}")
        await console.get_by_test_id("player-role").select_option("leader")
        await console.get_by_test_id("player-team").select_option(team)
        await console.get_by_test_id("add-player").click()
        await expect(console.get_by_test_id("add-status")).to_have_text("Přidán 1 hráč.")
        await console.get_by_test_id("player-role").select_option("player")
    await expect(console.locator('[data-testid^="player-row-"]')).to_have_count(10)

    # The organizer ranks team rudi; the leader of modri ranks their own team in secret.
    selects = console.get_by_test_id("team-rudi").locator('[data-testid^="assign-rank-"]')
    for i in range(5):
        await selects.nth(i).select_option(str(i + 1))
    await expect(console.get_by_test_id("team-check-rudi")).to_have_text("připraven")
    await expect(console.get_by_test_id("team-check-modri")).to_contain_text("bez hodnosti")

    await console.get_by_test_id("show-invites").click()
    await expect(console.get_by_test_id("invite-team").first).to_contain_text("Tým: Rudí")
    leader_url = await invite_url(console, "Velitel M")
    await console.get_by_test_id("back-to-console").click()
    leader = await (await phone()).new_page()
    errors += watch_errors(leader)
    await leader.goto(local(leader_url, live_server))
    await expect(leader.get_by_test_id("team-setup")).to_be_visible()
    leader_selects = leader.locator('[data-testid^="assign-rank-"]')
    for i in range(5):
        await leader_selects.nth(i).select_option(str(5 - i))
    await expect(leader.get_by_test_id("setup-ready")).to_be_visible()
    await top_shot(leader, "42-rank-leader-setup")
    await expect(console.get_by_test_id("team-check-modri")).to_have_text("připraven")

    await console.get_by_test_id("start-game").click()
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "running")
    await expect(console.get_by_test_id("setup-error")).to_have_count(0)

    # A duel and a raid, made over HTTP, cancelled from the console.
    gid, org = await console.evaluate(
        """() => { const token = localStorage.getItem("bijse.current");
        const s = JSON.parse(localStorage.getItem("bijse.sessions")).find((x) => x.token === token);
        return [s.game_id, s.token]; }"""
    )
    listed = await api.get(f"/api/games/{gid}/invites", headers={"Authorization": f"Bearer {org}"})
    by_name = {i["name"]: i for i in listed.json()["invites"]}
    r1, m1, r2 = by_name["R1"], by_name["M1"], by_name["R2"]
    await command(api, gid, token_of(r1), {"type": "duel", "target": m1["code"]})
    await command(api, gid, token_of(r2), {"type": "raid", "team_id": "modri"})
    duel_row = console.locator('[data-testid^="duel-row-"]')
    raid_row = console.locator('[data-testid^="raid-row-"]')
    await expect(duel_row).to_contain_text("R1")
    await expect(raid_row).to_have_attribute("data-state", "awaiting_defenders")
    await expect(console.get_by_test_id(f"org-duel-{r1['player_id']}")).to_be_visible()
    await top_shot(console, "43-rank-console")
    await duel_row.locator('[data-testid^="cancel-duel-"]').click()
    await raid_row.locator('[data-testid^="cancel-raid-"]').click()
    await expect(duel_row).to_have_count(0)
    await expect(raid_row).to_have_count(0)

    # A link for the big screen: a new spectator whose link opens on the board.
    await console.get_by_test_id("add-board").click()
    board_url = await console.get_by_test_id("board-link").inner_text()
    assert "/#/board/" in board_url
    screen = await (await phone(**BIG_SCREEN)).new_page()
    errors += watch_errors(screen)
    await screen.goto(local(board_url, live_server))
    await expect(screen.get_by_test_id("score-modri")).to_have_text("0")
    assert screen.url.endswith("#/board")  # the token left the address bar

    # The organizer's scoreboard (the log rebuilds the chart), then the end.
    await console.get_by_test_id("open-board").click()
    await expect(console.get_by_test_id("score-rudi")).to_have_text("0")
    await expect(console.get_by_test_id("score-chart")).to_be_visible()
    await console.get_by_test_id("board-back").click()
    await console.get_by_test_id("end-game").click()
    await console.get_by_test_id("end-game-confirm").click()
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "ended")
    await expect(console.get_by_test_id("seed")).to_be_visible()
    await expect(screen.get_by_test_id("ended-banner")).to_contain_text("Vítězové: Rudí, Modří")
    assert not errors, errors
