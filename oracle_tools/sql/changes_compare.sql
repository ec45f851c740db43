-- What changed between the database being replaced (`previous`: oracle_tools/ingest.py attaches it under its
-- own catalog name, put in by changes.py) and the one being built, for the run $run. The characteristics
-- (card_changes) are compared by the statement changes.py writes from its FIELDS; these are the macros it uses
-- and the legality and new/removed statements.
--
-- No false changes: text is compared with its whitespace folded (runs of spaces, tabs, line breaks and other
-- Unicode spaces are one space; leading and trailing space is dropped; NULL is the empty text), lists
-- (colours, colour identity, keywords) as sets (order and repeats do not count). Keywords are compared only
-- where the Oracle text changed and both lists have some: a list is a reading of the text (Scryfall's, or the
-- ingest's for a file older than the field, as the 2019 dump), so two lists of one text are two readings, not
-- a change of the card (Scryfall lists the token name Food; the CR's keywords do not); a database built before
-- keywords were derived has none for such a file.

CREATE OR REPLACE TEMP MACRO change_text(v) AS trim(regexp_replace(coalesce(v, ''), '[\s\pZ]+', ' ', 'g'));
CREATE OR REPLACE TEMP MACRO same_text(a, b) AS
    CASE WHEN a IS NOT DISTINCT FROM b THEN true ELSE change_text(a) = change_text(b) END;
CREATE OR REPLACE TEMP MACRO same_set(a, b) AS
    list_sort(list_distinct(coalesce(a, []))) = list_sort(list_distinct(coalesce(b, [])));
CREATE OR REPLACE TEMP MACRO same_keywords(a, b, text_a, text_b) AS
    coalesce(len(a), 0) = 0 OR coalesce(len(b), 0) = 0 OR same_text(text_a, text_b) OR same_set(a, b);
CREATE OR REPLACE TEMP MACRO change_list(v) AS array_to_string(coalesce(v, []), ', ');
CREATE OR REPLACE TEMP MACRO change_stats(p, t) AS
    CASE WHEN p IS NULL AND t IS NULL THEN NULL ELSE coalesce(p, '') || '/' || coalesce(t, '') END;

-- name: legality_changes
-- A status that changed, for a card of the reference in both. A format only one side has (Scryfall added
-- `timeless` in 2024; a trimmed file keeps only `commander`) is no change of status.
INSERT INTO legality_changes
SELECT $run, n.oracle_id, c.name, n.format, o.status, n.status
FROM legalities n
JOIN previous.main.legalities o ON o.oracle_id = n.oracle_id AND o.format = n.format
JOIN cards c ON c.oracle_id = n.oracle_id
SEMI JOIN (SELECT oracle_id FROM previous.main.cards WHERE is_card) p ON p.oracle_id = n.oracle_id
WHERE c.is_card AND n.status <> o.status;

-- name: new_removed_cards
INSERT INTO new_removed_cards
SELECT $run, n.oracle_id, n.name, 'new'
FROM cards n ANTI JOIN (SELECT oracle_id FROM previous.main.cards WHERE is_card) o ON o.oracle_id = n.oracle_id
WHERE n.is_card
UNION ALL
SELECT $run, o.oracle_id, o.name, 'removed'
FROM previous.main.cards o ANTI JOIN (SELECT oracle_id FROM cards WHERE is_card) n ON n.oracle_id = o.oracle_id
WHERE o.is_card;
