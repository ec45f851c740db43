"""Deck legality (CR 100.2, 100.4, 201.3b, 903 Commander, 702.124 partner …).

``decklist`` reads every common decklist format; ``formats`` is the one table of formats (construction rules,
aliases, legality keys); ``cardrules`` each card's deck facts (limit, commander, partners, colour identity);
``report`` the answers' types; ``sources`` which files give the cards their legalities (and their dates); ``checker`` the checks (``DeckChecker`` over the whole card pool, ``PointDeckChecker`` over the cards of
the decks it checks).

Imports ``names``, ``text`` and ``store``; independent of the other rules concepts.
"""
