"""What a card-duel viewer may do now (server/rules/offers.py), judged by decide's own guards.

A fighter: `challenge` and `challenge:ranged`, `pick:<card_id>` for each card in hand and
`leave` while in a duel. The organizer: `start_game` and `end_game` (a row's heal, revive and
grants stay row actions, so the console's `may` does not grow with the game).

A challenge names its opponent by code, which no view holds: its offer names the challenger's
own `player_id` instead, so that decide answers for the challenger's side alone (`ready`, the
crossbow) and then `code_required` — "name the one you touched". What others do never changes
it, so a fighter's view changes only when an event touches the fighter.
"""

from functools import partial

from server.rules import roster
from server.rules.card_duel.commands import Challenge, LeaveDuel, Pick
from server.rules.card_duel.decide import challenged, may_leave, may_pick
from server.rules.card_duel.state import CardDuel, Fighter
from server.rules.core import Member
from server.rules.offers import Offer, judged


def offers(state: CardDuel, viewer: Member, now: int) -> dict[str, Offer]:
    if viewer.role == "organizer":
        return console(state)
    fighter = state.fighters.get(viewer.player_id)
    return {} if fighter is None else fighting(state, viewer, fighter, now)


def console(state: CardDuel) -> dict[str, Offer]:
    status = state.roster
    return {
        "start_game": Offer(roster.StartGame(), judged(lambda: roster.require_lobby(status))),
        "end_game": Offer(roster.EndGame(), judged(lambda: roster.require_not_ended(status))),
    }


def fighting(state: CardDuel, viewer: Member, me: Fighter, now: int) -> dict[str, Offer]:
    found: dict[str, Offer] = {}
    for name, ranged in (("challenge", False), ("challenge:ranged", True)):
        command = Challenge.model_construct(target=me.player_id, ranged=ranged)
        refused = judged(partial(challenged, state, command, viewer, now))
        found[name] = Offer(command, refused, lasting(state, me, refused, now))
    duel = state.duels.get(me.duel_id) if me.duel_id else None
    if duel is None:
        return found
    for card in me.cards:
        pick = Pick.model_construct(duel_id=duel.duel_id, card_id=card.card_id)
        found[f"pick:{card.card_id}"] = Offer(
            pick, judged(partial(may_pick, state, pick, viewer, now))
        )
    leave = judged(lambda: may_leave(state, duel.duel_id, viewer, now))
    until = duel.leave_from if leave == "too_soon" else None
    found["leave"] = Offer(LeaveDuel.model_construct(duel_id=duel.duel_id), leave, until)
    return found


def lasting(state: CardDuel, me: Fighter, refused: str | None, now: int) -> int | None:
    """When the challenger's refusal ends by time alone: a stun, or the deadline of a duel."""
    if refused == "stunned":
        return me.stunned_until
    duel = state.active_duel(me, now) if refused == "busy" else None
    return None if duel is None else duel.deadline
