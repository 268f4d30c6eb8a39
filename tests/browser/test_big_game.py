"""A big game on the PWA: the console of 1,000 players redraws one row per change and finds a
player by code; a phone fed patches holds what GET /view answers, also after a reconnect with
after=; names come from the directory, revalidated with a 304."""

import asyncio
import json
from typing import Any

from httpx import AsyncClient
from playwright.async_api import Page, expect

from server.game.patch import bare
from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    duel,
    local,
    new_game,
    new_rank_game,
    server_view,
    shot,
)

# An init script: every WebSocket message the page receives, with the time it came, in
# window.__frames (the app's own handler runs after this listener).
FRAMES_RECORDER = """
window.__frames = [];
window.__sockets = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    window.__sockets.push(String(args[0]));
    const socket = window.__sockets.length;
    this.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      window.__frames.push({ socket, at: performance.now(), type: message.type,
        seq: message.seq ?? null, base: message.base ?? null, bytes: event.data.length,
        patchBytes: message.patch ? JSON.stringify(message.patch).length : null });
    });
  }
};
"""


async def held(page: Page, token: str) -> dict[str, Any]:
    """The view the page holds (and keeps for an offline reload): {seq, server_time, view}."""
    cached: dict[str, Any] = await page.evaluate(
        "(token) => JSON.parse(localStorage.getItem(`bijse.view.${token}`))", token
    )
    return cached


async def frames(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await page.evaluate("window.__frames")
    return [f for f in found if f["type"] in ("view", "patch")]


async def same_as_server(page: Page, api: AsyncClient, gid: str, token: str) -> None:
    """Wait until the page holds the server's current seq, then compare it with GET /view."""
    answer = await api.get(f"/api/games/{gid}/view", headers={"Authorization": f"Bearer {token}"})
    want = answer.json()
    for _ in range(100):
        have = await held(page, token)
        if have and have["seq"] >= want["seq"]:
            break
        await asyncio.sleep(0.05)
    assert have["seq"] == want["seq"]
    assert bare(have["view"]) == bare(want["view"])


async def bulk_players(api: AsyncClient, gid: str, org: str, names: list[str]) -> list[Any]:
    added: list[Any] = []
    for start in range(0, len(names), 500):
        batch = [{"name": n, "role": "player", "team": None} for n in names[start : start + 500]]
        answer = await api.post(
            f"/api/games/{gid}/players",
            json={"players": batch},
            headers={"Authorization": f"Bearer {org}"},
        )
        assert answer.status_code == 201, answer.text
        added += answer.json()["players"]
    return added


# Count what changes under the player rows, by the row (data-key) it happens in.
WATCH_ROWS = """() => {
    const list = document.querySelector('[data-testid="player-rows"]');
    window.__rowsBefore = [...list.children];
    window.__touched = {};
    window.__mutatedAt = [];
    new MutationObserver((records) => {
      window.__mutatedAt.push(performance.now());
      for (const r of records) {
        const node = r.target.closest ? r.target : r.target.parentElement;
        const key = node.closest("[data-key]")?.dataset.key ?? "list";
        window.__touched[key] = (window.__touched[key] ?? 0) + 1;
      }
    }).observe(list, { subtree: true, childList: true, attributes: true, characterData: true });
}"""


async def test_console_of_1000_players_redraws_only_the_changed_row(
    phone: Phone, api: AsyncClient
) -> None:
    game = await new_game(api, [])
    gid, org = game["gid"], game["org"]
    players = await bulk_players(api, gid, org, [f"Hráč {i:04}" for i in range(1000)])
    context = await phone()
    await context.add_init_script(FRAMES_RECORDER)
    console = await context.new_page()
    await console.goto(f"/#/join/{gid}/{org}")
    rows = console.locator('[data-testid^="player-row-"]')
    await expect(rows).to_have_count(1000, timeout=20_000)
    # The roll call comes beside the view and marks every row: watched from after it is drawn.
    await expect(console.get_by_test_id("presence-connected")).to_be_visible()
    await console.evaluate(WATCH_ROWS)

    target = players[500]
    pid = target["player_id"]
    await command(api, gid, org, {"type": "grant_item", "player_id": pid, "item": "crossbow"})
    row = console.get_by_test_id(f"player-row-{pid}")
    await expect(row).to_contain_text("Kuše")
    await asyncio.sleep(0.3)  # anything else the change would redraw has been drawn by now
    touched = await console.evaluate("window.__touched")
    assert touched and set(touched) == {pid}, touched
    kept = await console.evaluate(
        "() => [...document.querySelector('[data-testid=\"player-rows\"]').children]"
        ".every((row, i) => row === window.__rowsBefore[i])"
    )
    assert kept, "every row element stays the same one (the changed one is patched in place)"
    # The change came as a small patch; from its arrival to the row redrawn:
    patch = (await frames(console))[-1]
    assert patch["type"] == "patch" and patch["bytes"] < 1000, patch
    drawn_ms = (await console.evaluate("window.__mutatedAt[0]")) - patch["at"]
    print(f"console of 1000: a {patch['bytes']} B patch, its row redrawn {drawn_ms:.1f} ms later")

    # Search by code, then by name without accents.
    search = console.get_by_test_id("player-filter")
    await search.fill(target["code"].lower())
    await expect(rows).to_have_count(1)
    await expect(row).to_be_visible()
    await search.fill("hrac 0500")
    await expect(rows).to_have_count(1)
    await expect(row).to_be_visible()
    await shot(console, "big/console-search")
    await search.fill("zzzz")
    await expect(rows).to_have_count(0)
    await expect(console.get_by_test_id("player-filter-count")).to_contain_text("zzzz")
    await search.fill("")
    await expect(rows).to_have_count(1000)


async def test_phone_fed_patches_holds_the_view_get_view_answers(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob", "Cyril", "Dana"])
    gid = game["gid"]
    alice = game["players"]["Alice"]
    context = await phone()
    await context.add_init_script(FRAMES_RECORDER)
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    # The phone registers its key for offline duels by itself: a change of her own view.
    for _ in range(100):
        if (await server_view(api, gid, alice["token"]))["me"]["key_id"]:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    await same_as_server(page, api, gid, alice["token"])
    first = len(await frames(page))

    # Others duel: Alice's view does not change, so her phone receives nothing.
    await duel(api, game, {"Cyril": STUN_CARD, "Dana": WOUND_CARD})
    await asyncio.sleep(0.5)
    assert len(await frames(page)) == first

    # Her own duel arrives as patches, and she ends where the server is.
    await duel(api, game, {"Alice": STUN_CARD, "Bob": WOUND_CARD})
    await expect(page.get_by_test_id("reveal")).to_be_visible()
    await same_as_server(page, api, gid, alice["token"])
    got = (await frames(page))[first:]
    assert got and all(f["type"] == "patch" for f in got), got
    assert all(f["base"] < f["seq"] for f in got)

    # Offline, the organizer hands her a card; back online the socket resumes with after=<held
    # seq> and gets a whole view.
    before = await held(page, alice["token"])
    await context.set_offline(True)
    await page.evaluate("window.dispatchEvent(new Event('offline'))")
    await expect(page.get_by_test_id("connection")).to_have_attribute(
        "class", "conn conn-closed conn-bar"
    )
    card = {"title": "Kosa", "big": 9, "small": 9, "kind": "death", "ranged": False}
    pid = alice["player_id"]
    await command(api, gid, game["org"], {"type": "grant_card", "player_id": pid, "card": card})
    sockets = len(await page.evaluate("window.__sockets"))
    await context.set_offline(False)
    await page.evaluate("window.dispatchEvent(new Event('online'))")
    await page.get_by_test_id("reveal-ok").click()
    await expect(page.locator('[data-testid^="card-"]', has_text="Kosa")).to_be_visible()
    urls = await page.evaluate("window.__sockets")
    assert len(urls) > sockets and f"after={before['seq']}" in urls[sockets], urls
    resumed = [f for f in await frames(page) if f["socket"] > sockets]
    assert resumed[0]["type"] == "view", resumed
    await same_as_server(page, api, gid, alice["token"])

    # A reload resumes at the held seq: the server has nothing to send.
    now = await held(page, alice["token"])
    await page.reload()
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    await asyncio.sleep(1.0)
    urls = await page.evaluate("window.__sockets")
    assert f"after={now['seq']}" in urls[0], urls
    assert not [url for url in urls if alice["token"] in url], "the token goes in a hello"
    assert await frames(page) == []
    await same_as_server(page, api, gid, alice["token"])


async def test_names_come_from_the_directory_and_other_codes_do_not(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    gid = game["gid"]
    alice = game["players"]["Alice"]
    page = await (await phone()).new_page()
    answers: list[tuple[int, str | None]] = []
    page.on(
        "response",
        lambda r: (
            answers.append((r.status, r.request.headers.get("if-none-match")))
            if r.url.endswith(f"/api/games/{gid}/players")
            else None
        ),
    )
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("players-list")).to_contain_text("1")
    assert answers == [(200, None)]
    stored = await page.evaluate(f"JSON.parse(localStorage.getItem('bijse.directory.{gid}'))")
    assert {m["name"] for m in stored["players"].values()} >= {"Alice", "Bob"}

    # Codes prove touches: the phone holds its own and nobody else's.
    codes = {pid: m.get("code") for pid, m in stored["players"].items()}
    assert codes[alice["player_id"]] == alice["code"]
    assert [c for pid, c in codes.items() if pid != alice["player_id"]] == [None] * (len(codes) - 1)
    await page.get_by_test_id("challenge-code").fill(game["players"]["Bob"]["code"])
    await expect(page.get_by_test_id("challenge-target")).to_have_count(0)  # no name to show
    print("directory answers:", json.dumps(answers))


async def test_rank_phones_fed_patches_hold_the_views_get_view_answers(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_rank_game(api)
    gid, people = game["gid"], game["people"]
    pages: dict[str, Page] = {}
    for key in ("red-leader", "red4", "board"):
        context = await phone()
        await context.add_init_script(FRAMES_RECORDER)
        pages[key] = await context.new_page()
        await pages[key].goto(local(people[key]["join_url"], live_server))
    await expect(pages["red-leader"].get_by_test_id("leader")).to_be_visible()
    await expect(pages["red4"].get_by_test_id("rank-player")).to_be_visible()
    await expect(pages["board"].get_by_test_id("board")).to_be_visible()
    for key, page in pages.items():
        await same_as_server(page, api, gid, people[key]["token"])
    first = {key: len(await frames(page)) for key, page in pages.items()}

    # Red 4 takes Blue 2's paper in a duel, and the red base records it: 1 point.
    red4, blue2 = people["red4"], people["blue2"]
    await command(api, gid, red4["token"], {"type": "duel", "target": blue2["code"]})
    duel_id = (await server_view(api, gid, blue2["token"]))["duel"]["duel_id"]
    await command(api, gid, blue2["token"], {"type": "reveal", "duel_id": duel_id})
    leader = people["red-leader"]["token"]
    await command(api, gid, leader, {"type": "deliver", "player_id": red4["player_id"]})
    await expect(pages["board"].get_by_test_id("score-red")).to_have_text("1")
    await expect(pages["red-leader"].get_by_test_id("base-score")).to_have_text("1")
    for key, page in pages.items():
        await same_as_server(page, api, gid, people[key]["token"])
        got = (await frames(page))[first[key] :]
        assert got and all(f["type"] == "patch" for f in got), (key, got)
    # The scoreboard saw only the score move: one small patch.
    board = (await frames(pages["board"]))[first["board"] :]
    print("scoreboard patches (bytes of the patch):", [f["patchBytes"] for f in board])
    assert len(board) == 1 and board[0]["patchBytes"] < 200, board
