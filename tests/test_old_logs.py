"""Old logs live forever: the logs in tests/logs/ were exported by the code of commit 9ada44e
(one game of each ruleset, every kind of event in it) and are frozen; a ruleset registered later
brings its own (tests/logs/README.md): one registered without fails here. Today's code must still
import each one, export it again line for line with the same hashes, verify it, and replay it
to the views recorded then (new keys in a view are allowed; a recorded key must keep its value).

Only stable interfaces are used: the `bijse` console script, and HTTP against a server started
as the other tests start theirs.
"""

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.rules import RULESETS as REGISTERED
from tests.conftest import new_postgres_database, serve

LOGS = Path(__file__).parent / "logs"
RULESETS = sorted(REGISTERED)
BIJSE = Path(sys.executable).with_name("bijse")  # the console script of this venv


def bijse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIJSE), *args], capture_output=True, text=True, timeout=120, check=False
    )


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def contains(old: Any, new: Any, path: str = "view") -> None:
    """`new` holds everything `old` holds: the same keys with the same values at every level
    (lists item by item); keys only `new` has are allowed. Fails naming the first path that
    differs."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            raise AssertionError(f"{path}: recorded an object, now {new!r}")
        for key, value in old.items():
            if key not in new:
                raise AssertionError(f"{path}.{key}: recorded {value!r}, now missing")
            contains(value, new[key], f"{path}.{key}")
    elif isinstance(old, list):
        if not isinstance(new, list) or len(new) != len(old):
            raise AssertionError(f"{path}: recorded {old!r}, now {new!r}")
        for index, (was, now) in enumerate(zip(old, new, strict=True)):
            contains(was, now, f"{path}[{index}]")
    elif type(old) is not type(new) or old != new:  # True is not 1, 1 is not 1.0
        raise AssertionError(f"{path}: recorded {old!r}, now {new!r}")


def test_contains_names_the_path_that_differs() -> None:
    old = {"me": {"cards": [{"kind": "stun"}]}, "duel": None}
    contains(old, {"me": {"cards": [{"kind": "stun", "new": 1}], "more": 2}, "duel": None})
    for new, path in (
        ({"me": {"cards": [{"kind": "wound"}]}, "duel": None}, r"view\.me\.cards\[0\]\.kind"),
        ({"me": {"cards": []}, "duel": None}, r"view\.me\.cards:"),
        ({"me": {"cards": [{"kind": "stun"}]}}, r"view\.duel: recorded None, now missing"),
        ({"me": {"cards": [{"kind": "stun"}]}, "duel": {}}, r"view\.duel: recorded None"),
    ):
        with pytest.raises(AssertionError, match=path):
            contains(old, new)
    with pytest.raises(AssertionError, match=r"view\.n: recorded 1, now True"):
        contains({"n": 1}, {"n": True})


def test_every_registered_ruleset_has_a_frozen_log() -> None:
    missing = [r for r in RULESETS if not (LOGS / f"{r}.ndjson").exists()]
    assert not missing, f"no frozen log in tests/logs/ (see its README.md) for {missing}"


@pytest.fixture(params=["sqlite", "postgres"])
async def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database of each backend, its own for each test: a game is imported once."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'bijse.db'}"
        return
    async for url in new_postgres_database():
        yield url


def imported(log: Path, database_url: str) -> tuple[str, str]:
    """`bijse import`: the game's id and the new organizer token it prints."""
    done = bijse("import", str(log), "--database-url", database_url)
    assert done.returncode == 0, f"bijse import {log.name}: {done.stderr or done.stdout}"
    found = re.search(r"imported game (\w+); organizer token (\S+)", done.stdout)
    assert found, done.stdout
    return found[1], found[2]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_an_old_log_verifies(ruleset: str) -> None:
    done = bijse("verify", str(LOGS / f"{ruleset}.ndjson"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all verified" in done.stdout, done.stdout


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_an_old_log_comes_back_out_as_it_went_in(
    ruleset: str, fresh_url: str, tmp_path: Path
) -> None:
    log = LOGS / f"{ruleset}.ndjson"
    game_id, _ = imported(log, fresh_url)
    out = tmp_path / "again.ndjson"
    done = bijse("export", game_id, "--database-url", fresh_url, "-o", str(out))
    assert done.returncode == 0, done.stderr
    before, after = lines(log.read_text("utf-8")), lines(out.read_text("utf-8"))
    assert len(after) == len(before), f"{len(before)} events went in, {len(after)} came out"
    for was, now in zip(before, after, strict=True):
        changed = sorted(k for k in was.keys() | now.keys() if was.get(k, ...) != now.get(k, ...))
        assert not changed, f"seq {was['seq']} ({was['type']}) came out changed: {changed}"
    done = bijse("verify", str(out))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_an_old_log_replays_to_the_views_it_had(ruleset: str, fresh_url: str) -> None:
    game_id, organizer = imported(LOGS / f"{ruleset}.ndjson", fresh_url)
    recorded: dict[str, dict[str, Any]] = json.loads(
        (LOGS / f"{ruleset}.views.json").read_text("utf-8")
    )
    assert recorded, "no views were recorded"
    async for url in serve(fresh_url):
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            compared = 0
            for seq, views in recorded.items():
                for viewer, view in views.items():
                    answer = await http.get(
                        f"/api/games/{game_id}/replay",
                        params={"seq": seq, "viewer": viewer},
                        headers={"Authorization": f"Bearer {organizer}"},
                    )
                    assert answer.status_code == 200, (seq, viewer, answer.text)
                    contains(view, answer.json()["view"], f"seq {seq}, viewer {viewer}: view")
                    compared += 1
    assert compared == sum(len(views) for views in recorded.values())
