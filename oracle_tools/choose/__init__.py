"""Choosing a card name (CR 201.4): which names "choose a [nonland …] card name" allows.

``chooser`` builds the ``token_kinds`` table at ingest and answers verdicts (``NameChooser.choose``, over every face
or, for one verdict in a fresh process, ``NameChooser.for_name`` over the faces of the cards asked about) and
enumerations (``nameable``). The constraint grammar is ``oracle_tools.text.constraints``.

Imports ``names``, ``text`` and ``store``; independent of the other rules concepts.
"""
