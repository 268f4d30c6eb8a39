"""Every refusal code and every event type the server can write has Czech (and English) words.

The codes are read from the server's source: every `RuleError("code", …)`, every refusal
returned as a `("code", "message")` pair and the codes of server/web/errors.py; the event types
are every kind a ruleset's catalog declares. The PWA
then words each one in Chromium, as a refused command's banner and a replay row show it (with
the ruleset's replay part loaded as the replay loads it), and each ruleset's replay jump kinds
and statistics columns.
"""

import ast
from pathlib import Path

from playwright.async_api import expect

from server.rules import RULESETS, roster
from tests.browser.helpers import Phone

SERVER = Path(__file__).resolve().parents[2] / "server"


def ruleset_of(path: Path) -> str | None:
    """The ruleset a source file belongs to; None for what every ruleset shares."""
    parts = path.relative_to(SERVER).parts
    return parts[1].replace("_", "-") if parts[0] == "rules" and len(parts) > 2 else None


def first_text(call: ast.Call) -> str | None:
    arg = call.args[0] if call.args else None
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def texts(node: ast.expr | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def collect() -> tuple[dict[str, set[str | None]], dict[str, set[str | None]]]:
    """(codes, event types), each with the rulesets whose source names it."""
    codes: dict[str, set[str | None]] = {}
    types: dict[str, set[str | None]] = {}
    for path in sorted(SERVER.rglob("*.py")):
        ruleset = ruleset_of(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                text = first_text(node)
                if text and name == "RuleError":
                    codes.setdefault(text, set()).add(ruleset)
            elif isinstance(node, ast.FunctionDef) and "tuple[str, str]" in ast.unparse(
                node.returns or ast.Constant(None)
            ):
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple):
                        for code in texts(ret.value.elts[0]):
                            codes.setdefault(code, set()).add(ruleset)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                table = node.value
                if path.name == "errors.py":  # STATUS keys, HTTP_CODES values
                    for code in [*map(texts, table.keys), *map(texts, table.values)]:
                        for found in code:
                            codes.setdefault(found, set()).add(None)
    codes.setdefault("internal", set()).add(None)  # errors.unexpected: any 500
    for ruleset_id, rules in RULESETS.items():  # the kinds each ruleset's catalog declares
        for kind in rules.events.facts if rules.events else ():
            types.setdefault(kind, set()).add(None if kind in roster.EVENTS.facts else ruleset_id)
    return codes, types


WORDS = """async ({ codes, types, rulesets }) => {
  const i18n = await import("/js/i18n.js");
  const { describe } = await import("/js/replay/describe.js");
  const { replayPart } = await import("/js/replay/part.js");
  const { indexPart } = await import("/js/replay/indexer.js");
  // A key shown as it is: the catalogue lacks it (not one named by a value the empty test
  // payload leaves undefined, such as a reason).
  const keyLike = /\\b(error|replay|dc|sd|role|ruleset)\\.[a-z_.-]+(?<!undefined)(?![a-z_.-])/;
  const missing = [];
  const parts = {};
  const indexes = {};
  for (const ruleset of rulesets) {
    parts[ruleset] = await replayPart(ruleset);
    indexes[ruleset] = await indexPart(ruleset);
    if (!parts[ruleset] || !indexes[ruleset]) missing.push(`no replay part for ${ruleset}`);
  }
  for (const lang of ["cs", "en"]) {
    await i18n.setLang(lang);
    for (const [code, where] of codes) {
      for (const ruleset of where.length ? where : rulesets) {
        const text = i18n.errorText(code, "MESSAGE", ruleset);
        if (text === "MESSAGE" || text === code || keyLike.test(text)) {
          missing.push(`${lang} refusal ${ruleset}/${code}: ${text}`);
        }
      }
    }
    for (const [type, where] of types) {
      for (const ruleset of where.length ? where : rulesets) {
        const event = { seq: 1, type, at: "2025-01-01T00:00:00Z", data: {} };
        let text;
        try {
          text = describe(event, { ruleset, members: {}, own: {} }, parts[ruleset]);
        } catch (error) {
          text = `threw ${error}`;
        }
        const raw = !text || text.startsWith(type.replace(/_/g, " ")) || text.startsWith("threw");
        if (raw || keyLike.test(text)) {
          missing.push(`${lang} event ${ruleset}/${type}: ${text}`);
        }
      }
    }
    for (const ruleset of rulesets) {
      const kinds = Object.keys(indexes[ruleset]?.jumps || {});
      const columns = indexes[ruleset]?.columns || [];
      const keys = [
        ...kinds.flatMap((k) => [`replay.kind.${k}`, `replay.kinds.${k}`, `replay.total.${k}`]),
        ...columns.flatMap((c) => [`replay.col.${c}`, `replay.col_title.${c}`]),
      ];
      for (const key of keys) {
        if (!i18n.hasWords(key)) missing.push(`${lang} replay ${ruleset}/${key}`);
      }
    }
    const organizer = i18n.shownName("Organizer", "organizer");
    if (lang === "cs" && organizer === "Organizer") missing.push("cs default name Organizer");
  }
  await i18n.setLang("cs");
  // The empty payloads above ask for keys such as `dc.act.undefined` on purpose: not a screen's.
  globalThis.bijseMissingWords?.clear();
  return missing;
}"""


def as_lists(found: dict[str, set[str | None]]) -> list[tuple[str, list[str]]]:
    """{code: rulesets} as JSON: an empty list for a code that every ruleset may meet."""
    return [
        (key, [] if None in where else sorted(w for w in where if w))
        for key, where in sorted(found.items())
    ]


def test_the_source_is_read() -> None:
    codes, types = collect()
    # A few of each kind, so a change in how the server names them cannot empty the lists.
    for code in ("game_not_running", "busy", "no_action_left", "too_far", "unauthorized"):
        assert code in codes, code
    for kind in ("player_stunned", "sprint_started", "exchange_revealed", "game_created"):
        assert kind in types, kind
    assert len(codes) > 80 and len(types) > 70


async def test_every_code_and_event_has_czech_words(phone: Phone) -> None:
    codes, types = collect()
    page = await (await phone()).new_page()
    await page.goto("/")
    await expect(page.get_by_test_id("create-form")).to_be_visible()
    missing = await page.evaluate(
        WORDS, {"codes": as_lists(codes), "types": as_lists(types), "rulesets": sorted(RULESETS)}
    )
    assert not missing, "\n".join(missing)
