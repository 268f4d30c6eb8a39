"""Properties of `card-duel` over random games: replay, secret picks, cards never change hands."""

import json
import re
from dataclasses import dataclass
from typing import Any

from game import Game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.card_duel import RULESET
from server.rules.card_duel.cards import Card, CardFace
from server.rules.card_duel.commands import (
    CancelDuel,
    Challenge,
    GrantCard,
    GrantItem,
    Heal,
    LeaveDuel,
    Pick,
    Revive,
)
from server.rules.card_duel.state import CardDuel, Fighter
from server.rules.core import Command, Event, Json, Member, RuleError, fold
from server.rules.roster import EndGame

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- random games --------------------------------------------------------------------------------

specs = st.fixed_dictionaries(
    {
        "title": st.sampled_from(["Kámen", "Dýka", "Útěk", "Kosa", "Šipka"]),
        "big": st.integers(0, 6),
        "small": st.integers(0, 6),
        "kind": st.sampled_from(["escape", "stun", "wound", "death"]),
        "ranged": st.booleans(),
    }
)
configs = st.fixed_dictionaries(
    {
        "stun_s": st.integers(0, 5),
        "escape_immunity_s": st.integers(0, 5),
        "pick_timeout_s": st.none() | st.integers(1, 5),
        "leave_after_s": st.integers(0, 5),
    },
    optional={"starting_cards": st.lists(specs, min_size=1, max_size=4)},
)
player = st.integers(0, 3)  # an index into the game's players, taken modulo their number
advance = st.tuples(st.just("advance"), st.integers(0, 4_000))
challenge = st.tuples(
    st.just("challenge"), player, player, st.sampled_from([False, False, True]), st.booleans()
)
# pick: who, own card (or any card ever issued), which one, own duel (or any duel ever started)
own_pick = st.tuples(st.just("pick"), player, st.just(True), st.integers(0, 50), st.just(True))
any_pick = st.tuples(st.just("pick"), player, st.booleans(), st.integers(0, 50), st.booleans())
leave = st.tuples(st.just("leave"), player, st.booleans())  # who, own duel (or any duel)
organizer = st.one_of(
    st.tuples(st.just("grant"), player, specs),
    st.tuples(st.just("crossbow"), player),
    st.tuples(st.just("heal"), player),
    st.tuples(st.just("revive"), player),
    st.tuples(st.just("cancel"), st.integers(0, 20)),
)
# Weighted so that duels start, run several rounds and end, and the organizer steps in now and then
# (sampled, then drawn: a nested one_of would be flattened into equal branches).
WEIGHTED = [advance] * 2 + [challenge] * 3 + [own_pick] * 6 + [any_pick] + [leave] + [organizer] * 2
steps = st.sampled_from(WEIGHTED).flatmap(lambda step: step)
games = st.tuples(
    configs,
    st.integers(2, 4),
    st.lists(steps, min_size=10, max_size=60),
    st.none() | st.integers(0, 120),  # after which step the organizer ends the game, if ever
)


@dataclass
class Played:
    """A random game after its steps: the game, its players and a spectator."""

    game: Game
    players: list[Member]
    spectator: Member


def command_for(game: Game, players: list[Member], step: tuple[Any, ...]) -> tuple[Member, Command]:
    """The command a step stands for, and who sends it (the step may well be refused)."""
    state = game.state
    kind = step[0]
    if kind == "challenge":
        _, i, j, ranged, lower = step
        # The target is counted from the challenger on: itself only when 1 + j is a full turn.
        me, target = players[i % len(players)], players[(i + 1 + j) % len(players)]
        return me, Challenge(target=target.code.lower() if lower else target.code, ranged=ranged)
    if kind == "pick":
        _, i, own, k, own_duel = step
        if own_duel:
            # An own pick comes from a duellist who has not picked yet; with nobody left to pick,
            # the step starts a duel instead.
            waiting = [
                m
                for m in players
                if (duel := state.duels.get(state.fighters[m.player_id].duel_id or ""))
                and m.player_id not in duel.picks
            ]
            if not waiting:
                return command_for(game, players, ("challenge", i, 0, False, False))
            me = waiting[i % len(waiting)]
        else:
            me = players[i % len(players)]
        fighter = state.fighters[me.player_id]
        issued = [c for f in state.fighters.values() for c in f.cards]
        pool = fighter.cards if own and fighter.cards else issued
        duel_id = fighter.duel_id if own_duel and fighter.duel_id else f"d{k % (len(game.log) + 1)}"
        return me, Pick(duel_id=duel_id, card_id=pool[k % len(pool)].card_id)
    if kind == "leave":
        _, i, own_duel = step
        me = players[i % len(players)]
        started = [e.data["duel_id"] for e in game.log if e.type == "duel_started"] or ["d1"]
        duel_id = state.fighters[me.player_id].duel_id if own_duel else None
        return me, LeaveDuel(duel_id=duel_id or started[i % len(started)])
    if kind == "cancel":
        started = [e.data["duel_id"] for e in game.log if e.type == "duel_started"] or ["d1"]
        return game.organizer, CancelDuel(duel_id=started[step[1] % len(started)])
    # Heal and revive aim at the wounded and the dead, when there are any.
    aimed = [m for m in players if wanted(kind, state.fighters[m.player_id])] or players
    target_id = aimed[step[1] % len(aimed)].player_id
    if kind == "grant":
        return game.organizer, GrantCard.model_validate({"player_id": target_id, "card": step[2]})
    if kind == "crossbow":
        return game.organizer, GrantItem(player_id=target_id, item="crossbow")
    if kind == "heal":
        return game.organizer, Heal(player_id=target_id)
    assert kind == "revive"
    return game.organizer, Revive(player_id=target_id)


def wanted(kind: str, fighter: Fighter) -> bool:
    if kind == "heal":
        return fighter.wounded
    if kind == "revive":
        return not fighter.alive
    return True


def play(config: Json, count: int, steps: list[tuple[Any, ...]], end: int | None) -> Played:
    game = Game(config)
    players = [game.add(f"Hráč {n}") for n in range(count)]
    spectator = game.add("Divák", role="spectator")
    game.start()
    played = Played(game, players, spectator)
    check_views(played)
    for n, step in enumerate(steps):
        if step[0] == "advance":
            game.now += step[1]
        else:
            actor, command = command_for(game, players, step)
            before = len(game.log)
            try:
                game.run(actor, command)
            except RuleError:
                assert len(game.log) == before  # a refusal writes nothing
        if n == end:
            game.run(game.organizer, EndGame())
        check_views(played)
    return played


# -- what a viewer may see -----------------------------------------------------------------------


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in {k} | strings(v)}
    if isinstance(value, list):
        return {s for item in value for s in strings(item)}
    return set()


def unrevealed(view: Json) -> Json:
    """The view without what duels have revealed: this and the last duel's revealed rounds."""
    rest = dict(view)
    rest.pop("last_duel", None)
    if rest.get("duel"):
        rest["duel"] = {k: v for k, v in rest["duel"].items() if k != "rounds"}
    return rest


DUEL_KEYS = {
    "duel_id",
    "opponent",
    "round",
    "my_pick",
    "opponent_picked",
    "ranged",
    "deadline",
    "leave_from",
    "rounds",
}


def check_views(played: Played) -> None:
    game, state = played.game, played.game.state
    picks = [(p, card_id) for duel in state.duels.values() for p, card_id in duel.picks.items()]
    for member in played.players:
        view = game.view(member)
        json.dumps(view)  # a view goes out as JSON
        me = member.player_id
        # (b) nobody sees another's secret pick, in whatever field.
        visible = strings(unrevealed(view))
        for picker, card_id in picks:
            if picker != me:
                assert card_id not in visible, (me, picker, card_id, view)
        fighter = state.fighters[me]
        duel = state.duels.get(fighter.duel_id) if fighter.duel_id else None
        if duel is None:
            assert view["duel"] is None
        else:
            assert set(view["duel"]) == DUEL_KEYS
            assert view["duel"]["opponent_picked"] is (duel.opponent(me) in duel.picks)
            assert view["duel"]["my_pick"] == duel.picks.get(me)
        # A player's view shows exactly the cards they hold (whose owner replay_checked checks).
        assert view["me"]["cards"] == [c.dump() for c in state.fighters[me].cards]
    # (d) a spectator sees no status and no duel, hence no pick.
    seen = game.view(played.spectator)
    assert set(seen) == {"game"}
    assert not {card_id for _, card_id in picks} & strings(seen)


# -- the properties ------------------------------------------------------------------------------


def issued(event: Event) -> list[Json]:
    """The cards an event hands to a player."""
    if event.type in ("player_joined", "player_revived"):
        return list(event.data.get("cards", []))
    if event.type == "card_granted":
        return [event.data["card"]]
    return []


def replay_checked(log: list[Event]) -> CardDuel:
    """Fold the log by hand, checking every event against the state it meets (c, e)."""
    owner: dict[str, str] = {}
    state: CardDuel = RULESET.initial_state(log[0].data["config"])
    for event in log:
        data = event.data
        for card in issued(event):
            assert card["card_id"] not in owner, f"card id {card['card_id']} issued twice"
            owner[card["card_id"]] = data["player_id"]
        if event.type == "card_picked":
            assert state.fighters[data["player_id"]].card(data["card_id"]) is not None
        if event.type == "round_revealed":
            for p, card in data["cards"].items():
                assert Card.load(CardFace(**card)) in state.fighters[p].cards, (p, card)
        state = RULESET.evolve(state, event)  # (e) never fails
        for fighter in state.fighters.values():
            for held in fighter.cards:
                assert owner[held.card_id] == fighter.player_id
    return state


def seq_ids(log: list[Event]) -> list[tuple[int, str]]:
    """Every id a command derived from its seq: players, cards, duels; with the event's seq."""
    ids = []
    for seq, event in enumerate(log, start=1):
        if event.type == "player_joined":
            ids.append((seq, event.data["player_id"]))
        if event.type == "duel_started":
            ids.append((seq, event.data["duel_id"]))
        ids += [(seq, card["card_id"]) for card in issued(event)]
    return ids


@PROPERTIES
@given(games)
def test_replaying_the_log_gives_the_live_state(game: tuple[Any, ...]) -> None:
    played = play(*game)
    assert fold(RULESET, played.game.log) == played.game.state
    assert replay_checked(played.game.log) == played.game.state


@PROPERTIES
@given(games)
def test_ids_derived_from_seq_are_unique_and_name_their_command(game: tuple[Any, ...]) -> None:
    played = play(*game)
    ids = seq_ids(played.game.log)
    assert len({i for _, i in ids}) == len(ids)
    firsts = played.game.firsts
    for seq, ident in ids:
        match = re.fullmatch(r"[pcd](\d+)(?:\.\d+)?", ident)
        assert match, ident
        # The id names the first seq of the command whose event carries it.
        command_seq = max(f for f in firsts if f <= seq)
        assert int(match.group(1)) == command_seq, (ident, seq)


@PROPERTIES
@given(games)
def test_views_never_show_a_secret_pick_and_cards_never_change_hands(
    game: tuple[Any, ...],
) -> None:
    played = play(*game)  # checks the views of every player and the spectator after every step
    replay_checked(played.game.log)
