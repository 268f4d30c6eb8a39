"""How each card-duel event changes the state. Never fails, never decides."""

from collections.abc import Callable
from typing import Any

from server.clock import parse_iso
from server.rules import roster
from server.rules.card_duel.cards import Card
from server.rules.card_duel.state import CardDuel, Config, Duel, Fighter, Outcome, Round
from server.rules.core import Event, Json, replacer

# Each class's own `replace`, bound once: replaying a long log calls them for nearly every event.
new_state: Callable[..., CardDuel] = replacer(CardDuel)
new_duel: Callable[..., Duel] = replacer(Duel)
new_fighter: Callable[..., Fighter] = replacer(Fighter)


def initial_state(config: Json) -> CardDuel:
    return CardDuel(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: CardDuel, event: Event) -> CardDuel:
    change = CHANGES.get(event.type)
    if change is None:
        return new_state(state, roster=roster.evolve(state.roster, event))
    return change(state, event)


def cards(data: list[Json]) -> tuple[Card, ...]:
    return tuple(Card.load(card) for card in data)


def with_fighters(state: CardDuel, *fighters: Fighter, **changes: Any) -> CardDuel:
    """The state with these fighters changed (and any other fields in one go)."""
    changed = state.fighters.grown({fighter.player_id: fighter for fighter in fighters})
    return new_state(state, fighters=changed, **changes)


def joined(state: CardDuel, event: Event) -> CardDuel:
    data = event.data
    state = new_state(state, roster=roster.evolve(state.roster, event))
    if "cards" in data:
        return with_fighters(state, Fighter(data["player_id"], cards(data["cards"])))
    return state


def start(state: CardDuel, event: Event) -> CardDuel:
    data = event.data
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
        new_fighter(challenger, duel_id=duel.duel_id, immune_until=immune_until),
        new_fighter(state.fighters[data["target"]], duel_id=duel.duel_id),
        duels={**state.duels, duel.duel_id: duel},
    )


def picked(state: CardDuel, event: Event) -> CardDuel:
    data = event.data
    duel = state.duels[data["duel_id"]]
    picks = {**duel.picks, data["player_id"]: data["card_id"]}
    return new_state(state, duels={**state.duels, duel.duel_id: new_duel(duel, picks=picks)})


def revealed(state: CardDuel, event: Event) -> CardDuel:
    data = event.data
    duel = state.duels[data["duel_id"]]
    shown = {p: Card.load(card) for p, card in data["cards"].items()}
    rounds = (*duel.rounds, Round(data["round"], shown, tuple(data["winners"])))
    deadline = data["deadline"] and parse_iso(data["deadline"]) if "deadline" in data else None
    leave_from = parse_iso(data["leave_from"]) if "leave_from" in data else duel.leave_from
    duel = new_duel(
        duel,
        rounds=rounds,
        round=duel.round + 1,
        picks={},
        deadline=deadline,
        leave_from=leave_from,
    )
    return new_state(state, duels={**state.duels, duel.duel_id: duel})


def ended(state: CardDuel, event: Event) -> CardDuel:
    data = event.data
    outcomes = tuple(
        Outcome(o["player_id"], o["effect"], o["until"] and parse_iso(o["until"]))
        for o in data["outcomes"]
    )
    return finish(state, data["duel_id"], outcomes)


def cancelled(state: CardDuel, event: Event) -> CardDuel:
    duel = state.duels[event.data["duel_id"]]
    return finish(state, duel.duel_id, tuple(Outcome(p, "cancelled") for p in duel.players))


def finish(state: CardDuel, duel_id: str, outcomes: tuple[Outcome, ...]) -> CardDuel:
    duel = new_duel(state.duels[duel_id], outcomes=outcomes, picks={})
    duels = state.duels.copy()
    del duels[duel_id]
    freed = [new_fighter(state.fighters[p], duel_id=None) for p in duel.players]
    last = state.last_duels.grown({p: duel for p in duel.players})
    return with_fighters(state, *freed, duels=duels, last_duels=last)


def fighter_effect(effect: Callable[[Fighter, Json], Fighter]) -> Callable[..., CardDuel]:
    def change(state: CardDuel, event: Event) -> CardDuel:
        data = event.data
        return with_fighters(state, effect(state.fighters[data["player_id"]], data))

    return change


FIGHTER_EFFECTS: dict[str, Callable[[Fighter, Json], Fighter]] = {
    "player_escaped": lambda f, d: new_fighter(f, immune_until=parse_iso(d["until"])),
    "player_stunned": lambda f, d: new_fighter(f, stunned_until=parse_iso(d["until"])),
    "player_wounded": lambda f, d: new_fighter(f, wounded=True),
    "player_killed": lambda f, d: new_fighter(f, alive=False),
    "player_healed": lambda f, d: new_fighter(f, wounded=False),
    "card_granted": lambda f, d: new_fighter(f, cards=(*f.cards, Card.load(d["card"]))),
    "item_granted": lambda f, d: new_fighter(f, items=(*f.items, d["item"])),
    "player_revived": lambda f, d: Fighter(f.player_id, cards(d["cards"])),
}
# The events of the rules' own: any other is the roster's.
CHANGES: dict[str, Callable[[CardDuel, Event], CardDuel]] = {
    **{kind: fighter_effect(effect) for kind, effect in FIGHTER_EFFECTS.items()},
    "player_joined": joined,
    "duel_started": start,
    "card_picked": picked,
    "round_revealed": revealed,
    "duel_ended": ended,
    "duel_cancelled": cancelled,
}
