"""The worked examples of the docs (docs/protocol.md, docs/rules/) that tests/test_draws.py does not
read hold against the code: the initiative ties of dice-combat (a roll, its tie-break passes, a
corrected initiative that draws nothing), the initiative ties of stamina-deck (three tied on the
same card, an empty deck, a shuffle of the still tied), a stamina-deck pile order, and the problem
`bijse verify` prints for a changed die, whose draws are numbered as the page numbers them.

Every number is read out of the page's fenced blocks (```text <name>), so a change to the page or
to the code that makes them disagree fails here. Pure: no database, no server.
"""

import copy
import hashlib
import json
from typing import Any

from server.log.verify import verify
from server.rules.chance import Chance
from server.rules.core import Command, Context, Event, Member
from server.rules.dice_combat import RULESET as DICE_COMBAT
from server.rules.roster import AddPlayer, GameCreated, StartGame
from server.rules.stamina_deck import RULESET as STAMINA_DECK
from server.rules.stamina_deck.cards import RANKS, CardFace, FaceValues, Suit
from server.rules.stamina_deck.events import CardsGiven, CharacterAdded, HandDrawn
from server.store import chain
from tests.test_draws import block

GM = Member("", "", "organizer", None, "")
SUITS: dict[str, Suit] = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def lines(name: str) -> list[tuple[str, str]]:
    """The `key: value` lines of a block, in order (a key may come again, as `pass` does)."""
    found = []
    for line in block(name):
        key, _, value = line.partition(":")
        found.append((key, value.strip()))
    return found


def one(pairs: list[tuple[str, str]], key: str) -> str:
    (value,) = [v for k, v in pairs if k == key]
    return value


def every(pairs: list[tuple[str, str]], key: str) -> list[str]:
    return [v for k, v in pairs if k == key]


def rolls(text: str) -> list[tuple[str, int]]:
    """`c11 1, c4 1` as [("c11", 1), ("c4", 1)]."""
    return [(part.split()[0], int(part.split()[1])) for part in text.split(", ")]


def lists(text: str) -> dict[str, list[int]]:
    """`c11 6 3, c10 1` as {"c11": [6, 3], "c10": [1]}."""
    return {p.split()[0]: [int(d) for d in p.split()[1:]] for p in text.split(", ")}


class Table:
    """A game of one ruleset, driven as the server drives it, each command at the seq given."""

    def __init__(self, ruleset: Any, seed: bytes, config: dict[str, Any]) -> None:
        created = GameCreated(
            game_id="g",
            ruleset=ruleset.id,
            name="Příklad",
            config=config,
            seed_sha256=hashlib.sha256(seed).hexdigest(),
        )
        self.ruleset, self.seed = ruleset, seed
        self.events = [Event.of(created)]
        self.state = ruleset.evolve(ruleset.initial_state(config), self.events[0])
        self.send(AddPlayer(name="PJ", role="organizer"))
        self.send(StartGame())

    def fold(self, event: Event) -> None:
        self.state = self.ruleset.evolve(self.state, event)
        self.events.append(event)

    def send(self, command: Command, seq: int | None = None) -> list[Event]:
        seq = len(self.events) + 1 if seq is None else seq
        ctx = Context(now=0, actor=GM, seq=seq, seed=self.seed)
        new: list[Event] = self.ruleset.decide(self.state, command, ctx)
        for event in new:
            self.fold(event)
        return new

    def command(self, name: str, body: dict[str, Any], seq: int | None = None) -> list[Event]:
        return self.send(self.ruleset.commands[name].model_validate(body), seq)


# -- dice-combat: initiative ties ------------------------------------------------------------------


def passes_from_the_page(rolled: list[tuple[str, int]], dice: list[int]) -> list[list[str]]:
    """Who rolls in each pass, by the page's words alone: the combatants whose keys are equal
    (here the total and the tie-break dice: agi and since are the same for all), the tied groups
    in the string order of their first id, each group's ids in string order."""
    keys: dict[str, tuple[int, tuple[int, ...]]] = {c: (total, ()) for c, total in rolled}
    dice = list(dice)
    passes: list[list[str]] = []
    while True:
        groups: dict[Any, list[str]] = {}
        for c in sorted(keys):
            groups.setdefault(keys[c], []).append(c)
        rolling = [c for group in groups.values() if len(group) > 1 for c in group]
        if not rolling:
            return passes
        passes.append(rolling)
        for c in rolling:
            total, tiebreak = keys[c]
            keys[c] = (total, (*tiebreak, dice.pop(0)))


def test_the_dice_combat_initiative_example_is_what_the_server_rolls() -> None:
    page = lines("initiative-example")
    seed = bytes.fromhex(one(page, "seed"))
    stream = int(one(page, "stream"))
    participants = one(page, "participants").split()
    rolled = rolls(one(page, "rolled"))
    passes = [rolls(text) for text in every(page, "pass")]
    draws = [int(d) for d in one(page, "draws").split()]

    # The page's own arithmetic: the dice in participants order, then pass after pass.
    assert [c for c, _ in rolled] == participants
    assert draws == [d for _, d in rolled] + [d for p in passes for _, d in p]
    tie_dice = [d for p in passes for _, d in p]
    assert passes_from_the_page(rolled, tie_dice) == [[c for c, _ in p] for p in passes]

    # The server's: a fight of those combatants (ids c4..c11), begun at the page's seq.
    table = Table(DICE_COMBAT, seed, {"initiative_once": False})
    ids = [
        table.command("add_combatant", {"name": f"n{n}", "side": "s"})[0].data["combatant_id"]
        for n in range(8)
    ]
    assert set(participants) <= set(ids)
    events = table.command("begin_fight", {"combatants": participants}, seq=stream)
    (initiative,) = [e.data for e in events if e.type == "initiative_rolled"]
    faces = initiative["initiative"]
    assert {c: faces[c]["die"] for c in participants} == dict(rolled)
    assert all(faces[c]["agi"] == 0 and faces[c]["since"] == 1 for c in participants)
    assert {c: faces[c]["tiebreak"] for c in participants} == lists(one(page, "tiebreak"))
    assert initiative["order"] == one(page, "order").split()
    assert initiative["chance"] == {
        "stream": stream,
        "from": 0,
        "draws": [{"die": 6, "value": d} for d in draws],
    }

    # The correction: nothing drawn, the emptied list last among its equals.
    corrected, total = one(page, "corrected").split()
    body = {"combatant_id": corrected, "field": "initiative", "value": int(total), "reason": "GM"}
    events = table.command("correct", body, seq=int(one(page, "corrected stream")))
    assert [e.type for e in events] == ["number_corrected", "initiative_rolled"]
    after = events[1].data
    assert after["order"] == one(page, "corrected order").split()
    assert after["chance"] == json.loads(one(page, "corrected chance"))
    assert after["initiative"][corrected]["tiebreak"] == []
    others = {c: after["initiative"][c]["tiebreak"] for c in participants if c != corrected}
    assert others == {c: d for c, d in lists(one(page, "tiebreak")).items() if c != corrected}


# -- stamina-deck: initiative ties and pile order -----------------------------------------------


def face(card_id: str) -> CardFace:
    """`k4-10C` as the card it names."""
    rank = next(r for r in RANKS if card_id.split("-")[1][:-1] == r)
    suit = SUITS[card_id[-1]]
    return CardFace(card_id=card_id, suit=suit, rank=rank, value=FaceValues().of(rank))


def character(character_id: str, x: int, deck: list[str]) -> CharacterAdded:
    """A character whose stamina deck is the one given (a log's character_added, as written)."""
    return CharacterAdded(
        character_id=character_id,
        name=character_id,
        side="s",
        player_id=None,
        lives=5,
        agi=0,
        shooting=0,
        melee=0,
        unarmed=0,
        weapon=None,
        armour=0,
        x=x,
        y=0,
        loaded=True,
        deck=[face(card_id) for card_id in deck],
    )


def test_the_stamina_deck_tie_example_is_what_the_server_orders() -> None:
    page = lines("stamina-tie-example")
    seed = bytes.fromhex(one(page, "seed"))
    stream = int(one(page, "stream"))
    kept = dict(rolls_of_cards(one(page, "initiative")))
    table = Table(STAMINA_DECK, seed, {})
    for x, (character_id, card_id) in enumerate(kept.items()):
        deck = one(page, f"deck {character_id}").split()
        table.fold(Event.of(character(character_id, x, [card_id, *deck])))
    events = table.send(STAMINA_DECK.commands["start_round"].model_validate({}), seq=stream)
    chosen = {e.data["character_id"]: e.data for e in events if e.type == "initiative_chosen"}
    for character_id, card_id in kept.items():
        assert chosen[character_id]["card"]["card_id"] == card_id
        assert chosen[character_id]["deck"] == one(page, f"deck {character_id}").split()
    (ordered,) = [e.data for e in events if e.type == "initiative_ordered"]
    tiebreaks = {
        c: [card["card_id"] for card in cards] for c, cards in ordered["tiebreaks"].items()
    }
    assert tiebreaks == {
        key.split()[1]: value.split() for key, value in page if key.startswith("tiebreaks ")
    }
    assert ordered["decks"] == {
        key.split()[1]: value.split() for key, value in page if key.startswith("decks ")
    }
    assert list(ordered["decks"]) == [k.split()[1] for k, _ in page if k.startswith("decks ")]
    assert ordered["order"] == one(page, "order").split()
    assert ordered["chance"] == json.loads(one(page, "chance"))
    # The shuffle of the still tied: their ids in the order added, shuffled by the first draw.
    before, shuffled = (part.split() for part in one(page, "shuffle").split(" -> "))
    first = ordered["chance"]["draws"][0]
    assert [before[k] for k in first["order"]] == shuffled
    redone = Chance(seed, stream)
    assert redone.shuffle(before) == shuffled


def rolls_of_cards(text: str) -> list[tuple[str, str]]:
    """`k4 k4-9H, k5 k5-9D` as [("k4", "k4-9H"), ("k5", "k5-9D")]."""
    return [(part.split()[0], part.split()[1]) for part in text.split(", ")]


def test_the_pile_order_example_is_how_the_server_folds_cards_given() -> None:
    page = lines("pile-example")
    table = Table(STAMINA_DECK, bytes(32), {})
    deck, hand = one(page, "deck").split(), one(page, "hand").split()
    character_id = deck[0].split("-")[0]
    table.fold(Event.of(character(character_id, 0, [*hand, *deck])))
    # The hand as the page has it: drawn from the deck top, as a round's draw takes it.
    drawn = HandDrawn(
        character_id=character_id, cards=[face(c) for c in hand], mode="ranged", limit=len(hand)
    )
    table.fold(Event.of(drawn))
    me = table.state.characters[character_id]
    assert (list(me.deck), list(me.hand)) == (deck, hand)
    steps = page[2:]
    while steps:
        (_, given), *steps = steps
        table.fold(Event.of(CardsGiven(**json.loads(given))))
        me = table.state.characters[character_id]
        while steps and steps[0][0] != "cards_given":
            (key, value), *steps = steps
            pile = key.removesuffix(" after")
            assert list(getattr(me, pile)) == value.split(), key


# -- bijse verify: the draws as the page numbers them ---------------------------------------------


def test_the_verify_example_is_the_problem_bijse_verify_names() -> None:
    page = lines("verify-example")
    seed = hashlib.sha256(one(page, "seed text").encode()).digest()
    changed = json.loads(one(page, "line"))
    die = block("draw-example")
    assert f"seed: {seed.hex()}" in die  # the seed of the die's worked example
    true = Chance(seed, changed["data"]["chance"]["stream"], changed["data"]["chance"]["from"])
    for draw in changed["data"]["chance"]["draws"]:
        true.die(draw["die"])
    assert f"chance: {json.dumps(true.record())}" in die  # the page's die, its value changed
    log: list[dict[str, Any]] = [
        {
            "seq": 1,
            "type": "game_created",
            "data": {"seed_sha256": hashlib.sha256(seed).hexdigest()},
        }
    ]
    log += [{"seq": n, "type": "player_joined", "data": {}} for n in range(2, changed["seq"])]
    log += [copy.deepcopy(changed), {"seq": changed["seq"] + 1, "type": "game_ended", "data": {}}]
    log[-1]["data"]["seed"] = seed.hex()
    assert verify(chain.seal(log)) == [one(page, "problem")]
