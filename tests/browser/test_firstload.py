"""A small first load: gzipped answers, a version prefix cached for a year, entry points
revalidated, a service worker that keeps only the shell, a Czech card-duel player who downloads
only the shell, card-duel's player screens and its Czech words, and the view asked for while the
modules load. (The figures on fast and slow 3G: bench/firstload.py, run once here.)"""

import asyncio
import contextlib
import json
import re
import shutil
from contextlib import asynccontextmanager
from pathlib import Path

from httpx import AsyncClient
from playwright.async_api import Browser, Page, Playwright, Request, Route, expect

from bench.firstload import measure
from tests.browser.helpers import Phone, local, new_game
from tests.conftest import free_port, serve
from tests.proxy import need_caddy

PWA = Path(__file__).resolve().parents[2] / "pwa"
IMMUTABLE = "public, max-age=31536000, immutable"
MAIN = re.compile(r'<script type="module" src="(v/[0-9a-f]{12}/)js/main\.js">')
# What a Czech card-duel player does not need: another ruleset's folder, the English words, the
# organizer's console (and its invites), the replay.
OTHER_RULESETS = re.compile(r"/js/rulesets/(?!card-duel/)|/js/(views/)?replay")
NOT_FOR_A_PLAYER = re.compile(
    rf"{OTHER_RULESETS.pattern}|/i18n/en\.json|/js/rulesets/card-duel/(en\.json|organizer\.js)"
    r"|/js/views/invites\.js"
)
VIEW = re.compile(r"/api/games/[^/]+/view$")


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
        f"./{prefix}i18n/cs.json",
    ):
        assert needed in shell, needed
    for name in shell:
        assert (await api.get(name.removeprefix("."))).status_code == 200, name
    assert not [n for n in shell if "/js/rulesets/" in n or "replay" in n], shell


async def test_boot_preloads_the_shell_and_a_ruleset_s_chain(api: AsyncClient) -> None:
    """js/boot.js, the first module, carries what it preloads: the shell's modules, and per
    ruleset its screens with their static imports and its words, under the version prefix."""
    prefix = await version_prefix(api)
    index = (await api.get("/")).text
    assert f'<script type="module" src="{prefix}js/boot.js" async>' in index
    boot = (await api.get(f"/{prefix}js/boot.js")).text
    found = re.search(r"^const PRELOAD = (.*);$", boot, re.MULTILINE)
    assert found, boot[:500]
    preload = json.loads(found.group(1))
    assert f"./{prefix}js/main.js" in preload["shell"]
    assert f"./{prefix}js/views/common.js" in preload["shell"]  # two import levels down
    chain = preload["rulesets"]["card-duel"]
    folder = f"./{prefix}js/rulesets/card-duel/"
    assert chain["modules"][0] == f"{folder}screens.js"
    assert f"{folder}player.js" in chain["modules"]
    assert f"{folder}organizer.js" not in chain["modules"]  # an organizer's: it loads it alone
    assert not set(chain["modules"]) & set(preload["shell"])
    assert chain["words"] == {"cs": f"{folder}cs.json", "en": f"{folder}en.json"}
    for name in [*preload["shell"], *chain["modules"], *chain["words"].values()]:
        assert (await api.get(name.removeprefix("."))).status_code == 200, name


async def test_card_duel_player_loads_only_card_duel(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """A Czech player's join link: the shell, card-duel's player screens, its Czech words."""
    game = await new_game(api, ["Alice"])
    alice = game["players"]["Alice"]
    context = await phone(service_workers="block")  # the worker's own fetches are not the page's
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    await page.wait_for_load_state("networkidle")
    assert await page.evaluate("() => document.documentElement.lang") == "cs"
    paths = [url.removeprefix(live_server) for url in requested]
    for needed in ("js/rulesets/card-duel/screens.js", "js/rulesets/card-duel/player.js"):
        assert any(path.endswith(needed) for path in paths), paths
    assert any(path.endswith("js/rulesets/card-duel/cs.json") for path in paths), paths
    assert not [path for path in paths if NOT_FOR_A_PLAYER.search(path)], paths


async def test_the_view_is_asked_for_while_the_modules_load(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """GET /view leaves before the shell's modules have all arrived (one of them is held back
    until it does), and once: game.js takes boot.js's answer rather than asking again."""
    game = await new_game(api, ["Alice"])
    alice = game["players"]["Alice"]
    context = await phone(service_workers="block")
    views: list[str] = []
    asked = asyncio.Event()

    def seen(request: Request) -> None:
        if VIEW.search(request.url):
            views.append(request.url)
            asked.set()

    async def held(route: Route) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asked.wait(), 5)
        held_until_asked.append(asked.is_set())
        await route.continue_()

    held_until_asked: list[bool] = []
    context.on("request", seen)
    await context.route(re.compile(r"/js/views/common\.js$"), held)
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    await page.wait_for_load_state("networkidle")
    assert held_until_asked == [True], "the view waited for the modules"
    assert len(views) == 1, views


async def test_the_bench_measures_a_first_load(pw: Playwright) -> None:
    """bench/firstload.py once, through the real Caddy on https, with no throttling."""
    need_caddy()
    results = await measure(presets=("none",), runs=1, pw=pw)
    [run] = results["none"]
    assert 0 < run["seconds"] < 20, run
    paths = [url for url, *_ in run["files"]]
    assert all(url.startswith("https://") for url in paths), paths
    assert any(VIEW.search(url) for url in paths), paths
    assert run["requests"] == len(paths) and run["bytes"] > 20_000, run


async def test_worker_picks_up_a_new_version(browser: Browser, tmp_path: Path) -> None:
    """A restart with changed files: the next visit installs the new version's shell, the one
    after runs it, and the old version's cache is gone."""
    tree = tmp_path / "pwa"
    shutil.copytree(PWA, tree)
    database, port = f"sqlite:///{tmp_path / 'v.db'}", free_port()
    context = await browser.new_context()
    page = await context.new_page()

    async def shown_version() -> str:
        source = await page.locator('script[type="module"]').first.get_attribute("src")
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
