"""A small first load: gzipped answers, a version prefix cached for a year, entry points
revalidated, a service worker that keeps only the shell, and a card-duel player who downloads no
other ruleset's screens. (The figures on slow 3G: bench/firstload.py.)"""

import asyncio
import json
import re
import shutil
from contextlib import asynccontextmanager
from pathlib import Path

from httpx import AsyncClient
from playwright.async_api import Browser, Page, expect

from tests.browser.helpers import Phone, local, new_game
from tests.conftest import free_port, serve

PWA = Path(__file__).resolve().parents[2] / "pwa"
IMMUTABLE = "public, max-age=31536000, immutable"
MAIN = re.compile(r'<script type="module" src="(v/[0-9a-f]{12}/)js/main\.js">')
# Screens of the rulesets a card-duel player does not play (home's create forms are the shell's).
OTHER_RULESETS = re.compile(
    r"/views/(rank_(?!create)|dice_(?!create)|deck_(?!create)|board|replay)"
    r"|/js/(replay/|stamina\.js|dice\.js|dicelog\.js)"
)


async def version_prefix(api: AsyncClient) -> str:
    found = MAIN.search((await api.get("/")).text)
    assert found, "index.html links main.js under a version prefix"
    return found.group(1)


async def test_files_are_gzipped_versioned_and_revalidated(api: AsyncClient) -> None:
    prefix = await version_prefix(api)
    main = await api.get(f"/{prefix}js/main.js", headers={"Accept-Encoding": "gzip"})
    assert main.headers["content-encoding"] == "gzip"
    assert main.headers["cache-control"] == IMMUTABLE
    assert main.headers["content-type"].startswith("text/javascript")
    assert main.content == (PWA / "js" / "main.js").read_bytes()  # decoded by httpx
    assert int(main.headers["content-length"]) < len(main.content) / 2
    plain = await api.get(f"/{prefix}js/main.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == main.content
    icon = await api.get(f"/{prefix}icons/icon-192.png")
    assert "content-encoding" not in icon.headers and icon.headers["cache-control"] == IMMUTABLE
    # A page opened before a restart asks under the old prefix: today's file, not kept a year.
    stale = await api.get("/v/000000000000/js/main.js")
    assert stale.content == main.content and stale.headers["cache-control"] == "no-cache"
    missing = await api.get(f"/{prefix}js/nothing.js")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"

    for entry in ("/", "/index.html", "/sw.js", "/manifest.webmanifest"):
        first = await api.get(entry, headers={"Accept-Encoding": "gzip"})
        assert first.headers["cache-control"] == "no-cache", entry
        assert first.headers["content-encoding"] == "gzip", entry
        again = await api.get(entry, headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304 and again.content == b"", entry


async def test_api_answers_are_gzipped_when_worth_it(api: AsyncClient) -> None:
    schema = await api.get("/api/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert schema.status_code == 200 and schema.headers["content-encoding"] == "gzip"
    assert schema.json()["paths"]
    tiny = await api.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert tiny.json() == {"ok": True} and "content-encoding" not in tiny.headers


async def test_worker_keeps_the_shell_and_no_ruleset(api: AsyncClient) -> None:
    prefix = await version_prefix(api)
    worker = (await api.get("/sw.js")).text
    found = re.search(r"^const BUILD = (.*);$", worker, re.MULTILINE)
    assert found, worker[:500]
    build = json.loads(found.group(1))
    assert prefix == f"v/{build['version']}/"
    shell = build["shell"]
    for needed in (
        "./",
        "./manifest.webmanifest",
        f"./{prefix}css/app.css",
        f"./{prefix}js/main.js",
        f"./{prefix}js/game.js",
        f"./{prefix}js/views/home.js",
        f"./{prefix}i18n/cs.js",
    ):
        assert needed in shell, needed
    for name in shell:
        assert (await api.get(name.removeprefix("."))).status_code == 200, name
    assert not [n for n in shell if OTHER_RULESETS.search(n) or "card_duel" in n], shell


async def test_card_duel_player_loads_only_card_duel(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice"])
    alice = game["players"]["Alice"]
    context = await phone()
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    await page.wait_for_load_state("networkidle")
    assert any(url.endswith("/js/rulesets/card-duel/screens.js") for url in requested), requested
    assert any(url.endswith("/js/rulesets/card-duel/player.js") for url in requested), requested
    assert not [url for url in requested if OTHER_RULESETS.search(url)], requested


async def test_worker_picks_up_a_new_version(browser: Browser, tmp_path: Path) -> None:
    """A restart with changed files: the next visit installs the new version's shell, the one
    after runs it, and the old version's cache is gone."""
    tree = tmp_path / "pwa"
    shutil.copytree(PWA, tree)
    database, port = f"sqlite:///{tmp_path / 'v.db'}", free_port()
    context = await browser.new_context()
    page = await context.new_page()

    async def shown_version() -> str:
        source = await page.locator('script[type="module"]').get_attribute("src")
        assert source
        return source.split("/")[1]

    async def caches(page: Page) -> list[str]:
        names: list[str] = await page.evaluate("caches.keys()")
        return names

    async with asynccontextmanager(serve)(database, port=port, pwa=tree) as base:
        await page.goto(f"{base}/#/games")
        await expect(page.get_by_test_id("create-game")).to_be_visible()
        await page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        old = await shown_version()
    with (tree / "css" / "app.css").open("a") as css:
        css.write("\n/* a new version */\n")
    async with asynccontextmanager(serve)(database, port=port, pwa=tree) as base:
        await page.reload()  # the old shell from the cache; the new worker installs meanwhile
        await expect(page.get_by_test_id("create-game")).to_be_visible()
        for _ in range(200):  # the new worker activates and drops the old version's cache
            if len(names := await caches(page)) == 1 and names != [f"bijse-shell-{old}"]:
                break
            await asyncio.sleep(0.05)
        [current] = await caches(page)
        assert current != f"bijse-shell-{old}"
        await page.reload()
        await expect(page.get_by_test_id("create-game")).to_be_visible()
        assert current == f"bijse-shell-{await shown_version()}"
        css = await page.evaluate(
            "fetch(document.querySelector('link[rel=stylesheet]').href).then((r) => r.text())"
        )
        assert "a new version" in css
    await context.close()
