"""Bij se: an event-sourced referee for live-action field games.

The package runs its busiest modules compiled to C by mypyc, and keeps a stale build from running.

A command's CPU is spread over a dozen layers of plain Python (the rules, the views and their
patches, the referee, the scribe, the hash chain); mypyc compiles the same typed source to C
extensions beside it (deploy/compile.py, run by deploy/setup.sh), which run it in about a tenth
less CPU a command (bench/duels.py). Compiled: every module of FOLDERS and FILES, but those
that define classes of another metaclass (pydantic models, SQLModel tables, msgspec structs:
mypyc cannot compile them, or would hide their fields from their library; found by the build)
and those LEFT_OUT for what mypyc does not do. The web layer and the CLI stay interpreted:
their classes extend uvicorn's and Starlette's, and a WebSocket handler compiled behaved
differently when cancelled; but for the answer to a phone's message (server/web/answer.py),
which every command goes through and which never waits.

Python imports an extension before a source of the same name, so a source edited after a build
would be shadowed by its old compiled self, and the compiled modules call one another directly
in C, so one stale module makes the whole build stale. `steer` (run below, by `import server`)
checks every compiled module's source against the hash the build recorded: when any differs,
when the record is missing, or when BIJSE_PURE is set (a profiler sees into Python only), every
module with an extension beside it is loaded from its source.
"""

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("server/rules", "server/game", "server/store")
FILES = ("server/clock.py", "server/web/answer.py")
LEFT_OUT = {
    # Generic dataclasses: mypyc makes classes of them that cannot be subscripted (the Story
    # itself is compiled: server/rules/telling.py).
    "server/rules/rows.py",
    "server/rules/story.py",
    # An async generator (mypyc has none); and the store's work is the database's, not Python's.
    "server/store/backends.py",
    # Finds the migrations by its own file's place, which a compiled module does not know.
    "server/store/migrate.py",
    # Exceptions compiled code catches in a chain of `except ... as error` clauses: when the
    # first clause's class is compiled, mypyc types the shared name by it, and the next clause's
    # exception fails that check (the scribe's task died of it on a bug's RuntimeError).
    "server/store/errors.py",
    # Reads an instance attribute through its class.
    "server/game/failures.py",
    # Tests rig its draws in a subclass, and Python classes cannot extend compiled ones.
    "server/rules/chance.py",
}
GROUP = "server.compiled"  # the build's shared library: server/compiled__mypyc.<platform>.so
RECORD = ROOT / "server" / "native.json"  # what the last whole build compiled, and from what


def candidates() -> list[str]:
    """The sources a build considers, relative to the repository."""
    found = [
        path.relative_to(ROOT).as_posix()
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "__init__.py"
    ]
    return [path for path in [*found, *FILES] if path not in LEFT_OUT]


def module(source: str) -> str:
    return source.removesuffix(".py").replace("/", ".")


def digests(paths: Sequence[str]) -> dict[str, str]:
    return {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in paths}


def record() -> dict[str, Any]:
    """What the last whole build considered (`candidates`), compiled (`sources`, by their
    hashes then) and read of each ruleset's state from source (`shapes`: game/snapshots.py);
    {} when there is none."""
    try:
        written = json.loads(RECORD.read_text())
    except (OSError, ValueError):
        return {}
    return written if isinstance(written, dict) else {}


def recorded(written: dict[str, Any] | None = None) -> dict[str, str]:
    """The sources the last whole build compiled (or the one `written`), by their hashes then."""
    sources = (record() if written is None else written).get("sources")
    return sources if isinstance(sources, dict) else {}


def fresh() -> bool:
    """True when the compiled modules on disk were built from the sources as they are (and the
    build would consider the same modules now: none added, none left out since)."""
    written = record()
    sources = recorded(written)
    built = any((ROOT / "server").glob(GROUP.split(".")[1] + "__mypyc.*"))
    try:
        return (
            built
            and bool(sources)
            and written.get("candidates") == candidates()
            and isinstance(written.get("shapes"), dict)  # (snapshots.shape reads them)
            and digests(list(sources)) == sources
        )
    except OSError:  # a compiled module's source is gone
        return False


def extensions() -> list[Path]:
    """The extension files of the server's package (a build's modules and its library)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [path for path in (ROOT / "server").rglob("*") if path.name.endswith(suffixes)]


def compiled() -> set[str]:
    """The modules with an extension beside their source."""
    return {
        module(path.relative_to(ROOT).as_posix().split(".", 1)[0] + ".py")
        for path in extensions()
        if path.with_name(path.name.split(".", 1)[0] + ".py").exists()
    }


class FromSource(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' sources, before the extensions that would shadow them."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.names:
            return None
        return importlib.util.spec_from_file_location(name, ROOT / (name.replace(".", "/") + ".py"))


def steer() -> bool:
    """Load the compiled modules from source unless the build is fresh; True when compiled
    modules will be used."""
    if not os.environ.get("BIJSE_PURE") and fresh():
        return True
    if not any(isinstance(finder, FromSource) for finder in sys.meta_path):
        sys.meta_path.insert(0, FromSource(compiled()))
    return False


NATIVE = steer()  # the compiled modules are in use
