"""Post-game replay in the PWA: a short duel replayed as a duellist (the opponent's card hidden
before the reveal, both cards after it), jumps, the stats, another viewer, play, and deep links;
then a long game (thousands of events) whose log loads without freezing the page."""

import asyncio
import time
from typing import Any

import pytest
from httpx import AsyncClient
from playwright.async_api import Page, expect

from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    events,
    local,
    new_game,
    new_gm_game,
    new_rank_game,
    server_view,
    shot,
    watch_errors,
)

MACE = "Palcát"  # 5/3 stun, granted to Alice: beats Bob's 2/3 wound card on the big number


def card_id(view: dict[str, Any], title: str) -> str:
    found: str = next(c["card_id"] for c in view["me"]["cards"] if c["title"] == title)
    return found


async def duel(
    api: AsyncClient, gid: str, a: dict[str, Any], b: dict[str, Any], cards: Any
) -> None:
    """a challenges b; a picks cards[0], b picks cards[1] (card ids by player_id)."""
    await command(api, gid, a["token"], {"type": "challenge", "target": b["code"]})
    duel_id = (await server_view(api, gid, a["token"]))["duel"]["duel_id"]
    for who, card in ((a, cards[0]), (b, cards[1])):
        await command(api, gid, who["token"], {"type": "pick", "duel_id": duel_id, "card_id": card})


async def at_seq(page: Page, seq: int) -> None:
    """Move the scrubber to seq and wait for the server's view of that moment."""
    await page.get_by_test_id("replay-scrubber").fill(str(seq))
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(seq))
    await expect(page.get_by_test_id("replay-view")).to_have_attribute("data-seq", str(seq))


async def test_replay_of_a_duel_as_a_player(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    gid, org = game["gid"], game["org"]
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    mace = {"title": MACE, "big": 5, "small": 3, "kind": "stun", "ranged": False}
    grant = {"type": "grant_card", "player_id": alice["player_id"], "card": mace}
    await command(api, gid, org, grant)
    alice_cards = await server_view(api, gid, alice["token"])
    bob_cards = await server_view(api, gid, bob["token"])
    picks = (card_id(alice_cards, MACE), card_id(bob_cards, WOUND_CARD))
    await duel(api, gid, alice, bob, picks)
    await command(api, gid, org, {"type": "end_game"})

    log = await events(api, gid, org)
    last = log[-1]["seq"]
    seq_of = {(e["type"], e["data"].get("player_id")): e["seq"] for e in log}
    alice_picked = seq_of[("card_picked", alice["player_id"])]
    bob_picked = seq_of[("card_picked", bob["player_id"])]
    reveal = seq_of[("round_revealed", None)]
    stun = seq_of[("player_stunned", bob["player_id"])]
    assert alice_picked < bob_picked < reveal < stun < last

    context = await phone()
    page = await context.new_page()
    errors = watch_errors(page)
    await page.goto(local(bob["join_url"], live_server))
    await expect(page.get_by_test_id("reveal")).to_be_visible()  # the last duel, not yet seen

    # A player may replay once the game has ended; without a seq it opens at the end.
    await page.goto("/#/replay/" + gid)
    view = page.get_by_test_id("replay-view")
    await expect(page.get_by_test_id("replay")).to_have_attribute("data-last", str(last))
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(last))
    await expect(view).to_have_attribute("data-seq", str(last))
    await expect(page.get_by_test_id("replay-viewer")).to_have_value(bob["player_id"])
    await expect(page.get_by_test_id("replay-scrubber")).to_have_attribute("max", str(last))

    # Back to the start, then "next duel" lands on the reveal: both cards, as Bob saw them.
    await at_seq(page, 1)
    await page.get_by_test_id("replay-next-duel").click()
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(reveal))
    await expect(view).to_have_attribute("data-seq", str(reveal))
    await expect(view).to_contain_text(MACE)
    await expect(view).to_contain_text(WOUND_CARD)
    await expect(view.get_by_test_id("replay-round-1")).to_contain_text(MACE)
    row = page.get_by_test_id(f"replay-event-{reveal}")
    await expect(row).to_have_attribute("aria-current", "true")
    await expect(row).to_contain_text(MACE)
    await page.evaluate("window.scrollTo(0, 0)")
    await shot(page, "40-replay-reveal")

    # Before the reveal Bob saw that Alice had picked, never which card.
    await at_seq(page, alice_picked)
    await expect(view).to_contain_text("Soupeř má vybráno")
    await expect(view).not_to_contain_text(MACE)
    await at_seq(page, bob_picked)
    await expect(view.locator(".replay-pick")).to_contain_text(WOUND_CARD)  # his own pick
    await expect(view).not_to_contain_text(MACE)
    await expect(page.get_by_test_id("replay-prev-duel")).to_be_disabled()

    # Jumps: the stun after the reveal; the previous duel from the end.
    await page.get_by_test_id("replay-next-stun").click()
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(stun))
    await expect(view).to_have_attribute("data-seq", str(stun))
    await expect(page.get_by_test_id(f"replay-event-{stun}")).to_contain_text("Omráčení: Bob")

    # The stats count the duel: Alice won it and stunned Bob.
    stats = page.get_by_test_id("replay-stats")
    await expect(stats).to_contain_text("souboje: 1")
    a_row = stats.get_by_test_id(f"replay-stat-{alice['player_id']}")
    b_row = stats.get_by_test_id(f"replay-stat-{bob['player_id']}")
    for name, value in (("duels", "1"), ("won", "1"), ("stuns", "1"), ("stunned", "0")):
        await expect(a_row).to_have_attribute(f"data-{name}", value)
    for name, value in (("duels", "1"), ("won", "0"), ("stuns", "0"), ("stunned", "1")):
        await expect(b_row).to_have_attribute(f"data-{name}", value)

    # The organizer's view of the same moment: both players, Bob stunned, every card.
    organizer = next(e["data"]["player_id"] for e in log if e["data"].get("role") == "organizer")
    await page.get_by_test_id("replay-viewer").select_option(organizer)
    await expect(view).to_have_attribute("data-viewer", organizer)
    await expect(view).to_contain_text("Alice")
    await expect(view).to_contain_text("omráčen")
    await expect(view).to_contain_text(MACE)  # Alice's hand

    # Play at 16 events a second from the start: it runs to the end and stops.
    await at_seq(page, 1)
    await page.get_by_test_id("replay-speed").select_option("16")
    await page.get_by_test_id("replay-play").click()
    await expect(page.get_by_test_id("replay-play")).to_have_attribute("aria-pressed", "true")
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(last), timeout=5000)
    await expect(page.get_by_test_id("replay-play")).to_have_attribute("aria-pressed", "false")
    await expect(view).to_have_attribute("data-seq", str(last))

    # The link opens the replay at its seq (and as its viewer) on another page of this phone.
    await at_seq(page, reveal)
    link = await page.get_by_test_id("replay-link").get_attribute("data-url")
    assert link and link.endswith(f"/#/replay/{gid}/{reveal}?viewer={organizer}"), link
    await page.get_by_test_id("lang-switch").click()
    await page.get_by_test_id("sun-switch").click()
    await expect(page.get_by_test_id("replay-play")).to_contain_text("Play")
    await page.evaluate("window.scrollTo(0, 0)")
    await shot(page, "41-replay-organizer-sun-en")
    await page.get_by_test_id("sun-switch").click()
    await page.get_by_test_id("lang-switch").click()
    other = await context.new_page()
    errors += watch_errors(other)
    await other.goto(link)
    await expect(other.get_by_test_id("replay-seq")).to_have_value(str(reveal))
    await expect(other.get_by_test_id("replay-view")).to_have_attribute("data-seq", str(reveal))
    await expect(other.get_by_test_id("replay-view")).to_have_attribute("data-viewer", organizer)
    await expect(other.get_by_test_id("replay-viewer")).to_have_value(organizer)
    await expect(other.get_by_test_id(f"replay-event-{reveal}")).to_be_visible()
    # The ?seq= form too, as Bob by default.
    await other.goto(f"/#/replay/{gid}?seq={alice_picked}")
    await expect(other.get_by_test_id("replay-seq")).to_have_value(str(alice_picked))
    await expect(other.get_by_test_id("replay-view")).to_have_attribute(
        "data-seq", str(alice_picked)
    )
    await expect(other.get_by_test_id("replay-view")).to_have_attribute(
        "data-viewer", bob["player_id"]
    )
    assert not errors, errors


async def test_the_organizer_console_links_to_the_replay(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice"])
    alice = await (await phone()).new_page()
    alice_errors = watch_errors(alice)
    await alice.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await expect(alice.get_by_test_id("my-code")).to_be_visible()
    # A player's replay waits for the end; a game this phone never joined is not opened.
    await alice.goto(f"/#/replay/{game['gid']}")
    await expect(alice.get_by_test_id("replay-error")).to_contain_text("až hra skončí")
    await alice.goto("/#/replay/0123456789abcdef/5")
    await expect(alice.get_by_test_id("notice")).to_contain_text("nejdřív otevři její pozvánku")
    await expect(alice.get_by_test_id("create-game")).to_be_visible()

    await command(api, game["gid"], game["org"], {"type": "end_game"})
    page = await (await phone()).new_page()
    # The refused log and view (403) are the only console errors on Alice's page.
    errors = watch_errors(page) + [e for e in alice_errors if "status of 403" not in e]
    await page.goto(f"{live_server}/#/join/{game['gid']}/{game['org']}")
    await page.get_by_test_id("open-replay").click()
    await expect(page.get_by_test_id("replay-view")).to_have_attribute("data-viewer", "p2")
    await expect(page.get_by_test_id("replay-viewer")).to_have_value("p2")
    await page.get_by_test_id("replay-back").click()
    await expect(page.get_by_test_id("game-status")).to_have_attribute("data-status", "ended")
    assert not errors, errors


PAIRS = 10
DUELS_PER_PAIR = 100  # 1,000 duels: 3,000 commands, 6,000 events


async def test_a_long_replay_loads_without_freezing_the_page(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    started = time.monotonic()
    names = [f"Hráč {i + 1}" for i in range(2 * PAIRS)]
    game = await new_game(api, names, stun_s=0)  # a stun ends at once: duel after duel
    gid, org = game["gid"], game["org"]
    players = [game["players"][name] for name in names]
    hands = {}
    for player in players:
        view = await server_view(api, gid, player["token"])
        hands[player["player_id"]] = {c["title"]: c["card_id"] for c in view["me"]["cards"]}

    async def fights(a: dict[str, Any], b: dict[str, Any]) -> None:
        for n in range(DUELS_PER_PAIR):
            x, y = (a, b) if n % 2 == 0 else (b, a)
            cards = (hands[x["player_id"]][STUN_CARD], hands[y["player_id"]][WOUND_CARD])
            await duel(api, gid, x, y, cards)

    await asyncio.gather(*(fights(players[2 * i], players[2 * i + 1]) for i in range(PAIRS)))
    await command(api, gid, org, {"type": "end_game"})
    log = await events(api, gid, org)
    last = log[-1]["seq"]
    reveals = [e["seq"] for e in log if e["type"] == "round_revealed"]
    assert last > 6 * PAIRS * DUELS_PER_PAIR and len(reveals) == PAIRS * DUELS_PER_PAIR
    made = time.monotonic() - started

    page = await (await phone()).new_page()
    errors = watch_errors(page)
    await page.goto(local(players[0]["join_url"], live_server))
    await expect(page.get_by_test_id("reveal")).to_be_visible()
    # Long tasks (main thread busy over 50 ms) while the log loads and is indexed.
    await page.evaluate(
        """() => { window.longTasks = [];
        new PerformanceObserver((list) => list.getEntries().forEach(
          (e) => window.longTasks.push(e.duration))).observe({type: "longtask"}); }"""
    )
    opened = time.monotonic()
    await page.evaluate(f"location.hash = '#/replay/{gid}/1'")
    await expect(page.get_by_test_id("replay-view")).to_have_attribute("data-seq", "1")

    # While it loads, a tap still answers at once.
    clicks = []
    for _ in range(3):
        shown = int(await page.get_by_test_id("replay-seq").input_value())
        before = time.monotonic()
        await page.get_by_test_id("replay-next").click()
        await expect(page.get_by_test_id("replay-seq")).to_have_value(str(shown + 1), timeout=1000)
        clicks.append(time.monotonic() - before)

    await expect(page.get_by_test_id("replay")).to_have_attribute(
        "data-last", str(last), timeout=15000
    )
    loaded = time.monotonic() - opened
    scrubber = page.get_by_test_id("replay-scrubber")
    await expect(scrubber).to_have_attribute("max", str(last))
    await at_seq(page, last)
    await expect(page.get_by_test_id(f"replay-event-{last}")).to_be_visible()
    rows = await page.locator('[data-testid^="replay-event-"]').count()
    assert rows < 60, rows  # only the rows in sight, never thousands

    # Jumps find the duels in the whole log; the list follows the cursor.
    await at_seq(page, last // 2)
    await page.get_by_test_id("replay-next-duel").click()
    target = next(seq for seq in reveals if seq > last // 2)
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(target))
    await expect(page.get_by_test_id(f"replay-event-{target}")).to_have_attribute(
        "data-type", "round_revealed"
    )
    await expect(page.get_by_test_id("replay-view")).to_have_attribute("data-seq", str(target))
    await expect(page.get_by_test_id("replay-stats")).to_have_attribute("data-events", str(last))
    first = players[0]["player_id"]
    await expect(page.get_by_test_id(f"replay-stat-{first}")).to_have_attribute(
        "data-duels", str(DUELS_PER_PAIR)
    )

    # Playing at 256 events a second and pausing: the pause answers within a second.
    await page.get_by_test_id("replay-speed").select_option("256")
    await page.get_by_test_id("replay-play").click()
    await page.wait_for_timeout(1000)
    before = time.monotonic()
    await page.get_by_test_id("replay-play").click()
    await expect(page.get_by_test_id("replay-play")).to_have_attribute(
        "aria-pressed", "false", timeout=1000
    )
    clicks.append(time.monotonic() - before)
    assert int(await page.get_by_test_id("replay-seq").input_value()) > target + 100

    long_tasks = await page.evaluate("window.longTasks")
    print(
        f"\nreplay of {last} events: made in {made:.1f} s, log loaded in {loaded:.2f} s, "
        f"clicks answered in {', '.join(f'{c * 1000:.0f}' for c in clicks)} ms, "
        f"longest main-thread task {max(long_tasks, default=0):.0f} ms "
        f"({len(long_tasks)} over 50 ms)"
    )
    assert max(clicks) < 1.0, clicks
    assert max(long_tasks, default=0) < 500, long_tasks
    await page.evaluate("window.scrollTo(0, 0)")
    await shot(page, "42-replay-long-game")
    assert not errors, errors


async def open_replay_as_organizer(phone: Phone, live_server: str, gid: str, org: str) -> Page:
    """The organizer's phone on the ended game's replay, at its last event."""
    page = await (await phone()).new_page()
    await page.goto(f"{live_server}/#/join/{gid}/{org}")
    await expect(page.get_by_test_id("game-status")).to_have_attribute("data-status", "ended")
    await page.goto(f"/#/replay/{gid}")
    await expect(page.get_by_test_id("replay-view")).not_to_have_attribute("data-seq", "")
    return page


async def no_missing_words(page: Page) -> None:
    missing = await page.evaluate("[...(globalThis.bijseMissingWords || [])]")
    assert not missing, missing


async def test_a_rank_bases_replay_has_its_raids_scores_and_bases(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_rank_game(api)
    gid, org, people = game["gid"], game["org"], game["people"]
    red4 = people["red4"]
    await command(api, gid, red4["token"], {"type": "raid", "team_id": "blue"})
    blue_leader = people["blue-leader"]
    (raid_id,) = (await server_view(api, gid, blue_leader["token"]))["incoming_raids"]
    order = [people["blue2"]["player_id"]]
    await command(
        api, gid, blue_leader["token"], {"type": "defend", "raid_id": raid_id, "order": order}
    )
    await command(
        api, gid, red4["token"], {"type": "take_part", "raid_id": raid_id, "part_id": "blue-4"}
    )
    deliver = {"type": "deliver", "player_id": red4["player_id"]}
    await command(api, gid, people["red-leader"]["token"], deliver)
    await command(api, gid, org, {"type": "end_game"})
    log = await events(api, gid, org)
    delivered, points = next(
        (e["seq"], e["data"]["points"]) for e in log if e["type"] == "delivered"
    )

    page = await open_replay_as_organizer(phone, live_server, gid, org)
    errors = watch_errors(page)
    # The ruleset's part: its jumps, its stats columns, its chart (zeros at the start, then the
    # delivery), its words for its events, a viewer per team.
    await at_seq(page, 1)
    await page.get_by_test_id("replay-next-delivery").click()
    await expect(page.get_by_test_id("replay-seq")).to_have_value(str(delivered))
    row = page.get_by_test_id(f"replay-event-{delivered}")
    await expect(row).to_contain_text("Odevzdání na základně Rudí")
    await expect(page.get_by_test_id("replay-chart")).to_have_attribute("data-points", "2")
    stat = page.get_by_test_id(f"replay-stat-{red4['player_id']}")
    await expect(stat).to_have_attribute("data-raids", "1")
    await expect(stat).to_have_attribute("data-points", str(points))
    await expect(stat.locator(".team-dot")).to_have_count(1)
    view = page.get_by_test_id("replay-view")
    await expect(view).to_contain_text("Stromy")
    await page.get_by_test_id("replay-viewer").select_option(blue_leader["player_id"])
    await expect(view).to_have_attribute("data-viewer", blue_leader["player_id"])
    await expect(view).to_contain_text("Velitel Modrý")
    await no_missing_words(page)
    assert not errors, errors


@pytest.mark.parametrize(
    ("ruleset", "pieces", "column"),
    [
        (
            "dice-combat",
            [
                {"name": "Hrdina", "side": "A", "lives": 8},
                {"name": "Ork", "side": "B", "lives": 8},
            ],
            "Útoky",
        ),
        (
            "stamina-deck",
            [
                {"name": "Lučištnice", "side": "A", "lives": 4, "x": 2, "y": 2},
                {"name": "Rytíř", "side": "B", "lives": 4, "x": 5, "y": 2},
            ],
            "Výstřely",
        ),
    ],
)
async def test_a_gm_ruleset_replay_has_its_fighters(
    phone: Phone,
    api: AsyncClient,
    live_server: str,
    ruleset: str,
    pieces: list[dict[str, Any]],
    column: str,
) -> None:
    game = await new_gm_game(api, ruleset, [], pieces)
    gid, org = game["gid"], game["org"]
    await command(api, gid, org, {"type": "end_game"})
    page = await open_replay_as_organizer(phone, live_server, gid, org)
    errors = watch_errors(page)
    # The rows of the stats are the fighters; the columns are the ruleset's.
    for name, piece_id in game["ids"].items():
        await expect(page.get_by_test_id(f"replay-stat-{piece_id}")).to_contain_text(name)
    await expect(page.get_by_test_id("replay-stats").locator("thead")).to_contain_text(column)
    await expect(page.get_by_test_id("replay-view")).to_contain_text(pieces[1]["name"])
    row = page.get_by_test_id("replay-event-1")
    await at_seq(page, 1)
    await expect(row).to_contain_text("Hra „Brod“ založena")
    await no_missing_words(page)
    assert not errors, errors
