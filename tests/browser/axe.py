"""axe-core in a page: its serious and critical findings, and the rest.

axe-core (MPL-2.0, https://github.com/dequelabs/axe-core) is vendored minified in
tests/browser/vendor/ with its license; a phone that runs it lets Playwright inject it past the
app's Content-Security-Policy (`bypass_csp`, that context only). A rule axe keeps experimental
(off by default) is turned on where the app must meet it: an accessible name that contains the
visible text (WCAG 2.5.3).
"""

from pathlib import Path
from typing import Any

from playwright.async_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
BLOCKING = ("serious", "critical")
# Waits for the animations that end (a notice fading in would read as low contrast).
SETTLED = """() => Promise.all(document.getAnimations()
  .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
  .map((a) => a.finished.catch(() => null)))"""
# One finding a line: impact, rule, what it asks, and the first few elements it found.
RUN = """async () => {
  const result = await axe.run(document, {
    resultTypes: ["violations"],
    rules: { "label-content-name-mismatch": { enabled: true } },
  });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")),
    html: v.nodes[0]?.html.slice(0, 120) ?? "",
  }));
}"""


async def findings(page: Page) -> tuple[list[str], list[str]]:
    """axe's findings on the page as it is: (serious or critical, the rest), a line each."""
    await page.evaluate(SETTLED)
    if not await page.evaluate("() => typeof axe === 'object'"):
        await page.add_script_tag(path=AXE)
    violations: list[dict[str, Any]] = await page.evaluate(RUN)
    blocking, minor = [], []
    for v in violations:
        line = f"axe {v['impact']} {v['id']} ({v['help']}): {', '.join(v['nodes'])}; {v['html']}"
        (blocking if v["impact"] in BLOCKING else minor).append(line)
    return blocking, minor
