-- Deck-limit sentences a card's own text holds ("A deck can have any number of cards named Relentless Rats"),
-- read by oracle_tools/decks/checker.py (stored_deck_limits). One row per stored "named X" mention (name_references,
-- kind 'named', found at ingest by oracletext.name_mentions) that names the card whose text it is on, with
-- that face's text: oracletext.deck_limit_before reads the lead-in right before `start` (CR 100.2a override);
-- the sentence must end at `end` ("... cards named X.").
SELECT r.oracle_id, r.start, r."end", f.oracle_text
FROM name_references r
JOIN faces f USING (oracle_id, face_index)
WHERE r.kind = 'named'
  AND r.target_oracle_id = r.oracle_id
  AND f.oracle_text ILIKE '%deck can have%'
ORDER BY r.oracle_id, r.face_index, r.start
