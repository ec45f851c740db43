-- CR 201.3 classes of interchangeable names: one row per name of each class (and per card it names).
-- Written at ingest by oracle_tools/names/index.py from `classes_frame` (classes derived from the English
-- printed names in the data, merged with the optional override table data/interchangeable_names.csv).
--   class_id    the oracle_id of the card (oracle_id/face_index for a face's class), or the
--               override table's class_id when the class comes from it
--   kind        oracle   | the card's own Oracle (or face) name
--               printed  | an English printed name of one of its printings (201.3, 201.3c)
--               override | a name only the override table gives (the data source lacks the pair)
--   printings   the printings that carry the name (id, set code, collector number): for a printed
--               name the printings showing it, for the Oracle name its English printings showing that.
-- Every name is in at most one class, so "the class of a name" is one lookup:
--   SELECT list(DISTINCT name ORDER BY name) FROM name_classes
--   WHERE class_id = (SELECT any_value(class_id) FROM name_classes WHERE name = ?)
CREATE OR REPLACE TABLE name_classes AS
SELECT k.class_id, k.name, k.oracle_id, k.face_index, k.kind, k.source,
       CASE WHEN k.kind = 'oracle' AND k.oracle_id IS NOT NULL THEN coalesce((
           SELECT list({'id': p.id, 'set_code': p.set_code, 'collector_number': p.collector_number}
                       ORDER BY p.released_at, p.set_code, p.collector_number, p.id)
           FROM printings p
           WHERE p.oracle_id = k.oracle_id AND p.lang = 'en' AND coalesce(p.printed_name, p.name) = p.name), [])
       ELSE k.printings END AS printings
FROM classes_frame k
ORDER BY k.class_id, CASE k.kind WHEN 'oracle' THEN 0 WHEN 'printed' THEN 1 ELSE 2 END, k.name, k.oracle_id;
