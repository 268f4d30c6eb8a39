"""The log verifier: a whole log, a revealed seed matching its commitment, and every recorded
die and shuffle recomputed from that seed."""

import copy
import hashlib
import json
from pathlib import Path

import pytest

from server.log.verify import main, verify
from server.rules.chance import Chance
from server.rules.core import Command, Context, Event, Json, Member
from server.rules.dice_combat import RULESET
from server.rules.roster import AddPlayer, EndGame, GameCreated, StartGame
from server.store import chain

SEED = bytes(range(32))


def log(seed: bytes = SEED, *, end: bool = True, committed: bytes | None = None) -> list[Json]:
    """A small log of any ruleset: two dice in one event, a shuffle in another, then the end."""
    lines: list[Json] = [
        {
            "seq": 1,
            "type": "game_created",
            "data": {"seed_sha256": hashlib.sha256(committed or seed).hexdigest()},
        },
        {"seq": 2, "type": "player_joined", "data": {"player_id": "p2"}},
    ]
    dice = Chance(seed, 3)
    dice.die(6)
    dice.die(10)
    lines.append({"seq": 3, "type": "dice_rolled", "data": {"chance": dice.record()}})
    deck = Chance(seed, 4)
    deck.shuffle(list(range(8)))
    lines.append({"seq": 4, "type": "deck_shuffled", "data": {"chance": deck.record()}})
    if end:
        lines.append({"seq": 5, "type": "game_ended", "data": {"seed": seed.hex()}})
    return lines


def seal(lines: list[Json]) -> list[Json]:
    """Chain the lines as an export does: what the chance checks below meet is a forger who
    rewrote the whole chain after changing a die, which the seed still catches."""
    return chain.seal([line for line in lines if isinstance(line, dict)])


def check(lines: list[Json]) -> list[str]:
    return verify(seal(lines))


def write(path: Path, lines: list[Json]) -> str:
    seal(lines)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_a_good_log_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(log()) == []
    assert main(write(tmp_path / "game.ndjson", log())) == 0
    assert "5 events, 2 with dice or shuffles: all verified" in capsys.readouterr().out


def test_a_gap_in_seq_is_named() -> None:
    lines = log()
    del lines[2]
    assert check(lines) == ["line 3: expected seq 3 after seq 2, found seq 4"]
    lines = log()
    lines[0]["seq"] = 0
    assert check(lines) == ["line 1: expected seq 1, found seq 0"]


def test_a_changed_die_is_named_with_its_seq_and_what_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = log()
    draw = lines[2]["data"]["chance"]["draws"][1]
    true = dict(draw)
    draw["value"] = draw["value"] % 10 + 1
    (problem,) = check(lines)
    assert problem == (
        f"seq 3 (dice_rolled): draw 1 is {json.dumps(draw, sort_keys=True)}, "
        f"the seed gives {json.dumps(true, sort_keys=True)}"
    )
    assert main(write(tmp_path / "game.ndjson", lines)) == 1
    assert "seq 3 (dice_rolled): draw 1" in capsys.readouterr().err


def test_a_changed_shuffle_is_caught() -> None:
    lines = log()
    order = lines[3]["data"]["chance"]["draws"][0]["order"]
    order[0], order[1] = order[1], order[0]
    (problem,) = check(lines)
    assert problem.startswith("seq 4 (deck_shuffled): draw 0 is")


def test_a_seed_that_is_not_the_committed_one_is_refused() -> None:
    other = b"x" * 32
    (problem,) = check(log(committed=other))
    assert problem == (
        f"seq 5 (game_ended): the seed's SHA-256 is {hashlib.sha256(SEED).hexdigest()}, "
        f"but game_created (seq 1) committed to {hashlib.sha256(other).hexdigest()}"
    )
    lines = log()
    lines[-1]["data"]["seed"] = "zz"
    assert check(lines) == ["seq 5 (game_ended): data.seed is not 64 hex digits"]


def test_a_log_without_its_end_cannot_be_verified_for_chance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (problem,) = check(log(end=False))
    assert "no game_ended" in problem and "cannot be verified" in problem
    assert main(write(tmp_path / "game.ndjson", log(end=False))) == 1
    assert "no game_ended" in capsys.readouterr().err


def test_a_malformed_log_is_refused_without_redoing_anything(tmp_path: Path) -> None:
    assert verify([]) == ["the log is empty"]
    assert verify([{"seq": 1, "type": "game_created"}]) == [
        "line 1: not an event with seq, type and data"
    ]
    lines = log()
    lines[3]["data"]["chance"]["draws"][0] = {"shuffle": 10**12, "order": []}
    assert check(lines) == [
        "seq 4 (deck_shuffled): data.chance is not {stream, from, draws} with dice and shuffles"
    ]
    lines = log()
    lines[0]["type"] = "player_joined"
    assert check(lines)[0].startswith("seq 1: the log must begin with game_created")
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"seq": 1}\nnot json\n', encoding="utf-8")
    assert main(str(bad)) == 2
    assert main(str(tmp_path / "missing.ndjson")) == 2


def test_the_events_answer_of_the_http_api_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"events": seal(log())}), encoding="utf-8")
    assert main(str(path)) == 0


def test_a_played_dice_combat_game_verifies_and_a_changed_die_does_not() -> None:
    events = [
        Event.of(
            GameCreated(
                game_id="g",
                ruleset=RULESET.id,
                name="Jeskyně",
                config={"initiative_once": False},
                seed_sha256=hashlib.sha256(SEED).hexdigest(),
            )
        )
    ]
    state = RULESET.evolve(RULESET.initial_state(events[0].data["config"]), events[0])
    gm = Member("", "", "organizer", None, "")

    def send(command: Command) -> list[Event]:
        nonlocal state
        ctx = Context(now=0, actor=gm, seq=len(events) + 1, seed=SEED)
        new = RULESET.decide(state, command, ctx)
        for event in new:
            state = RULESET.evolve(state, event)
            events.append(event)
        return new

    send(AddPlayer(name="PJ", role="organizer"))
    send(StartGame())
    fighters = []
    for name in ("Baldur", "Skřet", "Vlk"):
        command = RULESET.commands["add_combatant"].model_validate({"name": name, "side": "s"})
        fighters.append(send(command)[0].data["combatant_id"])
    send(RULESET.commands["begin_fight"].model_validate({"combatants": fighters}))
    assert state.fight is not None
    attacker = state.fight.turn
    target = next(f for f in fighters if f != attacker)
    attack = {"attacker_id": attacker, "target_id": target}
    send(RULESET.commands["attack"].model_validate(attack))
    send(EndGame())
    lines = [
        {"seq": seq, "type": e.type, "data": copy.deepcopy(e.data)}
        for seq, e in enumerate(events, start=1)
    ]
    assert check(lines) == []
    seq, rolled = next((n, e) for n, e in enumerate(lines, 1) if e["type"] == "attack_rolled")
    draw = rolled["data"]["chance"]["draws"][0]
    draw["value"] = draw["value"] % 6 + 1
    (problem,) = check(lines)
    assert problem.startswith(f"seq {seq} (attack_rolled): draw 0 is")


def test_an_edited_event_breaks_the_chain_even_with_the_same_dice() -> None:
    lines = seal(log())
    lines[1]["data"]["player_id"] = "p9"  # no die involved: only the chain can see this
    assert verify(lines) == [
        "seq 2 (player_joined): the event was changed: its hash does not match its content"
    ]


def test_a_deleted_or_swapped_event_breaks_the_chain() -> None:
    lines = seal(log())
    del lines[1]
    for seq, line in enumerate(lines, start=1):
        line["seq"] = seq  # renumbered, so the gap does not show; the chain still does
    assert verify(lines)[0].startswith("seq 2 (")
    lines = seal(log())
    lines[1], lines[2] = lines[2], lines[1]
    lines[1]["seq"], lines[2]["seq"] = 2, 3
    assert verify(lines)[0].startswith("seq 2 (dice_rolled)")


def test_a_log_without_a_chain_is_refused() -> None:
    lines = log()
    assert verify(lines) == [
        "seq 1 (game_created): no prev_hash and hash (a log from bijse export has them)"
    ]
