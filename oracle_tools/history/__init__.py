"""History: what changed in the Oracle reference from one ingest to the next (renames, errata, bans and
unbans, new and removed cards), recorded at ingest and answered by ``changes``.

Imports ``oracle_tools.text`` and ``oracle_tools.store``. The name rules above read it for a renamed card's
former name.
"""
