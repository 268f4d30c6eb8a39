"""What a card-duel command causes, or why the rules refuse it."""

from typing import Literal

import msgspec

from server.clock import iso, iso_or_none, parse_iso
from server.rules import roster
from server.rules.card_duel import offline
from server.rules.card_duel.cards import Card, CardFace, beats
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
    SettleDispute,
)
from server.rules.card_duel.events import (
    VOIDS_KEPT,
    CancelReason,
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
    VoidReason,
)
from server.rules.card_duel.events import Outcome as OutcomeFace
from server.rules.card_duel.evolve import evolve
from server.rules.card_duel.state import CardDuel, Duel, Fighter, Outcome
from server.rules.core import Context, Member, RuleError
from server.rules.events import UNSET, Fact, Unset
from server.rules.lineup import find_member, require_not_ended, require_running
from server.rules.refusal import Refusal, sure
from server.rules.story import Decider, Lifecycle, Story, tells


def joined(state: CardDuel, member: roster.PlayerJoined, ctx: Context) -> FighterJoined:
    """A player is dealt the starting cards; an organizer or a spectator none."""
    dealt = deal(state, ctx) if member.role == "player" else UNSET
    return FighterJoined(**msgspec.structs.asdict(member), cards=dealt)


def ending(story: Story[CardDuel], ctx: Context) -> None:
    """Duels still open when the game ends end with it, so no state is left half-way."""
    for duel_id in list(story.state.duels):
        story.tell(cancelled(story.state, duel_id, "game_ended"))


def grant_card(state: CardDuel, command: GrantCard, ctx: Context) -> list[Fact]:
    require_not_ended(state.roster)
    fighter = alive(state, command.player_id)
    card = Card.issue(ctx.new_id("c"), command.card)
    return [CardGranted(player_id=fighter.player_id, card=card.face())]


def grant_item(state: CardDuel, command: GrantItem, ctx: Context) -> list[Fact]:
    require_not_ended(state.roster)
    fighter = alive(state, command.player_id)
    if command.item in fighter.items:
        raise RuleError("already_has_item", f"the player already has a {command.item}")
    return [ItemGranted(player_id=fighter.player_id, item=command.item)]


def heal(state: CardDuel, command: Heal, ctx: Context) -> list[Fact]:
    require_not_ended(state.roster)
    fighter = alive(state, command.player_id)
    if not fighter.wounded:
        raise RuleError("not_wounded", "the player is not wounded")
    return [PlayerHealed(player_id=fighter.player_id)]


def revive(state: CardDuel, command: Revive, ctx: Context) -> list[Fact]:
    require_not_ended(state.roster)
    fighter = find(state, command.player_id)
    if fighter.alive:
        raise RuleError("not_dead", "only a dead player can be revived")
    return [PlayerRevived(player_id=fighter.player_id, cards=deal(state, ctx))]


def cancel_duel(state: CardDuel, command: CancelDuel, ctx: Context) -> list[Fact]:
    require_not_ended(state.roster)
    if command.duel_id not in state.duels:
        raise RuleError("not_found", f"no duel {command.duel_id} is in progress")
    return [cancelled(state, command.duel_id, "organizer")]


def deal(state: CardDuel, ctx: Context) -> tuple[CardFace, ...]:
    return tuple(Card.issue(ctx.new_id("c"), spec).face() for spec in state.config.starting_cards)


def find(state: CardDuel, player_id: str) -> Fighter:
    fighter = state.fighters.get(player_id)
    if fighter is None:
        raise RuleError("not_found", f"no player {player_id} fights in this game")
    return fighter


def alive(state: CardDuel, player_id: str) -> Fighter:
    fighter = find(state, player_id)
    if not fighter.alive:
        raise RuleError("dead", "the player is dead")
    return fighter


def cancelled(
    state: CardDuel, duel_id: str, reason: CancelReason, by: str | Unset = UNSET
) -> DuelCancelled:
    """A duel ends with no outcome; the event names its players (whose views it changes)."""
    players = list(state.duels[duel_id].players)
    return DuelCancelled(duel_id=duel_id, reason=reason, players=players, by=by)


def timed_out(state: CardDuel, fighters: list[Fighter], now: int) -> list[Fact]:
    """Duels of these fighters whose pick deadline passed are closed before anything else."""
    ids = {f.duel_id for f in fighters if f.duel_id and state.duels[f.duel_id].expired(now)}
    return [cancelled(state, duel_id, "timeout") for duel_id in sorted(ids)]


def deadline(state: CardDuel, now: int) -> str | None:
    timeout = state.config.pick_timeout_s
    return iso_or_none(None if timeout is None else now + timeout * 1000)


def leave_from(state: CardDuel, now: int) -> str:
    return iso(now + state.config.leave_after_s * 1000)


def challenge(state: CardDuel, command: Challenge, ctx: Context) -> list[Fact]:
    me, target = sure(challenged(state, command.target, command.ranged, ctx.actor, ctx.now))
    card = None if command.card_id is None else sure(held(me, command.card_id))
    now = ctx.now
    started = DuelStarted(
        duel_id=ctx.new_id("d"),
        challenger=me.player_id,
        target=target.player_id,
        ranged=command.ranged,
        at=iso(now),
        deadline=deadline(state, now),
        leave_from=leave_from(state, now),
    )
    facts: list[Fact] = [*timed_out(state, [me, target], now), started]
    if card is not None:  # the challenger's pick of the first round, as a `pick` writes it
        facts.append(
            CardPicked(
                duel_id=started.duel_id, round=1, player_id=me.player_id, card_id=card.card_id
            )
        )
    return facts


# -- guards: each answers the refusal decide gives (a Refusal, server/rules/refusal.py);
# `offers` (offers.py) asks the same ones for every view ---------------------------------------


def ready(state: CardDuel, me: Fighter, now: int) -> Refusal | None:
    """The challenger's side of a challenge, checked before whom it names."""
    if not me.alive:
        return Refusal("dead", "the dead do not duel")
    if me.stunned(now):
        return Refusal("stunned", "a stunned player cannot challenge")
    if state.active_duel(me, now):
        return Refusal("busy", "you are already in a duel")
    return None


def named(state: CardDuel, target: str, actor: Member) -> Fighter | Refusal:
    """The fighter a challenge names. A player names a code, the proof of the touch (players
    never learn each other's codes but by it); only an organizer may name a `player_id`."""
    member = find_member(state.roster, target)
    if member is None or member.player_id not in state.fighters:
        return Refusal("not_found", f"no player has the code {target}")
    if target == member.player_id and actor.role != "organizer":
        return Refusal("code_required", "name your opponent by their code")
    return state.fighters[member.player_id]


def available(state: CardDuel, target: Fighter, now: int) -> Refusal | None:
    """The target's side of a challenge."""
    name = state.roster.members[target.player_id].name
    if not target.alive:
        return Refusal("dead", f"{name} is dead")
    if state.active_duel(target, now):
        return Refusal("busy", f"{name} is in a duel")
    if target.stunned(now):
        return Refusal("stunned", f"{name} is stunned")
    if target.immune(now):
        return Refusal("immune", f"{name} has free leave")
    return None


def challenged(
    state: CardDuel, target: str, ranged: bool, actor: Member, now: int
) -> tuple[Fighter, Fighter] | Refusal:
    """The challenger and the target of an acceptable challenge (of `target`, a code), or its
    refusal."""
    require_running(state.roster)
    me = find(state, actor.player_id)
    member = find_member(state.roster, target)
    if member is None or member.player_id not in state.fighters:  # a typo is told first
        return Refusal("not_found", f"no player has the code {target}")
    refused = ready(state, me, now)
    if refused is not None:
        return refused
    if ranged and "crossbow" not in me.items:
        return Refusal("needs_crossbow", "a ranged challenge needs a crossbow")
    opponent = named(state, target, actor)
    if isinstance(opponent, Refusal):
        return opponent
    if opponent.player_id == me.player_id:
        return Refusal("invalid", "a player cannot challenge themselves")
    refused = available(state, opponent, now)
    return (me, opponent) if refused is None else refused


def my_duel(state: CardDuel, duel_id: str, actor: Member, now: int) -> Duel | Refusal:
    """The acting player's duel in progress, by id."""
    require_running(state.roster)
    duel = state.duels.get(duel_id)
    if duel is None:
        return Refusal("not_found", f"no duel {duel_id} is in progress")
    if actor.player_id not in duel.players:
        return Refusal("forbidden", "this is not your duel")
    if duel.expired(now):
        return Refusal("duel_over", "the duel timed out")
    return duel


def may_leave(state: CardDuel, duel_id: str, actor: Member, now: int) -> Duel | Refusal:
    """A duel the actor may leave: an opponent who does not pick (gone, out of signal) must not
    hold a player for good."""
    duel = my_duel(state, duel_id, actor, now)
    if isinstance(duel, Refusal):
        return duel
    if duel.opponent(actor.player_id) in duel.picks:
        return Refusal("opponent_picked", "your opponent has picked: pick a card")
    if now < duel.leave_from:
        return Refusal("too_soon", f"you may leave the duel from {iso(duel.leave_from)}")
    return duel


def may_pick(
    state: CardDuel, duel_id: str, card_id: str, actor: Member, now: int
) -> tuple[Duel, Card] | Refusal:
    """The duel and the card of an acceptable pick."""
    duel = my_duel(state, duel_id, actor, now)
    if isinstance(duel, Refusal):
        return duel
    card = held(state.fighters[actor.player_id], card_id)
    if isinstance(card, Refusal):
        return card
    if actor.player_id in duel.picks:
        return Refusal("already_picked", "you have picked a card this round")
    return duel, card


def held(fighter: Fighter, card_id: str) -> Card | Refusal:
    """A card of the fighter's hand, by id."""
    card = fighter.card(card_id)
    if card is None:
        return Refusal("not_your_card", f"you hold no card {card_id}")
    return card


def leave(state: CardDuel, command: LeaveDuel, ctx: Context) -> list[Fact]:
    duel = sure(may_leave(state, command.duel_id, ctx.actor, ctx.now))
    return [cancelled(state, duel.duel_id, "left", by=ctx.actor.player_id)]


def pick(state: CardDuel, command: Pick, ctx: Context) -> list[Fact]:
    duel, card = sure(may_pick(state, command.duel_id, command.card_id, ctx.actor, ctx.now))
    me = ctx.actor.player_id
    picked = CardPicked(duel_id=duel.duel_id, round=duel.round, player_id=me, card_id=card.card_id)
    events: list[Fact] = [picked]
    other = duel.opponent(me)
    if other in duel.picks:
        theirs = state.fighters[other].card(duel.picks[other])
        assert theirs is not None  # a picked card stays with its owner
        events += reveal(state, duel, {me: card, other: theirs}, ctx.now)
    return events


def reveal(state: CardDuel, duel: Duel, cards: dict[str, Card], now: int) -> list[Fact]:
    a, b = duel.players
    winners = [p for p, q in ((a, b), (b, a)) if beats(cards[p], cards[q])]
    shown = {p: cards[p].face() for p in duel.players}
    if not winners:  # the next round gets its own time to pick, and to wait
        going_on = RoundRevealed(
            duel_id=duel.duel_id,
            round=duel.round,
            cards=shown,
            winners=winners,
            deadline=deadline(state, now),
            leave_from=leave_from(state, now),
        )
        return [going_on]
    revealed = RoundRevealed(duel_id=duel.duel_id, round=duel.round, cards=shown, winners=winners)
    outcomes = resolve(state, duel, cards, winners, now)
    # A failed escape is only an outcome: the escaper suffers the other card, which has its event.
    effects = [effect_event(duel, o, cards) for o in outcomes if o.effect in EFFECT_EVENTS]
    ended = DuelEnded(
        duel_id=duel.duel_id,
        outcomes=[
            OutcomeFace(player_id=o.player_id, effect=o.effect, until=iso_or_none(o.until))
            for o in outcomes
        ],
    )
    return [revealed, *effects, ended]


def resolve(
    state: CardDuel, duel: Duel, cards: dict[str, Card], winners: list[str], now: int
) -> list[Outcome]:
    """What the winning cards do; both-win has the one exception of an escape."""
    if len(winners) == 2:
        kinds = {cards[p].kind for p in winners}
        if "escape" in kinds and len(kinds) == 2:
            escaper = next(p for p in winners if cards[p].kind == "escape")
            other = duel.opponent(escaper)
            if cards[other].ranged:  # a thrown or shot attack catches the one running away
                return [
                    hit(state, cards[other], other, escaper, now),
                    Outcome(escaper, "escape_failed"),
                ]
            return [hit(state, cards[escaper], escaper, other, now)]
    return [hit(state, cards[p], p, duel.opponent(p), now) for p in winners]


def hit(state: CardDuel, card: Card, winner: str, loser: str, now: int) -> Outcome:
    """What `card` does when it wins: an escape frees its own player, the rest strike the loser."""
    config = state.config
    if card.kind == "escape":
        return Outcome(winner, "escape", now + config.escape_immunity_s * 1000)
    if card.kind == "stun":
        return Outcome(loser, "stun", now + config.stun_s * 1000)
    if card.kind == "special":
        return Outcome(
            loser, "special", None if card.effect_s is None else now + card.effect_s * 1000
        )
    return Outcome(loser, card.kind)


def effect_event(duel: Duel, outcome: Outcome, cards: dict[str, Card]) -> Fact:
    """The event of an outcome; a struck player is struck by the opponent's card (`hit`)."""
    duel_id, player_id = duel.duel_id, outcome.player_id
    if outcome.effect == "special":
        card = cards[duel.opponent(player_id)]
        assert card.effect is not None  # a special card has its effect (CardSpec)
        return EffectSuffered(
            duel_id=duel_id,
            player_id=player_id,
            card_id=card.card_id,
            effect=card.effect,
            effect_s=card.effect_s,
            until=iso_or_none(outcome.until),
        )
    if outcome.effect == "wound":
        return PlayerWounded(duel_id=duel_id, player_id=player_id)
    if outcome.effect == "death":
        return PlayerKilled(duel_id=duel_id, player_id=player_id)
    assert outcome.until is not None  # an escape and a stun last a while
    timed = PlayerEscaped if outcome.effect == "escape" else PlayerStunned
    return timed(duel_id=duel_id, player_id=player_id, until=iso(outcome.until))


EFFECT_EVENTS = ("escape", "stun", "wound", "death", "special")  # a failed escape: no event


# -- offline duels (offline.py reads the record; docs/rules/card-duel.md, "Offline duels") --


def register_key(state: CardDuel, command: RegisterKey, ctx: Context) -> list[Fact]:
    require_not_ended(state.roster)
    me = find(state, ctx.actor.player_id)
    offline.public_key(command.public_key)  # a point of the curve, or `invalid`
    key = KeyRegistered(
        player_id=me.player_id,
        key_id=offline.key_id(command.public_key),
        public_key=command.public_key,
    )
    return [key]


def offline_duel(state: CardDuel, command: OfflineDuel, ctx: Context) -> list[Fact]:
    """A record checked whole before anything is written, the cheap refusals first and the
    signatures last (they are what costs): its shape, chain, players, times and commitments,
    then against the log. Either phone may bring it; the second is told it is in already."""
    require_running(state.roster)
    record, messages = offline.read(command.record)
    if record.game_id != state.roster.game_id:
        raise RuleError("foreign_record", "the record is of another game")
    a, b = find(state, record.challenger), find(state, record.target)
    if ctx.actor.player_id not in (a.player_id, b.player_id):
        raise RuleError("forbidden", "only a duellist brings its duel")
    if a.key is None or b.key is None:
        raise RuleError("no_key", "both duellists need a registered key")
    record = offline.known(record, (a.keys, b.keys))
    offline.timed(record, ctx.now)
    offline.committed(record)
    taken = state.records.get(offline.record_id(record.texts))
    if taken is not None:
        return overturned(state, record, messages, taken, a, b)
    # As each phone saw its fighter when it signed: the log may have moved on since, by duels
    # begun after this one ended; one that moved on before it leaves the duel void.
    then = (
        as_signed(a, record.revisions[0], record.ended),
        as_signed(b, record.revisions[1], record.ended),
    )
    plays = played(record, then[0] or a, then[1] or b)
    if record.forfeit and ctx.now < record.forfeit_due:
        until = iso(record.forfeit_due)
        raise RuleError("reveal_pending", f"the challenger may still reveal until {until}")
    void = unfit(state, record, *then)
    if (
        void is not None
        and max(state.voids.get(p, 0) for p in (a.player_id, b.player_id)) >= VOIDS_KEPT
    ):
        raise RuleError("too_many_void", f"a duellist has {VOIDS_KEPT} void offline duels already")
    if void is None and (state.active_duel(a, ctx.now) or state.active_duel(b, ctx.now)):
        # A duel begun after this one is still going: taken now, it would end that one too.
        raise RuleError("busy", "a duellist is in a duel now: bring the record again after it")
    offline.signed(record, messages)
    duel_id = ctx.new_id("d")
    texts = list(record.texts)
    ids = {"duel_id": duel_id, "challenger": a.player_id, "target": b.player_id}
    if void is not None:
        return [OfflineDuelVoid(**ids, at=iso(record.at), reason=void, record=texts)]
    forfeit = a.player_id if record.forfeit else None
    recorded = OfflineDuelRecorded(**ids, at=iso(record.at), forfeit=forfeit, record=texts)
    started = DuelStarted(
        **ids,
        ranged=record.ranged,
        at=iso(record.at),
        deadline=None,
        leave_from=iso(record.at),
    )
    events: list[Fact] = [recorded, started]
    duel = Duel(duel_id, (a.player_id, b.player_id), record.ranged, None, record.at)
    for round_played, (a_card, b_card) in zip(record.rounds, plays, strict=True):
        round_of = new_round(duel, round_played.n)
        if a_card is None:  # the challenger saw the pick and kept its card: the pick wins
            events += forfeited(state, round_of, b_card, min(record.forfeit_due, ctx.now))
        else:
            # Timed from the reveal, but never from later than now: a phone's clock that runs
            # ahead (within the skew allowed) does not lengthen a stun.
            now = min(round_played.reveal.at if round_played.reveal else ctx.now, ctx.now)
            events += reveal(state, round_of, {a.player_id: a_card, b.player_id: b_card}, now)
    return events + acted(record, events, a, b, duel_id)


def as_signed(fighter: Fighter, signed: int, ended: int) -> Fighter | None:
    """The fighter as its phone saw it at the revision it signed: itself when the log has not
    changed it since; as it stood before a duel it began after the offline duel ended, when
    that is the first change since; else None (the log moved on before: `conflict`)."""
    if fighter.revision == signed:
        return fighter
    for start in reversed(fighter.starts):
        if start.revision == signed:
            return start.before if start.at > ended else None
        if start.revision < signed:
            break
    return None


def played(record: offline.Record, a: Fighter, b: Fighter) -> list[tuple[Card | None, Card]]:
    """Each round's cards (the challenger's None: not revealed), each its player's and shown
    as it is; only the last round has a winner."""
    plays: list[tuple[Card | None, Card]] = []
    for round_played in record.rounds:
        shown = [(b, round_played.pick)] + (
            [(a, round_played.reveal)] if round_played.reveal else []
        )
        for fighter, text in shown:
            card = fighter.card(text.c)
            if card is None or not offline.shows(text.f, card):
                raise RuleError("not_your_card", "a phone played or showed a card not its own")
        a_card = a.card(round_played.reveal.c) if round_played.reveal else None
        b_card = b.card(round_played.pick.c)
        assert b_card is not None  # checked just above
        plays.append((a_card, b_card))
    for n, (a_card, b_card) in enumerate(plays[:-1], start=1):  # rounds nobody won
        assert a_card is not None  # only the last may lack a reveal (offline.read)
        if beats(a_card, b_card) or beats(b_card, a_card):
            raise RuleError("invalid", f"record: round {n} has a winner, and more rounds follow")
    a_last, b_last = plays[-1]
    if a_last is not None and not (beats(a_last, b_last) or beats(b_last, a_last)):
        raise RuleError("invalid", "record: its last round has no winner")
    return plays


def overturned(
    state: CardDuel,
    record: offline.Record,
    messages: list[offline.Message],
    duel_id: str,
    a: Fighter,
    b: Fighter,
) -> list[Fact]:
    """A duel brought a second time. The other phone's copy: `already_recorded`. The
    challenger's whole record after the target's forfeit claim, whose cards decide otherwise:
    a dispute for the organizer (the forfeit stands until it rules)."""
    taken = state.offline[duel_id]
    if taken.forfeit is None or record.forfeit or taken.dispute is not None:
        raise RuleError("already_recorded", "this duel is in the log already")
    a_last, b_last = played(record, a, b)[-1]
    assert a_last is not None  # a whole record
    if beats(b_last, a_last):  # the target's card wins anyway: the forfeit said as much
        raise RuleError("already_recorded", "this duel is in the log already")
    offline.signed(record, messages)
    ids = {"duel_id": duel_id, "challenger": a.player_id, "target": b.player_id}
    texts = list(record.texts)
    disputed = OfflineDuelDisputed(
        **ids, reason="revealed", duels=[], record=texts, loser=None, effect=None
    )
    return [disputed]


def acted(
    record: offline.Record, events: list[Fact], a: Fighter, b: Fighter, duel_id: str
) -> list[Fact]:
    """A dispute when the loser duelled after this offline duel (the log moved on only after
    it) while the record says it was stunned or dead then."""
    barred: dict[str, tuple[Literal["stun", "death"], int | None]] = {}  # loser: until when
    for fact in events:
        if isinstance(fact, PlayerKilled):
            barred[fact.player_id] = ("death", None)
        elif isinstance(fact, PlayerStunned):
            barred[fact.player_id] = ("stun", parse_iso(fact.until))
    begins = record.forfeit_due if record.forfeit else record.ended
    ids = {"duel_id": duel_id, "challenger": a.player_id, "target": b.player_id}
    for fighter, signed in ((a, record.revisions[0]), (b, record.revisions[1])):
        if fighter.player_id not in barred:
            continue
        effect, until = barred[fighter.player_id]
        duels = [
            start.duel_id
            for start in fighter.starts
            if start.revision >= signed
            and begins <= start.at
            and (until is None or start.at < until)
        ]
        if duels:  # one loser a duel
            disputed = OfflineDuelDisputed(
                **ids,
                reason="acted",
                duels=duels,
                record=None,
                loser=fighter.player_id,
                effect=effect,
            )
            return [disputed]
    return []


def settle_dispute(state: CardDuel, command: SettleDispute, ctx: Context) -> list[Fact]:
    entry = state.offline.get(command.duel_id)
    if entry is None or entry.dispute is None:
        raise RuleError("not_found", "no disputed offline duel of that id")
    if entry.dispute.ruling is not None:
        raise RuleError("invalid", f"the organizer ruled already: {entry.dispute.ruling}")
    challenger, target = entry.players
    settled = DisputeSettled(
        duel_id=command.duel_id, challenger=challenger, target=target, ruling=command.ruling
    )
    return [settled]


def new_round(duel: Duel, n: int) -> Duel:
    return Duel(duel.duel_id, duel.players, duel.ranged, None, duel.leave_from, round=n)


def forfeited(state: CardDuel, duel: Duel, card: Card, now: int) -> list[Fact]:
    """The target's card strikes the challenger as if it had won the round."""
    challenger, target = duel.players
    outcome = hit(state, card, target, challenger, now)
    shown = RoundRevealed(
        duel_id=duel.duel_id, round=duel.round, cards={target: card.face()}, winners=[target]
    )
    effects = (
        [effect_event(duel, outcome, {target: card})] if outcome.effect in EFFECT_EVENTS else []
    )
    ended = DuelEnded(
        duel_id=duel.duel_id,
        outcomes=[
            OutcomeFace(
                player_id=outcome.player_id, effect=outcome.effect, until=iso_or_none(outcome.until)
            )
        ],
    )
    return [shown, *effects, ended]


def unfit(
    state: CardDuel, record: offline.Record, a: Fighter | None, b: Fighter | None
) -> VoidReason | None:
    """Why the log cannot take the duel: it moved on for a duellist before the duel ended
    (None: see as_signed), or, as each stood when its phone signed, one of them could not duel
    at the duel's time."""
    if a is None or b is None:
        return "conflict"
    at = record.at
    if not (a.alive and b.alive):
        return "dead"
    if state.active_duel(a, at) or state.active_duel(b, at):
        return "busy"
    if a.stunned(at) or b.stunned(at):
        return "stunned"
    if b.immune(at):
        return "immune"
    if record.ranged and "crossbow" not in a.items:
        return "needs_crossbow"
    return None


decide = Decider(
    handlers={
        Challenge: tells(challenge),
        Pick: tells(pick),
        LeaveDuel: tells(leave),
        GrantCard: tells(grant_card),
        GrantItem: tells(grant_item),
        Heal: tells(heal),
        Revive: tells(revive),
        CancelDuel: tells(cancel_duel),
        RegisterKey: tells(register_key),
        OfflineDuel: tells(offline_duel),
        SettleDispute: tells(settle_dispute),
    },
    evolve=evolve,
    lifecycle=Lifecycle(joined=joined, ending=ending),
)
