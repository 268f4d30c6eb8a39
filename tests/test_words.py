"""The PWA's words are data: JSON catalogues, the shell's (pwa/i18n/) and each ruleset part's
(pwa/js/rulesets/<id>/, and the test ruleset's). Both languages have the same keys, no key is
written twice in a file, a ruleset's key is never a common one (the common words come first, so
it would never show; two rulesets may share a key: each has its own words, pwa/js/i18n.js), every
key the shared code asks for is a common one, every key built at run time (t(`x.${y}`)) names a
family that exists, plurals have their forms, and the English words hold no Czech. The browser
tests fail on a key a screen asks for that no file has."""

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PWA = ROOT / "pwa"
FOLDERS = [PWA / "i18n", PWA / "js" / "rulesets", ROOT / "tests" / "rulesets"]
# Czech letters, or Czech words with none (sáhy was on the English dice screen).
CZECH = re.compile(r"[ěščřžýůďťňĚŠČŘŽÝŮĎŤŇ]|\b(?:sáh\w*|hráč\w*|kol[oa]?|kostk\w*)\b")
COMMON = PWA / "i18n"
PLURAL_FORMS = {"cs": {"one", "few", "other"}, "en": {"one", "other"}}


def catalogues() -> dict[str, Path]:
    """Each catalogue's stem ("…/replay.") by its Czech file."""
    found = {}
    for folder in FOLDERS:
        for path in sorted(folder.rglob("*cs.json")):
            found[path.as_posix().removesuffix("cs.json")] = path
    return found


def read(path: Path, twice: list[str]) -> dict[str, Any]:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        twice.extend(
            f"{path.relative_to(ROOT)}: {k}" for k in {k for k in keys if keys.count(k) > 1}
        )
        return dict(items)

    words: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=pairs)
    return words


def everything() -> tuple[dict[str, dict[str, dict[str, Any]]], list[str]]:
    """{stem: {lang: words}}, and the keys written twice."""
    twice: list[str] = []
    found = {
        stem: {lang: read(Path(f"{stem}{lang}.json"), twice) for lang in ("cs", "en")}
        for stem in catalogues()
    }
    return found, twice


def test_the_catalogues_are_read() -> None:
    found, _ = everything()
    assert len(found) >= 10 and sum(len(w["cs"]) for w in found.values()) > 1000


def test_no_key_twice_and_no_ruleset_key_is_a_common_one() -> None:
    found, twice = everything()
    common = {key for lang in ("cs", "en") for key in found[f"{COMMON.as_posix()}/"][lang]}
    for stem, words in found.items():
        if not stem.startswith(COMMON.as_posix()):
            twice += [f"{stem}: {key} is a common key" for key in sorted(common & set(words["cs"]))]
    assert not twice, "\n".join(twice)


def code(path: Path) -> str:
    """A module's text without its comment lines."""
    return re.sub(r"(?m)^\s*//.*$", "", path.read_text("utf-8"))


def test_every_key_the_shared_code_asks_for_is_a_common_one() -> None:
    """A console without a ruleset's words loaded shows no raw key."""
    found, _ = everything()
    common = found[f"{COMMON.as_posix()}/"]["cs"]
    shared = [path for part in ("", "views", "replay") for path in (PWA / "js" / part).glob("*.js")]
    asked = {
        (path.name, match.group(1))
        for path in shared
        for match in re.finditer(r"""\bt\(\s*["']([^"'$]+)["']""", code(path))
    }
    assert len(asked) > 100
    assert sorted(f"{name}: {key}" for name, key in asked if key not in common) == []


def test_both_languages_have_the_same_keys_plurals_and_no_czech_in_english() -> None:
    found, _ = everything()
    problems = []
    for stem, words in found.items():
        cs, en = words["cs"], words["en"]
        for key in sorted(set(cs) ^ set(en)):
            problems.append(f"{stem}: {key} only in {'cs' if key in cs else 'en'}")
        for lang, catalogue in words.items():
            for key, value in catalogue.items():
                if isinstance(value, dict) and not set(value) >= PLURAL_FORMS[lang]:
                    problems.append(f"{stem}{lang}: {key} lacks plural forms: {sorted(value)}")
                elif not isinstance(value, dict | str):
                    problems.append(f"{stem}{lang}: {key} is neither words nor plural forms")
        for key, value in en.items():
            texts = value.values() if isinstance(value, dict) else [value]
            # Words in the other language on purpose ("Přepnout do češtiny"; STUNNED in both
            # for whoever comes to rob the stunned) are swapped: their Czech holds no Czech.
            swapped = isinstance(cs.get(key), str) and not CZECH.search(cs[key])
            if not swapped and any(CZECH.search(text) for text in texts):
                problems.append(f"{stem}en: {key} is Czech: {value!r}")
    assert not problems, "\n".join(problems)


def test_every_key_built_at_run_time_names_a_family_that_exists() -> None:
    found, _ = everything()
    keys = {key for words in found.values() for key in words["cs"]}
    problems = []
    sources = [*(PWA / "js").rglob("*.js"), *(ROOT / "tests" / "rulesets").rglob("*.js")]
    built = 0
    for path in sorted(sources):
        for match in re.finditer(r"\bt\(\s*`([^`]*)`", path.read_text(encoding="utf-8")):
            template = match.group(1)
            if "${" not in template:
                continue
            built += 1
            parts = re.split(r"\$\{[^}]*\}", template)
            pattern = re.compile("^" + ".+".join(re.escape(p) for p in parts) + "$")
            if not any(pattern.match(key) for key in keys):
                problems.append(f"{path.relative_to(ROOT)}: t(`{template}`) names no key")
    assert built > 20 and not problems, "\n".join(problems)
