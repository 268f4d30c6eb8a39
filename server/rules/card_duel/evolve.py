"""How each card-duel event changes the state. Never fails, never decides."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.clock import parse_iso
from server.rules import roster
from server.rules.card_duel.cards import Card, CardFace
from server.rules.card_duel.config import Config
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
    Dispute,
    Duel,
    Fighter,
    Outcome,
    Round,
    Settled,
    Start,
    Suffered,
)
from server.rules.core import Event, Json
from server.rules.events import UNSET, Fact
from server.rules.frozen import KEEP, Keep
from server.rules.grown import Appended, Layered
from server.rules.roster import Roster


def new_state(
    state: CardDuel,
    *,
    roster: Roster | Keep = KEEP,
    fighters: Layered[str, Fighter] | Keep = KEEP,
    duels: dict[str, Duel] | Keep = KEEP,
    last_duels: Layered[str, Duel] | Keep = KEEP,
    offline: Layered[str, Settled] | Keep = KEEP,
    offline_order: tuple[str, ...] | Keep = KEEP,
    offline_of: Layered[str, str] | Keep = KEEP,
    records: Layered[str, str] | Keep = KEEP,
    voids: Layered[str, int] | Keep = KEEP,
    disputed: tuple[str, ...] | Keep = KEEP,
) -> CardDuel:
    """The state with the fields given changed (each event makes one: compiled and typed, where
    `dataclasses.replace` looks each field up by name)."""
    return CardDuel(
        state.roster if isinstance(roster, Keep) else roster,
        state.config,
        state.fighters if isinstance(fighters, Keep) else fighters,
        state.duels if isinstance(duels, Keep) else duels,
        state.last_duels if isinstance(last_duels, Keep) else last_duels,
        state.offline if isinstance(offline, Keep) else offline,
        state.offline_order if isinstance(offline_order, Keep) else offline_order,
        state.offline_of if isinstance(offline_of, Keep) else offline_of,
        state.records if isinstance(records, Keep) else records,
        state.voids if isinstance(voids, Keep) else voids,
        state.disputed if isinstance(disputed, Keep) else disputed,
    )


def new_duel(
    duel: Duel,
    *,
    deadline: int | Keep | None = KEEP,
    leave_from: int | Keep = KEEP,
    round: int | Keep = KEEP,
    picks: dict[str, str] | Keep = KEEP,
    rounds: tuple[Round, ...] | Keep = KEEP,
    outcomes: tuple[Outcome, ...] | Keep = KEEP,
) -> Duel:
    """The duel with the fields given changed."""
    return Duel(
        duel.duel_id,
        duel.players,
        duel.ranged,
        duel.deadline if isinstance(deadline, Keep) else deadline,
        duel.leave_from if isinstance(leave_from, Keep) else leave_from,
        duel.round if isinstance(round, Keep) else round,
        duel.picks if isinstance(picks, Keep) else picks,
        duel.rounds if isinstance(rounds, Keep) else rounds,
        duel.outcomes if isinstance(outcomes, Keep) else outcomes,
        duel.offline,
    )


def changed(
    fighter: Fighter,
    *,
    counted: bool = True,
    cards: tuple[Card, ...] | Keep = KEEP,
    alive: bool | Keep = KEEP,
    wounded: bool | Keep = KEEP,
    stunned_until: int | Keep | None = KEEP,
    immune_until: int | Keep | None = KEEP,
    items: tuple[str, ...] | Keep = KEEP,
    duel_id: str | Keep | None = KEEP,
    suffered: Suffered | Keep | None = KEEP,
    key: str | Keep | None = KEEP,
    key_id: str | Keep | None = KEEP,
    keys: tuple[str, ...] | Keep = KEEP,
    starts: Appended[Start] | Keep = KEEP,
    won: int | Keep = KEEP,
    lost: int | Keep = KEEP,
) -> Fighter:
    """The fighter with the changes: one more `revision` of it (unless not `counted`), counted
    on from the one before (a revived fighter's too: a record signed before the death must not
    match again)."""
    f = fighter
    return Fighter(
        f.player_id,
        f.cards if isinstance(cards, Keep) else cards,
        f.alive if isinstance(alive, Keep) else alive,
        f.wounded if isinstance(wounded, Keep) else wounded,
        f.stunned_until if isinstance(stunned_until, Keep) else stunned_until,
        f.immune_until if isinstance(immune_until, Keep) else immune_until,
        f.items if isinstance(items, Keep) else items,
        f.duel_id if isinstance(duel_id, Keep) else duel_id,
        f.suffered if isinstance(suffered, Keep) else suffered,
        f.key if isinstance(key, Keep) else key,
        f.key_id if isinstance(key_id, Keep) else key_id,
        f.keys if isinstance(keys, Keep) else keys,
        f.revision + 1 if counted else f.revision,
        f.starts if isinstance(starts, Keep) else starts,
        f.won if isinstance(won, Keep) else won,
        f.lost if isinstance(lost, Keep) else lost,
    )


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


def with_fighters(
    state: CardDuel,
    *fighters: Fighter,
    duels: dict[str, Duel] | Keep = KEEP,
    last_duels: Layered[str, Duel] | Keep = KEEP,
) -> CardDuel:
    """The state with these fighters (made by `changed`), and its duels when given."""
    grown = state.fighters.grown({f.player_id: f for f in fighters})
    return new_state(state, fighters=grown, duels=duels, last_duels=last_duels)


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
    before = changed(fighter, counted=False, starts=NO_STARTS)
    return fighter.starts.added(Start(fighter.revision, at, duel.duel_id, before))


def registered(state: CardDuel, fact: KeyRegistered, counted: bool) -> CardDuel:
    """A key joins the fighter's keys; a v1 line counts as a change of the fighter, as it did."""
    fighter = state.fighters[fact.player_id]
    keys = fighter.keys if fact.public_key in fighter.keys else (*fighter.keys, fact.public_key)
    made = changed(fighter, counted=counted, key=fact.public_key, key_id=fact.key_id, keys=keys)
    return with_fighters(state, made)


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
    entry = replace(state.offline[fact.duel_id], dispute=dispute)
    return new_state(
        state,
        offline=state.offline.grown({fact.duel_id: entry}),
        disputed=(*state.disputed, fact.duel_id),
    )


def ruled(state: CardDuel, fact: DisputeSettled) -> CardDuel:
    entry = state.offline[fact.duel_id]
    assert entry.dispute is not None  # decide settles only a dispute
    entry = replace(entry, dispute=replace(entry.dispute, ruling=fact.ruling))
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
