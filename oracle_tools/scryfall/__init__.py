"""Scryfall's objects built from the database: card objects (``cardjson``), set objects (``sets``), catalogs
(``catalogs``) and card symbols (``symbology``), field for field as Scryfall's API answers them.

Imports ``text`` and ``store``; independent of the rules concepts. The HTTP server and ``OracleDB`` serve them.
"""
