"""Random fights of `stamina-deck` for the shared properties (tests/rules/properties.py) and
the ruleset's own (tests/rules/test_stamina_deck_properties.py)."""

from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

from server.rules.core import Command, Json, Member, RuleError
from server.rules.roster import EndGame
from server.rules.stamina_deck.cards import aimed_pair
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import (
    AimedShot,
    ChooseInitiative,
    Defend,
    Disengage,
    EndTurn,
    Engage,
    GiveCards,
    Move,
    PlaceCharacter,
    Play,
    PutAid,
    Reload,
    RenewDeck,
    SetCover,
    Shoot,
    StartRound,
    UseAid,
)
from server.rules.stamina_deck.mat import adjacent, distance
from server.rules.stamina_deck.state import StaminaDeck
from tests.rules.drivers.base import Driver
from tests.rules.drivers.stamina_deck import PISTOL, RIFLE, SABRE, StaminaDeckGame
from tests.rules.properties import Supply, nothing, strings

# -- random fights ---------------------------------------------------------------------------------

configs = st.fixed_dictionaries(
    {
        "stamina_deck_size": st.integers(3, 24),
        "mat_size": st.integers(4, 7),
        "wound_light": st.integers(0, 3),
        "wound_medium": st.integers(3, 6),
    }
)
characters = st.lists(
    st.fixed_dictionaries(
        {
            "side": st.sampled_from(["red", "blue"]),
            "lives": st.integers(1, 10),
            "agi": st.integers(-2, 3),
            "shooting": st.integers(0, 4),
            "melee": st.integers(0, 3),
            "unarmed": st.integers(0, 3),
            "weapon": st.sampled_from([None, PISTOL, RIFLE, SABRE]),
            "armour": st.integers(0, 3),
            "link": st.integers(0, 2),  # 0: the GM plays it; 1, 2: a player's phone
        }
    ),
    min_size=2,
    max_size=4,
)
# A step: main (what the fight waits for, the turn's actions, melee cards) or side (the GM's
# tools), which of those commands (modulo their number), and who sends it.
steps = st.tuples(
    st.sampled_from(["main"] * 6 + ["side"]),
    st.integers(0, 1_000),
    st.sampled_from(["gm", "owner", "owner", "owner", "stranger"]),
)
fights = st.tuples(configs, characters, st.lists(steps, min_size=10, max_size=60))
Random = tuple[Json, list[Json], list[tuple[str, int, str]]]


@dataclass
class Played:
    fight: StaminaDeckGame
    players: list[Member]
    spectator: Member
    owner: dict[str, str] = field(default_factory=dict)  # card id: the character it belongs to


def options(state: StaminaDeck) -> tuple[list[Command], list[Command]]:
    """Commands worth trying now, main and side: many will be accepted, some refused."""
    chars = list(state.characters.values())
    main: list[Command] = []
    for debt in state.debts:
        hand = state.characters[debt.character_id].hand
        main += [
            GiveCards(character_id=debt.character_id, card_ids=list(hand[:k]))
            for k in range(min(len(hand), debt.count) + 1)
        ]
        main.append(GiveCards(character_id=debt.character_id, card_ids=list(hand[-debt.count :])))
    if state.shot is not None:
        target = state.characters[state.shot.target]
        main += [Defend(character_id=target.character_id)]
        main += [Defend(character_id=target.character_id, card_id=c) for c in target.hand]
    for c in chars:
        main += [ChooseInitiative(character_id=c.character_id, card_id=d) for d in c.choice]
    plays: list[Command] = []
    for bout in state.bouts.values():
        for k in (k for k in bout.fighters if k not in bout.plays):
            hand = state.characters[k].hand
            plays += [Play(character_id=k, bout_id=bout.bout_id, card_id=d) for d in hand[:2]]
            plays += [Play(character_id=k, bout_id=bout.bout_id)]
    if state.leaving is not None:
        main += plays
    if main:  # something waits: answer it
        return main, main
    main += plays * 3
    # The GM engages pairs in contact (named either way round: the rules pick the attacker).
    engages: list[Command] = [
        Engage(fighters=[c.character_id, o.character_id])
        for c in chars
        for o in chars
        if c != o
        and adjacent(c.square, o.square)
        and not state.engaged(c.character_id, o.character_id)
    ]
    main += engages
    turn = state.on_turn()
    if state.phase == "setup" or turn is None:
        main.append(StartRound())
    if turn is not None:
        main += turn_actions(state, state.characters[turn])
    side: list[Command] = [StartRound(), *engages]
    for c in chars:
        side.append(RenewDeck(character_id=c.character_id))
        side.append(SetCover(character_id=c.character_id, cover=len(side) % 6))
        side.append(PlaceCharacter(character_id=c.character_id, x=len(side) % 3, y=0))
    side += [Disengage(bout_id=b) for b in state.bouts]
    return main or side, side


def turn_actions(state: StaminaDeck, me: Character) -> list[Command]:
    turn = me.character_id
    found: list[Command] = [EndTurn(character_id=turn)] * 2
    card = me.hand[0] if me.hand else None
    squares = [
        (x, y)
        for x in range(state.config.mat_size)
        for y in range(state.config.mat_size)
        if 0 < distance((x, y), me.square) <= 5 and state.occupant(x, y) is None
    ]
    others = [o for o in state.characters.values() if o != me]
    near = [s for s in squares if any(adjacent(s, o.square) for o in others)]
    far = [s for s in squares if s not in near]
    for x, y in near[:3] * 2 + far[:2]:
        found.append(Move(character_id=turn, card_id=card, x=x, y=y))
    for other in others:
        target = other.character_id
        found += [Shoot(character_id=turn, target_id=target, card_id=d) for d in me.hand[:2]]
        found += [
            AimedShot(character_id=turn, target_id=target, card_ids=[p, q])
            for p in me.hand
            for q in me.hand
            if aimed_pair(state.cards[p], state.cards[q])
        ]
    found += [Reload(character_id=turn, card_id=d) for d in me.hand[:1]] * 2
    found += [PutAid(character_id=turn, card_id=d, name="Stůl") for d in me.hand[:1]]
    found += [UseAid(character_id=turn, aid_id=a) for a in state.aids]
    return found


def sender(played: Played, command: Command, who: str) -> Member:
    """The GM, the player linked to the command's character, or a player who is not."""
    fight = played.fight
    character_id = getattr(command, "character_id", None)
    linked = character_id and fight.state.characters[character_id].player_id
    if who == "stranger":
        return next(p for p in played.players if p.player_id != linked)
    if who == "gm" or not linked:
        return fight.gm
    return fight.member(linked)


def play(game: Random, check: Callable[[Played], None] = nothing) -> Played:
    """Play a random fight, ended after its last step now and then; `check` runs after the
    characters are placed and after every step."""
    config, sheets, moves = game
    fight = StaminaDeckGame(config)
    players = [fight.player("Karel"), fight.player("Jana")]
    spectator = fight.player("Host", role="spectator")
    fight.start()
    size = config["mat_size"]
    for n, sheet in enumerate(sheets):
        link = sheet["link"]
        stats = {k: v for k, v in sheet.items() if k != "link"}
        # Crowded on a small mat, so that contact and melee come often.
        x, y = (n * 2) % size, (n * 2) // size
        player_id = players[link - 1].player_id if link else None
        fight.add(f"Postava {n}", x=x, y=y, player_id=player_id, **stats)
    played = Played(fight, players, spectator)
    played.owner = {card: card.split("-")[0] for card in fight.state.cards}
    check(played)
    for n, (kind, pick, who) in enumerate(moves):
        main, side = options(fight.state)
        found = main if kind == "main" else side
        command = found[pick % len(found)]
        before = len(fight.log)
        try:
            events = fight.run(sender(played, command, who), command)
        except RuleError:
            assert len(fight.log) == before  # a refusal writes nothing
            events = []
        for event in events:
            if event.type == "aid_used":
                played.owner[event.data["card_id"]] = event.data["character_id"]
        if n == len(moves) - 1 and pick % 7 == 0:
            fight.by_gm(EndGame())
        check(played)
    return played


# -- what a viewer may see -------------------------------------------------------------------------


def hidden(state: StaminaDeck, mine: set[str]) -> set[str]:
    """Cards a viewer playing `mine` may not see: other characters' hands, initiative draws,
    threat piles, discards, face-down cards and aid cards; every deck, their own too."""
    secret = {card for c in state.characters.values() for card in c.deck}
    for c in state.characters.values():
        if c.character_id not in mine:
            secret |= {*c.hand, *c.choice, *c.threat, *c.discard}
    for bout in state.bouts.values():
        secret |= {d.card_id for k, d in bout.plays.items() if k not in mine and d.card_id}
    secret |= {a.card_id for a in state.aids.values() if a.placed_by not in mine}
    return secret


def secrets(fight: Driver[StaminaDeck], viewer: Member, view: Json) -> None:
    """A player or spectator sees no card hidden from them (`hidden`), only their own hands
    and their own aids' cards, and no deck; the GM sees every hand and every deck in order."""
    state = fight.state
    if viewer.role == "organizer":
        for character_id, c in view["characters"].items():
            me = state.characters[character_id]
            assert [d["card_id"] for d in c["hand"]] == list(me.hand)
            assert [d["card_id"] for d in c["deck"]] == list(me.deck)
        return
    mine = set(view.get("me", {}).get("characters", []))
    assert mine == {
        c.character_id
        for c in state.characters.values()
        if viewer.role == "player" and c.player_id == viewer.player_id
    }
    # The feed shows cards once played face up: they may be secret again by now.
    shown = strings({k: v for k, v in view.items() if k != "feed"})
    leaked = hidden(state, mine) & shown
    assert not leaked, (viewer.name, leaked)
    assert "members" not in view  # a player's view carries no roster
    assert set(view["characters"]) == set(state.characters)
    assert set(view["bouts"]) == set(state.bouts)
    assert set(view["mat"]["aids"]) == set(state.aids)
    for character_id, c in view["characters"].items():
        assert ("hand" in c) is (character_id in mine)
        assert "deck" not in c
        assert c["counts"]["hand"] == len(state.characters[character_id].hand)
    for aid_id, aid in view["mat"]["aids"].items():
        assert ("card" in aid) is (state.aids[aid_id].placed_by in mine)


def open_things(state: StaminaDeck) -> list[str]:
    """Bouts, a shot nobody defended, cards owed and a character leaving melee."""
    shot = [] if state.shot is None else [state.shot.shot_id]
    debts = [f"{d.character_id} owes {d.count}" for d in state.debts]
    leaving = [] if state.leaving is None else [f"{state.leaving.character_id} leaving"]
    return [*state.bouts, *shot, *debts, *leaving]


SUPPLY = Supply[Played](
    games=fights,
    play=play,
    driver=lambda played: played.fight,
    secrets=secrets,
    open_things=open_things,
)
