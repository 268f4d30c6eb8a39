"""An idle player's page: what a phone spends when nothing happens (a 3-hour game on one charge).

Starts `bijse serve` from a source tree (default: this one; `--tree` another checkout), makes a
started card-duel game over HTTP, opens a player's join link in headless Chromium (a Pixel 7,
Debian's /usr/lib/chromium/chromium as the browser tests launch it) and prints:
- the first load's Total Blocking Time (Lighthouse's definition: the sum over the long tasks
  after First Contentful Paint of their time past 50 ms, until the page has been quiet for
  `QUIET_S`), with the long tasks themselves;
- then, with the page left idle for `--seconds` (no countdown on screen): the CPU seconds of the
  renderer process(es) per idle minute (CDP SystemInfo.getProcessInfo), the page's main-thread
  task time (CDP Performance.getMetrics TaskDuration/ScriptDuration), and the timer callbacks
  and animation frames that ran, per 30 s (counted by the init script COUNTERS).

    .venv/bin/python -m bench.idle [--tree PATH] [--seconds 60] [--loads 1] [--cpu-slowdown 1]

`--loads N` measures N first loads (a fresh phone each) and their median; `--cpu-slowdown 4` runs
them on Lighthouse's mobile CPU (CDP Emulation.setCPUThrottlingRate); the idle minute always runs
at full speed (throttling costs CPU of its own).

Targets: at most 31 timer callbacks and no animation frame per idle 30 s, TBT under 50 ms.
"""

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, async_playwright

from bench.firstload import join_link, served
from bench.live import ROOT
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

QUIET_S = 5  # Lighthouse's TTI looks for 5 s without a long task
# An init script: counts the timer callbacks and animation frames that run (window.__ticks,
# by kind and delay), and keeps the long tasks and First Contentful Paint (window.__blocking).
COUNTERS = """
(() => {
  const ticks = { timeout: 0, interval: 0, frame: 0, idle: 0, by: {} };
  window.__ticks = ticks;
  const counted = (kind, delay, fn) => typeof fn !== "function" ? fn : function (...args) {
    ticks[kind] += 1;
    ticks.by[`${kind}:${delay}`] = (ticks.by[`${kind}:${delay}`] ?? 0) + 1;
    return fn.apply(this, args);
  };
  const { setTimeout, setInterval, requestAnimationFrame, requestIdleCallback } = window;
  window.setTimeout = (fn, ms = 0, ...rest) => setTimeout(counted("timeout", ms, fn), ms, ...rest);
  window.setInterval = (fn, ms = 0, ...more) =>
    setInterval(counted("interval", ms, fn), ms, ...more);
  window.requestAnimationFrame = (fn) => requestAnimationFrame(counted("frame", "", fn));
  if (requestIdleCallback) {
    window.requestIdleCallback = (fn, opts) => requestIdleCallback(counted("idle", "", fn), opts);
  }
  const blocking = { fcp: null, tasks: [] };
  window.__blocking = blocking;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) blocking.tasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
  new PerformanceObserver((list) => {
    const fcp = list.getEntries().find((e) => e.name === "first-contentful-paint");
    if (fcp) blocking.fcp = fcp.startTime;
  }).observe({ type: "paint", buffered: true });
})();
"""
TICKS = "() => ({ ...window.__ticks, by: { ...window.__ticks.by } })"
BLOCKING = """() => ({
  fcp: window.__blocking.fcp, tasks: [...window.__blocking.tasks], now: performance.now(),
})"""


def total_blocking(fcp: float, tasks: list[list[float]]) -> float:
    """Lighthouse's TBT in ms: a task that began before FCP counts from FCP on."""
    total = 0.0
    for start, duration in tasks:
        end = start + duration
        if end <= fcp:
            continue
        total += max(0.0, end - max(start, fcp) - 50)
    return total


async def first_load(page: Page, link: str, quiet_s: float = QUIET_S) -> dict[str, Any]:
    """Opens the link and waits for the player's screen and then `quiet_s` without a long task:
    {tbt, fcp, tasks} (ms)."""
    await page.goto(link)
    # A query a tenth of a second, not a locator's wait: Playwright's own visibility checks run
    # on the page's main thread and would be counted as the page's long tasks.
    await page.wait_for_function(
        "() => document.querySelector('[data-testid=\"my-code\"]')", polling=100, timeout=30_000
    )
    while True:
        seen = await page.evaluate(BLOCKING)
        last = max((s + d for s, d in seen["tasks"]), default=seen["fcp"] or 0)
        if seen["fcp"] is not None and seen["now"] - last >= quiet_s * 1000:
            break
        await asyncio.sleep(0.5)
    tasks = seen["tasks"]
    return {"tbt": total_blocking(seen["fcp"], tasks), "fcp": seen["fcp"], "tasks": tasks}


async def renderer_cpu(browser_cdp: CDPSession) -> float:
    """CPU seconds the renderer processes have used so far."""
    info = await browser_cdp.send("SystemInfo.getProcessInfo")
    return float(sum(p["cpuTime"] for p in info["processInfo"] if p["type"] == "renderer"))


async def page_metrics(cdp: CDPSession) -> dict[str, float]:
    answer = await cdp.send("Performance.getMetrics")
    return {m["name"]: m["value"] for m in answer["metrics"]}


async def idle(
    page: Page, cdp: CDPSession, browser_cdp: CDPSession, seconds: float
) -> dict[str, Any]:
    """The page left alone for `seconds`: CPU, task time, timer callbacks and frames."""

    async def now() -> tuple[dict[str, Any], dict[str, float], float]:
        return await page.evaluate(TICKS), await page_metrics(cdp), await renderer_cpu(browser_cdp)

    (ticks0, metrics0, cpu0), began = await now(), time.monotonic()
    await asyncio.sleep(seconds)
    (ticks1, metrics1, cpu1), took = await now(), time.monotonic() - began
    per30, per60 = 30 / took, 60 / took

    def timers(ticks: dict[str, Any]) -> int:
        return int(ticks["timeout"] + ticks["interval"])

    by = {k: (v - ticks0["by"].get(k, 0)) * per30 for k, v in ticks1["by"].items()}
    return {
        "seconds": took,
        "cpu_per_min": (cpu1 - cpu0) * per60,
        "task_per_min": (metrics1["TaskDuration"] - metrics0["TaskDuration"]) * per60,
        "script_per_min": (metrics1["ScriptDuration"] - metrics0["ScriptDuration"]) * per60,
        "timers_per_30s": (timers(ticks1) - timers(ticks0)) * per30,
        "frames_per_30s": (ticks1["frame"] - ticks0["frame"]) * per30,
        "by": {k: v for k, v in sorted(by.items(), key=lambda kv: -kv[1]) if v},
        "countdowns": await page.evaluate("document.querySelectorAll('[data-until]').length"),
    }


async def open_player(browser: Browser, device: dict[str, Any]) -> tuple[BrowserContext, Page]:
    context = await browser.new_context(**device, locale="cs-CZ")
    page = await context.new_page()
    await page.add_init_script(COUNTERS)
    return context, page


async def measure(
    tree: Path, seconds: float, slowdown: float = 1, loads: int = 1
) -> dict[str, Any]:
    """`loads` first loads (a fresh phone each; the last one then idles): what `main` prints."""
    with tempfile.TemporaryDirectory() as name:
        async with (
            served(tree.resolve(), Path(name), proxy=False) as (base, _),
            async_playwright() as pw,
        ):
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                browser_cdp = await browser.new_browser_cdp_session()
                firsts = []
                for _ in range(loads):
                    context, page = await open_player(browser, pw.devices["Pixel 7"])
                    cdp = await context.new_cdp_session(page)
                    await cdp.send("Performance.enable")
                    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
                    firsts.append(await first_load(page, await join_link(base)))
                    if len(firsts) < loads:
                        await context.close()
                await page.get_by_test_id("connection").filter(has_text="spojeno").wait_for()
                # Throttling costs CPU of its own: the idle minute runs at full speed.
                await cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
                return {"loads": firsts, **await idle(page, cdp, browser_cdp, seconds)}
            finally:
                await browser.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve")
    parser.add_argument("--seconds", type=float, default=60, help="how long the page idles")
    parser.add_argument("--loads", type=int, default=1, help="first loads measured (fresh phones)")
    parser.add_argument(
        "--cpu-slowdown", type=float, default=1, help="CDP CPU throttling (Lighthouse's mobile: 4)"
    )
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.tree, args.seconds, args.cpu_slowdown, args.loads))
    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=args.tree, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"tree {args.tree.resolve()} ({revision or '?'}), an idle Czech card-duel player's page,"
        f" CPU slowed {args.cpu_slowdown:g}x"
    )
    for loaded in result["loads"]:
        long = ", ".join(f"{d:.0f} ms at {s / 1000:.2f} s" for s, d in loaded["tasks"]) or "none"
        print(
            f"first load: TBT {loaded['tbt']:.0f} ms (target < 50),"
            f" FCP {loaded['fcp'] / 1000:.2f} s, long tasks: {long}"
        )
    if len(result["loads"]) > 1:
        median = statistics.median(x["tbt"] for x in result["loads"])
        print(f"first load: median TBT {median:.0f} ms of {len(result['loads'])}")
    print(
        f"idle {result['seconds']:.0f} s ({result['countdowns']} countdowns on screen):"
        f" renderer CPU {result['cpu_per_min']:.2f} s per minute, main-thread tasks"
        f" {result['task_per_min']:.2f} s (script {result['script_per_min']:.2f} s) per minute"
    )
    print(
        f"per 30 s: {result['timers_per_30s']:.0f} timer callbacks (target <= 31),"
        f" {result['frames_per_30s']:.0f} animation frames (target 0)"
    )
    print("  by kind:delay: " + ", ".join(f"{k} {v:.0f}" for k, v in result["by"].items()))


if __name__ == "__main__":
    main()
