"""How each card-duel event changes the state. Never fails, never decides."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.clock import parse_iso
from server.rules import roster
from server.rules.card_duel.cards import Card, CardFace
from server.rules.card_duel.events import (
    CardGranted,
    CardPicked,
    DisputeSettled,
    DuelCancelled,
    DuelEnded,
    DuelStarted,
    EffectSuffered,
    FighterJoined,
    ItemGranted,
    KeyRegistered,
    OfflineDuelDisputed,
    OfflineDuelRecorded,
    OfflineDuelVoid,
    PlayerEscaped,
    PlayerHealed,
    PlayerKilled,
    PlayerRevived,
    PlayerStunned,
    PlayerWounded,
    RoundRevealed,
)
from server.rules.card_duel.offline import record_id
from server.rules.card_duel.state import (
    NO_STARTS,
    CardDuel,
    Config,
    Dispute,
    Duel,
    Fighter,
    Outcome,
    Round,
    Settled,
    Start,
    Suffered,
)
from server.rules.core import Event, Json, replacer
from server.rules.events import UNSET, Fact
from server.rules.grown import Appended

# Each class's own `replace`, bound once: replaying a long log calls them for nearly every event.
new_state: Callable[..., CardDuel] = replacer(CardDuel)
new_duel: Callable[..., Duel] = replacer(Duel)
new_fighter: Callable[..., Fighter] = replacer(Fighter)
new_settled: Callable[..., Settled] = replacer(Settled)


def initial_state(config: Json) -> CardDuel:
    return CardDuel(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: CardDuel, event: Event) -> CardDuel:
    if type(event.fact) is KeyRegistered:
        return registered(state, event.fact, counted=event.version == 1)
    change = CHANGES.get(type(event.fact))
    if change is None:
        return new_state(state, roster=roster.evolve(state.roster, event))
    return change(state, event.fact)


def cards(faces: tuple[CardFace, ...]) -> tuple[Card, ...]:
    return tuple(Card.load(face) for face in faces)


def with_fighters(state: CardDuel, *fighters: Fighter, **changes: Any) -> CardDuel:
    """The state with these fighters (made by `changed`), and any other fields in one go."""
    grown = state.fighters.grown({f.player_id: f for f in fighters})
    return new_state(state, fighters=grown, **changes)


def changed(fighter: Fighter, **changes: Any) -> Fighter:
    """The fighter with the changes: one more `revision` of it, counted on from the one before
    (a revived fighter's too: a record signed before the death must not match again)."""
    return new_fighter(fighter, revision=fighter.revision + 1, **changes)


def joined(state: CardDuel, fact: FighterJoined) -> CardDuel:
    state = new_state(state, roster=roster.joined(state.roster, fact))
    if fact.cards is UNSET:
        return state
    return with_fighters(state, Fighter(fact.player_id, cards(fact.cards), revision=1))


def start(state: CardDuel, fact: DuelStarted) -> CardDuel:
    at = parse_iso(fact.at)
    deadline = None if fact.deadline is None else parse_iso(fact.deadline)
    players = (fact.challenger, fact.target)
    duel = Duel(
        fact.duel_id,
        players,
        fact.ranged,
        deadline,
        parse_iso(fact.leave_from),
        offline=fact.duel_id in state.offline,  # told just before (OfflineDuelRecorded)
    )
    challenger, target = state.fighters[fact.challenger], state.fighters[fact.target]
    immune_until = challenger.immune_until
    if immune_until is not None and immune_until > at:
        immune_until = at  # challenging ends one's own free leave
    return with_fighters(
        state,
        changed(
            challenger,
            duel_id=duel.duel_id,
            immune_until=immune_until,
            suffered=still_suffered(challenger, at),
            starts=began(challenger, duel, at),
        ),
        changed(
            target,
            duel_id=duel.duel_id,
            suffered=still_suffered(target, at),
            starts=began(target, duel, at),
        ),
        duels={**state.duels, duel.duel_id: duel},
    )


def began(fighter: Fighter, duel: Duel, at: int) -> Appended[Start]:
    """The fighter's starts with this duel's: as it stood just before, without its history."""
    before = new_fighter(fighter, starts=NO_STARTS)
    return fighter.starts.added(Start(fighter.revision, at, duel.duel_id, before))


def registered(state: CardDuel, fact: KeyRegistered, counted: bool) -> CardDuel:
    """A key joins the fighter's keys; a v1 line counts as a change of the fighter, as it did."""
    fighter = state.fighters[fact.player_id]
    keys = fighter.keys if fact.public_key in fighter.keys else (*fighter.keys, fact.public_key)
    made = changed if counted else new_fighter
    return with_fighters(state, made(fighter, key=fact.public_key, key_id=fact.key_id, keys=keys))


def still_suffered(fighter: Fighter, at: int) -> Suffered | None:
    """A special effect outlives a new duel only while its time runs: an untimed one ends."""
    suffered = fighter.suffered
    return None if suffered is None or suffered.lapsed(at) else suffered


def picked(state: CardDuel, fact: CardPicked) -> CardDuel:
    duel = state.duels[fact.duel_id]
    picks = {**duel.picks, fact.player_id: fact.card_id}
    return new_state(state, duels={**state.duels, duel.duel_id: new_duel(duel, picks=picks)})


def revealed(state: CardDuel, fact: RoundRevealed) -> CardDuel:
    duel = state.duels[fact.duel_id]
    shown = {p: Card.load(face) for p, face in fact.cards.items()}
    rounds = (*duel.rounds, Round(fact.round, shown, tuple(fact.winners)))
    # Written only when the duel goes on (see RoundRevealed).
    deadline = parse_iso(fact.deadline) if isinstance(fact.deadline, str) else None
    leave_from = duel.leave_from if fact.leave_from is UNSET else parse_iso(fact.leave_from)
    duel = new_duel(
        duel,
        rounds=rounds,
        round=duel.round + 1,
        picks={},
        deadline=deadline,
        leave_from=leave_from,
    )
    return new_state(state, duels={**state.duels, duel.duel_id: duel})


def ended(state: CardDuel, fact: DuelEnded) -> CardDuel:
    outcomes = tuple(
        Outcome(o.player_id, o.effect, None if o.until is None else parse_iso(o.until))
        for o in fact.outcomes
    )
    return finish(state, fact.duel_id, outcomes, counted=True)


def cancelled(state: CardDuel, fact: DuelCancelled) -> CardDuel:
    duel = state.duels[fact.duel_id]
    return finish(state, duel.duel_id, tuple(Outcome(p, "cancelled") for p in duel.players))


def finish(
    state: CardDuel, duel_id: str, outcomes: tuple[Outcome, ...], counted: bool = False
) -> CardDuel:
    """The duel closed; an ended one (`counted`) that one player alone won adds to the tally."""
    duel = new_duel(state.duels[duel_id], outcomes=outcomes, picks={})
    duels = state.duels.copy()
    del duels[duel_id]
    winner = sole_winner(duel) if counted else None
    freed = [tallied(state.fighters[p], winner) for p in duel.players]
    last = state.last_duels.grown({p: duel for p in duel.players})
    return with_fighters(state, *freed, duels=duels, last_duels=last)


def sole_winner(duel: Duel) -> str | None:
    """Who alone won the duel's last round; None when both did (an escape's exception) or none."""
    winners = duel.rounds[-1].winners if duel.rounds else ()
    return winners[0] if len(winners) == 1 else None


def tallied(fighter: Fighter, winner: str | None) -> Fighter:
    """The fighter out of its duel, one more won or lost when the duel had a sole winner."""
    if winner is None:
        return changed(fighter, duel_id=None)
    if fighter.player_id == winner:
        return changed(fighter, duel_id=None, won=fighter.won + 1)
    return changed(fighter, duel_id=None, lost=fighter.lost + 1)


def settled(state: CardDuel, fact: OfflineDuelRecorded | OfflineDuelVoid) -> CardDuel:
    """An offline duel taken, recorded or void; a recorded one's events follow."""
    players = (fact.challenger, fact.target)
    void = fact.reason if isinstance(fact, OfflineDuelVoid) else None
    forfeit = fact.forfeit if isinstance(fact, OfflineDuelRecorded) else None
    entry = Settled(players, parse_iso(fact.at), void, forfeit)
    voids = state.voids
    if void is not None:
        voids = voids.grown({p: voids.get(p, 0) + 1 for p in players})
    return new_state(
        state,
        offline=state.offline.grown({fact.duel_id: entry}),
        offline_order=(*state.offline_order, fact.duel_id),
        offline_of=state.offline_of.grown({p: fact.duel_id for p in players}),
        records=state.records.grown({record_id(fact.record): fact.duel_id}),
        voids=voids,
    )


def disputed(state: CardDuel, fact: OfflineDuelDisputed) -> CardDuel:
    record = None if fact.record is None else tuple(fact.record)
    dispute = Dispute(fact.reason, tuple(fact.duels), record, fact.loser, fact.effect)
    entry = new_settled(state.offline[fact.duel_id], dispute=dispute)
    return new_state(
        state,
        offline=state.offline.grown({fact.duel_id: entry}),
        disputed=(*state.disputed, fact.duel_id),
    )


def ruled(state: CardDuel, fact: DisputeSettled) -> CardDuel:
    entry = state.offline[fact.duel_id]
    assert entry.dispute is not None  # decide settles only a dispute
    entry = new_settled(entry, dispute=replace(entry.dispute, ruling=fact.ruling))
    return new_state(state, offline=state.offline.grown({fact.duel_id: entry}))


def suffered(fact: EffectSuffered) -> Suffered:
    until = None if fact.until is None else parse_iso(fact.until)
    return Suffered(fact.effect, until, fact.card_id)


Change = Callable[[CardDuel, Any], CardDuel]


def fighter_effect(effect: Callable[[Fighter, Any], Fighter]) -> Change:
    def change(state: CardDuel, fact: Any) -> CardDuel:
        return with_fighters(state, effect(state.fighters[fact.player_id], fact))

    return change


FIGHTER_EFFECTS: dict[type[Fact], Callable[[Fighter, Any], Fighter]] = {
    PlayerEscaped: lambda f, e: changed(f, immune_until=parse_iso(e.until)),
    PlayerStunned: lambda f, e: changed(f, stunned_until=parse_iso(e.until)),
    PlayerWounded: lambda f, e: changed(f, wounded=True),
    PlayerKilled: lambda f, e: changed(f, alive=False),
    EffectSuffered: lambda f, e: changed(f, suffered=suffered(e)),
    PlayerHealed: lambda f, e: changed(f, wounded=False),
    CardGranted: lambda f, e: changed(f, cards=(*f.cards, Card.load(e.card))),
    ItemGranted: lambda f, e: changed(f, items=(*f.items, e.item)),
    # Revived with a fresh hand and nothing else but its phone's key (and its tally of duels).
    PlayerRevived: lambda f, e: Fighter(
        f.player_id,
        cards(e.cards),
        key=f.key,
        key_id=f.key_id,
        keys=f.keys,
        revision=f.revision + 1,
        starts=f.starts,
        won=f.won,
        lost=f.lost,
    ),
}
# The events of the rules' own: any other is the roster's.
CHANGES: dict[type[Fact], Change] = {
    **{kind: fighter_effect(effect) for kind, effect in FIGHTER_EFFECTS.items()},
    FighterJoined: joined,
    DuelStarted: start,
    CardPicked: picked,
    RoundRevealed: revealed,
    DuelEnded: ended,
    DuelCancelled: cancelled,
    OfflineDuelRecorded: settled,
    OfflineDuelVoid: settled,
    OfflineDuelDisputed: disputed,
    DisputeSettled: ruled,
}
