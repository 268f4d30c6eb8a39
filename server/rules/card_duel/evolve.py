"""How each card-duel event changes the state. Never fails, never decides."""

from collections.abc import Callable
from typing import Any

from server.clock import parse_iso
from server.rules import roster
from server.rules.card_duel.cards import Card
from server.rules.card_duel.state import CardDuel, Config, Duel, Fighter, Outcome, Round
from server.rules.core import Event, Json, replace


def initial_state(config: Json) -> CardDuel:
    return CardDuel(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: CardDuel, event: Event) -> CardDuel:
    data = event.data
    kind = event.type
    if kind in FIGHTER_EFFECTS:
        fighter = state.fighters[data["player_id"]]
        return with_fighters(state, FIGHTER_EFFECTS[kind](fighter, data))
    if kind == "player_joined":
        state = replace(state, roster=roster.evolve(state.roster, event))
        if "cards" in data:
            return with_fighters(state, Fighter(data["player_id"], cards(data["cards"])))
        return state
    if kind == "duel_started":
        return start(state, data)
    if kind == "card_picked":
        duel = state.duels[data["duel_id"]]
        picks = {**duel.picks, data["player_id"]: data["card_id"]}
        return replace(state, duels={**state.duels, duel.duel_id: replace(duel, picks=picks)})
    if kind == "round_revealed":
        return revealed(state, data)
    if kind == "duel_ended":
        outcomes = tuple(
            Outcome(o["player_id"], o["effect"], o["until"] and parse_iso(o["until"]))
            for o in data["outcomes"]
        )
        return finish(state, data["duel_id"], outcomes)
    if kind == "duel_cancelled":
        duel = state.duels[data["duel_id"]]
        return finish(state, duel.duel_id, tuple(Outcome(p, "cancelled") for p in duel.players))
    return replace(state, roster=roster.evolve(state.roster, event))


def cards(data: list[Json]) -> tuple[Card, ...]:
    return tuple(Card.load(card) for card in data)


def with_fighters(state: CardDuel, *fighters: Fighter, **changes: Any) -> CardDuel:
    """The state with these fighters changed (and any other fields in one go)."""
    fighters_now = {**state.fighters, **{f.player_id: f for f in fighters}}
    return replace(state, fighters=fighters_now, **changes)


def start(state: CardDuel, data: Json) -> CardDuel:
    at = parse_iso(data["at"])
    deadline = data["deadline"] and parse_iso(data["deadline"])
    # Duels logged before leaving existed: from the default wait on.
    wait = state.config.leave_after_s * 1000
    leave_from = parse_iso(data["leave_from"]) if "leave_from" in data else at + wait
    players = (data["challenger"], data["target"])
    duel = Duel(data["duel_id"], players, data["ranged"], deadline, leave_from)
    challenger = state.fighters[data["challenger"]]
    immune_until = challenger.immune_until
    if immune_until is not None and immune_until > at:
        immune_until = at  # challenging ends one's own free leave
    return with_fighters(
        state,
        replace(challenger, duel_id=duel.duel_id, immune_until=immune_until),
        replace(state.fighters[data["target"]], duel_id=duel.duel_id),
        duels={**state.duels, duel.duel_id: duel},
    )


def revealed(state: CardDuel, data: Json) -> CardDuel:
    duel = state.duels[data["duel_id"]]
    shown = {p: Card.load(card) for p, card in data["cards"].items()}
    rounds = (*duel.rounds, Round(data["round"], shown, tuple(data["winners"])))
    deadline = data["deadline"] and parse_iso(data["deadline"]) if "deadline" in data else None
    leave_from = parse_iso(data["leave_from"]) if "leave_from" in data else duel.leave_from
    duel = replace(
        duel,
        rounds=rounds,
        round=duel.round + 1,
        picks={},
        deadline=deadline,
        leave_from=leave_from,
    )
    return replace(state, duels={**state.duels, duel.duel_id: duel})


def finish(state: CardDuel, duel_id: str, outcomes: tuple[Outcome, ...]) -> CardDuel:
    duel = replace(state.duels[duel_id], outcomes=outcomes, picks={})
    duels = {k: v for k, v in state.duels.items() if k != duel_id}
    freed = [replace(state.fighters[p], duel_id=None) for p in duel.players]
    last = {**state.last_duels, **{p: duel for p in duel.players}}
    return with_fighters(state, *freed, duels=duels, last_duels=last)


FIGHTER_EFFECTS: dict[str, Callable[[Fighter, Json], Fighter]] = {
    "player_escaped": lambda f, d: replace(f, immune_until=parse_iso(d["until"])),
    "player_stunned": lambda f, d: replace(f, stunned_until=parse_iso(d["until"])),
    "player_wounded": lambda f, d: replace(f, wounded=True),
    "player_killed": lambda f, d: replace(f, alive=False),
    "player_healed": lambda f, d: replace(f, wounded=False),
    "card_granted": lambda f, d: replace(f, cards=(*f.cards, Card.load(d["card"]))),
    "item_granted": lambda f, d: replace(f, items=(*f.items, d["item"])),
    "player_revived": lambda f, d: Fighter(f.player_id, cards(d["cards"])),
}
