"""What each viewer of a card-duel game may see: the only door out of the state."""

from collections.abc import Iterator
from functools import cache

from server.clock import iso, iso_or_none
from server.rules.card_duel.cards import why
from server.rules.card_duel.offers import offers
from server.rules.card_duel.state import CardDuel, Dispute, Duel, Fighter, Outcome
from server.rules.core import Event, Json, Member
from server.rules.events import Fact
from server.rules.offers import may
from server.rules.roster import MEMBER_ROWS, game_view, member_view, onlooker_view
from server.rules.rows import Collection, Made, Row, Rows


def view(state: CardDuel, viewer: Member, now: int) -> Json:
    return {**shared(state, audience(viewer), now), **private(state, viewer, now)}


def audience(viewer: Member) -> str:
    """Organizers see every fighter; everybody else sees the game and their own part only."""
    return viewer.role if viewer.role in ("organizer", "spectator") else "player"


def shared(state: CardDuel, audience: str, now: int) -> Json:
    if audience == "organizer":
        return CONSOLE.whole(state, now)
    if audience == "spectator":  # the game, and nothing of the fighters
        return {"game": game_view(state.roster)}
    return head(state, now)


def rows(audience: str) -> Rows[CardDuel] | None:
    return CONSOLE if audience == "organizer" else None


def head(state: CardDuel, now: int) -> Json:
    if state.roster.status != "ended":
        return {"game": game_view(state.roster)}
    return {"game": game_view(state.roster), "result": result(state)}


def result(state: CardDuel) -> Json:
    """How the fighters ended, in numbers: shown to every player once, after the end (a list of
    names would make each player's view grow with the game)."""
    fighters = state.fighters.values()
    dead = sum(1 for f in fighters if not f.alive)
    wounded = sum(1 for f in fighters if f.alive and f.wounded)
    return {"standing": len(fighters) - dead - wounded, "wounded": wounded, "dead": dead}


def player_row(state: CardDuel, player_id: str, now: int) -> Made:
    """An organizer's row of a fighter; it changes with time when a stun, a free leave or the
    duel's deadline runs out."""
    f = state.fighters.get(player_id)
    if f is None:
        return None, None
    member = state.roster.members[player_id]
    duel = state.active_duel(f, now)
    row = {
        "name": member.name,
        "code": member.code,
        "challengeable": state.challengeable(f, now),
        **status(f),
        "duel_id": duel and f.duel_id,
    }
    ends = (f.stunned_until, f.immune_until, duel.deadline if duel else None)
    return row, min((t for t in ends if t is not None and t > now), default=None)


def offline_row(state: CardDuel, duel_id: str, now: int) -> Made:
    """An offline duel as it arrived: recorded (`void` None) or void, and why."""
    settled = state.offline.get(duel_id)
    if settled is None:
        return None, None
    row = {
        "players": list(settled.players),
        "at": iso(settled.at),
        "void": settled.void,
        "forfeit": settled.forfeit,
        "dispute": dispute_view(settled.dispute, whole=True),
    }
    return row, None


def dispute_view(dispute: Dispute | None, whole: bool) -> Json | None:
    """A dispute for the organizer (`whole`: the other side's record too) or a duellist."""
    if dispute is None:
        return None
    shown: Json = {
        "reason": dispute.reason,
        "duels": list(dispute.duels),
        "loser": dispute.loser,
        "effect": dispute.effect,
        "ruling": dispute.ruling,
    }
    if whole:
        shown["record"] = None if dispute.record is None else list(dispute.record)
    return shown


def duel_row(state: CardDuel, duel_id: str, now: int) -> Made:
    """A duel in progress, picks included, until its deadline passes."""
    duel = state.duels.get(duel_id)
    if duel is None or duel.expired(now):
        return None, None
    return duel_view(duel), duel.deadline


def named(state: CardDuel, touched: set[str], shown: Json) -> Iterator[Row]:
    """A touched member's rows, the duel its fighter is in now or was in when last shown, and
    the offline duels that came in."""
    fighters, shown_players, shown_members = state.fighters, shown["players"], shown["members"]
    for player_id in touched:
        yield "players", player_id
        if player_id not in shown_members:  # a member's row never changes once shown
            yield "members", player_id
        fighter = fighters.get(player_id)
        if fighter is not None and fighter.duel_id:
            yield "duels", fighter.duel_id
        before = shown_players.get(player_id)
        if before is not None and before["duel_id"]:
            yield "duels", before["duel_id"]
    # Offline duels are only ever added: the ones the part does not show yet; and the disputed
    # ones of the touched duellists (a dispute and its ruling change a row already shown).
    for duel_id in state.offline_order[len(shown["offline"]) :]:
        yield "offline", duel_id
    for duel_id in state.disputed:
        if touched.intersection(state.offline[duel_id].players):
            yield "offline", duel_id


# The organizer's console: every fighter, duel and member, kept a row at a time.
CONSOLE: Rows[CardDuel] = Rows(
    head=head,
    collections={
        "players": Collection(lambda state: state.fighters, player_row),
        "duels": Collection(lambda state: state.duels, duel_row),
        "offline": Collection(lambda state: state.offline, offline_row),
        "members": MEMBER_ROWS,
    },
    named=named,
)


def private(state: CardDuel, viewer: Member, now: int) -> Json:
    onlooker = onlooker_view(viewer)
    if onlooker is not None and viewer.role == "organizer":  # start and end: O(1) in players
        return {**onlooker, "may": may(offers(state, viewer, now))}
    if onlooker is not None:
        return onlooker
    fighter = state.fighters.get(viewer.player_id)
    if fighter is None:
        return {"me": member_view(viewer)}
    # The duel in progress until an event closes it, past its deadline too (the deadline says
    # when it stops binding): a private part that does not change with time alone can wait
    # unsent until an event touches it.
    duel = state.duels.get(fighter.duel_id) if fighter.duel_id else None
    last = state.last_duels.get(viewer.player_id)
    settled = state.offline_of.get(viewer.player_id)
    return {
        "me": myself(fighter, viewer),
        "duel": duel and my_duel(state, duel, viewer.player_id),
        "last_duel": last and my_last_duel(state, last, viewer),
        "offline": settled and my_offline(state, settled, viewer.player_id),
        "may": may(offers(state, viewer, now)),
    }


def my_offline(state: CardDuel, duel_id: str, me: str) -> Json:
    """The player's latest offline duel as the server took it: both phones learn a void one
    here (the second copy is only told it is in already)."""
    settled = state.offline[duel_id]
    a, b = settled.players
    other = b if me == a else a
    return {
        "duel_id": duel_id,
        "opponent": {"player_id": other, "name": state.roster.members[other].name},
        "at": iso(settled.at),
        "void": settled.void,
        "forfeit": settled.forfeit,
        "dispute": dispute_view(settled.dispute, whole=False),
    }


def touched(before: CardDuel, events: list[Event], after: CardDuel) -> set[str] | None:
    """The members the events' facts name (`NAMING`), and both players of any duel they name (a
    pick names its picker only, and changes what the opponent sees: `opponent_picked`)."""
    found: set[str] = set()
    duels = before.duels
    for event in events:
        if event.type in LIFECYCLE:
            return None  # what everybody may do turns on the game's start and end: once a game
        fact = event.fact
        for name in naming(type(fact)):
            value = getattr(fact, name)
            if type(value) is str:
                found.add(value)
            elif type(value) is list:
                found.update(value)
        duel = duels.get(getattr(fact, "duel_id", ""))
        if duel is not None:
            found.update(duel.players)
    return found


# The fields by which a fact names the members it is about; its other fields name only the
# players of its duel (the cards and winners of a round), or nobody.
NAMING = ("player_id", "challenger", "target", "players", "by", "loser")


@cache
def naming(kind: type[Fact]) -> tuple[str, ...]:
    return tuple(name for name in kind.__struct_fields__ if name in NAMING)


LIFECYCLE = ("game_started", "game_ended")


class Shown:
    """A part of each viewer's view as last made, by id(viewer), with the viewer (held, so that no
    other object takes its id) and the value of the state it was made of: while that value is
    the same object, so is the part, which patch.changes does not even compare. One entry a
    viewer (a screen keeps its member), all let go past SHOWN viewers; nobody may change a view
    handed out."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[Member, object, Json]] = {}

    def get(self, viewer: Member, source: object) -> Json | None:
        """The part made for this viewer of this very value, if it is the latest."""
        kept = self.kept.get(id(viewer))
        return kept[2] if kept is not None and kept[1] is source else None

    def keep(self, viewer: Member, source: object, shown: Json) -> Json:
        if len(self.kept) >= SHOWN:
            self.kept.clear()
        self.kept[id(viewer)] = (viewer, source, shown)
        return shown


SHOWN = 1 << 14


def myself(fighter: Fighter, viewer: Member) -> Json:
    """The fighter as its own player sees it: made again only when the fighter changed (a pick
    changes the duel alone)."""
    shown = _myself.get(viewer, fighter)
    if shown is None:
        shown = {**member_view(viewer), **status(fighter), **tally(fighter)}
        _myself.keep(viewer, fighter, shown)
    return shown


_myself = Shown()


def status(fighter: Fighter) -> Json:
    """The fighter as its player and the console see it."""
    suffered = fighter.suffered
    return {
        "alive": fighter.alive,
        "wounded": fighter.wounded,
        "stunned_until": iso_or_none(fighter.stunned_until),
        "immune_until": iso_or_none(fighter.immune_until),
        "effect": suffered and {"text": suffered.text, "until": iso_or_none(suffered.until)},
        "items": list(fighter.items),
        "cards": [card.dump() for card in fighter.cards],
        "key_id": fighter.key_id,  # its phone's key for offline duels; None: none registered
        "revision": fighter.revision,  # signed into an offline duel's record
    }


def tally(fighter: Fighter) -> Json:
    """The player's own duels won and lost (its end screen's story): the player's alone, not in
    the console's rows, which have no use for it."""
    return {"duels_won": fighter.won, "duels_lost": fighter.lost}


def opponent(state: CardDuel, duel: Duel, me: str) -> Json:
    other = duel.opponent(me)
    return {"player_id": other, "name": state.roster.members[other].name}


def my_duel(state: CardDuel, duel: Duel, me: str) -> Json:
    """A duellist sees whether the opponent has picked, never what."""
    return {
        "duel_id": duel.duel_id,
        "opponent": opponent(state, duel, me),
        "round": duel.round,
        "my_pick": duel.picks.get(me),
        "opponent_picked": duel.opponent(me) in duel.picks,
        "ranged": duel.ranged,
        "deadline": iso_or_none(duel.deadline),
        "leave_from": iso(duel.leave_from),
        "rounds": rounds(duel),
    }


def my_last_duel(state: CardDuel, duel: Duel, viewer: Member) -> Json:
    """A player's last duel is in every view of theirs, unchanged, until their next duel ends:
    made once. (What it reads in `state` never changes once there: the opponent's name.)"""
    shown = _last_duels.get(viewer, duel)
    if shown is None:
        me = viewer.player_id
        shown = {
            "duel_id": duel.duel_id,
            "opponent": opponent(state, duel, me),
            "rounds": rounds(duel),
            "outcomes": [outcome(duel, o) for o in duel.outcomes],
            "offline": duel.offline,
        }
        _last_duels.keep(viewer, duel, shown)
    return shown


_last_duels = Shown()


def outcome(duel: Duel, o: Outcome) -> Json:
    """An outcome as both duellists see it; a special one with the words of the card that
    struck: the opponent's in the last round (see decide's `hit`)."""
    shown = {"player_id": o.player_id, "effect": o.effect, "until": iso_or_none(o.until)}
    if o.effect == "special":
        shown["text"] = duel.rounds[-1].cards[duel.opponent(o.player_id)].effect
    return shown


def rounds(duel: Duel) -> list[Json]:
    return [
        {
            "round": r.round,
            "cards": {p: card.dump() for p, card in r.cards.items()},
            "winners": list(r.winners),
            # An offline forfeit shows the winning card alone: it won by no number.
            "why": {
                p: why(r.cards[p], r.cards[duel.opponent(p)])
                for p in r.winners
                if duel.opponent(p) in r.cards
            },
        }
        for r in duel.rounds
    ]


def duel_view(duel: Duel) -> Json:
    """The organizer's view of a duel in progress, picks included."""
    return {
        "players": list(duel.players),
        "round": duel.round,
        "picks": {p: duel.picks.get(p) for p in duel.players},
        "ranged": duel.ranged,
        "deadline": iso_or_none(duel.deadline),
        "leave_from": iso(duel.leave_from),
    }
