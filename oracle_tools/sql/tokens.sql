-- The faces whose Oracle text may create tokens (CR 111): every face of every Oracle card
-- (is_card only; token objects' own text is not a card's), with the face's characteristics
-- for copies of the card itself (CR 707.2) and its type line for shortened self-names (CR 201.5c).
SELECT f.oracle_id, f.face_index, f.name AS face_name, c.name AS card_name, f.type_line, f.oracle_text,
       wubrg(f.colors) AS colors, f.supertypes, f.card_types, f.subtypes, f.power, f.toughness
FROM faces f JOIN cards c USING (oracle_id)
WHERE c.is_card AND f.oracle_text IS NOT NULL AND f.oracle_text <> ''
  -- ? = tokens/build.py's "may create a token" pattern ("create" or a keyword whose definition creates one): most faces
  -- do neither, and RE2 tells so faster than a Python loop
  AND regexp_matches(f.oracle_text, ?)
ORDER BY f.oracle_id, f.face_index
