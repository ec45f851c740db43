"""oracle_tools.text.oracletext: the one layer that reads Oracle text, so features agree on it. Texts are real Oracle texts."""

from __future__ import annotations

import pytest

from oracle_tools.text import oracletext as ot
from oracle_tools.text.vocabulary import subtypes

RELENTLESS_RATS = (
    "Relentless Rats gets +1/+1 for each other creature on the battlefield named Relentless Rats.\n"
    "A deck can have any number of cards named Relentless Rats."
)
BRUNA = (
    "Flying, vigilance\nWhen you cast this spell, you may return target Angel or Human creature card from your "
    "graveyard to the battlefield.\n(Melds with Gisela, the Broken Blade.)"
)
GISELA = (
    "Flying, first strike, lifelink\nAt the beginning of your end step, if you both own and control Gisela, the "
    "Broken Blade and a creature named Bruna, the Fading Light, exile them, then meld them into Brisela, Voice "
    "of Nightmares."
)
DARK_DEPTHS = (
    "Dark Depths enters the battlefield with ten ice counters on it.\n{3}: Remove an ice counter from Dark "
    "Depths.\nWhen Dark Depths has no ice counters on it, sacrifice it and create Marit Lage, a legendary "
    "20/20 black Avatar creature token with flying and indestructible."
)
ETRATA = (
    "Etrata, the Silencer can't be blocked.\nWhenever Etrata deals combat damage to a player, exile target "
    "creature that player controls and put a hit counter on that card. That player loses the game if they own "
    "three or more exiled cards with hit counters on them. Etrata's owner shuffles Etrata into their library."
)
GARRUK = (
    "When Garruk, Cursed Huntsman enters ... 0: Create two 2/2 black and green Wolf creature tokens with "
    "\u201cWhen this creature dies, put a loyalty counter on each Garruk you control.\u201d"
)
KNOWN = ot.MentionIndex(
    [
        "Relentless Rats",
        "Bruna, the Fading Light",
        "Gisela, the Broken Blade",
        "Brisela, Voice of Nightmares",
        "Ajani's Pridemate",
        "Ajani, Strength of the Pride",
    ]
)


def _kinds(mentions: list[ot.Mention]) -> list[tuple[str, str]]:
    return [(m.kind, m.text) for m in mentions]


def test_reminder_text_is_masked_without_moving_offsets() -> None:
    # CR 207.2: reminder text is parenthesised and has no rules meaning.
    assert ot.reminder_spans(BRUNA) == [(BRUNA.index("(Melds"), len(BRUNA))]
    masked = ot.mask_reminders(BRUNA)
    assert len(masked) == len(BRUNA) and "Gisela" not in masked
    assert ot.strip_reminders("Flying (This creature can't be blocked except by creatures with flying.)") == "Flying"


def test_quote_mask_covers_quoted_abilities_not_apostrophes() -> None:
    text = "create a token with \u201cThis creature can't block.\u201d and haste"
    mask = ot.quote_mask(text)
    assert mask[text.index("can't")] and not mask[text.index("haste")]
    with pytest.raises(ValueError, match="unbalanced"):
        ot.quote_mask('a "broken quote')


def test_named_is_not_a_self_reference_even_for_the_own_name() -> None:
    # Relentless Rats: the first "Relentless Rats" is this object (CR 201.5); "named Relentless Rats" means every
    # object with that name, so it is a `named` mention.
    got = _kinds(ot.name_mentions(RELENTLESS_RATS, ["Relentless Rats"], type_line="Creature — Rat", names=KNOWN))
    assert got == [("self", "Relentless Rats"), ("named", "Relentless Rats"), ("named", "Relentless Rats")]


def test_named_reads_the_whole_known_name_with_commas() -> None:
    got = ot.name_mentions(
        GISELA, ["Gisela, the Broken Blade"], type_line="Legendary Creature — Angel Horror", names=KNOWN
    )
    assert ("named", "Bruna, the Fading Light") in _kinds(got)
    assert ("self", "Gisela, the Broken Blade") in _kinds(got)
    # "meld them into Brisela, Voice of Nightmares" names the melded result (CR 712.4a): a known name, read whole
    assert ("named", "Brisela, Voice of Nightmares") in _kinds(got)
    for m in got:
        assert GISELA[m.start : m.end] == m.text


def test_unknown_named_token_reads_capitalised_words() -> None:
    # Kari Zev, Skyship Raider: "... token named Ragavan that's tapped and attacking."
    text = "create Ragavan, a legendary 2/1 red Monkey creature token named Ragavan that's tapped and attacking."
    got = _kinds(ot.name_mentions(text, ["Kari Zev, Skyship Raider"], type_line="Legendary Creature — Human Warrior"))
    assert ("named", "Ragavan") in got and ("token_name", "Ragavan") in got


def test_token_given_name_cr_111_9() -> None:
    got = _kinds(ot.name_mentions(DARK_DEPTHS, ["Dark Depths"], type_line="Legendary Snow Land"))
    assert got.count(("self", "Dark Depths")) == 3  # enters..., Remove ... from Dark Depths, When Dark Depths ...
    assert ("token_name", "Marit Lage") in got


def test_shortened_names_cr_201_5c() -> None:
    got = _kinds(ot.name_mentions(ETRATA, ["Etrata, the Silencer"], type_line="Legendary Creature — Vampire Assassin"))
    assert got == [("self", "Etrata, the Silencer")] + [("self_short", "Etrata")] * 3
    # Not legendary: no shortened name (CR 201.5c is about legendary objects).
    assert all(
        k != "self_short"
        for k, _ in _kinds(ot.name_mentions(ETRATA, ["Etrata, the Silencer"], type_line="Creature — Vampire"))
    )


def test_shortened_name_used_as_a_subtype_or_inside_another_name_is_not_self() -> None:
    walker = subtypes("planeswalker")
    got = ot.name_mentions(
        GARRUK, ["Garruk, Cursed Huntsman"], type_line="Legendary Planeswalker — Garruk", subtypes=walker
    )
    assert _kinds(got) == [("self", "Garruk, Cursed Huntsman")]
    ajani = "put a +1/+1 counter on Ajani's Pridemate."
    assert (
        ot.name_mentions(
            ajani,
            ["Ajani, Strength of the Pride"],
            type_line="Legendary Planeswalker — Ajani",
            names=KNOWN,
            subtypes=walker,
        )
        == []
    )
    itlimoc = "(Transforms from Growing Rites of Itlimoc.)\n{T}: Add {G}."
    assert (
        ot.name_mentions(
            itlimoc,
            ["Itlimoc, Cradle of the Sun"],
            type_line="Legendary Land",
            other_names=["Growing Rites of Itlimoc"],
        )
        == []
    )


def test_replace_self_references() -> None:
    mentions = ot.name_mentions(RELENTLESS_RATS, ["Relentless Rats"], names=KNOWN)
    assert ot.replace_self_references(RELENTLESS_RATS, mentions).startswith(
        "CARDNAME gets +1/+1 for each other creature on the battlefield named Relentless Rats."
    )
    etrata = ot.name_mentions(ETRATA, ["Etrata, the Silencer"], type_line="Legendary Creature — Vampire Assassin")
    assert ot.replace_self_references(ETRATA, etrata, "~").endswith("~'s owner shuffles ~ into their library.")


def test_number_words_come_from_the_vocabulary() -> None:
    assert ot.number_value("nine") == 9 and ot.number_value("seven") == 7 and ot.number_value("X") is None
