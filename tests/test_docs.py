"""The docs follow the code. docs/ruleset.md builds coin-toss from its files, and every code block
that names a file (```python file=…) is that file's text: together they show every line of the
example's files (and excerpts of others), so the page cannot drift from the ruleset the suite
plays. The README's table
of rulesets and the docs' index of them list the registered rulesets, no more, no fewer."""

import re
from pathlib import Path

from server.rules import RULESETS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "ruleset.md"
EXAMPLE = ROOT / "tests" / "rulesets" / "coin_toss"
BLOCK = re.compile(r"(?ms)^```\w+ file=(\S+)\n(.*?)^```$")


def shown(page: str) -> dict[str, list[list[str]]]:
    """The page's blocks of each file it names, in order, as lines."""
    found: dict[str, list[list[str]]] = {}
    for match in BLOCK.finditer(page):
        found.setdefault(match.group(1), []).append(match.group(2).splitlines())
    return found


def unshown(text: str, blocks: list[list[str]]) -> list[str]:
    """The lines of a file that no block shows: each block is a run of its lines, in order.
    Fails naming a block that is not."""
    lines = text.splitlines()
    covered = [False] * len(lines)
    start = 0
    for block in blocks:
        at = next((i for i in range(start, len(lines)) if lines[i : i + len(block)] == block), None)
        assert at is not None, "a block differs from its file:\n" + "\n".join(block[:5])
        covered[at : at + len(block)] = [True] * len(block)
        start = at + len(block)
    return [line for line, seen in zip(lines, covered, strict=True) if line.strip() and not seen]


def test_the_ruleset_page_shows_the_examples_files_as_they_are() -> None:
    blocks = shown(PAGE.read_text("utf-8"))
    files = sorted(
        path.relative_to(ROOT).as_posix()
        for path in EXAMPLE.rglob("*")
        if path.suffix in (".py", ".js", ".json", ".css")
        and not path.name.startswith("test_")
        and "__pycache__" not in path.parts
    )
    assert [f for f in files if f not in blocks] == [], "files of the example not on the page"
    for name, shown_blocks in blocks.items():
        left = unshown((ROOT / name).read_text("utf-8"), shown_blocks)
        if name in files:  # the example whole; another file's excerpts only as they are
            assert left == [], f"{name}: lines the page leaves out: {left[:5]}"


def test_unshown_finds_a_changed_or_left_out_line() -> None:
    assert unshown("a\n\nb\nc\n", [["a"], ["b", "c"]]) == []
    assert unshown("a\nb\nc\n", [["a"], ["c"]]) == ["b"]
    try:
        unshown("a\nb\n", [["a", "B"]])
    except AssertionError:
        return
    raise AssertionError("a changed block passed")


def test_the_ruleset_page_is_linked() -> None:
    for doc in ("README.md", "docs/architecture.md"):
        assert "ruleset.md" in (ROOT / doc).read_text("utf-8"), doc


def test_the_readme_and_the_docs_index_list_the_registered_rulesets() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    table = readme.split("## The rulesets", 1)[1].split("\n## ", 1)[0]
    assert sorted(re.findall(r"(?m)^\| `([a-z0-9-]+)` \|", table)) == sorted(RULESETS)
    index = (ROOT / "docs" / "rules" / "README.md").read_text("utf-8")
    linked = re.findall(r"\[`([a-z0-9-]+)`\]\(\1\.md\)", index)  # [`id`](id.md)
    assert sorted(linked) == sorted(RULESETS)
    assert [r for r in linked if not (ROOT / "docs" / "rules" / f"{r}.md").exists()] == []
