"""The PWA's words: every catalogue (the common one and each ruleset's, each part's) has the same
keys in Czech and English, no key twice (in a file, or in two files: they share one namespace),
every key built at run time (t(`x.${y}`)) names a family that exists, plurals go through
Intl.PluralRules, and the English words hold no Czech."""

import re
from pathlib import Path

from playwright.async_api import expect

from tests.browser.helpers import Phone

PWA = Path(__file__).resolve().parents[2] / "pwa"
KEY_LINE = re.compile(r'^  (?:"([^"]+)"|([A-Za-z_]\w*)):', re.M)
CZECH = re.compile(r"[ěščřžýůďťňĚŠČŘŽÝŮĎŤŇ]|\b(?:sáh\w*|hráč\w*|kol[oa]?|kostk\w*)\b")
# The words that name the other language are in it, on purpose: "Přepnout do češtiny".
OTHER_LANGUAGE = {"lang.title", "lang.other"}
PLURAL_FORMS = {"cs": {"one", "few", "many", "other"}, "en": {"one", "other"}}


def catalogues() -> dict[str, Path]:
    """Each catalogue's Czech file by its address on the server ('<prefix>' + 'cs.js')."""
    found = {"i18n/": PWA / "i18n" / "cs.js"}
    for path in sorted((PWA / "js" / "rulesets").rglob("*cs.js")):
        prefix = path.relative_to(PWA).as_posix().removesuffix("cs.js")
        found[prefix] = path
    return found


def test_no_key_twice() -> None:
    seen: dict[str, str] = {}
    twice = []
    for lang in ("cs", "en"):
        seen.clear()
        for prefix in catalogues():
            path = PWA / f"{prefix}{lang}.js"
            for match in KEY_LINE.finditer(path.read_text(encoding="utf-8")):
                key = match.group(1) or match.group(2)
                if key in seen:
                    twice.append(f"{lang}: {key} in {seen[key]} and {prefix}")
                seen[key] = prefix
    assert not twice, "\n".join(twice)
    assert len(seen) > 1000  # the pattern still reads the files


def built_keys() -> list[tuple[str, str]]:
    """Keys the code builds at run time, as (file, regex of what they may be)."""
    found = []
    for path in sorted((PWA / "js").rglob("*.js")):
        for match in re.finditer(r"\bt\(\s*`([^`]*)`", path.read_text(encoding="utf-8")):
            template = match.group(1)
            if "${" not in template:
                continue
            parts = re.split(r"\$\{[^}]*\}", template)
            pattern = "^" + ".+".join(re.escape(p) for p in parts) + "$"
            found.append((f"{path.relative_to(PWA)}: t(`{template}`)", pattern))
    return found


WORDS = """async (prefixes) => {
  const out = {};
  for (const prefix of prefixes) {
    for (const lang of ["cs", "en"]) {
      const words = (await import(`/${prefix}${lang}.js`)).default;
      out[`${prefix}${lang}`] = Object.fromEntries(Object.entries(words).map(([key, value]) => [key,
        typeof value === "object" ? {plural: Object.keys(value)}
        : typeof value === "function" ? {text: String(value({count: 2, name: "N", names: "N"}))}
        : {text: value}]));
    }
  }
  return out;
}"""


async def test_both_languages_have_the_same_keys_and_no_czech_in_english(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    await expect(page.locator("main")).to_be_visible()
    prefixes = list(catalogues())
    words = await page.evaluate(WORDS, prefixes)
    problems = []
    every_key: set[str] = set()
    for prefix in prefixes:
        cs, en = words[f"{prefix}cs"], words[f"{prefix}en"]
        every_key |= set(cs)
        for key in sorted(set(cs) ^ set(en)):
            problems.append(f"{prefix}: {key} only in {'cs' if key in cs else 'en'}")
        for lang, catalogue in (("cs", cs), ("en", en)):
            for key, value in catalogue.items():
                if "plural" in value and not set(value["plural"]) >= PLURAL_FORMS[lang] - {"many"}:
                    problems.append(f"{prefix}{lang}: {key} lacks plural forms: {value['plural']}")
        for key, value in en.items():
            if "text" in value and CZECH.search(value["text"]) and key not in OTHER_LANGUAGE:
                problems.append(f"{prefix}en: {key} is Czech: {value['text']!r}")
    for where, pattern in built_keys():
        if not any(re.match(pattern, key) for key in every_key):
            problems.append(f"{where} builds keys that no catalogue has")
    assert not problems, "\n".join(problems)
