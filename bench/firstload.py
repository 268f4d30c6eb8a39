"""First load on a weak signal: a Czech card-duel player opens a join link in a fresh Chromium.

Starts `bijse serve` from a source tree (default: this one; `--tree` another checkout, so the
same script measures an older commit) behind the real Caddy on https (deploy/Caddyfile with a
local CA, as tests/browser/test_https.py runs it; the phone reaches it by a name that is not
loopback), makes a started card-duel game over HTTP, then opens a player's join link in headless
Chromium (a Pixel 7, empty cache) throttled with Chromium's own network emulation (CDP
Network.emulateNetworkConditions) at DevTools' presets, in bytes per second as Chrome defines
them. Prints, per preset, the median over the runs of the time from the start of the navigation
until the player's code (data-testid my-code) shows, and the requests and bytes on the wire
(headers included) of that first load. The service worker is blocked there: the page's emulation
does not throttle the worker's own fetches, so with `--worker` its part and the second visit (a
reload) are measured apart.

    .venv/bin/python -m bench.firstload [--tree PATH] [--runs 3] [--preset fast-3g ...] [--list]

Targets: under 3 s on fast 3G, under 10 s on slow 3G.
"""

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, Playwright, Request, async_playwright

from bench.live import ROOT, free_port
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.test_https import trusting_browser
from tests.proxy import NAME, field_caddy, healthy, stop, until

# DevTools' presets (front_end/core/sdk/NetworkManager.ts): latency in ms, throughput in bytes/s.
PRESETS: dict[str, dict[str, Any] | None] = {
    "fast-3g": {
        "offline": False,
        "latency": 562.5,
        "downloadThroughput": 1.6e6 / 8 * 0.9,
        "uploadThroughput": 750e3 / 8 * 0.9,
    },
    "slow-3g": {
        "offline": False,
        "latency": 2000,
        "downloadThroughput": 500e3 / 8 * 0.8,
        "uploadThroughput": 500e3 / 8 * 0.8,
    },
    "none": None,  # no throttling: proves the bench works (tests/browser/test_firstload.py)
}
TARGETS = {"fast-3g": 3.0, "slow-3g": 10.0}
# Records when the player's code first shows, on the page's own clock (0 = navigation start).
CODE_SHOWN = """
new MutationObserver((_, observer) => {
  const code = document.querySelector('[data-testid="my-code"]');
  if (!code || !code.textContent.trim()) return;
  window.__codeShownMs = performance.now();
  observer.disconnect();
}).observe(document, { childList: true, subtree: true, characterData: true });
"""

TIMING = """() => Object.fromEntries([
  ...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource"),
].map((e) => [e.name, [e.startTime / 1000, e.responseEnd / 1000]]))"""


class Wire:
    """Requests seen by a browser context and their bytes on the wire."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.bytes: dict[Request, int] = {}

    def seen(self, request: Request) -> None:
        self.requests.append(request)

    async def finished(self, request: Request) -> None:
        sizes = await request.sizes()
        self.bytes[request] = sizes["responseHeadersSize"] + sizes["responseBodySize"]

    def count(self, *, worker: bool) -> tuple[int, int]:
        picked = [r for r in self.requests if (r.service_worker is not None) == worker]
        return len(picked), sum(self.bytes.get(r, 0) for r in picked)


@asynccontextmanager
async def served(
    tree: Path, folder: Path, *, proxy: bool
) -> AsyncIterator[tuple[str, Path | None]]:
    """`bijse serve` from `tree`, behind Caddy on https when `proxy`: its own http address and
    the root certificate phones must trust (None without the proxy)."""
    port = free_port()
    https_port, http_port = free_port(), free_port()
    public = f"https://{NAME}:{https_port}" if proxy else f"http://127.0.0.1:{port}"
    database = f"sqlite:///{folder / 'bench.db'}"
    options = ["--port", str(port), "--workers", "1", "--open-creation", "--public-url", public]
    options += ["--database-url", database]
    with (folder / "server.log").open("ab") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "server.serve.cli", "serve", *options],
            cwd=tree,
            env={"BIJSE_RATE_LIMITS": "off", **os.environ, "PYTHONPATH": str(tree)},
            stdout=log,
            stderr=log,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        await until(lambda: healthy(base), "bijse serve", server)
        if not proxy:
            yield base, None
            return
        async with field_caddy(folder / "caddy", [port], http_port, https_port) as ca:
            yield base, ca
    finally:
        stop(server)


async def join_link(base: str) -> str:
    """A started card-duel game with two players: Alice's join link (as the server makes it)."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as api:
        config = {"stun_s": 120, "escape_immunity_s": 10, "pick_timeout_s": None}
        body = {"ruleset": "card-duel", "name": "Bench", "config": config}
        game = await api.post("/api/games", json=body)
        game.raise_for_status()
        gid, org = game.json()["game_id"], game.json()["organizer_token"]
        auth = {"Authorization": f"Bearer {org}"}
        links = []
        for name in ("Alice", "Bob"):
            member = {"name": name, "role": "player"}
            added = await api.post(f"/api/games/{gid}/players", json=member, headers=auth)
            added.raise_for_status()
            links.append(added.json()["join_url"])
        start = {"command_id": str(uuid.uuid4()), "type": "start_game"}
        (await api.post(f"/api/games/{gid}/commands", json=start, headers=auth)).raise_for_status()
    return str(links[0])


async def code_shown(page: Page) -> float:
    await page.wait_for_function("() => window.__codeShownMs !== undefined", timeout=180_000)
    shown: float = await page.evaluate("() => window.__codeShownMs")
    return shown / 1000


async def open_link(
    browser: Browser,
    device: dict[str, Any],
    link: str,
    conditions: dict[str, Any] | None,
    **options: Any,
) -> tuple[Page, Wire, float]:
    """A fresh phone (empty cache, Czech) opens the link: the page, its requests, seconds."""
    context = await browser.new_context(**device, locale="cs-CZ", **options)
    wire = Wire()
    context.on("request", wire.seen)
    context.on("requestfinished", wire.finished)
    page = await context.new_page()
    await page.add_init_script(CODE_SHOWN)
    if conditions is not None:
        cdp = await context.new_cdp_session(page)
        await cdp.send("Network.enable")
        await cdp.send("Network.emulateNetworkConditions", conditions)
    await page.goto(link, wait_until="commit")
    seconds = await code_shown(page)
    await page.wait_for_load_state("networkidle")  # the last responses' accounting
    return page, wire, seconds


async def one_run(
    browser: Browser,
    device: dict[str, Any],
    link: str,
    conditions: dict[str, Any] | None,
    worker: bool,
) -> dict[str, Any]:
    page, wire, seconds = await open_link(
        browser, device, link, conditions, service_workers="block"
    )
    requests, size = wire.count(worker=False)
    # When each file was asked for and had arrived, in seconds from the navigation.
    timing: dict[str, list[float]] = await page.evaluate(TIMING)
    files = [(r.url, wire.bytes.get(r, 0), *timing.get(r.url, [-1, -1])) for r in wire.requests]
    await page.context.close()
    result: dict[str, Any] = {
        "seconds": seconds,
        "requests": requests,
        "bytes": size,
        "files": files,
    }
    if worker:
        page, wire, with_worker = await open_link(browser, device, link, conditions)
        await page.wait_for_function(
            "() => navigator.serviceWorker.controller !== null", timeout=180_000
        )
        await page.wait_for_load_state("networkidle")
        worker_requests, worker_size = wire.count(worker=True)
        await page.reload(wait_until="commit")
        again = await code_shown(page)
        await page.context.close()
        result |= {
            "with_worker": with_worker,
            "worker_requests": worker_requests,
            "worker_bytes": worker_size,
            "again": again,
        }
    return result


async def measure(
    tree: Path = ROOT,
    presets: tuple[str, ...] = ("fast-3g", "slow-3g"),
    runs: int = 3,
    *,
    proxy: bool = True,
    worker: bool = False,
    pw: Playwright | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Each preset's runs (a fresh game and a fresh phone each): what `main` prints. `pw`: a
    running Playwright (a test's), else one of its own."""
    if proxy and not shutil.which("caddy"):
        raise SystemExit("no caddy (apt-get install caddy), or --direct")
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        async with AsyncExitStack() as stack:
            base, ca = await stack.enter_async_context(served(tree.resolve(), folder, proxy=proxy))
            playing = pw if pw is not None else await started(stack)
            if ca is not None:
                browser = await stack.enter_async_context(
                    trusting_browser(playing, ca, folder / "home")
                )
            else:
                browser = await playing.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
                )
                stack.push_async_callback(browser.close)
            device = playing.devices["Pixel 7"]
            for preset in presets:
                results[preset] = [
                    await one_run(browser, device, await join_link(base), PRESETS[preset], worker)
                    for _ in range(runs)
                ]
    return results


async def started(stack: AsyncExitStack) -> Playwright:
    """A Playwright of the stack's own (its context manager's type says it may be None)."""
    playing = await stack.enter_async_context(async_playwright())
    assert playing is not None
    return playing


def report(tree: Path, results: dict[str, list[dict[str, Any]]], listing: bool) -> None:
    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True
    ).stdout.strip()
    print(f"tree {tree.resolve()} ({revision or '?'}), a Czech card-duel player's first load")
    for preset, runs in results.items():

        def median(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return float(statistics.median(r[key] for r in runs))

        target = TARGETS.get(preset)
        verdict = "" if target is None else f"  (target {target:.0f} s: "
        if target is not None:
            verdict += "met)" if median("seconds") < target else "MISSED)"
        print(
            f"{preset:8s} to the player's code {median('seconds'):6.2f} s"
            f"  {median('requests'):3.0f} requests {median('bytes') / 1000:7.1f} kB"
            f"  median of {len(runs)}{verdict}"
        )
        if "with_worker" in runs[0]:
            print(
                f"{'':8s} with the service worker {median('with_worker'):5.2f} s, its own fetches"
                f" (not throttled) {median('worker_requests'):.0f} requests"
                f" {median('worker_bytes') / 1000:.1f} kB; second visit {median('again'):.2f} s"
            )
        if listing:
            print(f"{'':8s} {'bytes':>8s} {'asked':>6s} {'came':>6s}")
            for url, size, asked, came in runs[0]["files"]:
                path = re.sub(r"^https?://[^/]+", "", url)
                print(f"{'':8s} {size:8d} {asked:6.2f} {came:6.2f}  {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve")
    parser.add_argument("--runs", type=int, default=3, help="fresh browser contexts; the median")
    parser.add_argument(
        "--preset", action="append", choices=sorted(PRESETS), help="default: fast-3g, slow-3g"
    )
    parser.add_argument("--direct", action="store_true", help="plain http, no Caddy in front")
    parser.add_argument("--worker", action="store_true", help="also the worker, a second visit")
    parser.add_argument("--list", action="store_true", help="print the first run's requests")
    args = parser.parse_args(argv)
    presets = tuple(args.preset or ("fast-3g", "slow-3g"))
    results = asyncio.run(
        measure(args.tree, presets, args.runs, proxy=not args.direct, worker=args.worker)
    )
    report(args.tree, results, args.list)


if __name__ == "__main__":
    main()
