"""First load on slow 3G: a card-duel player opens a join link in a fresh Chromium.

Starts `bijse serve` from a source tree (default: this one; `--tree` another checkout, so the
same script measures an older commit), makes a card-duel game over HTTP, then opens a player's
join link in headless Chromium (a Pixel 7, empty cache) throttled with Chromium's own network
emulation (CDP Network.emulateNetworkConditions: 400 ms latency, 400 kbit/s down and up, as
DevTools' slow 3G). Prints the time from the start of the navigation until the player's code
(data-testid my-code) shows, and the requests and bytes on the wire (headers included) of that
first load; then, with the service worker allowed (its own fetches are not throttled by the
page's emulation, so the first load proper runs with it blocked), the time again, what the
worker fetched to install, and the time to the code on a second visit (a reload).

    .venv/bin/python -m bench.firstload [--tree PATH] [--runs 3]
"""

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, Request, async_playwright

from bench.live import ROOT, free_port
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

SLOW_3G = {
    "offline": False,
    "latency": 400,
    "downloadThroughput": 400 * 1000 / 8,
    "uploadThroughput": 400 * 1000 / 8,
}
# Records when the player's code first shows, on the page's own clock (0 = navigation start).
CODE_SHOWN = """
new MutationObserver((_, observer) => {
  const code = document.querySelector('[data-testid="my-code"]');
  if (!code || !code.textContent.trim()) return;
  window.__codeShownMs = performance.now();
  observer.disconnect();
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


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


def start(tree: Path, database: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.serve.cli",
            "serve",
            "--port",
            str(port),
            "--database-url",
            f"sqlite:///{database}",
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            httpx.get(f"{base}/healthz")
            return server, base
        except httpx.TransportError:
            time.sleep(0.05)
    server.terminate()
    raise SystemExit("the server did not start")


def join_link(base: str) -> str:
    """A card-duel game with two players, started; Alice's join link on this origin."""
    with httpx.Client(base_url=base, timeout=10) as api:
        config = {"stun_s": 120, "escape_immunity_s": 10, "pick_timeout_s": None}
        body = {"ruleset": "card-duel", "name": "Bench", "config": config}
        game = api.post("/api/games", json=body)
        game.raise_for_status()
        gid, org = game.json()["game_id"], game.json()["organizer_token"]
        auth = {"Authorization": f"Bearer {org}"}
        links = []
        for name in ("Alice", "Bob"):
            added = api.post(
                f"/api/games/{gid}/players", json={"name": name, "role": "player"}, headers=auth
            )
            added.raise_for_status()
            links.append(added.json()["join_url"])
        start = {"command_id": str(uuid.uuid4()), "type": "start_game"}
        api.post(f"/api/games/{gid}/commands", json=start, headers=auth).raise_for_status()
    return re.sub(r"^https?://[^/]+", base, links[0])


async def code_shown(page: Page) -> float:
    await page.wait_for_function("window.__codeShownMs !== undefined", timeout=120_000)
    shown: float = await page.evaluate("window.__codeShownMs")
    return shown / 1000


async def open_link(
    browser: Browser, device: dict[str, Any], link: str, **options: Any
) -> tuple[Page, Wire, float]:
    """A fresh phone (empty cache) on slow 3G opens the link: the page, its requests, seconds."""
    context = await browser.new_context(**device, **options)
    wire = Wire()
    context.on("request", wire.seen)
    context.on("requestfinished", wire.finished)
    page = await context.new_page()
    await page.add_init_script(CODE_SHOWN)
    cdp = await context.new_cdp_session(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.emulateNetworkConditions", SLOW_3G)
    await page.goto(link, wait_until="commit")
    seconds = await code_shown(page)
    await page.wait_for_load_state("networkidle")  # the last responses' accounting
    return page, wire, seconds


async def one_run(browser: Browser, device: dict[str, Any], link: str) -> dict[str, Any]:
    # The page's emulation does not throttle the worker's own fetches: the first load is
    # measured with the worker blocked, the worker's part and the second visit apart.
    page, wire, seconds = await open_link(browser, device, link, service_workers="block")
    requests, size = wire.count(worker=False)
    files = [(r.url, wire.bytes.get(r, 0)) for r in wire.requests]
    await page.context.close()
    page, wire, with_worker = await open_link(browser, device, link)
    await page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=120_000)
    await page.wait_for_load_state("networkidle")
    worker_requests, worker_size = wire.count(worker=True)
    await page.reload(wait_until="commit")
    again = await code_shown(page)
    await page.context.close()
    return {
        "seconds": seconds,
        "requests": requests,
        "bytes": size,
        "files": files,
        "with_worker": with_worker,
        "worker_requests": worker_requests,
        "worker_bytes": worker_size,
        "again": again,
    }


async def measure(link: str, runs: int) -> list[dict[str, Any]]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
        )
        try:
            return [await one_run(browser, pw.devices["Pixel 7"], link) for _ in range(runs)]
        finally:
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve")
    parser.add_argument("--runs", type=int, default=3, help="fresh browser contexts; the median")
    parser.add_argument("--list", action="store_true", help="print the first run's requests")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server, base = start(args.tree.resolve(), Path(folder) / "bench.db")
        try:
            results = asyncio.run(measure(join_link(base), args.runs))
        finally:
            server.terminate()
            server.wait()

    if args.list:
        for url, size in results[0]["files"]:
            print(f"{size:8d}  {url.removeprefix(base)}")

    def median(key: str) -> float:
        return statistics.median(r[key] for r in results)

    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=args.tree, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"tree {args.tree.resolve()} ({revision}), slow 3G (400 ms, 400/400 kbit/s), "
        f"median of {args.runs}"
    )
    print(
        f"to the player's code   {median('seconds'):6.1f} s   {median('requests'):4.0f} requests"
        f"  {median('bytes') / 1000:7.1f} kB on the wire   (service worker blocked)"
    )
    print(
        f"with the service worker {median('with_worker'):5.1f} s   its own fetches"
        f" (not throttled): {median('worker_requests'):.0f} requests,"
        f" {median('worker_bytes') / 1000:.1f} kB"
    )
    print(f"second visit (reload)  {median('again'):6.1f} s")


if __name__ == "__main__":
    main()
