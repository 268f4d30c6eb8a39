"""Each ruleset's words are its own (pwa/js/i18n.js): two rulesets may have the same key, each
screen shows its own ruleset's words, and no ruleset shadows a common word."""

import re

from playwright.async_api import Route, expect

from tests.browser.helpers import Phone

# Two rulesets' word files, served in place of the server's: the same key in both, and a common
# key in one.
WORDS = {"a": {"same": "A", "nav.games": "shadow"}, "b": {"same": "B"}}

LOOK_UP = """async () => {
  const url = performance.getEntriesByType("resource").map((e) => e.name)
    .find((name) => name.endsWith("/js/i18n.js"));
  const i18n = await import(url);  // the page's own module: its loaded words
  await i18n.useWords("./rulesets/a/");
  await i18n.useWords("./rulesets/b/");
  const seen = [];
  for (const id of ["a", "b", "a"]) {
    i18n.inFront(id);
    seen.push(i18n.t("same"), i18n.t("nav.games"));
  }
  return seen;
}"""


async def test_two_rulesets_same_key_do_not_collide(phone: Phone) -> None:
    page = await (await phone(service_workers="block")).new_page()  # page.route sees all

    async def words(route: Route) -> None:
        found = re.search(r"/rulesets/([ab])/", route.request.url)
        assert found
        await route.fulfill(json=WORDS[found[1]])

    await page.route(re.compile(r"/js/rulesets/[ab]/(cs|en)\.json$"), words)
    await page.goto("/#/games")
    await expect(page.get_by_test_id("create-form")).to_be_visible()
    common = "Moje hry"  # nav.games in pwa/i18n/cs.json
    assert await page.evaluate(LOOK_UP) == ["A", common, "B", common, "A", common]
