"""dice-combat: the GM runs a fight from a laptop console; a player rolls on a phone.

The GM creates the game, invites a player, adds two combatants from character sheets (one from
pasted JSON and linked to the player, one typed into the form), begins a fight and runs two rounds.
Every number checked on the pages is the server's: lives, dice faces, the order, the bleeding.
"""

import json
from typing import Any

import httpx
from playwright.async_api import Page, expect

from tests.browser.helpers import (
    Phone,
    command,
    gm_session,
    invite_url,
    local,
    new_gm_game,
    server_view,
    top_shot,
    watch_errors,
)

LAPTOP = {
    "viewport": {"width": 1366, "height": 900},
    "screen": {"width": 1366, "height": 900},
    "device_scale_factor": 1,
    "is_mobile": False,
    "has_touch": False,
}
BALDUR = {
    "name": "Baldur",
    "side": "Družina",
    "str": 4,
    "agi": 1,
    "lives": 60,
    "armour": 2,
    "shield": 1,
    "weapon": {"name": "Široký meč", "attack": 5, "damage": 1, "defence": 2},
}
# A player's hero, the GM's orc and the GM's medic.
DUEL_SHEETS = [
    {"name": "Hrdina", "side": "A", "player": "Alice", "lives": 80},
    {"name": "Ork", "side": "B", "str": 3, "lives": 40, "weapon": {"attack": 1, "damage": 1}},
    {"name": "Felčar", "side": "A", "agi": 3, "first_aid": 5},
]
GOBLIN_LIVES = 100  # a helpless goblin bleeds a quarter of this every round: 25


def lives_of(view: dict[str, Any], combatant_id: str) -> str:
    c = view["combatants"][combatant_id]
    return f"{c['lives']} / {c['max_lives']}"


async def faces(page: Page, part: str) -> list[int]:
    dice = page.get_by_test_id("attack-result").locator(f'[data-part="{part}"] .die')
    return [int(text) for text in await dice.all_inner_texts()]


async def test_gm_runs_two_rounds_with_a_phone_rolling(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    gm = await (await phone(**LAPTOP)).new_page()
    errors = watch_errors(gm)
    await gm.goto("/")
    await gm.get_by_test_id("config-ruleset").select_option("dice-combat")
    await expect(gm.get_by_test_id("config-initiative-once")).to_be_visible()
    await gm.get_by_test_id("game-name").fill("Skřetí doupě")
    await gm.get_by_test_id("create-game").click()
    await expect(gm.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")
    await expect(gm.get_by_test_id("dice-gm")).to_be_visible()
    gid, org = await gm_session(gm)

    # A player, invited with a QR code as in card-duel.
    await gm.get_by_test_id("player-list-input").fill("Alice\n")
    await gm.get_by_test_id("add-players").click()
    await expect(gm.get_by_test_id("add-status")).to_contain_text("1")
    await gm.get_by_test_id("show-invites").click()
    alice_url = await invite_url(gm, "Alice")
    await gm.get_by_test_id("back-to-console").click()
    members = (await server_view(api, gid, org))["members"]
    alice_id = next(player_id for player_id, m in members.items() if m["name"] == "Alice")

    # Baldur from pasted JSON, linked to Alice's phone.
    await gm.get_by_test_id("sheet-json-open").click()
    await gm.get_by_test_id("sheet-json").fill(json.dumps(BALDUR, ensure_ascii=False))
    await gm.get_by_test_id("sheet-json-load").click()
    await expect(gm.get_by_test_id("sheet-name")).to_have_value("Baldur")
    await expect(gm.get_by_test_id("sheet-weapon_attack")).to_have_value("5")
    await gm.get_by_test_id("sheet-player").select_option(alice_id)
    await gm.get_by_test_id("add-combatant").click()
    await expect(gm.locator('[data-testid^="combatant-open-"]')).to_have_count(1)

    # The goblin typed into the form, the GM's own; the sheet is saved as a JSON file too.
    await gm.get_by_test_id("sheet-clear").click()
    await gm.get_by_test_id("sheet-name").fill("Skřet")
    await gm.get_by_test_id("sheet-side").fill("Skřeti")
    await gm.get_by_test_id("sheet-str").fill("1")
    await gm.get_by_test_id("sheet-lives").fill(str(GOBLIN_LIVES))
    await gm.get_by_test_id("sheet-armour").fill("1")
    await gm.get_by_test_id("sheet-weapon_name").fill("Kyj")
    await gm.get_by_test_id("sheet-weapon_attack").fill("1")
    await gm.get_by_test_id("sheet-weapon_damage").fill("2")
    await gm.get_by_test_id("sheet-player").select_option("")
    async with gm.expect_download() as download_info:
        await gm.get_by_test_id("sheet-download").click()
    download = await download_info.value
    assert download.suggested_filename == "skret.json"
    saved = json.loads((await download.path()).read_text(encoding="utf-8"))
    assert saved["name"] == "Skřet" and saved["lives"] == GOBLIN_LIVES
    assert saved["weapon"] == {
        "name": "Kyj",
        "attack": 1,
        "damage": 2,
        "defence": 0,
        "ranged": False,
        "flat_allowed": False,
    }
    await gm.get_by_test_id("add-combatant").click()
    await expect(gm.locator('[data-testid^="combatant-open-"]')).to_have_count(2)
    await expect(gm.get_by_test_id("recent-sheet-1")).to_be_visible()  # kept in localStorage

    # A set of sheets loaded with the file picker goes to the recent sheets, the first to the form.
    wolves = {
        "sheets": [{"name": "Vlk", "side": "Les", "lives": 8}, {"name": "Vlčice", "side": "Les"}]
    }
    await gm.get_by_test_id("sheet-file").set_input_files(
        files=[
            {
                "name": "vlci.json",
                "mimeType": "application/json",
                "buffer": json.dumps(wolves).encode(),
            }
        ]
    )
    await expect(gm.get_by_test_id("sheet-name")).to_have_value("Vlk")
    await expect(gm.get_by_test_id("sheet-status")).to_contain_text("2")
    await expect(gm.get_by_test_id("recent-sheet-3")).to_be_visible()
    await gm.get_by_test_id("sheet-json").fill('{"name": "Vlk"}')
    await gm.get_by_test_id("sheet-json-load").click()
    await expect(gm.get_by_test_id("sheet-problem")).to_contain_text("side")
    await top_shot(gm, "dc-01-gm-setup")

    view = await server_view(api, gid, org)
    ids = {c["name"]: combatant_id for combatant_id, c in view["combatants"].items()}
    baldur, goblin = ids["Baldur"], ids["Skřet"]
    assert view["combatants"][baldur]["player_id"] == alice_id
    assert view["combatants"][goblin]["player_id"] is None
    await expect(gm.get_by_test_id(f"combatant-lives-{goblin}")).to_have_text("100 / 100")

    await gm.get_by_test_id("start-game").click()
    await expect(gm.get_by_test_id("game-status")).to_have_attribute("data-status", "running")

    # Alice's phone shows her own character only.
    alice = await (await phone()).new_page()
    errors += watch_errors(alice)
    await alice.goto(local(alice_url, live_server))
    await expect(alice.get_by_test_id(f"my-combatant-{baldur}")).to_be_visible()
    await expect(alice.get_by_test_id(f"combatant-lives-{baldur}")).to_have_text("60 / 60")
    await expect(alice.get_by_test_id(f"combatant-lives-{goblin}")).to_have_count(0)

    await expect(gm.get_by_test_id(f"fight-pick-{baldur}")).to_be_checked()
    await gm.get_by_test_id("begin-fight").click()
    await expect(gm.get_by_test_id("initiative-order").locator("li")).to_have_count(2)
    await expect(alice.get_by_test_id("initiative-order").locator("li")).to_have_count(2)
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "1")

    async def check_lives() -> dict[str, Any]:
        now = await server_view(api, gid, org)
        await expect(gm.get_by_test_id(f"combatant-lives-{goblin}")).to_have_text(
            lives_of(now, goblin)
        )
        await expect(gm.get_by_test_id(f"combatant-lives-{baldur}")).to_have_text(
            lives_of(now, baldur)
        )
        await expect(alice.get_by_test_id(f"combatant-lives-{baldur}")).to_have_text(
            lives_of(now, baldur)
        )
        return now

    async def baldur_attacks(round_no: int) -> None:
        await expect(gm.get_by_test_id("attack-attacker")).to_have_value(baldur)
        await expect(gm.get_by_test_id("attack-target")).to_have_value(goblin)
        if round_no == 1:
            # The server refuses full cover; the console shows its refusal.
            await gm.get_by_test_id("modifier-cover").select_option("full")
            await gm.get_by_test_id("attack-declare").click()
            await expect(gm.get_by_test_id("error").last).to_have_attribute(
                "data-code", "full_cover"
            )
            # A helpless goblin: no defence roll, an automatic critical that bleeds 25 a round.
            await gm.get_by_test_id("modifier-helpless").check()
        else:
            await gm.get_by_test_id("modifier-advantage").check()
            await gm.get_by_test_id("action-short_move").click()  # instant, once a round
            await expect(gm.get_by_test_id("action-short_move")).to_be_disabled()
        await gm.get_by_test_id("attack-declare").click()
        await expect(gm.get_by_test_id("pending-attacks")).to_be_visible()
        await expect(gm.get_by_test_id("attack-declare")).to_be_disabled()  # one attack a round
        await expect(gm.get_by_test_id("action-sprint")).to_be_disabled()  # the long action
        await expect(gm.get_by_test_id("action-speak")).to_be_enabled()
        await expect(gm.get_by_test_id("next-turn")).to_be_disabled()  # dice pending
        roll = alice.get_by_test_id("roll-attack")
        await expect(roll).to_be_visible()
        if round_no == 1:
            await top_shot(alice, "dc-03-phone-roll-attack")
        attack_id = await alice.get_by_test_id("my-attack").get_attribute("data-attack-id")
        await roll.click()
        await expect(alice.get_by_test_id("roll-attack")).to_have_count(0)
        await expect(alice.get_by_test_id("attack-result")).to_have_attribute(
            "data-attack-id", str(attack_id)
        )
        now = await check_lives()
        last = now["recent"][-1]
        assert last["attacker_id"] == baldur
        # Against a helpless goblin every blow hits; against its active defence (round 2) the
        # goblin's sixes can still make Baldur miss: the phone says what the server decided.
        assert last["result"]["hit"] or round_no == 2
        verdict = "ZÁSAH" if last["result"]["hit"] else "VEDLE"
        await expect(alice.get_by_test_id("attack-verdict")).to_contain_text(verdict)
        assert await faces(alice, "attack") == last["rolls"]["attack"]["dice"]
        assert await faces(gm, "attack") == last["rolls"]["attack"]["dice"]
        if round_no == 1:
            assert last["defence"] == "helpless" and last["result"]["critical"] == "helpless"
            await expect(gm.get_by_test_id("attack-critical")).to_be_visible()
            await top_shot(alice, "dc-04-phone-result")
            # Seen: the result leaves the top of the phone for the list below.
            await alice.get_by_test_id("result-ok").click()
            await expect(alice.get_by_test_id("result-ok")).to_have_count(0)
            await expect(alice.get_by_test_id("attack-result")).to_have_attribute(
                "data-attack-id", str(attack_id)
            )
        else:
            assert last["defence"] == "active"  # the goblin's own dice, rolled at once
            assert await faces(gm, "defence") == last["rolls"]["defence"]["dice"]

    async def goblin_attacks() -> None:
        await expect(gm.get_by_test_id("attack-attacker")).to_have_value(goblin)
        await expect(gm.get_by_test_id("attack-target")).to_have_value(baldur)
        await gm.get_by_test_id("attack-defence").select_option("auto")
        await gm.get_by_test_id("attack-declare").click()
        roll = alice.get_by_test_id("roll-defence")
        await expect(roll).to_be_visible()
        await top_shot(alice, "dc-05-phone-roll-defence")
        attack_id = await alice.get_by_test_id("my-attack").get_attribute("data-attack-id")
        await roll.click()
        await expect(alice.get_by_test_id("attack-result")).to_have_attribute(
            "data-attack-id", str(attack_id)
        )
        now = await check_lives()
        last = now["recent"][-1]
        assert last["attacker_id"] == goblin and last["defence"] == "active"
        assert await faces(alice, "defence") == last["rolls"]["defence"]["dice"]
        assert await faces(alice, "attack") == last["rolls"]["attack"]["dice"]

    for round_no in (1, 2):
        await expect(gm.get_by_test_id("fight-round")).to_have_attribute(
            "data-round", str(round_no)
        )
        now = await server_view(api, gid, org)
        assert now["fight"]["round"] == round_no
        order = now["fight"]["order"]
        await expect(gm.get_by_test_id("initiative-order").locator("li")).to_have_count(2)
        for i, combatant_id in enumerate(order):
            await expect(gm.locator(f'[data-testid="order-{combatant_id}"]')).to_contain_text(
                str(i + 1)
            )
        if round_no == 2:
            # The goblin's wound bled 25 when the round started.
            bled = gm.get_by_test_id("round-bleeding")
            await expect(bled).to_contain_text("\u221225")  # a minus sign
            await top_shot(gm, "dc-06-gm-bleeding")
            # The GM stops it (a potion), with a reason.
            await gm.get_by_test_id(f"combatant-open-{goblin}").click()
            await gm.get_by_test_id(f"stop-reason-{goblin}").fill("Lektvar léčení")
            await gm.get_by_test_id(f"stop-bleeding-{goblin}").click()
            await expect(gm.get_by_test_id(f"stop-bleeding-{goblin}")).to_have_count(0)
            await expect(gm.get_by_test_id("dice-log")).to_contain_text("Lektvar léčení")
        for turn, combatant_id in enumerate(order):
            await expect(gm.get_by_test_id("current-turn")).to_have_attribute(
                "data-combatant", combatant_id
            )
            await expect(alice.get_by_test_id("current-turn")).to_have_attribute(
                "data-combatant", combatant_id
            )
            await expect(gm.locator(f'[data-testid="order-{combatant_id}"]')).to_have_attribute(
                "aria-current", "true"
            )
            if combatant_id == baldur:
                await baldur_attacks(round_no)
            else:
                await goblin_attacks()
            if round_no == 1 and turn == 1:
                await top_shot(gm, "dc-02-gm-fight")
            last_turn = turn == len(order) - 1
            await expect(gm.get_by_test_id("next-turn")).to_have_text(
                "Další kolo" if last_turn else "Další na tahu"
            )
            await gm.get_by_test_id("next-turn").click()

    # Round 3: the helpless wound bled when it opened and at the start of round 2, then it
    # was stopped.
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "3")
    events = (
        await api.get(f"/api/games/{gid}/events", headers={"Authorization": f"Bearer {org}"})
    ).json()["events"]
    helpless = next(e["data"] for e in events if e["type"] == "wound_opened")
    assert helpless["combatant_id"] == goblin and helpless["fixed"] == GOBLIN_LIVES // 4
    bleeds = [e for e in events if e["type"] == "wound_bled"]
    assert [e["data"]["lost"] for e in bleeds if e["data"]["wound_id"] == helpless["wound_id"]] == [
        25,
        25,
    ]
    await check_lives()

    # A correction of Baldur's lives, with its reason, reaches the phone.
    await gm.get_by_test_id("correct-target").select_option(baldur)
    await gm.get_by_test_id("correct-field").select_option("lives")
    await gm.get_by_test_id("correct-value").fill("33")
    await gm.get_by_test_id("correct-reason").fill("Zásah bleskem")
    await gm.get_by_test_id("correct-submit").click()
    await expect(alice.get_by_test_id(f"combatant-lives-{baldur}")).to_have_text("33 / 60")
    await expect(gm.get_by_test_id(f"combatant-lives-{baldur}")).to_have_text("33 / 60")
    await expect(gm.get_by_test_id("dice-log")).to_contain_text("Zásah bleskem")

    # The dice may have felled the goblin by now (two blows and two bleeds); the GM raises it
    # to 40 lives, so the chase below has two combatants standing whatever was rolled.
    await gm.get_by_test_id("correct-target").select_option(goblin)
    await gm.get_by_test_id("correct-field").select_option("lives")
    await gm.get_by_test_id("correct-value").fill("40")
    await gm.get_by_test_id("correct-reason").fill("Druhý dech")
    await gm.get_by_test_id("correct-submit").click()
    await expect(gm.get_by_test_id(f"combatant-lives-{goblin}")).to_have_text("40 / 100")
    assert (await server_view(api, gid, org))["combatants"][goblin]["condition"] == "up"

    # A chase: the goblin runs, Baldur follows; a round of it moves the lead.
    await gm.get_by_test_id("chase-fleeing").select_option(goblin)
    await gm.get_by_test_id("chase-chaser").select_option(baldur)
    await gm.get_by_test_id("chase-lead-input").fill("30")
    await gm.get_by_test_id("start-chase").click()
    chase = gm.locator('[data-testid^="chase-h"]')
    await expect(chase).to_have_count(1)
    await chase.get_by_test_id("chase-round").click()
    await expect(chase).to_contain_text("kolo 1")
    now = await server_view(api, gid, org)
    await expect(chase.get_by_test_id("chase-lead")).to_have_text(
        str(next(iter(now["chases"].values()))["lead"]) if now["chases"] else "0"
    )

    await alice.get_by_test_id("sun-switch").click()
    await top_shot(alice, "dc-07-phone-sun")
    await gm.get_by_test_id("end-fight").click()
    await gm.get_by_test_id("end-fight-confirm").click()
    await expect(gm.get_by_test_id("begin-fight")).to_be_visible()
    await expect(alice.get_by_test_id("initiative-order")).to_have_count(0)
    await gm.set_viewport_size({"width": 800, "height": 1280})  # a tablet
    await top_shot(gm, "dc-08-gm-tablet")

    # The end tells the story: Alice's phone shows how her Baldur came out, who is standing,
    # and links the replay.
    await expect(alice.locator("h1")).to_have_count(1)
    await command(api, gid, org, {"type": "end_game"})
    over = alice.get_by_test_id("game-over")
    await expect(over).to_be_visible()
    end = await server_view(api, gid, org)
    await expect(alice.get_by_test_id(f"outcome-{baldur}")).to_have_text(
        f"Baldur: stojí (♥ {lives_of(end, baldur)})"
    )
    await expect(alice.get_by_test_id(f"outcome-{goblin}")).to_have_count(0)  # not hers
    standing = [c["name"] for c in end["combatants"].values() if c["condition"] == "up"]
    assert "Baldur" in standing
    for name in standing:
        await expect(alice.get_by_test_id("game-over-result")).to_contain_text(name)
    await expect(alice.get_by_test_id("game-over-replay")).to_have_attribute(
        "href", f"#/replay/{gid}"
    )
    await expect(gm.get_by_test_id("begin-fight")).to_have_count(0)  # nothing to begin any more
    await top_shot(alice, "dc-10-phone-game-over")
    assert not errors, errors


async def test_budget_flight_gm_rolls_and_first_aid_on_a_tablet(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_gm_game(api, "dice-combat", ["Alice"], DUEL_SHEETS)
    gid, org, alice_player = game["gid"], game["org"], game["players"]["Alice"]
    hero, orc, medic = (game["ids"][name] for name in ("Hrdina", "Ork", "Felčar"))
    # The orc is surprised: round 1 is the hero's alone.
    await command(
        api, gid, org, {"type": "begin_fight", "combatants": [hero, orc], "surprised": [orc]}
    )

    gm = await (
        await phone(viewport={"width": 800, "height": 1280}, is_mobile=False, has_touch=False)
    ).new_page()
    errors = watch_errors(gm)
    await gm.goto(f"/#/join/{gid}/{org}")
    await gm.get_by_test_id("lang-switch").click()
    alice = await (await phone()).new_page()
    errors += watch_errors(alice)
    await alice.goto(local(alice_player["join_url"], live_server))
    await expect(alice.get_by_test_id(f"combatant-lives-{hero}")).to_have_text("80 / 80")
    for page in (gm, alice):  # laid out for the screen: no sideways scroll
        width = await page.evaluate("document.documentElement.clientWidth")
        assert await page.evaluate("document.documentElement.scrollWidth") <= width

    # Round 1: two short actions use up the hero's round; the console disables the rest.
    await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", hero)
    await expect(gm.get_by_test_id("next-turn")).to_have_text("Next round")
    await gm.get_by_test_id("action-retreat").click()
    await expect(gm.get_by_test_id("action-sprint")).to_be_disabled()  # no long after a short
    await gm.get_by_test_id("action-stand_up").click()
    await expect(gm.get_by_test_id("action-retreat")).to_be_disabled()
    await expect(gm.get_by_test_id("action-speak")).to_be_enabled()
    await expect(gm.get_by_test_id("attack-declare")).to_be_disabled()
    await expect(gm.get_by_test_id("attack-blocked")).to_contain_text("No action left")
    await expect(gm.get_by_test_id("budget")).to_contain_text("no short action left")
    for testid in ("attack-declare", "next-turn", "action-speak", "end-fight"):
        box = await gm.get_by_test_id(testid).bounding_box()
        assert box and box["height"] >= 48, (testid, box)
    actions = (await server_view(api, gid, org))["fight"]["actions"][hero]
    assert actions["shorts"] == ["retreat", "stand_up"]
    await gm.get_by_test_id("next-turn").click()
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "2")

    # Round 2, in initiative order: the orc attacks (cancelled once, then the GM rolls the
    # hero's defence for Alice); the hero only speaks, which keeps the active defence.
    order = (await server_view(api, gid, org))["fight"]["order"]
    for turn in order:
        await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", turn)
        if turn == orc:
            await gm.get_by_test_id("attack-declare").click()
            await expect(alice.get_by_test_id("roll-defence")).to_be_visible()
            box = await alice.get_by_test_id("roll-defence").bounding_box()
            assert box and box["height"] >= 96
            attack_id = await alice.get_by_test_id("my-attack").get_attribute("data-attack-id")
            await gm.get_by_test_id(f"cancel-attack-{attack_id}").click()
            await expect(alice.get_by_test_id("roll-defence")).to_have_count(0)
            await expect(gm.get_by_test_id("attack-declare")).to_be_enabled()  # given back
            await gm.get_by_test_id("attack-declare").click()
            await expect(alice.get_by_test_id("roll-defence")).to_be_visible()
            attack_id = await alice.get_by_test_id("my-attack").get_attribute("data-attack-id")
            await gm.get_by_test_id(f"gm-roll-defence-{attack_id}").click()
            await expect(alice.get_by_test_id("attack-result")).to_have_attribute(
                "data-attack-id", str(attack_id)
            )
            last = (await server_view(api, gid, org))["recent"][-1]
            assert last["attack_id"] == attack_id and last["defence"] == "active"
            assert await faces(alice, "defence") == last["rolls"]["defence"]["dice"]
            await expect(alice.get_by_test_id(f"combatant-lives-{hero}")).to_have_text(
                lives_of(await server_view(api, gid, org), hero)
            )
        else:
            await gm.get_by_test_id("action-note").fill("Vzdej se!")
            await gm.get_by_test_id("action-speak").click()
            await expect(gm.get_by_test_id("dice-log")).to_contain_text("Vzdej se!")
        await gm.get_by_test_id("next-turn").click()

    # Round 3: the orc strikes the hero helpless (an automatic critical: he bleeds a quarter of
    # his lives a round); the hero flees, and if the orc is as quick, it strikes him first.
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "3")
    order = (await server_view(api, gid, org))["fight"]["order"]
    for turn in order:
        await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", turn)
        if turn == orc:
            await expect(gm.get_by_test_id("attack-attacker")).to_have_value(orc)
            await gm.get_by_test_id("modifier-helpless").check()
            await gm.get_by_test_id("attack-declare").click()
            await expect(gm.get_by_test_id("attack-result")).to_contain_text("Helpless target")
            await expect(alice.get_by_test_id("my-wounds")).to_contain_text("20 životů za kolo")
        else:
            await gm.get_by_test_id("action-flee").click()
            await expect(gm.get_by_test_id(f"flee-opponent-{orc}")).to_be_checked()
            await gm.get_by_test_id("flee-submit").click()
            await expect(gm.get_by_test_id("flight-result")).to_be_visible()
            flight = next(e for e in await log(api, gid, org) if e["type"] == "flight_rolled")
            result = gm.get_by_test_id("flight-result")
            await expect(result).to_contain_text(
                "gets away" if flight["data"]["escaped"] else "may attack first"
            )
            if not flight["data"]["escaped"]:
                # Out of turn, without spending the orc's own attack; the hero runs: ZO only.
                await gm.get_by_test_id(f"free-attack-{orc}-{hero}").click()
                await expect(gm.get_by_test_id("attack-attacker")).to_have_value(orc)
                await expect(gm.get_by_test_id("attack-target")).to_have_value(hero)
                await gm.get_by_test_id("attack-declare").click()
                await expect(gm.get_by_test_id(f"free-attack-{orc}-{hero}")).to_have_count(0)
                last = (await server_view(api, gid, org))["recent"][-1]
                assert last["free"] and last["defence"] == "passive"
            await gm.get_by_test_id(f"combatant-open-{hero}").click()
            await expect(gm.get_by_test_id(f"rest-{hero}")).to_be_visible()  # he has run
            await gm.get_by_test_id(f"combatant-open-{hero}").click()
        if turn != order[-1]:
            await gm.get_by_test_id("next-turn").click()

    # The medic, not in the fight, gives first aid: its dice and total are the server's.
    await gm.get_by_test_id(f"combatant-open-{hero}").click()
    await gm.get_by_test_id(f"first-aid-healer-{hero}").select_option(medic)
    await gm.get_by_test_id(f"first-aid-{hero}").click()
    aid = gm.get_by_test_id(f"first-aid-result-{hero}")
    await expect(aid).to_be_visible()
    rolled = next(e["data"] for e in await log(api, gid, org) if e["type"] == "first_aid_rolled")
    assert [int(d) for d in await aid.locator(".die").all_inner_texts()] == rolled["dice"]
    await expect(aid).to_contain_text(f"= {rolled['total']}")
    if rolled["success"]:
        await expect(alice.get_by_test_id("my-wounds")).to_have_count(0)
    else:
        await expect(alice.get_by_test_id("my-wounds")).to_be_visible()
    await expect(alice.get_by_test_id(f"combatant-lives-{hero}")).to_have_text(
        lives_of(await server_view(api, gid, org), hero)
    )
    await top_shot(gm, "dc-09-gm-tablet-en")
    assert not errors, errors


async def log(api: httpx.AsyncClient, gid: str, token: str) -> list[dict[str, Any]]:
    answer = await api.get(f"/api/games/{gid}/events", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()["events"]
    return events


# Alice's hero holds two weapons; the GM's goblin is slow (its initiative bonus) and tough.
HERO = {
    "name": "Baldur",
    "side": "Družina",
    "str": 4,
    "agi": 1,
    "lives": "60",
    "initiative_bonus": "30",
    "weapon": {"name": "Meč", "attack": "5", "damage": "1", "defence": "2"},
    "second_weapon": {"name": "Dýka", "attack": "2", "damage": "1", "defence": "1"},
}
GOBLIN = {"name": "Skřet", "side": "Skřeti", "str": 1, "lives": "200", "initiative_bonus": "-20"}


async def fill_sheet(gm: Page, sheet: dict[str, Any], player: str) -> None:
    """The sheet form, field by field (weapons too), linked to `player` ("" for the GM's)."""
    await gm.get_by_test_id("sheet-clear").click()
    for field, value in sheet.items():
        if field in ("weapon", "second_weapon"):
            if field == "second_weapon":
                await gm.get_by_test_id("sheet-second-weapon").check()
            for part, number in value.items():
                await gm.get_by_test_id(f"sheet-{field}_{part}").fill(str(number))
        else:
            await gm.get_by_test_id(f"sheet-{field}").fill(str(value))
    await gm.get_by_test_id("sheet-player").select_option(player)
    await gm.get_by_test_id("add-combatant").click()


async def roll_on_phone(page: Page, button: str) -> None:
    """The player rolls the part the phone asks for; its result is then on top."""
    await expect(page.get_by_test_id(button)).to_be_visible()
    attack_id = await page.get_by_test_id("my-attack").get_attribute("data-attack-id")
    await page.get_by_test_id(button).click()
    await expect(page.get_by_test_id("attack-result")).to_have_attribute(
        "data-attack-id", str(attack_id)
    )


async def test_checks_surprise_a_potion_two_weapons_and_a_dropped_weapon(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_gm_game(api, "dice-combat", ["Alice"], [])
    gid, org, alice_player = game["gid"], game["org"], game["players"]["Alice"]
    gm = await (await phone(**LAPTOP)).new_page()
    errors = watch_errors(gm)
    await gm.goto(f"/#/join/{gid}/{org}")
    await expect(gm.get_by_test_id("dice-gm")).to_be_visible()

    # The combatants from the sheet form: Baldur with a second weapon, played on Alice's phone.
    await fill_sheet(gm, HERO, alice_player["player_id"])
    await expect(gm.locator('[data-testid^="combatant-open-"]')).to_have_count(1)
    await fill_sheet(gm, GOBLIN, "")
    await expect(gm.locator('[data-testid^="combatant-open-"]')).to_have_count(2)
    view = await server_view(api, gid, org)
    ids = {c["name"]: combatant_id for combatant_id, c in view["combatants"].items()}
    hero, goblin = ids["Baldur"], ids["Skřet"]
    assert view["combatants"][hero]["second_weapon"] == {
        "name": "Dýka",
        "attack": 2,
        "damage": 1,
        "defence": 1,
        "ranged": False,
        "flat_allowed": False,
    }
    assert view["combatants"][goblin]["second_weapon"] is None
    await gm.get_by_test_id(f"combatant-open-{hero}").click()
    await expect(gm.get_by_test_id(f"second-weapon-{hero}")).to_contain_text("Dýka +2 / +1 / +1")
    await gm.get_by_test_id(f"combatant-open-{hero}").click()

    # Alice's phone, 360 px wide: both of Baldur's weapons.
    alice = await (
        await phone(viewport={"width": 360, "height": 780}, screen={"width": 360, "height": 780})
    ).new_page()
    errors += watch_errors(alice)
    await alice.goto(local(alice_player["join_url"], live_server))
    await expect(alice.get_by_test_id(f"my-combatant-{hero}")).to_be_visible()
    await expect(alice.get_by_test_id(f"second-weapon-{hero}")).to_contain_text("Dýka")

    # A perception roll before the fight: d6 (sixes roll again) + OBR against 8.
    await gm.get_by_test_id(f"check-who-{hero}").check()
    await gm.get_by_test_id(f"check-who-{goblin}").check()
    await gm.get_by_test_id("check-field").select_option("agi")
    await gm.get_by_test_id("check-difficulty").fill("8")
    await gm.get_by_test_id("check-submit").click()
    result = gm.get_by_test_id("check-result")
    await expect(result.locator(".check-row")).to_have_count(2)
    check = (await server_view(api, gid, org))["checks"][-1]
    assert check["kind"] == "perception" and check["field"] == "agi"
    for roll in check["rolls"]:
        row = result.get_by_test_id(f"check-row-{roll['combatant_id']}")
        await expect(row).to_have_attribute("data-total", str(roll["total"]))
        await expect(row).to_have_attribute("data-success", str(roll["success"]).lower())
        assert [int(d) for d in await row.locator(".die").all_inner_texts()] == roll["dice"]
        await expect(row).to_contain_text("ÚSPĚCH" if roll["success"] else "NEÚSPĚCH")
    # Her phone shows Baldur's roll only.
    mine = alice.get_by_test_id("my-check")
    await expect(mine.get_by_test_id(f"check-row-{hero}")).to_be_visible()
    await expect(mine.get_by_test_id(f"check-row-{goblin}")).to_have_count(0)
    await top_shot(alice, "dc-11-phone-check")

    # An old wound: Baldur begins at 40 of 60.
    await gm.get_by_test_id("correct-target").select_option(hero)
    await gm.get_by_test_id("correct-field").select_option("lives")
    await gm.get_by_test_id("correct-value").fill("40")
    await gm.get_by_test_id("correct-reason").fill("Stará rána")
    await gm.get_by_test_id("correct-submit").click()
    await expect(alice.get_by_test_id(f"combatant-lives-{hero}")).to_have_text("40 / 60")

    # The goblin did not notice them: it is surprised, round 1 is Baldur's alone.
    await gm.get_by_test_id(f"fight-surprised-{goblin}").check()
    await gm.get_by_test_id("begin-fight").click()
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "1")
    await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", hero)
    await expect(gm.get_by_test_id("everyone-surprised")).to_have_count(0)

    # A potion: 10 lives and SIL +2 for a round, when the next round starts.
    await gm.get_by_test_id("action-use_item").click()
    await gm.get_by_test_id("item-heal").fill("10")
    await gm.get_by_test_id("item-field").select_option("str")
    await gm.get_by_test_id("item-by").fill("2")
    await gm.get_by_test_id("item-rounds").fill("1")
    await gm.get_by_test_id("action-note").fill("Lektvar síly")
    await gm.get_by_test_id("item-submit").click()
    waiting = gm.get_by_test_id(f"order-{hero}").get_by_test_id(f"effect-waiting-{hero}")
    await expect(waiting).to_contain_text("+10")
    await expect(gm.get_by_test_id("dice-log")).to_contain_text("Lektvar síly")
    await expect(alice.get_by_test_id(f"combatant-lives-{hero}")).to_have_text("40 / 60")
    await top_shot(gm, "dc-12-gm-potion-waiting")
    await gm.get_by_test_id("next-turn").click()

    # Round 2: the potion works; Baldur stabs with his dagger and rolls on the phone.
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "2")
    await expect(alice.get_by_test_id(f"combatant-lives-{hero}")).to_have_text("50 / 60")
    await expect(gm.get_by_test_id(f"combatant-lives-{hero}")).to_have_text("50 / 60")
    await expect(gm.get_by_test_id("round-items")).to_contain_text("+10")
    await expect(alice.get_by_test_id(f"boost-{hero}-str")).to_be_visible()
    assert (await server_view(api, gid, org))["combatants"][hero]["str"] == 6
    await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", hero)
    await gm.get_by_test_id("attack-weapon").select_option("second")
    await expect(gm.get_by_test_id("attack-defence-weapon")).to_have_count(0)  # one weapon
    await gm.get_by_test_id("attack-declare").click()
    await roll_on_phone(alice, "roll-attack")
    last = (await server_view(api, gid, org))["recent"][-1]
    assert last["attacker_id"] == hero and last["weapon"] == "second"
    await expect(gm.get_by_test_id("attack-second-weapon")).to_be_visible()
    await top_shot(alice, "dc-13-phone-second-weapon")
    await gm.get_by_test_id("next-turn").click()
    # The goblin backs off: no short move beside a movement action, the console says why.
    await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", goblin)
    await gm.get_by_test_id("action-retreat").click()
    await expect(gm.get_by_test_id("action-short_move")).to_be_disabled()
    await expect(gm.get_by_test_id("action-short_move")).to_have_attribute(
        "title", "Krátký pohyb nejde s přesunem, plazením, ústupem ani útěkem."
    )
    await gm.get_by_test_id("next-turn").click()

    # Round 3: the strength wears off. Baldur drops his sword for an axe: he still parries, with
    # his dagger, when the goblin strikes later this round.
    await expect(gm.get_by_test_id("fight-round")).to_have_attribute("data-round", "3")
    await expect(gm.get_by_test_id("round-items")).to_be_visible()
    await expect(alice.get_by_test_id(f"boost-{hero}-str")).to_have_count(0)
    await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", hero)
    await gm.get_by_test_id("action-change_weapon").click()
    await gm.get_by_test_id("new-weapon-name").fill("Sekera")
    await gm.get_by_test_id("new-weapon-attack").fill("3")
    await gm.get_by_test_id("weapon-drop").check()
    hint = gm.get_by_test_id("weapon-drop-hint")
    await expect(hint).to_contain_text("obrana v tomto kole zůstává")
    await gm.get_by_test_id("weapon-submit").click()
    await expect(gm.get_by_test_id("dice-log")).to_contain_text("stará zbraň odhozena")
    now = await server_view(api, gid, org)
    assert now["combatants"][hero]["weapon"]["name"] == "Sekera"
    assert now["fight"]["actions"][hero]["active_defence"]
    await expect(gm.get_by_test_id("budget")).to_contain_text("aktivní obrana: ano")
    await gm.get_by_test_id("next-turn").click()
    await expect(gm.get_by_test_id("current-turn")).to_have_attribute("data-combatant", goblin)
    await gm.get_by_test_id("attack-defence-weapon").select_option("second")
    await gm.get_by_test_id("attack-declare").click()
    await roll_on_phone(alice, "roll-defence")
    last = (await server_view(api, gid, org))["recent"][-1]
    assert last["attacker_id"] == goblin and last["defence"] == "active"
    assert last["defence_weapon"] == "second"
    await expect(alice.get_by_test_id("attack-result")).to_contain_text("kryje druhou zbraní")
    await top_shot(gm, "dc-14-gm-dropped-and-parried")
    await top_shot(alice, "dc-15-phone-parried")

    # A new fight where both sides are named surprised: nobody is.
    await gm.get_by_test_id("end-fight").click()
    await gm.get_by_test_id("end-fight-confirm").click()
    await gm.get_by_test_id(f"fight-surprised-{hero}").check()
    await gm.get_by_test_id(f"fight-surprised-{goblin}").check()
    await gm.get_by_test_id("begin-fight").click()
    await expect(gm.get_by_test_id("everyone-surprised")).to_be_visible()
    started = [e for e in await log(api, gid, org) if e["type"] == "fight_started"][-1]
    assert started["data"]["everyone_surprised"] and started["data"]["surprised"] == []
    await expect(gm.get_by_test_id("dice-log")).to_contain_text("tedy nikdo")

    # The replay tells all of it in words.
    await command(api, gid, org, {"type": "end_game"})
    events = await log(api, gid, org)
    told = [
        ("check_rolled", lambda d: True, "Postřeh (obtížnost 8)"),
        ("action_taken", lambda d: d["effect"], "cíl Baldur, od příštího kola: +10 životů"),
        ("item_took_effect", lambda d: True, "Baldur: +10 životů (teď 50)"),
        ("item_wore_off", lambda d: True, "Baldur: účinek předmětu vyprchal (SIL +2 zpět)"),
        ("attack_declared", lambda d: d["weapon"] == "second", "druhou zbraní"),
        ("action_taken", lambda d: d["dropped"], "stará zbraň odhozena"),
        ("attack_declared", lambda d: d["defence_weapon"] == "second", "kryje druhou zbraní"),
        ("fight_started", lambda d: d["everyone_surprised"], "překvapeni všichni, tedy nikdo"),
    ]
    await gm.goto(f"/#/replay/{gid}")
    await expect(gm.get_by_test_id("replay-view")).not_to_have_attribute("data-seq", "")
    for kind, which, words in told:
        seq = next(e["seq"] for e in events if e["type"] == kind and which(e["data"]))
        await gm.get_by_test_id("replay-scrubber").fill(str(seq))
        await expect(gm.get_by_test_id("replay-view")).to_have_attribute("data-seq", str(seq))
        await expect(gm.get_by_test_id(f"replay-event-{seq}")).to_contain_text(words)
    await top_shot(gm, "dc-16-replay")
    assert not errors, errors
