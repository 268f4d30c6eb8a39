"""Compile the server's busiest modules to C with mypyc (server/__init__.py says which, and why),
in place beside their sources; nothing to do when the last build's sources are unchanged.

    .venv/bin/python deploy/compile.py    (deploy/setup.sh runs it)
"""

import importlib
import json
import os
import sys
import warnings
from pathlib import Path

os.environ["BIJSE_PURE"] = "1"  # the build looks at the sources, not at the last build
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, from anywhere

from mypyc.build import mypycify
from setuptools import setup

import server

# Metaclasses mypyc compiles classes of; a module defining a class of another (a pydantic
# model, an SQLModel table, a msgspec struct) stays interpreted.
OWN = {"builtins", "abc", "typing", "enum"}


def compilable(path: str) -> bool:
    loaded = importlib.import_module(server.module(path))
    return not any(
        isinstance(value, type)
        and value.__module__ == loaded.__name__
        and type(value).__module__.split(".")[0] not in OWN
        for value in vars(loaded).values()
    )


def main() -> None:
    if server.fresh():
        print("compile: the compiled modules are up to date")
        return
    server.RECORD.unlink(missing_ok=True)  # a build that fails half way leaves nothing to trust
    for built in server.extensions():  # nor a module compiled before and not now
        built.unlink()
    paths = [path for path in server.candidates() if compilable(path)]
    os.chdir(server.ROOT)
    # setuptools reads pyproject.toml on the way, and says that part of it is a beta feature.
    warnings.filterwarnings("ignore", message=r"Support for `\[tool.setuptools\]`")
    setup(
        name="bijse-native",
        # -O1: the C compiler takes a quarter of -O3's time, and the server runs as fast
        # (bench/duels.py, CPU a command: 128-131 µs either way).
        ext_modules=mypycify(paths, group_name=server.GROUP, opt_level="1"),
        script_args=["--quiet", "build_ext", "--inplace"],
    )
    from server.game.snapshots import shape  # (from source: the build's own process)
    from server.rules import RULESETS

    built = {
        "candidates": server.candidates(),
        "sources": server.digests(paths),
        "shapes": {ruleset_id: shape(ruleset) for ruleset_id, ruleset in RULESETS.items()},
    }
    server.RECORD.write_text(json.dumps(built, indent=1) + "\n")
    print(f"compile: {len(paths)} modules compiled to C")


if __name__ == "__main__":
    main()
