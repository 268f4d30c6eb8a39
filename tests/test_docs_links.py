"""Every link between the docs (README, docs/, pwa/README.md) reaches a file, and an anchor
reaches a heading of it: pages move (a ruleset's wire contract lives on its own page), links stay
true."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "pwa" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings (outside code blocks), repeats numbered."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"^#{1,6} (.*)$", line)):
            base = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(base, 0)
            found.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
    return found


def broken(page: Path, root: Path = ROOT) -> list[str]:
    bad = []
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = page if not path else (page.parent / path).resolve()
        if not file.exists():
            bad.append(f"{page.relative_to(root)}: {target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            bad.append(f"{page.relative_to(root)}: {target}: no such heading")
    return bad


def test_every_link_between_the_docs_reaches_its_page_and_heading(tmp_path: Path) -> None:
    assert [line for page in pages() for line in broken(page)] == []
    page = tmp_path / "a.md"
    page.write_text("# A b\n[x](#a-b) [y](#nope) [z](missing.md)\n", encoding="utf-8")
    assert len(broken(page, tmp_path)) == 2  # the check sees a bad anchor and a bad file
