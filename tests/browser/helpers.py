"""Helpers of the browser tests: screenshots, games set up over HTTP, the event log."""

import asyncio
import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import BrowserContext, Page, Route, WebSocketRoute, expect

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
STUN_CARD = "Rána židlí"  # 3/2 stun: beats the 2/3 wound card on the big number
WOUND_CARD = "Rána Ankh-Morporskou dýkou"

# An init script: records wake-lock requests, vibrations and beeps in window.__alerts.
ALERTS_RECORDER = """
window.__alerts = [];
const record = (what) => window.__alerts.push(what);
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: {
  request: async (type) => {
    record(`lock:${type}`);
    const sentinel = new EventTarget();
    sentinel.release = async () => {
      record("unlock");
      sentinel.dispatchEvent(new Event("release"));
    };
    return sentinel;
  },
} });
navigator.vibrate = (pattern) => { record("vibrate"); return true; };
const createOscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  record("beep");
  return createOscillator.call(this);
};
"""

SOCKET = re.compile(r"/ws/games/")

# True once a service worker controls the page and its cache holds every file of the app the page
# has loaded (the shell, and a ruleset's screens kept after the page loaded them): only then does a
# reload with no signal open the game. Waiting for the controller alone races the keeping.
KEPT_OFFLINE = """async () => {
  if (!navigator.serviceWorker.controller) return false;
  const [name, ...others] = await caches.keys();
  if (!name || others.length) return false;
  const cache = await caches.open(name);
  const files = performance.getEntriesByType("resource").map((entry) => entry.name)
    .filter((url) => new URL(url).pathname.includes("/v/"));
  const kept = await Promise.all(files.map((url) => cache.match(url, { ignoreSearch: true })));
  return files.length > 0 && kept.every(Boolean);
}"""


async def kept_offline(page: Page, timeout: float = 15) -> None:
    """Wait until a reload with no signal would open the app from the service worker's cache."""
    # A poll from here: wait_for_function takes the promise an async predicate returns as truthy.
    for _ in range(int(timeout / 0.1)):
        if await page.evaluate(KEPT_OFFLINE):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the service worker did not keep the app for offline use in time")


class Signal:
    """A phone's network: `cut()` drops the socket and the HTTP, `restore()` brings both back.

    Chromium's offline emulation alone lets a request through now and then once a service worker
    controls the page, so while the signal is down the routes refuse the server outright too."""

    def __init__(self) -> None:
        self.up = True
        self.links: list[WebSocketRoute] = []

    async def install(self, context: BrowserContext) -> None:
        await context.route_web_socket(SOCKET, self.socket)
        await context.route(re.compile(r"/api/"), self.request)

    async def socket(self, ws: WebSocketRoute) -> None:
        if not self.up:
            await ws.close(code=1001)
            return
        ws.connect_to_server()
        self.links.append(ws)

    async def request(self, route: Route) -> None:
        if self.up:
            await route.fallback()
        else:
            await route.abort("internetdisconnected")

    async def cut(self, page: Page) -> None:
        self.up = False
        for ws in self.links:
            await ws.close(code=1001)
        self.links.clear()
        await page.context.set_offline(True)

    async def restore(self, page: Page) -> None:
        self.up = True
        await page.context.set_offline(False)


# The `phone` fixture: makes a new Pixel 7 browser context (keyword arguments override).
Phone = Callable[..., Awaitable[BrowserContext]]


async def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """A screenshot, of the full page unless told; `name` may hold a folder ("360/reveal")."""
    path = SCREENSHOTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(path), full_page=full_page)


async def top_shot(page: Page, name: str) -> None:
    """A full-page screenshot from the top (the sticky top bar then sits at the top)."""
    await page.evaluate("window.scrollTo(0, 0)")
    await shot(page, name)


async def pick(page: Page, title: str) -> None:
    """On the duel screen: tap the card with this title, then confirm it."""
    await page.locator('[data-testid^="card-"]', has_text=title).click()
    await page.get_by_test_id("pick-confirm").click()


async def invite_url(page: Page, name: str) -> str:
    """On the invite sheet: the join URL of the member named exactly `name`, once its QR shows.
    By the name's own line: a substring of the whole card (which `has_text` matches, ignoring
    case) can also turn up in another card's code or token."""
    name_line = page.locator(".invite-name", has_text=re.compile(f"^{re.escape(name)}$"))
    invite = page.locator('[data-testid^="invite-p"]').filter(has=name_line)
    await expect(invite.locator(".invite-qr svg")).to_be_visible()
    return await invite.get_by_test_id("invite-url").inner_text()


def local(url: str, live_server: str) -> str:
    """A join URL on the live server's origin (the server may know another public URL)."""
    return re.sub(r"^https?://[^/]+", live_server, url)


async def new_game(
    api: httpx.AsyncClient,
    names: list[str],
    *,
    stun_s: int = 120,
    config: dict[str, Any] | None = None,
    started: bool = True,
) -> dict[str, Any]:
    """A card-duel game made over HTTP, running unless not `started` (its lobby): {gid, org,
    players: {name: added player}}."""
    settings = {"stun_s": stun_s, "escape_immunity_s": 10, "pick_timeout_s": None, **(config or {})}
    answer = await api.post(
        "/api/games", json={"ruleset": "card-duel", "name": "Test", "config": settings}
    )
    assert answer.status_code == 201, answer.text
    game = answer.json()
    gid, org = game["game_id"], game["organizer_token"]
    players = {}
    for name in names:
        added = await api.post(
            f"/api/games/{gid}/players",
            json={"name": name, "role": "player"},
            headers={"Authorization": f"Bearer {org}"},
        )
        assert added.status_code == 201, added.text
        players[name] = added.json()
    if started:
        await command(api, gid, org, {"type": "start_game"})
    return {"gid": gid, "org": org, "players": players}


async def command(
    api: httpx.AsyncClient, gid: str, token: str, body: dict[str, Any]
) -> dict[str, Any]:
    answer = await api.post(
        f"/api/games/{gid}/commands",
        json={"command_id": str(uuid.uuid4()), **body},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


async def events(api: httpx.AsyncClient, gid: str, org: str) -> list[dict[str, Any]]:
    answer = await api.get(f"/api/games/{gid}/events", headers={"Authorization": f"Bearer {org}"})
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["events"]
    return found


async def server_view(api: httpx.AsyncClient, gid: str, token: str) -> dict[str, Any]:
    """The view the server gives this token now."""
    answer = await api.get(f"/api/games/{gid}/view", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    view: dict[str, Any] = answer.json()["view"]
    return view


async def gm_session(page: Page) -> tuple[str, str]:
    """The game id and organizer token the page keeps in localStorage."""
    session = await page.evaluate(
        """() => {
          const token = localStorage.getItem("bijse.current");
          return JSON.parse(localStorage.getItem("bijse.sessions")).find((s) => s.token === token);
        }"""
    )
    return session["game_id"], session["token"]


async def stun_in_duel(
    api: httpx.AsyncClient, game: dict[str, Any], winner: str, loser: str
) -> None:
    """In the game's first duel `winner` picks the stun card and `loser` the wound card."""
    gid = game["gid"]
    view = await server_view(api, gid, game["org"])
    duel = next(iter(view["duels"]))
    players = view["players"].items()
    cards = {pid: {c["title"]: c["card_id"] for c in p["cards"]} for pid, p in players}
    for name, title in ((winner, STUN_CARD), (loser, WOUND_CARD)):
        player = game["players"][name]
        await command(
            api,
            gid,
            player["token"],
            {"type": "pick", "duel_id": duel, "card_id": cards[player["player_id"]][title]},
        )


async def duel(api: httpx.AsyncClient, game: dict[str, Any], picks: dict[str, str | None]) -> None:
    """In a card-duel game of new_game: the first named player challenges the second; each plays
    the card with the given title (a name mapped to None does not pick)."""
    gid = game["gid"]
    players = game["players"]
    first, second = picks
    challenge = {"type": "challenge", "target": players[second]["code"], "ranged": False}
    await command(api, gid, players[first]["token"], challenge)
    view = await server_view(api, gid, game["org"])
    duel_id = next(
        did for did, d in view["duels"].items() if players[first]["player_id"] in d["players"]
    )
    for name, title in picks.items():
        if title is None:
            continue
        cards = view["players"][players[name]["player_id"]]["cards"]
        card = next(c["card_id"] for c in cards if c["title"] == title)
        pick = {"type": "pick", "duel_id": duel_id, "card_id": card}
        await command(api, gid, players[name]["token"], pick)


def watch_errors(page: Page) -> list[str]:
    """Collect uncaught page errors and console errors, to assert none happened."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    return errors


RANK_TEAMS = [{"team_id": "red", "name": "Rudí"}, {"team_id": "blue", "name": "Modří"}]


async def add_member(
    api: httpx.AsyncClient, gid: str, org: str, name: str, role: str, team: str | None
) -> dict[str, Any]:
    added = await api.post(
        f"/api/games/{gid}/players",
        json={"name": name, "role": role, "team": team},
        headers={"Authorization": f"Bearer {org}"},
    )
    assert added.status_code == 201, added.text
    member: dict[str, Any] = added.json()
    return member


async def new_rank_game(
    api: httpx.AsyncClient, *, start: bool = True, ranks: bool = True
) -> dict[str, Any]:
    """A rank-bases game made over HTTP: teams red and blue, each with a leader and five players
    whose rank is their number ("red1" … "red5", "red-leader"), and a spectator ("board").

    Returns {gid, org, people: {key: added member}}; started unless start=False.
    """
    answer = await api.post(
        "/api/games",
        json={"ruleset": "rank-bases", "name": "Tábor", "config": {"teams": RANK_TEAMS}},
    )
    assert answer.status_code == 201, answer.text
    game = answer.json()
    gid, org = game["game_id"], game["organizer_token"]
    people: dict[str, Any] = {}
    for team, label in (("red", "Rudý"), ("blue", "Modrý")):
        people[f"{team}-leader"] = await add_member(
            api, gid, org, f"Velitel {label}", "leader", team
        )
        for rank in range(1, 6):
            member = await add_member(api, gid, org, f"{label} {rank}", "player", team)
            people[f"{team}{rank}"] = member
            if ranks:
                await command(
                    api,
                    gid,
                    org,
                    {"type": "assign_rank", "player_id": member["player_id"], "rank": rank},
                )
    people["board"] = await add_member(api, gid, org, "Tabule", "spectator", None)
    if start:
        await command(api, gid, org, {"type": "start_game"})
    return {"gid": gid, "org": org, "people": people}


async def challenge_on_phone(page: Page, code: str) -> None:
    """The player on `page` challenges the player with `code`, typed as on the phone."""
    await page.get_by_test_id("challenge-code").fill(code)
    await page.get_by_test_id("challenge-submit").click()
    await page.get_by_test_id("duel").wait_for()


# A GM's ruleset: the command that adds a piece, and where the view lists them.
PIECES = {
    "dice-combat": ("add_combatant", "combatants"),
    "stamina-deck": ("add_character", "characters"),
}


async def new_gm_game(
    api: httpx.AsyncClient, ruleset: str, names: list[str], pieces: list[dict[str, Any]]
) -> dict[str, Any]:
    """A running dice-combat or stamina-deck game made over HTTP: the named players, then the
    pieces (combatants or characters; a piece's "player" names the player whose phone plays it).

    Returns {gid, org, players: {name: added player}, ids: {piece name: its id}}.
    """
    created = await api.post("/api/games", json={"ruleset": ruleset, "name": "Brod"})
    assert created.status_code == 201, created.text
    gid, org = created.json()["game_id"], created.json()["organizer_token"]
    players = {name: await add_member(api, gid, org, name, "player", None) for name in names}
    add, listed = PIECES[ruleset]
    for piece in pieces:
        fields = {k: v for k, v in piece.items() if k != "player"}
        if "player" in piece:
            fields["player_id"] = players[piece["player"]]["player_id"]
        await command(api, gid, org, {"type": add, **fields})
    await command(api, gid, org, {"type": "start_game"})
    view = await server_view(api, gid, org)
    ids = {piece["name"]: piece_id for piece_id, piece in view[listed].items()}  # keyed by id
    return {"gid": gid, "org": org, "players": players, "ids": ids}
