"""A hostile organizer's log does not become a game (`bijse import`, server/log/admit.py).

Anyone can seal a log (server/store/chain.py): each log here is a real export, edited and sealed
again, so it verifies as well as the honest one did. The real CLI imports it into a fresh SQLite
file and must refuse it with exit status 1, one line on stderr naming the line of the file, no
traceback, and no game written. The same lines sealed unedited import, and come out as they went
in.
"""

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from server.log import admit
from server.log.verify import entries, verify
from server.rules import RULESETS
from server.rules.core import Member, Sight
from server.store import Store, chain
from tests.client import Game

Json = dict[str, Any]
LOGS = Path(__file__).parent / "logs"
STRANGE = "Eva\u2028Evička"  # a name the API takes, which the export writes as it is


def bijse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.serve.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def read(text: str) -> list[Json]:
    return [orjson.loads(line) for line in text.split("\n") if line]


def write(path: Path, lines: list[Json], *, before: str = "") -> Path:
    """The lines sealed again (a forger's chain: it verifies), as an export writes them."""
    chain.seal(lines)
    path.write_bytes(before.encode() + b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


async def has_game(url: str, game_id: str) -> bool:
    store = Store.open(url)
    try:
        return await store.game(game_id) is not None
    finally:
        await store.close()


async def refused(path: Path, tmp_path: Path, game_id: str) -> str:
    """`bijse import` of the file: refused with exit 1 and one line, and nothing written.
    Answers the line, without its `bijse: import: `."""
    url = f"sqlite:///{tmp_path / 'import.db'}"
    done = bijse("import", str(path), "--database-url", url)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("bijse: import: "), done.stderr
    assert not await has_game(url, game_id)
    return done.stderr.removeprefix("bijse: import: ").rstrip("\n")


def export(session_dir: Path, game_id: str) -> list[Json]:
    done = bijse("export", game_id, "--database-url", f"sqlite:///{session_dir / 'live.db'}")
    assert done.returncode == 0, done.stderr
    return read(done.stdout)


@pytest.fixture(scope="module")
async def honest(live_server: str, session_dir: Path) -> list[Json]:
    """A card-duel game played over HTTP and exported by `bijse export`: two players, the
    start, a challenge, one pick, the end."""
    async with httpx.AsyncClient(base_url=live_server) as http:
        game = await Game.create(http, stun_s=60)
        anna, bob = await game.add("Anna"), await game.add("Bob")
        await game.ok(game.organizer, "start_game")
        await game.ok(anna["token"], "challenge", target=bob["code"])
        events = await game.events()
        duel = next(e["data"]["duel_id"] for e in events if e["type"] == "duel_started")
        cards = next(
            e["data"]["cards"] for e in events if e["data"].get("player_id") == anna["player_id"]
        )
        await game.ok(anna["token"], "pick", duel_id=duel, card_id=cards[0]["card_id"])
        await game.ok(game.organizer, "end_game")
    return export(session_dir, game.game_id)


def find(lines: list[Json], kind: str, **data: Any) -> int:
    """The index of the first line of that type whose data holds those values."""
    return next(
        n
        for n, line in enumerate(lines)
        if line["type"] == kind and all(line["data"].get(k) == v for k, v in data.items())
    )


def imports_as_it_is(lines: list[Json], tmp_path: Path) -> None:
    """The lines sealed again are the lines (an export's chain is the chain), verify, import,
    and come back out of the database byte for byte."""
    path = write(tmp_path / "honest.ndjson", copy.deepcopy(lines))
    assert read(path.read_text("utf-8")) == lines
    verdict = bijse("verify", str(path))
    assert verdict.returncode == 0, verdict.stderr
    url = f"sqlite:///{tmp_path / 'import.db'}"
    done = bijse("import", str(path), "--database-url", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"imported game {lines[0]['game_id']}; organizer token ")
    again = bijse("export", lines[0]["game_id"], "--database-url", url)
    assert again.stdout.encode() == path.read_bytes()


async def test_the_honest_log_imports_and_comes_back_out_as_it_went_in(
    honest: list[Json], tmp_path: Path
) -> None:
    imports_as_it_is(honest, tmp_path)


async def test_a_name_with_a_line_separator_goes_out_and_comes_back(
    live_server: str, session_dir: Path, tmp_path: Path
) -> None:
    """The API takes U+2028 in a name and the export writes it as it is, inside its line: a
    reader that split lines at it (str.splitlines) found no JSON there."""
    async with httpx.AsyncClient(base_url=live_server) as http:
        game = await Game.create(http)
        await game.add(STRANGE)
        await game.ok(game.organizer, "end_game")
    lines = export(session_dir, game.game_id)
    assert any(line["data"].get("name") == STRANGE for line in lines)
    imports_as_it_is(lines, tmp_path)


def pick_in_no_duel(lines: list[Json]) -> str:
    n = find(lines, "card_picked")
    lines[n]["data"]["duel_id"] = "d999"
    return f"line {n + 1} (card_picked): no duel d999 in this game"


def after_the_end(lines: list[Json]) -> str:
    anna = lines[find(lines, "card_picked")]["data"]["player_id"]
    healed = {**lines[-1], "seq": len(lines) + 1, "type": "player_healed"}
    lines.append({**healed, "data": {"player_id": anna}})
    return (
        f"line {len(lines)} (player_healed): nothing may follow game_ended (line {len(lines) - 1})"
    )


def a_40_mb_name(lines: list[Json]) -> str:
    n = find(lines, "player_joined", name="Bob")
    lines[n]["data"]["name"] = "B" * 40_000_000
    # no string of a card-duel game is that long: the longest a command or the config takes
    return f"line {n + 1} (player_joined): data.name: 40,000,000 characters, longer than any string"


def a_name_of_41(lines: list[Json]) -> str:
    n = find(lines, "player_joined", name="Bob")
    lines[n]["data"]["name"] = "B" * 41  # add_player's bound
    return f"line {n + 1} (player_joined): data.name: String should have at most 40 characters"


def a_control_character(lines: list[Json]) -> str:
    n = find(lines, "player_joined", name="Bob")
    lines[n]["data"]["name"] = "B\u0000b"  # the API refuses it in any body
    return f"line {n + 1} (player_joined): data.name: control characters are not allowed"


def a_long_game_name(lines: list[Json]) -> str:
    lines[0]["data"]["name"] = "G" * 81  # POST /api/games's bound
    return "line 1 (game_created): data.name: String should have at most 80 characters"


def a_config_out_of_bounds(lines: list[Json]) -> str:
    lines[0]["data"]["config"]["stun_s"] = -1
    return "line 1 (game_created): data.config.stun_s: Input should be greater than or equal to 0"


def a_stranger_acts(lines: list[Json]) -> str:
    n = find(lines, "card_picked")
    lines[n]["actor"] = "p999"
    return f"line {n + 1} (card_picked): actor p999 is not a member of this game"


def a_member_twice(lines: list[Json]) -> str:
    n = find(lines, "player_joined", name="Bob")
    lines[n]["data"]["player_id"] = lines[n - 1]["data"]["player_id"]
    return f"line {n + 1} (player_joined): {lines[n - 1]['data']['player_id']} has joined already"


def started_twice(lines: list[Json]) -> str:
    n = find(lines, "game_started")
    lines.insert(n + 1, copy.deepcopy(lines[n]))
    for seq, line in enumerate(lines, start=1):
        line["seq"] = seq
    return f"line {n + 2} (game_started): the game is running, it cannot start"


def created_twice(lines: list[Json]) -> str:
    lines.insert(2, copy.deepcopy(lines[0]))
    for seq, line in enumerate(lines, start=1):
        line["seq"] = seq
    return "line 3 (game_created): a log has one game_created, on its first line"


def a_key_no_export_writes(lines: list[Json]) -> str:
    n = find(lines, "game_started")
    lines[n]["command_id"] = "x"  # dropped by the database: the export would differ
    return f'line {n + 1} (game_started): "command_id" is not a key of an exported line'


def a_time_written_otherwise(lines: list[Json]) -> str:
    n = find(lines, "game_started")
    lines[n]["at"] = lines[n]["at"].replace("Z", "+00:00")
    return f"line {n + 1} (game_started): at is {json.dumps(lines[n]['at'])}, not a time as"


def a_round_of_one_point_oh(lines: list[Json]) -> str:
    n = find(lines, "card_picked")
    lines[n]["data"]["round"] = 1.0
    return f"line {n + 1} (card_picked): card-duel cannot read it: card_picked"


EDITS: list[Callable[[list[Json]], str]] = [
    pick_in_no_duel,
    after_the_end,
    a_40_mb_name,
    a_name_of_41,
    a_control_character,
    a_long_game_name,
    a_config_out_of_bounds,
    a_stranger_acts,
    a_member_twice,
    started_twice,
    created_twice,
    a_key_no_export_writes,
    a_time_written_otherwise,
    a_round_of_one_point_oh,
]


@pytest.mark.parametrize("edit", EDITS, ids=[edit.__name__ for edit in EDITS])
async def test_a_resealed_log_the_rules_could_not_have_written_is_refused(
    honest: list[Json], tmp_path: Path, edit: Callable[[list[Json]], str]
) -> None:
    lines = copy.deepcopy(honest)
    expected = edit(lines)
    path = write(tmp_path / "hostile.ndjson", lines)
    assert verify(lines) == []  # sealed again: it verifies
    said = await refused(path, tmp_path, honest[0]["game_id"])
    assert said.startswith(expected), said
    if edit is a_round_of_one_point_oh:
        assert "$.round" in said  # the field is named


INTEGERS = [
    ("seq", 0, 1.0),
    ("seq", 0, True),
    ("seq", 1, "2"),
    ("seq", 1, 2.0),
    ("version", 1, "2"),
    ("version", 1, 2.0),
    ("version", 1, True),
]


@pytest.mark.parametrize(("field", "index", "value"), INTEGERS)
async def test_seq_and_version_must_be_json_integers(
    honest: list[Json], tmp_path: Path, field: str, index: int, value: Any
) -> None:
    lines = copy.deepcopy(honest)
    assert lines[1]["type"] == "player_joined" and lines[1]["version"] == 2
    lines[index][field] = value
    path = write(tmp_path / "hostile.ndjson", lines)
    found = json.dumps(value)
    said = await refused(path, tmp_path, honest[0]["game_id"])
    kind = lines[index]["type"]
    assert said == f"line {index + 1} ({kind}): {field} must be a JSON integer, found {found}"
    verdict = bijse("verify", str(path))
    assert verdict.returncode == 1 and "Traceback" not in verdict.stderr
    assert verdict.stderr == f"line {index + 1}: {field} must be a JSON integer, found {found}\n"


async def test_the_line_named_is_the_line_of_the_file(honest: list[Json], tmp_path: Path) -> None:
    lines = copy.deepcopy(honest)
    n = find(lines, "card_picked")
    lines[n]["data"]["duel_id"] = "d999"
    path = write(tmp_path / "hostile.ndjson", lines, before="\n\n")  # two blank lines first
    said = await refused(path, tmp_path, honest[0]["game_id"])
    assert said == f"line {n + 3} (card_picked): no duel d999 in this game"
    document = tmp_path / "events.json"  # the JSON of GET …/events: its place among the events
    document.write_text(json.dumps({"events": lines}), encoding="utf-8")
    said = await refused(document, tmp_path, honest[0]["game_id"])
    assert said == f"line {n + 1} (card_picked): no duel d999 in this game"


async def test_a_view_that_cannot_be_built_is_traced_to_its_line(tmp_path: Path) -> None:
    """A frozen log's round won by nobody who played it: every event folds, but p3's view of
    the end cannot be built (its last duel's rounds name a winner the state does not have)."""
    lines = read((LOGS / "card-duel.ndjson").read_text("utf-8"))
    assert lines[46]["type"] == "round_revealed"
    lines[46]["data"]["winners"] = ["timeout"]
    path = write(tmp_path / "hostile.ndjson", lines)
    said = await refused(path, tmp_path, lines[0]["game_id"])
    assert said.startswith("line 47 (round_revealed): p3's view cannot be built"), said


def test_a_view_is_traced_back_through_the_kept_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that fails from some line on, in a log longer than a stretch: the refusal names
    that line, not the last."""
    ruleset = RULESETS["card-duel"]
    parts = ruleset.parts

    def private(state: Any, viewer: Member, now: int) -> Json:
        if any(m.name == "Bob" for m in state.roster.members.values()):
            raise ValueError("Bob breaks it")
        return parts.private(state, viewer, now)

    broken = replace(ruleset, sight=Sight(**{**vars(parts), "private": private}))
    monkeypatch.setitem(RULESETS, "card-duel", broken)
    monkeypatch.setattr(admit, "STRETCH", 4)  # several kept states in a short log
    lines = read((LOGS / "card-duel.ndjson").read_text("utf-8"))
    bob = find(lines, "player_joined", name="Bert")
    lines[bob]["data"]["name"] = "Bob"
    log = entries("".join(json.dumps(line) + "\n" for line in chain.seal(lines)))
    opening = admit.examine(log, admit.Bounds())
    with pytest.raises(admit.Refused) as refusal:
        admit.replay(opening, log, admit.Bounds())
    assert str(refusal.value) == (
        f"line {bob + 1} (player_joined): p2's view cannot be built at the log's last moment: "
        "ValueError: Bob breaks it"
    )


async def test_an_unreadable_file_is_exit_2_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.ndjson"
    path.write_text('{"seq": 1}\n{"seq": NaN}\n', encoding="utf-8")
    done = bijse("import", str(path), "--database-url", f"sqlite:///{tmp_path / 'x.db'}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"bijse: import: cannot read {path}: line 2: not JSON (")
    assert done.stderr.count("\n") == 1
