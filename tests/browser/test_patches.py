"""The PWA's side of patches and keyed lists, on the page's own modules: RFC 7396 merge patches,
a game fed views and patches by a stub socket, and keyed rows redrawn only when they changed."""

from typing import Any

from playwright.async_api import Page

from tests.browser.helpers import Phone

# RFC 7396, appendix A: [target, patch, result].
RFC_CASES: list[list[Any]] = [
    [{"a": "b"}, {"a": "c"}, {"a": "c"}],
    [{"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}],
    [{"a": "b"}, {"a": None}, {}],
    [{"a": "b", "b": "c"}, {"a": None}, {"b": "c"}],
    [{"a": ["b"]}, {"a": "c"}, {"a": "c"}],
    [{"a": "c"}, {"a": ["b"]}, {"a": ["b"]}],
    [{"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}],
    [{"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{"a": "b"}, ["c"], ["c"]],
    [{"a": "foo"}, None, None],
    [{"a": "foo"}, "bar", "bar"],
    [{"e": None}, {"a": 1}, {"e": None, "a": 1}],
    [[1, 2], {"a": "b", "c": None}, {"a": "b"}],
    [{}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}],
]


async def blank(phone: Phone) -> Page:
    page = await (await phone()).new_page()
    await page.goto("/")
    return page


async def test_merge_patch_follows_rfc_7396_and_leaves_its_arguments(phone: Phone) -> None:
    page = await blank(phone)
    results = await page.evaluate(
        """async (cases) => {
            const { mergePatch } = await import("/js/patch.js");
            return cases.map(([target, patch]) => {
              const before = JSON.stringify([target, patch]);
              const result = mergePatch(target, patch);
              return { result, untouched: JSON.stringify([target, patch]) === before };
            });
        }""",
        RFC_CASES,
    )
    for (target, patch, expected), got in zip(RFC_CASES, results, strict=True):
        assert got["result"] == expected, (target, patch)
        assert got["untouched"], (target, patch)


# A Game with a stub socket (records resyncs): views replace, patches apply on their base, a patch
# on another base asks for a whole view, and the cached view follows the held one.
GAME_WITH_STUB_SOCKET = """async () => {
    const { Game } = await import("/js/game.js");
    const game = new Game({ game_id: "g1", token: "tok-stub" });
    let resyncs = 0;
    game.socket = { resync: () => { resyncs += 1; }, isOpen: true };
    const at = "2030-01-01T00:00:00Z";
    const snap = (label) => ({ label, seq: game.seq, view: structuredClone(game.view), resyncs,
      cached: JSON.parse(localStorage.getItem("bijse.view.tok-stub")) });
    const out = [];
    game.applyView({ type: "view", seq: 5, server_time: at, view: {
      game: { name: "G", status: "running" },
      players: { p1: { name: "A", alive: true }, p2: { name: "B", alive: true } },
      duels: { d3: { players: ["p1", "p2"], round: 1 } } } });
    out.push(snap("view"));
    game.applyPatch({ type: "patch", seq: 7, base: 5, server_time: at,
      patch: { players: { p2: { alive: false } }, duels: { d3: null } } });
    out.push(snap("patched"));
    game.applyPatch({ type: "patch", seq: 9, base: 8, server_time: at,
      patch: { game: { status: "ended" } } });
    out.push(snap("gap"));
    game.applyPatch({ type: "patch", seq: 6, base: 5, server_time: at,
      patch: { game: { name: "old" } } });
    out.push(snap("stale"));
    game.applyView({ type: "view", seq: 9, server_time: at,
      view: { game: { name: "G", status: "ended" } } });
    out.push(snap("whole"));
    return out;
}"""


async def test_game_applies_patches_on_their_base_and_resyncs_on_a_gap(phone: Phone) -> None:
    page = await blank(phone)
    steps = {s["label"]: s for s in await page.evaluate(GAME_WITH_STUB_SOCKET)}
    patched = steps["patched"]
    assert patched["seq"] == 7
    assert patched["view"]["players"] == {
        "p1": {"name": "A", "alive": True},
        "p2": {"name": "B", "alive": False},
    }
    assert patched["view"]["duels"] == {}
    at = "2030-01-01T00:00:00Z"
    assert patched["cached"] == {"seq": 7, "server_time": at, "view": patched["view"]}
    # A patch whose base is not the held seq is not applied: the socket asks for a whole view.
    assert steps["gap"]["resyncs"] == 1
    assert steps["gap"]["seq"] == 7 and steps["gap"]["view"] == patched["view"]
    # One the held view already covers is dropped.
    assert steps["stale"]["resyncs"] == 1 and steps["stale"]["view"] == patched["view"]
    assert steps["whole"]["seq"] == 9
    assert steps["whole"]["view"] == {"game": {"name": "G", "status": "ended"}}
    assert steps["whole"]["cached"]["view"] == steps["whole"]["view"]


async def test_keyed_rows_are_redrawn_only_when_their_data_changed(phone: Phone) -> None:
    page = await blank(phone)
    counts = await page.evaluate(
        """async () => {
            const { h, keyed, mount } = await import("/js/dom.js");
            const root = document.createElement("div");
            document.body.append(root);
            let built = 0;
            const draw = (items) => mount(root, h("main", {}, h("h1", {}, "List"),
              keyed("div", { testid: "rows" }, items.map((item) => ({
                key: item.id, data: item,
                render: () => {
                  built += 1;
                  return h("div", { testid: `row-${item.id}` }, item.name, h("b", {}, item.score));
                },
              })))));
            const items = Array.from({ length: 1000 },
              (_, i) => ({ id: `p${i}`, name: `Player ${i}`, score: 0 }));
            draw(items);
            const first = built;
            const rows = root.querySelector('[data-testid="rows"]');
            const before = [...rows.children];
            const touched = new Set();
            const observer = new MutationObserver((records) => {
              for (const r of records) {
                const node = r.target.closest ? r.target : r.target.parentElement;
                touched.add(node.closest("[data-key]")?.dataset.key ?? "list");
              }
            });
            observer.observe(root,
              { subtree: true, childList: true, attributes: true, characterData: true });
            items[500] = { ...items[500], score: 3 };
            draw(items);
            await new Promise((r) => setTimeout(r, 0));
            const kept = [...rows.children].every((row, i) => row === before[i]);
            const afterChange = { built: built - first, touched: [...touched], kept };
            touched.clear();
            draw(items.filter((item) => item.id !== "p7"));
            await new Promise((r) => setTimeout(r, 0));
            const afterRemove = { touched: [...touched], count: rows.children.length,
              text: rows.children[500 - 1].textContent };
            return { first, afterChange, afterRemove };
        }"""
    )
    assert counts["first"] == 1000
    assert counts["afterChange"] == {"built": 1, "touched": ["p500"], "kept": True}
    # One row left: the list's element changed, no row did.
    assert counts["afterRemove"]["touched"] == ["list"]
    assert counts["afterRemove"]["count"] == 999
    assert counts["afterRemove"]["text"] == "Player 5003"
