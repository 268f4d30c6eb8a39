"""What a card-duel viewer may do now (server/rules/offers.py), judged by decide's own guards.

A fighter: `challenge`, `challenge:ranged` (with a crossbow), `pick` (any card of the hand) and
`leave` while in a duel. The organizer: `start_game` and `end_game` (a row's heal, revive and
grants stay row actions, so the console's `may` does not grow with the game).

A challenge names its opponent by code, which no view holds: its offer names the challenger's
own `player_id` instead, so that decide answers for the challenger's side alone (`ready`, the
crossbow) and then `code_required` — "name the one you touched". What others do never changes
it, so a fighter's view changes only when an event touches the fighter.
"""

from collections.abc import Callable

from server.rules.card_duel.commands import Challenge, LeaveDuel, Pick
from server.rules.card_duel.decide import challenged, may_leave, may_pick
from server.rules.card_duel.state import CardDuel, Fighter
from server.rules.core import Member
from server.rules.offers import Offer, console, judged


def offers(state: CardDuel, viewer: Member, now: int) -> dict[str, Offer]:
    if viewer.role == "organizer":
        return console(state.roster)
    fighter = state.fighters.get(viewer.player_id)
    return {} if fighter is None else fighting(state, viewer, fighter, now)


def fighting(state: CardDuel, viewer: Member, me: Fighter, now: int) -> dict[str, Offer]:
    """A fighter's offers. They are made on every change of the fighter's view (the duel's
    path), so each judgement is made once where it cannot differ: a ranged challenge differs
    from a plain one only by the crossbow, which decide checks after the challenger's own state,
    and every card in hand is picked or not for the same reason. Commands are made only when
    asked for (`Offer.sent`)."""
    plain = judged(challenged, state, me.player_id, False, viewer, now)
    until = lasting(state, me, plain, now)
    found = {"challenge": Offer(challenge_of(me, False), plain, until)}
    if "crossbow" in me.items:  # without one, a phone offers no ranged challenge at all
        ranged = plain
        if plain == "code_required":
            ranged = judged(challenged, state, me.player_id, True, viewer, now)
        found["challenge:ranged"] = Offer(challenge_of(me, True), ranged, until)
    duel = state.duels.get(me.duel_id) if me.duel_id else None
    if duel is None or not me.cards:
        return found
    duel_id = duel.duel_id
    picked = judged(may_pick, state, duel_id, me.cards[0].card_id, viewer, now)  # any
    found["pick"] = Offer(pick_of(duel_id, me.cards[0].card_id), picked)
    leave = judged(may_leave, state, duel_id, viewer, now)
    until = duel.leave_from if leave == "too_soon" else None
    found["leave"] = Offer(lambda: LeaveDuel.model_construct(duel_id=duel_id), leave, until)
    return found


def challenge_of(me: Fighter, ranged: bool) -> Callable[[], Challenge]:
    # The fighter's own id stands for the code it will type: see the module's comment.
    target = me.player_id
    return lambda: Challenge.model_construct(target=target, ranged=ranged)


def pick_of(duel_id: str, card_id: str) -> Callable[[], Pick]:
    return lambda: Pick.model_construct(duel_id=duel_id, card_id=card_id)


def lasting(state: CardDuel, me: Fighter, refused: str | None, now: int) -> int | None:
    """When the challenger's refusal ends by time alone: a stun, or the deadline of a duel."""
    if refused == "stunned":
        return me.stunned_until
    duel = state.active_duel(me, now) if refused == "busy" else None
    return None if duel is None else duel.deadline
