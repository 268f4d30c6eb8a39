"""stamina-deck: the GM sets up a melee at a laptop table; two phones fight it card by card.

The GM creates the game, invites two players by QR, adds two characters linked to them (one
square set by tapping the mat), engages them (the server picks who attacks) and starts a round.
Each phone plays a card face down in the bout: the other phone sees that a card is down, never
which; once both are down both phones show the revealed exchange, as the server's feed has it.
Then the GM plays its own archer's turn: a move too far is refused, a move of up to 5 squares
goes through.
"""

import re
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
# Anna's archer and Bob's robber, far apart.
SHOOTERS = [
    {
        "name": "Lučištnice",
        "side": "Lučištnice",
        "player": "Anna",
        "lives": 4,
        "agi": 1,
        "shooting": 2,
        "weapon": {"name": "Luk", "sz": 4, "reload_speed": 3},
        "x": 2,
        "y": 2,
    },
    {
        "name": "Zbojník",
        "side": "Zbojník",
        "player": "Bob",
        "lives": 4,
        "shooting": 2,
        "armour": 1,
        "x": 9,
        "y": 9,
    },
]
SUITS = {"clubs": "♣", "diamonds": "♦", "hearts": "♥", "spades": "♠"}


def value(card: dict[str, Any]) -> int:
    return int(card["value"])


def opponent(view: dict[str, Any], character_id: str) -> str:
    (bout,) = view["bouts"].values()
    return str(bout["defender"] if bout["attacker"] == character_id else bout["attacker"])


def label(card: dict[str, Any]) -> str:
    return f"{card['rank']}{SUITS[card['suit']]}"


def character(view: dict[str, Any], character_id: str) -> dict[str, Any]:
    found: dict[str, Any] = view["characters"][character_id]
    return found


async def add_character(gm: Page, fields: dict[str, str], player_id: str | None) -> None:
    for field, value in fields.items():
        await gm.get_by_test_id(f"deck-field-{field}").fill(value)
    await gm.get_by_test_id("deck-field-weapon_ranged").uncheck()
    await gm.get_by_test_id("deck-field-weapon_melee").check()
    await gm.get_by_test_id("deck-field-player").select_option(player_id or "")
    await gm.get_by_test_id("deck-add-character").click()


async def test_gm_sets_up_a_melee_and_two_phones_play_sealed_cards(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    gm = await (await phone(**LAPTOP)).new_page()
    errors = watch_errors(gm)
    await gm.goto("/")
    await gm.get_by_test_id("config-ruleset").select_option("stamina-deck")
    await expect(gm.get_by_test_id("config-mat-size")).to_have_value("20")
    await gm.get_by_test_id("config-mat-size").fill("16")
    await gm.get_by_test_id("game-name").fill("Hospoda U Kance")
    await gm.get_by_test_id("create-game").click()
    await expect(gm.get_by_test_id("deck-gm")).to_be_visible()
    await expect(gm.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")
    await expect(gm.get_by_test_id("deck-mat")).to_have_attribute("data-size", "16")
    gid, org = await gm_session(gm)

    # Two players, invited with QR codes as in card-duel.
    await gm.get_by_test_id("player-list-input").fill("Anna\nBob\n")
    await gm.get_by_test_id("add-players").click()
    await expect(gm.get_by_test_id("add-status")).to_contain_text("2")
    await gm.get_by_test_id("show-invites").click()
    anna_url = await invite_url(gm, "Anna")
    bob_url = await invite_url(gm, "Bob")
    await gm.get_by_test_id("back-to-console").click()
    members = {
        m["name"]: player_id
        for player_id, m in (await server_view(api, gid, org))["members"].items()
    }

    # The knight on a typed square, Anna's; the robber on a square tapped on the mat, Bob's.
    sword = {"lives": "5", "agi": "0", "melee": "3", "weapon_name": "Šavle"}
    await add_character(
        gm, {"name": "Rytíř", "side": "Hrad", **sword, "x": "3", "y": "3"}, members["Anna"]
    )
    await expect(gm.locator('[data-testid^="deck-char-open-"]')).to_have_count(1)
    await gm.get_by_test_id("deck-square-4-3").click()
    await expect(gm.get_by_test_id("deck-field-x")).to_have_value("4")
    await expect(gm.get_by_test_id("deck-field-y")).to_have_value("3")
    knife = {**sword, "weapon_name": "Nůž"}
    await add_character(gm, {"name": "Lapka", "side": "Les", **knife}, members["Bob"])
    await expect(gm.locator('[data-testid^="deck-char-open-"]')).to_have_count(2)

    # The GM's archer, far away: a ranged weapon, its own turn later.
    await gm.get_by_test_id("deck-field-name").fill("Střelec")
    await gm.get_by_test_id("deck-field-side").fill("Hrad")
    await gm.get_by_test_id("deck-field-weapon_name").fill("Luk")
    await gm.get_by_test_id("deck-field-weapon_sz").fill("4")
    await gm.get_by_test_id("deck-field-weapon_melee").uncheck()
    await gm.get_by_test_id("deck-field-weapon_ranged").check()
    await gm.get_by_test_id("deck-field-x").fill("12")
    await gm.get_by_test_id("deck-field-y").fill("12")
    await gm.get_by_test_id("deck-field-player").select_option("")
    await gm.get_by_test_id("deck-add-character").click()
    await expect(gm.locator('[data-testid^="deck-char-open-"]')).to_have_count(3)

    view = await server_view(api, gid, org)
    ids = {c["name"]: character_id for character_id, c in view["characters"].items()}
    knight, robber, archer = ids["Rytíř"], ids["Lapka"], ids["Střelec"]
    assert (character(view, robber)["x"], character(view, robber)["y"]) == (4, 3)
    assert character(view, knight)["player_id"] == members["Anna"]
    assert character(view, archer)["player_id"] is None
    await expect(gm.get_by_test_id(f"deck-token-{robber}")).to_have_attribute("data-x", "4")
    # The GM sees every deck, in order.
    await gm.get_by_test_id(f"deck-char-open-{knight}").click()
    await expect(gm.get_by_test_id(f"deck-pile-deck-{knight}").locator(".pc-chip")).to_have_count(
        20
    )
    top = label(character(view, knight)["deck"][0])
    await expect(
        gm.get_by_test_id(f"deck-pile-deck-{knight}").locator(".pc-chip").first
    ).to_have_text(top)
    await expect(gm.get_by_test_id(f"deck-counts-{knight}")).to_have_attribute("data-deck", "20")

    # Placing is free before the first round: tap the archer, then a square.
    await gm.get_by_test_id(f"deck-token-{archer}").click()
    await gm.get_by_test_id("deck-square-12-11").click()
    await expect(gm.get_by_test_id(f"deck-token-{archer}")).to_have_attribute("data-y", "11")

    await gm.get_by_test_id("start-game").click()
    await expect(gm.get_by_test_id("game-status")).to_have_attribute("data-status", "running")
    # The console offers the pairs in contact (its view's `may`), each once, and never asks who
    # attacks: the server picks it. Before any round, both of agi 0: the knight, added first.
    pair = gm.get_by_test_id("deck-engage-pair")
    values = await pair.locator("option").evaluate_all("(options) => options.map((o) => o.value)")
    assert values == [f"{knight}:{robber}"]
    await pair.select_option(values[0])
    await expect(gm.get_by_test_id("deck-engage-hint")).to_contain_text("Kdo útočí, určí server")
    await top_shot(gm, "sd-00-gm-engage")
    await gm.get_by_test_id("deck-engage").click()
    bouts = gm.locator('[data-testid^="deck-bout-"]')
    await expect(bouts).to_have_count(1)
    await expect(bouts).to_have_attribute("data-attacker", knight)
    await expect(bouts.locator(".bout-side").first).to_contain_text("Rytíř")
    await expect(gm.get_by_test_id("deck-engage-none")).to_be_visible()
    bout_id = (await bouts.get_attribute("data-testid") or "").removeprefix("deck-bout-")
    await top_shot(gm, "sd-01-gm-setup")
    await gm.get_by_test_id("deck-start-round").click()
    await expect(gm.get_by_test_id("deck-round")).to_have_attribute("data-phase", "actions")
    await expect(gm.get_by_test_id("deck-order").locator("li")).to_have_count(3)

    # The phones: each shows its own character's hand, drawn up to the melee hand.
    anna = await (await phone()).new_page()
    bob = await (await phone()).new_page()
    errors += watch_errors(anna) + watch_errors(bob)
    await anna.goto(local(anna_url, live_server))
    await bob.goto(local(bob_url, live_server))
    await expect(anna.get_by_test_id(f"deck-me-{knight}")).to_be_visible()
    await expect(bob.get_by_test_id(f"deck-me-{robber}")).to_be_visible()
    view = await server_view(api, gid, org)
    for page, mine, other in ((anna, knight, robber), (bob, robber, knight)):
        hand = character(view, mine)["hand"]
        assert len(hand) == 3
        await expect(page.get_by_test_id("deck-hand").locator("[data-card]")).to_have_count(3)
        for card in hand:
            await expect(page.get_by_test_id(f"deck-card-{card['card_id']}")).to_contain_text(
                card["rank"]
            )
        await expect(page.get_by_test_id(f"deck-counts-{mine}")).to_have_attribute(
            "data-deck", str(character(view, mine)["counts"]["deck"])
        )
        # The opponent's counts and wound, never its cards.
        await expect(page.get_by_test_id(f"deck-counts-{other}")).to_have_attribute(
            "data-hand", "3"
        )
        await expect(page.get_by_test_id(f"deck-wound-{other}")).to_have_attribute(
            "data-wound", "none"
        )
        for card in character(view, other)["hand"]:
            await expect(page.get_by_test_id(f"deck-card-{card['card_id']}")).to_have_count(0)
        await expect(page.get_by_test_id(f"deck-bout-{bout_id}")).to_have_attribute(
            "data-attacker", knight
        )
        await expect(page.get_by_test_id(f"deck-token-{mine}")).to_be_visible()
    await top_shot(anna, "sd-02-phone-hand")

    # Exchange 1: Anna's knight, who holds the initiative, puts her highest card face down.
    hidden = max(character(view, knight)["hand"], key=value)
    await expect(anna.get_by_test_id("deck-play")).to_be_disabled()  # no card picked yet
    await anna.get_by_test_id(f"deck-card-{hidden['card_id']}").click()
    await expect(anna.get_by_test_id(f"deck-card-{hidden['card_id']}")).to_have_attribute(
        "aria-pressed", "true"
    )
    await anna.get_by_test_id("deck-play").click()
    await expect(anna.get_by_test_id(f"deck-down-{knight}")).to_contain_text(hidden["rank"])
    await expect(anna.get_by_test_id(f"deck-card-{hidden['card_id']}")).to_have_count(0)
    await expect(gm.get_by_test_id(f"deck-down-{knight}")).to_contain_text(label(hidden))

    # Bob sees that a card is down, not which.
    slot = bob.get_by_test_id(f"deck-down-{knight}")
    await expect(slot).to_be_visible()
    await expect(slot).to_have_attribute("data-down", "true")
    await expect(slot.locator(".pcard.back")).to_have_count(1)
    assert label(hidden) not in await bob.get_by_test_id(f"deck-bout-{bout_id}").inner_text()
    assert hidden["card_id"] not in await bob.content()
    await expect(bob.get_by_test_id(f"deck-down-{robber}")).to_have_count(0)
    await top_shot(bob, "sd-03-phone-card-down")

    # Bob's robber answers with his lowest card; both cards turn up on both phones.
    view = await server_view(api, gid, org)
    answer = min(character(view, robber)["hand"], key=value)
    await bob.get_by_test_id(f"deck-card-{answer['card_id']}").click()
    await bob.get_by_test_id("deck-play").click()
    await expect(bob.get_by_test_id(f"deck-exchange-{bout_id}")).to_be_visible()
    view = await server_view(api, gid, org)
    revealed = [e for e in view["feed"] if e["kind"] == "exchange"][-1]
    assert revealed["exchange"] == 1
    assert revealed["cards"][knight]["card_id"] == hidden["card_id"]
    assert revealed["cards"][robber]["card_id"] == answer["card_id"]
    for page in (anna, bob, gm):
        exchange = page.get_by_test_id(f"deck-exchange-{bout_id}")
        await expect(exchange).to_have_attribute("data-exchange", "1")
        await expect(exchange).to_have_attribute("data-result", revealed["result"])
        await expect(exchange).to_contain_text(label(hidden))
        await expect(exchange).to_contain_text(label(answer))
        await expect(
            page.get_by_test_id("deck-feed").locator('[data-kind="exchange"]')
        ).to_have_count(1)
        await expect(page.get_by_test_id(f"deck-bout-{bout_id}")).to_have_attribute(
            "data-exchanges", "1"
        )
    await top_shot(bob, "sd-04-phone-revealed")

    # Until an exchange is lost (the attacker plays high, the defender low): the loser's phone
    # gives the cards owed to the threat pile, one from the hand and the rest from the deck.
    phones = {knight: anna, robber: bob}
    debts: list[dict[str, Any]] = view["waiting"]["debts"]
    for n in (2, 3):
        if debts:
            break
        (bout,) = view["bouts"].values()
        for who, pick in ((bout["attacker"], max), (bout["defender"], min)):
            page = phones[who]
            hand = character(view, who)["hand"]
            if hand:
                await page.get_by_test_id(f"deck-card-{pick(hand, key=value)['card_id']}").click()
            await page.get_by_test_id("deck-play").click()
            await expect(page.get_by_test_id("deck-play")).to_be_disabled()
        await expect(anna.get_by_test_id(f"deck-exchange-{bout_id}")).to_have_attribute(
            "data-exchange", str(n)
        )
        view = await server_view(api, gid, org)
        debts = view["waiting"]["debts"]
    assert debts, "three exchanges and nobody lost one"
    (debt,) = debts
    loser = debt["character_id"]
    page = phones[loser]
    owed = page.get_by_test_id("deck-give-prompt")
    await expect(owed).to_have_attribute("data-count", str(debt["count"]))
    await expect(gm.get_by_test_id("deck-waiting")).to_be_visible()
    await expect(phones[opponent(view, loser)].get_by_test_id("deck-waiting")).to_be_visible()
    await expect(phones[opponent(view, loser)].get_by_test_id("deck-give-prompt")).to_have_count(0)
    hand = character(view, loser)["hand"]
    if hand:
        await page.get_by_test_id(f"deck-card-{hand[0]['card_id']}").click()
    await top_shot(page, "sd-05-phone-give")
    await page.get_by_test_id("deck-give").click()
    await expect(owed).to_have_count(0)
    view = await server_view(api, gid, org)
    assert character(view, loser)["counts"]["threat"] == debt["count"]
    if hand:
        assert hand[0]["card_id"] in [c["card_id"] for c in character(view, loser)["threat"]]
    await expect(page.get_by_test_id(f"deck-counts-{loser}")).to_have_attribute(
        "data-threat", str(debt["count"])
    )
    await expect(gm.get_by_test_id("deck-waiting")).to_have_count(0)

    # The GM ends the turns before the archer's; then the archer moves with a card.
    for _ in range(3):
        view = await server_view(api, gid, org)
        if view["turn"] == archer:
            break
        await expect(gm.get_by_test_id("deck-actor")).to_have_attribute(
            "data-character", view["turn"]
        )
        await gm.get_by_test_id("deck-end-turn").click()
        await expect(gm.get_by_test_id("deck-round")).not_to_have_attribute(
            "data-turn", view["turn"]
        )
    view = await server_view(api, gid, org)
    assert view["turn"] == archer
    await expect(gm.get_by_test_id("deck-actor")).to_have_attribute("data-character", archer)
    await expect(anna.get_by_test_id("deck-round")).to_have_attribute("data-turn", archer)
    step = character(view, archer)["hand"][0]
    await gm.get_by_test_id(f"deck-card-{step['card_id']}").click()
    await gm.get_by_test_id(f"deck-token-{archer}").click()
    await gm.get_by_test_id("deck-square-3-11").click()  # nine squares away
    await expect(gm.get_by_test_id("error").last).to_have_attribute("data-code", "too_far")
    await gm.get_by_test_id(f"deck-card-{step['card_id']}").click()
    await gm.get_by_test_id(f"deck-token-{archer}").click()
    await expect(gm.get_by_test_id("deck-square-8-11")).to_have_class(re.compile(r"\breach\b"))
    await gm.get_by_test_id("deck-square-8-11").click()
    await expect(gm.get_by_test_id(f"deck-token-{archer}")).to_have_attribute("data-x", "8")
    await expect(anna.get_by_test_id(f"deck-token-{archer}")).to_have_attribute("data-x", "8")
    view = await server_view(api, gid, org)
    assert (character(view, archer)["x"], character(view, archer)["y"]) == (8, 11)
    assert step["card_id"] in [c["card_id"] for c in character(view, archer)["played"]]
    await top_shot(gm, "sd-06-gm-table")
    await anna.get_by_test_id("sun-switch").click()
    await top_shot(anna, "sd-07-phone-sun")
    await gm.set_viewport_size({"width": 800, "height": 1280})  # a tablet
    await top_shot(gm, "sd-08-gm-tablet")
    assert not errors, errors


async def test_initiative_choice_a_shot_and_its_defence_on_two_phones(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_gm_game(api, "stamina-deck", ["Anna", "Bob"], SHOOTERS)
    gid, org, people = game["gid"], game["org"], game["players"]
    archer, robber = game["ids"]["Lučištnice"], game["ids"]["Zbojník"]
    anna = await (await phone()).new_page()
    bob = await (await phone()).new_page()
    errors = watch_errors(anna) + watch_errors(bob)
    await anna.goto(local(people["Anna"]["join_url"], live_server))
    await bob.goto(local(people["Bob"]["join_url"], live_server))
    await expect(anna.get_by_test_id(f"deck-me-{archer}")).to_be_visible()
    await command(api, gid, org, {"type": "start_round"})

    # Agility 1: the archer draws two cards and keeps one as her initiative, on her phone.
    view = await server_view(api, gid, org)
    choice = character(view, archer)["choice"]
    assert len(choice) == 2 and view["phase"] == "initiative"
    await expect(anna.get_by_test_id("deck-choose")).to_be_visible()
    await expect(bob.get_by_test_id("deck-choose")).to_have_count(0)
    await expect(bob.get_by_test_id(f"deck-order-{archer}")).to_contain_text("volí iniciativu")
    await top_shot(anna, "sd-09-phone-initiative")
    kept = max(choice, key=value)
    await anna.get_by_test_id(f"deck-choose-{kept['card_id']}").click()
    await expect(anna.get_by_test_id("deck-round")).to_have_attribute("data-phase", "actions")
    await expect(bob.get_by_test_id(f"deck-order-{archer}")).to_contain_text(label(kept))
    view = await server_view(api, gid, org)
    if view["turn"] == robber:  # the robber's turn first: the GM ends it
        await command(api, gid, org, {"type": "end_turn", "character_id": robber})
    await expect(anna.get_by_test_id("deck-round")).to_have_attribute("data-turn", archer)

    # She shoots with her highest card; his phone asks for a defence card.
    view = await server_view(api, gid, org)
    arrow = max(character(view, archer)["hand"], key=value)
    await expect(anna.get_by_test_id("deck-target")).to_have_value(robber)
    await anna.get_by_test_id(f"deck-card-{arrow['card_id']}").click()
    await anna.get_by_test_id("deck-shoot").click()
    await expect(bob.get_by_test_id("deck-defend-prompt")).to_be_visible()
    await expect(anna.get_by_test_id("deck-waiting")).to_be_visible()
    view = await server_view(api, gid, org)
    shot = view["waiting"]["shot"]
    assert shot["attack"] == 4 + 1 + arrow["value"]
    await expect(bob.get_by_test_id("deck-defend-prompt")).to_contain_text(str(shot["attack"]))
    await expect(bob.get_by_test_id("deck-defend")).to_be_disabled()  # no card picked yet
    shield = max(character(view, robber)["hand"], key=value)
    await bob.get_by_test_id(f"deck-card-{shield['card_id']}").click()
    await expect(bob.get_by_test_id("deck-defend")).to_contain_text(str(1 + shield["value"]))
    await top_shot(bob, "sd-10-phone-defend")
    await bob.get_by_test_id("deck-defend").click()
    await expect(bob.get_by_test_id("deck-defend-prompt")).to_have_count(0)
    defence = (await server_view(api, gid, org))["feed"][-1]
    assert defence["kind"] == "defence" and defence["defence"] == 1 + shield["value"]
    for page in (anna, bob):
        await expect(page.get_by_test_id("deck-feed").locator('[data-kind="shot"]')).to_have_count(
            1
        )
        await expect(
            page.get_by_test_id("deck-feed").locator('[data-kind="defence"]')
        ).to_contain_text(label(shield))
    if defence["hit"]:  # the robber discards the damage: his phone gives the cards
        await expect(bob.get_by_test_id("deck-give-prompt")).to_have_attribute("data-to", "discard")
        await bob.get_by_test_id("deck-give").click()
        await expect(bob.get_by_test_id("deck-give-prompt")).to_have_count(0)
        view = await server_view(api, gid, org)
        assert character(view, robber)["counts"]["discard"] >= defence["damage"]
    await expect(anna.get_by_test_id(f"deck-counts-{robber}")).to_have_attribute(
        "data-discard",
        str(character(await server_view(api, gid, org), robber)["counts"]["discard"]),
    )
    # Unloaded now: the reload button counts the steps (reload speed 3 minus shooting 2); a
    # second shot is greyed with the server's reason, from the view's `may`.
    await expect(anna.get_by_test_id("deck-reload")).to_contain_text("0/1")
    view = await server_view(api, gid, people["Anna"]["token"])
    assert view["may"][f"shoot:{archer}:{robber}"] == {"code": "not_loaded"}
    assert view["may"][f"reload:{archer}"] is True
    await expect(anna.get_by_test_id("deck-shoot")).to_be_disabled()
    await expect(anna.get_by_test_id("deck-shoot")).to_contain_text("není nabitá")
    await top_shot(anna, "sd-11-phone-after-shot")
    # Every card that is a picture and not a button has a role for its label (axe).
    for page in (anna, bob):
        await expect(page.locator("span.pcard[aria-label]:not([role])")).to_have_count(0)
        await expect(page.locator("h1")).to_have_count(1)

    # The end tells the story: each phone its own character's lives, wound and standing, the
    # whole table's, and the replay.
    await command(api, gid, org, {"type": "end_game"})
    view = await server_view(api, gid, org)
    for page, mine in ((anna, archer), (bob, robber)):
        over = page.get_by_test_id("game-over")
        await expect(over).to_be_visible()
        c = character(view, mine)
        outcome = page.get_by_test_id(f"deck-outcome-{mine}")
        await expect(outcome).to_contain_text(f"{c['lives_left']} / {c['lives']}")
        state = {"medium": "mimo boj", "heavy": "leží na zemi"}.get(c["wound"], "stojí")
        await expect(outcome).to_contain_text(state)
        await expect(over.get_by_test_id("deck-standings").locator("li")).to_have_count(2)
        await expect(page.get_by_test_id("game-over-replay")).to_have_attribute(
            "href", f"#/replay/{gid}"
        )
    await top_shot(anna, "sd-12-phone-over")
    assert not errors, errors
