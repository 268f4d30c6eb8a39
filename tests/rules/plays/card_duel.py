"""Random games of `card-duel` for the shared properties (tests/rules/properties.py) and the
ruleset's own (tests/rules/test_card_duel_properties.py)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from server.rules.card_duel.cards import beats
from server.rules.card_duel.commands import (
    CancelDuel,
    Challenge,
    GrantCard,
    GrantItem,
    Heal,
    LeaveDuel,
    OfflineDuel,
    Pick,
    RegisterKey,
    Revive,
)
from server.rules.card_duel.offline import REVEAL_MS
from server.rules.card_duel.state import CardDuel, Fighter
from server.rules.core import Command, Json, Member, RuleError
from server.rules.roster import EndGame
from tests.rules.drivers.base import Driver
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.phones import Exchange, Phone
from tests.rules.properties import Supply, nothing, strings

# -- random games --------------------------------------------------------------------------------

numbers = {
    "title": st.sampled_from(["Kámen", "Dýka", "Útěk", "Kosa", "Šipka"]),
    "big": st.integers(0, 6),
    "small": st.integers(0, 6),
    "ranged": st.booleans(),
}
plain_specs = st.fixed_dictionaries(
    {**numbers, "kind": st.sampled_from(["escape", "stun", "wound", "death"])}
)
# A special card: words for the loser's phone, timed (seconds, so a game sees some run out) or not.
special_specs = st.fixed_dictionaries(
    {
        **numbers,
        "kind": st.just("special"),
        "effect": st.sampled_from(["Kletba: mluv ve verších", "Jsi žába"]),
    },
    optional={"effect_s": st.none() | st.integers(1, 5)},
)
specs = st.sampled_from([plain_specs] * 3 + [special_specs]).flatmap(lambda spec: spec)
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
# challenge: who, whom, ranged, the code in lower case, and maybe a first pick: (own card (or
# any card ever issued), which one)
challenge = st.tuples(
    st.just("challenge"),
    player,
    player,
    st.sampled_from([False, False, True]),
    st.booleans(),
    st.none() | st.tuples(st.booleans(), st.integers(0, 50)),
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
# offline: challenger, target (counted on from it), the cards' indexes, a stale revision, a
# forfeit claim (the challenger never reveals): duels settled by two phones, brought in later.
offline = st.tuples(
    st.just("offline"),
    player,
    player,
    st.lists(st.integers(0, 50), min_size=6, max_size=6),
    st.sampled_from([False, False, False, True]),
    st.sampled_from([False, False, False, True]),
)
# Weighted so that duels start, run several rounds and end, and the organizer steps in now and then
# (sampled, then drawn: a nested one_of would be flattened into equal branches).
WEIGHTED = (
    [advance] * 2 + [challenge] * 3 + [own_pick] * 6 + [any_pick] + [leave] + [organizer] * 2
) + [offline] * 3
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

    game: CardDuelGame
    players: list[Member]
    spectator: Member


def command_for(
    game: CardDuelGame, players: list[Member], step: tuple[Any, ...]
) -> tuple[Member, Command]:
    """The command a step stands for, and who sends it (the step may well be refused)."""
    state = game.state
    kind = step[0]
    if kind == "challenge":
        _, i, j, ranged, lower, first = step
        # The target is counted from the challenger on: itself only when 1 + j is a full turn.
        me, target = players[i % len(players)], players[(i + 1 + j) % len(players)]
        code = target.code.lower() if lower else target.code
        if first is None:
            return me, Challenge(target=code, ranged=ranged)
        return me, Challenge(target=code, ranged=ranged, card_id=drawn(state, me, *first))
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
                return command_for(game, players, ("challenge", i, 0, False, False, None))
            me = waiting[i % len(waiting)]
        else:
            me = players[i % len(players)]
        fighter = state.fighters[me.player_id]
        duel_id = fighter.duel_id if own_duel and fighter.duel_id else f"d{k % (len(game.log) + 1)}"
        return me, Pick(duel_id=duel_id, card_id=drawn(state, me, own, k))
    if kind == "offline":
        return offline_duel(game, players, step)
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


def drawn(state: CardDuel, me: Member, own: bool, k: int) -> str:
    """The id of the k-th card (modulo) of `me`'s hand when `own` and it holds one, else of
    every card ever issued (a cheater's pick of another player's card)."""
    fighter = state.fighters[me.player_id]
    pool = (
        fighter.cards
        if own and fighter.cards
        else [c for f in state.fighters.values() for c in f.cards]
    )
    return pool[k % len(pool)].card_id


def offline_duel(
    game: CardDuelGame, players: list[Member], step: tuple[Any, ...]
) -> tuple[Member, Command]:
    """Each phone's key first (a command of its own), then a duel of up to three rounds the
    phones settled meanwhile: as they saw the log, or one change behind it; or a claim that the
    challenger saw the pick and kept quiet, ten minutes ago."""
    _, i, j, picks, stale, claim = step
    free = [
        m for m in players if game.state.challengeable(game.state.fighters[m.player_id], game.now)
    ]
    pool = free if len(free) >= 2 else players  # mostly two who could duel, now and then not
    a, b = pool[i % len(pool)], pool[(i + 1 + j % (len(pool) - 1)) % len(pool)]
    phones = PHONES.setdefault(id(game), {})
    for member in (a, b):
        if game.state.fighters[member.player_id].key is None or member.player_id not in phones:
            phones[member.player_id] = Phone(member.player_id)
            return member, RegisterKey(public_key=phones[member.player_id].public_key)
    fa, fb = game.state.fighters[a.player_id], game.state.fighters[b.player_id]
    if not fa.cards or not fb.cards:
        return a, RegisterKey(public_key=phones[a.player_id].public_key)
    at = game.now - REVEAL_MS - 1_000 if claim else game.now
    duel = Exchange(game.state.roster.game_id, phones[a.player_id], phones[b.player_id])
    for n in range(3):
        mine = fa.cards[picks[2 * n] % len(fa.cards)]
        theirs = fb.cards[picks[2 * n + 1] % len(fb.cards)]
        duel.challenge(mine.card_id, fa.revision - stale, at)
        duel.pick(theirs.card_id, fb.revision - stale, at)
        if claim:
            break
        duel.reveal(at)
        if beats(mine, theirs) or beats(theirs, mine):
            break
    return b, OfflineDuel(record=duel.texts)


PHONES: dict[int, dict[str, Phone]] = {}  # by game, the players' phones (their keys)


def wanted(kind: str, fighter: Fighter) -> bool:
    if kind == "heal":
        return fighter.wounded
    if kind == "revive":
        return not fighter.alive
    return True


def play(game: tuple[Any, ...], check: Callable[[Played], None] = nothing) -> Played:
    """Play a random game; `check` runs after the start and after every step."""
    config, count, steps, end = game
    driven = CardDuelGame(config)
    players = [driven.add(f"Hráč {n}") for n in range(count)]
    spectator = driven.add("Divák", role="spectator")
    driven.start()
    played = Played(driven, players, spectator)
    check(played)
    for n, step in enumerate(steps):
        if step[0] == "advance":
            driven.now += step[1]
        else:
            actor, command = command_for(driven, players, step)
            before = len(driven.log)
            try:
                driven.run(actor, command)
            except RuleError:
                assert len(driven.log) == before  # a refusal writes nothing
        if n == end:
            driven.run(driven.organizer, EndGame())
        check(played)
    return played


# -- what a viewer may see -----------------------------------------------------------------------


def unrevealed(view: Json) -> Json:
    """The view without what duels have revealed: this and the last duel's revealed rounds."""
    rest = dict(view)
    rest.pop("last_duel", None)
    if rest.get("duel"):
        rest["duel"] = {k: v for k, v in rest["duel"].items() if k != "rounds"}
    return rest


def secrets(driven: Driver[CardDuel], viewer: Member, view: Json) -> None:
    """No player sees another's secret pick, in whatever field; a spectator sees no status and
    no duel, hence no pick. The organizer sees everything."""
    if viewer.role == "organizer":
        return
    state = driven.state
    picks = [(p, card_id) for duel in state.duels.values() for p, card_id in duel.picks.items()]
    if viewer.role == "spectator":
        assert set(view) == {"game"}, view
    visible = strings(unrevealed(view))
    for picker, card_id in picks:
        if picker != viewer.player_id:
            assert card_id not in visible, (viewer, picker, card_id, view)


def open_things(state: CardDuel) -> list[str]:
    """Duels still open, and fighters still in one."""
    fighters = [f"{f.player_id} in {f.duel_id}" for f in state.fighters.values() if f.duel_id]
    return [*state.duels, *fighters]


SUPPLY = Supply[Played](
    games=games,
    play=play,
    driver=lambda played: played.game,
    secrets=secrets,
    open_things=open_things,
)
