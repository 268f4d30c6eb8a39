"""The compiled build (server/__init__.py, deploy/compile.py): what the suite and `bijse serve` run
once it is built, never run once a source changed after it, and the same answers as the source.
"""

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import server
from server.rules import RULESETS

LOGS = Path(__file__).parent / "logs"
BIJSE = Path(sys.executable).with_name("bijse")  # the console script of this venv
# Every view of every member (and of the public) at every seq of each frozen log, as JSON.
VIEWS = """
import json, sys
from pathlib import Path
from server.clock import parse_iso
from server.game.replay import PUBLIC, Film
from server.rules import RULESETS
from server.store import Recorded

out = {}
for path in sorted(Path(sys.argv[1]).glob("*.ndjson")):
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    log = [
        Recorded(e["seq"], e["type"], e["data"], parse_iso(e["at"]), e.get("actor"),
                 e.get("command_id"), e.get("version", 1))
        for e in lines
    ]
    film = Film.shoot(RULESETS[lines[0]["data"]["ruleset"]], log)
    for seq in range(1, film.last + 1):
        members = film.state(seq).roster.members.values()
        for member in [PUBLIC, *members]:
            out[f"{path.stem} {seq} {member.player_id}"] = film.view(seq, member)
print(json.dumps(out, sort_keys=True))
"""


def environment(pure: bool) -> dict[str, str]:
    """This process's environment, with BIJSE_PURE set only when `pure`."""
    env = {k: v for k, v in os.environ.items() if k != "BIJSE_PURE"}
    if pure:
        env["BIJSE_PURE"] = "1"
    return env


def python(code: str, *args: str, cwd: Path | None = None, pure: bool = False) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd or server.ROOT,
        env=environment(pure),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def origin(name: str, **kwargs: Any) -> str:
    """Where a fresh process loads the module `name` from."""
    code = f"import importlib; print(importlib.import_module({name!r}).__file__)"
    return python(code, **kwargs).strip()


def test_the_suite_runs_the_compiled_modules() -> None:
    assert server.fresh(), "the compiled modules are stale or missing: run deploy/compile.py"
    sources = list(server.recorded())
    assert len(sources) > 40 and "server/rules/card_duel/evolve.py" in sources
    loaded = {importlib.import_module(server.module(path)).__file__ for path in sources}
    assert all(path is not None and path.endswith(".so") for path in loaded), loaded


def test_what_mypyc_cannot_compile_is_interpreted() -> None:
    """Left out by name, or for defining a pydantic model (commands), an SQLModel table or a
    msgspec struct (events)."""
    left = [path for path in server.candidates() if path not in server.recorded()]
    left += sorted(server.LEFT_OUT)
    for path in ("server/rules/card_duel/commands.py", "server/rules/card_duel/events.py"):
        assert path in left
    assert "server/store/models.py" in left
    for path in left:
        loaded = importlib.import_module(server.module(path)).__file__
        assert loaded is not None and loaded.endswith(path), path


def test_bijse_pure_runs_the_sources() -> None:
    assert origin("server.game.hub").endswith(".so")
    assert origin("server.game.hub", pure=True).endswith("server/game/hub.py")


def test_a_source_changed_after_the_build_turns_the_whole_build_off(tmp_path: Path) -> None:
    """One edited module makes every compiled module load from source: they call one another
    in C, so the others would run the old code of the edited one."""
    copy = tmp_path / "bijse"
    shutil.copytree(server.ROOT / "server", copy / "server")
    assert origin("server.game.hub", cwd=copy).endswith(".so")
    edited = copy / "server" / "game" / "patch.py"
    edited.write_text(edited.read_text() + "\nEDITED = True\n")
    assert origin("server.game.hub", cwd=copy) == str(copy / "server" / "game" / "hub.py")
    assert python("import server.game.patch as p; print(p.EDITED)", cwd=copy).strip() == "True"


def test_a_build_without_its_record_is_not_run(tmp_path: Path) -> None:
    copy = tmp_path / "bijse"
    shutil.copytree(server.ROOT / "server", copy / "server")
    (copy / "server" / "native.json").unlink()
    assert origin("server.rules.card_duel.decide", cwd=copy).endswith("card_duel/decide.py")


def test_the_record_names_every_source_by_its_hash() -> None:
    path = "server/rules/card_duel/decide.py"
    digest = hashlib.sha256((server.ROOT / path).read_bytes()).hexdigest()
    assert server.recorded()[path] == digest


def test_compiled_and_source_show_the_same_views_of_every_old_log() -> None:
    compiled = json.loads(python(VIEWS, str(LOGS)))
    assert len(compiled) > 100
    assert compiled == json.loads(python(VIEWS, str(LOGS), pure=True))


@pytest.mark.parametrize("pure", [False, True])
def test_bijse_serve_says_when_it_runs_from_source(tmp_path: Path, pure: bool) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'bijse.db'}"
    command = [str(BIJSE), "serve", "--port", "0", "--workers", "1", "--database-url", database]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env=environment(pure)
    ) as serving:
        try:
            assert serving.stdout is not None
            said = [serving.stdout.readline()]
            while not said[-1].startswith("Bij se serves"):
                said.append(serving.stdout.readline())
                assert said[-1], said  # the server ended before it served
            base = said[-1].split()[3]  # Bij se serves http://127.0.0.1:<port> from …
            for _ in range(100):  # serving: whatever it says on the way is said
                try:
                    with urllib.request.urlopen(f"{base}/healthz", timeout=5):
                        break
                except OSError:
                    time.sleep(0.1)
        finally:
            serving.terminate()
        said += serving.stdout.readlines()
    told = any("run from source, not compiled (BIJSE_PURE is set)" in line for line in said)
    assert told == pure, said


def test_a_snapshot_is_read_back_only_by_the_kind_of_server_that_packed_it() -> None:
    """Compiled classes pickle apart from the same classes run from source: a snapshot's shape
    says which packed it, and is the sources' shape (read by the build) all the same."""
    code = (
        "import json; from server.game.snapshots import shape; from server.rules import RULESETS; "
        "print(json.dumps({id: shape(r) for id, r in RULESETS.items()}))"
    )
    compiled, pure = json.loads(python(code)), json.loads(python(code, pure=True))
    assert sorted(compiled) == sorted(pure) and "card-duel" in pure
    for ruleset_id, shape in pure.items():
        version = RULESETS[ruleset_id].state_version
        marked = hashlib.sha256(f"compiled {shape} {version}".encode()).hexdigest()
        assert compiled[ruleset_id] == marked != shape
