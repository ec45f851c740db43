"""Text: reading the Comprehensive Rules and the words of cards and of people.

The rules document (``comprules``) and the rules table built from it (``stored_rules``); the vocabulary the CR
defines (``vocabulary``: types, subtypes, colours, number words); Oracle-text spans, quoted abilities and name
mentions (``oracletext``); the token-description grammar (``tokentext``); the "choose a card name" constraint
grammar (``constraints``); how typed names are folded and matched (``matching``); input hygiene (``surrogates``).

Imports only ``oracle_tools.store`` (and ``errors``). Nothing here knows a card database's answers: each module
reads text into values, which the rules concepts above use.
"""
