-- Per-card facts the deck checker (oracle_tools/decks/checker.py) needs, one row per Oracle card.
-- front_type: the type line of the front face (face 0: split first half, flip top, DFC front,
-- adventurer, meld part); basic: any face has the Basic supertype (basics, snow basics, Wastes).
SELECT c.oracle_id,
       c.name,
       coalesce(c.oracle_text, '')                                   AS oracle_text,
       coalesce(c.color_identity, [])                                AS color_identity,
       coalesce(arg_min(f.type_line, f.face_index), c.type_line, '') AS front_type,
       coalesce(arg_min(f.power, f.face_index), c.power)             AS front_power,
       coalesce(bool_or(list_contains(f.supertypes, 'Basic')), false) AS basic,
       list(f.name ORDER BY f.face_index)                            AS face_names
FROM cards c
LEFT JOIN faces f USING (oracle_id)
WHERE c.is_card
GROUP BY c.oracle_id, c.name, c.oracle_text, c.color_identity, c.type_line, c.power
