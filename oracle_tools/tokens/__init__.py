"""Tokens (CR 111): predefined tokens, tokens named by effects, tokens named after cards.

``predefined`` reads CR 111.10 from the rules document; ``build`` makes the token tables at ingest; ``answers``
says what "create a <name> token" makes.

Imports ``names``, ``text`` and ``store``; independent of the other rules concepts.
"""
