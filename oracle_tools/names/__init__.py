"""Names (CR 201): what a string names, and what names are the same.

* ``kinds`` — the one table of the kinds of names (``via``: tier, CR rule, wording, suggested or not).
* ``build`` — the ``names``, ``name_classes`` and ``name_suggestions`` tables, at ingest (201.2, 201.3, 201.6, the
  face names of 709–715).
* ``resolver`` — the one ``resolve`` and its answer types (``Resolution``, ``Candidate``), over two strategies
  (its abstract base class ``NameResolver``): ``point`` (SQL point queries, a fresh process) and ``index`` (every
  name in memory, many calls).
* ``same_name`` — 201.2a–c with 201.3a; ``references`` — names in rules text (201.5, 201.5c);
  ``token_names`` — the token names a miss is told about (CR 111).

Imports ``history``, ``text`` and ``store``. The concepts above (choose, decks, tokens) read names through
``NameResolver``.
"""
