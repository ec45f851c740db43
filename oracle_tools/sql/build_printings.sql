-- One row per printing read (every language, every file), from the staging view of build_stage.sql.
-- Run by oracle_tools/ingest.py on its second connection while build_core.sql builds cards and faces.
INSERT INTO printings BY NAME
SELECT id, oid AS oracle_id, name, lang, "set" AS set_code, set_name, set_type, collector_number, released_at, rarity, layout,
       -- A multi-face printing's name is its faces' names joined; a reversible_card's sides are the same card,
       -- so their names are never joined ("Megatron // Megatron" is no name): one name when the sides agree.
       coalesce(printed_name,
                CASE WHEN layout = 'reversible_card'
                     THEN CASE WHEN len(list_distinct(list_transform(card_faces, lambda f: f.printed_name))) = 1
                               THEN card_faces[1].printed_name END
                     WHEN len(card_faces) > 0 AND list_bool_and(list_transform(card_faces, lambda f: f.printed_name IS NOT NULL))
                     THEN array_to_string(list_transform(card_faces, lambda f: f.printed_name), ' // ') END)
           AS printed_name,
       nullif(coalesce(flavor_name,
                CASE WHEN layout = 'reversible_card'
                     THEN CASE WHEN len(list_distinct(list_transform(card_faces, lambda f: nullif(f.flavor_name, '')))) = 1
                               THEN card_faces[1].flavor_name END
                     WHEN len(card_faces) > 0 AND list_bool_and(list_transform(card_faces, lambda f: nullif(f.flavor_name, '') IS NOT NULL))
                     THEN array_to_string(list_transform(card_faces, lambda f: f.flavor_name), ' // ') END), '')
           AS flavor_name,
       printed_type_line, printed_text,
       list_transform(card_faces, lambda f: f.name) AS face_names,
       list_transform(card_faces, lambda f: f.printed_name) AS face_printed_names,
       list_transform(card_faces, lambda f: nullif(f.flavor_name, '')) AS face_flavor_names,
       games, digital, promo, border_color, security_stamp, multiverse_ids, mtgo_id, arena_id, artist, source_file,
       -- finishes from the older foil/nonfoil where the file predates the field (as oracle_tools/scryfall/cardjson.py derives it)
       coalesce(finishes, CASE WHEN foil IS NOT NULL OR nonfoil IS NOT NULL
                               THEN list_filter(['nonfoil', 'foil'], lambda f: CASE f WHEN 'foil' THEN coalesce(foil, false)
                                                                                     ELSE coalesce(nonfoil, false) END) END)
           AS finishes,
       list_transform(card_faces, lambda f: f.oracle_id) AS face_oracle_ids,
       tcgplayer_id, cardmarket_id, mtgo_foil_id, tcgplayer_etched_id,
       coalesce(set_id, regexp_extract(set_uri, '/sets/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$', 1))
           AS set_id,
       scryfall_set_uri, illustration_id,
       least(TRY_CAST(prices.usd AS DECIMAL(12, 2)), TRY_CAST(prices.usd_foil AS DECIMAL(12, 2)),
             TRY_CAST(prices.usd_etched AS DECIMAL(12, 2))) AS usd,
       least(TRY_CAST(prices.eur AS DECIMAL(12, 2)), TRY_CAST(prices.eur_foil AS DECIMAL(12, 2))) AS eur,
       TRY_CAST(prices.tix AS DECIMAL(12, 2)) AS tix,
       watermark, flavor_text,
       list_transform(card_faces, lambda f: f.flavor_text) AS face_flavor_texts,
       frame,
       -- Scryfall leaves frame_effects out when there is none; objects older than the list have frame_effect
       coalesce(frame_effects, CASE WHEN frame_effect IS NOT NULL THEN [frame_effect]
                                    WHEN frame IS NOT NULL THEN []::VARCHAR[] END) AS frame_effects,
       CASE WHEN frame IS NOT NULL THEN coalesce(full_art, false) END AS full_art,
       textless, booster,
       CASE WHEN frame IS NOT NULL THEN coalesce(story_spotlight, false) END AS story_spotlight,
       highres_image,
       -- Scryfall's is:scryfallpreview: the card was previewed on Scryfall (its preview names Scryfall as the source
       -- and links the preview). Scryfall leaves preview out of a card nobody previewed, so a printing can be judged
       -- only when its file carries the field at all (on some object): else NULL, as for any field a file lacks.
       CASE WHEN source_file IN (SELECT s.source_file FROM ingest_stage.main.stage_dedup s WHERE s.preview IS NOT NULL)
            THEN coalesce(preview.source = 'Scryfall' AND preview.source_uri <> '', false) END AS scryfall_preview,
       coalesce(promo_types, CASE WHEN finishes IS NOT NULL THEN []::VARCHAR[] END) AS promo_types,
       block, block_code,
       preference_rank, new_art, new_artist, new_rarity, new_frame, new_flavor, new_language, shown_language,
       new_art_pick, new_artist_pick, new_rarity_pick, new_frame_pick, new_flavor_pick, new_language_pick
FROM ingest_stage.main.stage_dedup
-- What search reads of the card's other printings (oracle_tools/search/compiler.py), computed once here instead of
-- in every query, over the few columns it needs (windows over the whole staged rows would sort all of them):
JOIN (
-- new_X: no earlier printing of its card had its illustration, artist, rarity, frame, flavor text (in its
-- language) or language: released on the first day the card had it (new:art, new:artist, new:rarity,
-- new:frame, new:flavor, new:language). A printing without the value is not new. The first day of each value of
-- each card is grouped and joined (keys NULL to NULL, as a window's partition holds them), not windowed: a window
-- per value sorted every row once per value.
WITH first_art AS (
    SELECT oid, illustration_id, min(released_at) AS first_day FROM ingest_stage.main.stage_dedup GROUP BY ALL
), first_artist AS (
    SELECT oid, artist, min(released_at) AS first_day FROM ingest_stage.main.stage_dedup GROUP BY ALL
), first_rarity AS (
    SELECT oid, rarity, min(released_at) AS first_day FROM ingest_stage.main.stage_dedup GROUP BY ALL
), first_frame AS (
    SELECT oid, frame, min(released_at) AS first_day FROM ingest_stage.main.stage_dedup GROUP BY ALL
), first_flavor AS (
    SELECT oid, lang, flavor_text, min(released_at) AS first_day FROM ingest_stage.main.stage_dedup GROUP BY ALL
), first_language AS (
    SELECT oid, lang, min(released_at) AS first_day FROM ingest_stage.main.stage_dedup GROUP BY ALL
), news AS (
    -- only what the windows below read goes on: a window sorts every column it is given
    SELECT s.id, s.oid, s.lang, s.games, s.digital, s.promo, s.set_type, s.released_at, s.collector_number, s."set",
       coalesce(s.illustration_id IS NOT NULL AND s.released_at = fa.first_day, false) AS new_art,
       coalesce(s.artist IS NOT NULL AND s.released_at = fb.first_day, false) AS new_artist,
       coalesce(s.rarity IS NOT NULL AND s.released_at = fr.first_day, false) AS new_rarity,
       coalesce(s.frame IS NOT NULL AND s.released_at = ff.first_day, false) AS new_frame,
       coalesce(s.flavor_text IS NOT NULL AND s.released_at = fl.first_day, false) AS new_flavor,
       coalesce(s.lang IS NOT NULL AND s.released_at = fg.first_day, false) AS new_language
    FROM ingest_stage.main.stage_dedup s
    LEFT JOIN first_art fa ON fa.oid IS NOT DISTINCT FROM s.oid AND fa.illustration_id IS NOT DISTINCT FROM s.illustration_id
    LEFT JOIN first_artist fb ON fb.oid IS NOT DISTINCT FROM s.oid AND fb.artist IS NOT DISTINCT FROM s.artist
    LEFT JOIN first_rarity fr ON fr.oid IS NOT DISTINCT FROM s.oid AND fr.rarity IS NOT DISTINCT FROM s.rarity
    LEFT JOIN first_frame ff ON ff.oid IS NOT DISTINCT FROM s.oid AND ff.frame IS NOT DISTINCT FROM s.frame
    LEFT JOIN first_flavor fl ON fl.oid IS NOT DISTINCT FROM s.oid AND fl.lang IS NOT DISTINCT FROM s.lang
                             AND fl.flavor_text IS NOT DISTINCT FROM s.flavor_text
    LEFT JOIN first_language fg ON fg.oid IS NOT DISTINCT FROM s.oid AND fg.lang IS NOT DISTINCT FROM s.lang
), ranks AS (
    SELECT id, oid AS card, coalesce(set_type = 'memorabilia', false) AS memorabilia,
       new_art, new_artist, new_rarity, new_frame, new_flavor, new_language,
       -- preference_rank, the printing's place in the order that chooses which printing stands for its card (1 = the card's preferred printing, sql/preferred_printings.sql): English
       -- first, then available in paper, then not a promo, then not from a memorabilia set, then newest
       -- released_at, then lowest collector number, then id so the choice is stable.
       row_number() OVER (
           PARTITION BY oid
           ORDER BY (lang = 'en') DESC NULLS LAST,
                    (list_contains(games, 'paper') OR (games IS NULL AND NOT coalesce(digital, false))) DESC NULLS LAST,
                    coalesce(promo, false),
                    coalesce(set_type = 'memorabilia', false),
                    released_at DESC NULLS LAST,
                    try_cast(regexp_extract(collector_number, '^[0-9]+') AS INTEGER) NULLS LAST,
                    collector_number, id)::INTEGER AS preference_rank,
       -- shown_language: the one row of each printing (set, collector number) a search without lang: reads, so a
       -- query is judged on the object it shows (Scryfall's English card, not a foreign copy that lacks a field)
       row_number() OVER (PARTITION BY "set", coalesce(collector_number, id)
                          ORDER BY (lang = 'en') DESC, lang, id) = 1 AS shown_language
    FROM news
)
SELECT *,
       -- new_X_pick: the printing a search for new:X (and card-level terms only) shows for its card: the smallest
       -- preference_rank among the printings such a search reads (no memorabilia, shown_language) with new_X
       -- (oracle_tools/search/compiler.py, _lone_new: the same choice as its grouping of every printing)
       coalesce(preference_rank = min(CASE WHEN new_art AND shown_language AND NOT memorabilia THEN preference_rank END)
                                  OVER (PARTITION BY card), false) AS new_art_pick,
       coalesce(preference_rank = min(CASE WHEN new_artist AND shown_language AND NOT memorabilia THEN preference_rank END)
                                  OVER (PARTITION BY card), false) AS new_artist_pick,
       coalesce(preference_rank = min(CASE WHEN new_rarity AND shown_language AND NOT memorabilia THEN preference_rank END)
                                  OVER (PARTITION BY card), false) AS new_rarity_pick,
       coalesce(preference_rank = min(CASE WHEN new_frame AND shown_language AND NOT memorabilia THEN preference_rank END)
                                  OVER (PARTITION BY card), false) AS new_frame_pick,
       coalesce(preference_rank = min(CASE WHEN new_flavor AND shown_language AND NOT memorabilia THEN preference_rank END)
                                  OVER (PARTITION BY card), false) AS new_flavor_pick,
       coalesce(preference_rank = min(CASE WHEN new_language AND shown_language AND NOT memorabilia THEN preference_rank END)
                                  OVER (PARTITION BY card), false) AS new_language_pick
FROM ranks) ranked USING (id);
