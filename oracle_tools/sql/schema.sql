-- The oracle-tools database schema. Every table below is created by `ingest`;
-- tables of later layers (names, tokens, ...) live in their own .sql files.

-- One row per Oracle card (oracle_id). Tokens, emblems, planes, schemes,
-- vanguards and art-series objects are kept but flagged (is_card = false):
-- they are not in the Oracle card reference for rule purposes (CR 201.4, 108.2).
CREATE TABLE cards (
    oracle_id       VARCHAR PRIMARY KEY,
    name            VARCHAR NOT NULL,   -- full Oracle name: 'Fire // Ice'
    layout          VARCHAR,
    mana_cost       VARCHAR,
    cmc             DOUBLE,             -- mana value (CR 202.3)
    type_line       VARCHAR,
    oracle_text     VARCHAR,            -- multi-face cards: faces joined by '\n//\n'
    colors          VARCHAR[],
    color_identity  VARCHAR[],
    color_indicator VARCHAR[],
    power           VARCHAR,
    toughness       VARCHAR,
    loyalty         VARCHAR,
    defense         VARCHAR,
    keywords        VARCHAR[],          -- Scryfall's; derived from the text (CR 702, 701, 207.2c) for a file without it
    produced_mana   VARCHAR[],
    reserved        BOOLEAN,
    funny           BOOLEAN,            -- un-set / acorn / playtest: not tournament Magic
    object_kind     VARCHAR NOT NULL,   -- card | token | emblem | plane | scheme | vanguard | art_series | dungeon
    is_card         BOOLEAN NOT NULL,   -- in the Oracle card reference
    edhrec_rank     INTEGER,
    penny_rank      INTEGER,            -- Scryfall's Penny Dreadful rank (order:penny); NULL where the file lacks it
    first_released  DATE,
    source          VARCHAR NOT NULL,   -- 'oracle_cards' (authoritative) or 'printings' (derived)
    game_changer    BOOLEAN,            -- Scryfall's Commander "game changer" list (NULL: not in the data)
    attraction_lights INTEGER[]         -- an Attraction's lit numbers (Unfinity)
);

-- One row per face/half of every card; single-faced cards have one row (role 'single').
-- role: single | split_half | aftermath_half | flip_top | flip_bottom | adventurer |
--       adventure | front | back | meld_part | meld_result
-- Characteristics are the face's own (CR 709.4 split halves, 710.3 flip, 712.8 DFC faces,
-- 715.3 adventure); a flip bottom keeps the top's mana cost and colours (CR 710.1c); a nonmodal
-- DFC's back face has its front face's mana value (202.3b), a meld result the sum (202.3c, Scryfall's cmc).
CREATE TABLE faces (
    oracle_id       VARCHAR NOT NULL,
    face_index      INTEGER NOT NULL,
    name            VARCHAR NOT NULL,
    role            VARCHAR NOT NULL,
    layout          VARCHAR,
    mana_cost       VARCHAR,
    mana_value      DOUBLE,
    type_line       VARCHAR,
    supertypes      VARCHAR[],
    card_types      VARCHAR[],
    subtypes        VARCHAR[],
    oracle_text     VARCHAR,
    colors          VARCHAR[],
    color_indicator VARCHAR[],
    power           VARCHAR,
    toughness       VARCHAR,
    loyalty         VARCHAR,
    defense         VARCHAR,
    is_card         BOOLEAN NOT NULL,
    PRIMARY KEY (oracle_id, face_index)
);

-- One row per printing (Scryfall card object id), any language.
CREATE TABLE printings (
    id                 VARCHAR PRIMARY KEY,
    oracle_id          VARCHAR,
    name               VARCHAR NOT NULL,   -- English Oracle name
    lang               VARCHAR,
    set_code           VARCHAR,
    set_name           VARCHAR,
    set_type           VARCHAR,
    collector_number   VARCHAR,
    released_at        DATE,
    rarity             VARCHAR,
    layout             VARCHAR,
    printed_name       VARCHAR,            -- name as printed (foreign, or a secondary/alternate name)
    flavor_name        VARCHAR,            -- Universes Within / Godzilla-style alternate English name
    printed_type_line  VARCHAR,
    printed_text       VARCHAR,
    face_names         VARCHAR[],
    face_printed_names VARCHAR[],
    face_flavor_names  VARCHAR[],
    games              VARCHAR[],
    digital            BOOLEAN,
    promo              BOOLEAN,
    border_color       VARCHAR,
    security_stamp     VARCHAR,
    multiverse_ids     INTEGER[],
    mtgo_id            INTEGER,
    mtgo_foil_id       INTEGER,           -- /cards/mtgo/{id} finds a printing by either MTGO id (Scryfall's rule)
    arena_id           INTEGER,
    artist             VARCHAR,
    source_file        VARCHAR,
    finishes           VARCHAR[],         -- nonfoil, foil, etched (from foil/nonfoil in files older than the field)
    face_oracle_ids    VARCHAR[],         -- each face's oracle_id, where Scryfall gives one (reversible cards)
    tcgplayer_id       INTEGER,           -- the printing's ids at TCGplayer and Cardmarket (Scryfall's fields;
    cardmarket_id      INTEGER,           --   /cards/tcgplayer/{id}, /cards/cardmarket/{id})
    tcgplayer_etched_id INTEGER,          -- /cards/tcgplayer/{id} finds a printing by either TCGplayer id
    set_id             VARCHAR,           -- Scryfall's set id (set_id, or the id set_uri links to)
    scryfall_set_uri   VARCHAR,           -- the set's page on scryfall.com, as the object gave it
    illustration_id    VARCHAR,           -- the artwork's id (shared by printings of the same art)
    usd                DECIMAL(12, 2),    -- the lowest of the printing's USD prices (nonfoil, foil, etched),
    eur                DECIMAL(12, 2),    --   likewise EUR, and MTGO tickets: what usd>/order=usd compare;
    tix                DECIMAL(12, 2),    --   NULL where the file has no price
    watermark          VARCHAR,           -- the printing's watermark (Scryfall's field; /catalog/watermarks, wm:)
    flavor_text        VARCHAR,           -- the printing's flavor text, and each face's (ft:/flavor: search them)
    face_flavor_texts  VARCHAR[],
    -- Printing facts search reads (frame:, is:foil, is:booster …); NULL where the printing's file lacks the field
    -- (the foreign printings file has none of them; the 2019 dump has no booster or textless on most objects).
    frame              VARCHAR,           -- 1993, 1997, 2003, 2015, future
    frame_effects      VARCHAR[],         -- [] when the object has a frame and no effect (Scryfall omits it then)
    full_art           BOOLEAN,
    textless           BOOLEAN,
    booster            BOOLEAN,
    story_spotlight    BOOLEAN,
    highres_image      BOOLEAN,
    scryfall_preview   BOOLEAN,           -- Scryfall previewed it (is:scryfallpreview); NULL where its file has no preview
    promo_types        VARCHAR[],         -- [] when the object has finishes (the API of promo_types) and none
    block              VARCHAR,           -- the set's block (the object's, else the shipped set table's)
    block_code         VARCHAR,
    -- What search reads of the card's other printings (sql/build_printings.sql computes them while it fills the table)
    preference_rank    INTEGER,           -- 1 = the printing that stands for its card (preferred_printings), 2 …
    new_art            BOOLEAN,           -- no earlier printing of the card had its illustration (new:art)
    new_artist         BOOLEAN,           --   … its artist (new:artist)
    new_rarity         BOOLEAN,           --   … its rarity (new:rarity)
    new_frame          BOOLEAN,           --   … its frame (new:frame)
    new_flavor         BOOLEAN,           --   … its flavor text in its language (new:flavor)
    new_language       BOOLEAN,           --   … its language (new:language)
    shown_language     BOOLEAN,           -- the row of its printing (set, collector number) a search without lang:
                                          -- reads: English, else the first language it was printed in
    new_art_pick       BOOLEAN,           -- the printing new:art shows for its card (of those a search reads
    new_artist_pick    BOOLEAN,           --   by default, with new_art, the smallest preference_rank); likewise
    new_rarity_pick    BOOLEAN,           --   new:artist, new:rarity, new:frame, new:flavor, new:language
    new_frame_pick     BOOLEAN,
    new_flavor_pick    BOOLEAN,
    new_language_pick  BOOLEAN
);

-- Each printing's whole Scryfall card object as the bulk file gave it (oracle_tools/store/scryfall_objects.py):
-- zstandard-compressed JSON text, against the run's one dictionary below. What /cards/... answers.
-- Stored as it is: DuckDB's own compression finds nothing in compressed bytes, and looking for it doubled the
-- cost of writing the table (bench/bench_card_objects.py).
CREATE TABLE scryfall_objects (
    id     VARCHAR PRIMARY KEY,
    object BLOB NOT NULL USING COMPRESSION uncompressed
);
CREATE TABLE scryfall_object_dictionary (
    digest     VARCHAR NOT NULL,   -- blake2b of the dictionary: readers cache a decompressor per digest
    dictionary BLOB NOT NULL       -- empty: objects compressed without a dictionary (too few to train on)
);

-- Scryfall's own set objects (https://scryfall.com/docs/api/sets), when the ingest was given its set list (an
-- online ingest downloads /sets; a saved list can be given as a file): what /sets answers for those sets, with
-- the icon, block, parent set, TCGplayer group … that card objects never carry (oracle_tools/scryfall/sets.py).
CREATE TABLE scryfall_sets (
    code   VARCHAR PRIMARY KEY,
    id     VARCHAR,
    object VARCHAR NOT NULL        -- the set object's JSON text as Scryfall sent it
);

-- Format legality in long form (one row per card and format; unique by construction: one map per card).
-- No primary-key index: maintaining it cost more than a third of the core build (to keep the ingest within
-- 1.25x of DuckDB's own read_json), and every reader filters by format or scans.
CREATE TABLE legalities (
    oracle_id VARCHAR NOT NULL,
    format    VARCHAR NOT NULL,
    status    VARCHAR NOT NULL    -- legal | not_legal | banned | restricted
);

-- Scryfall all_parts relations, one row per (card, related object).
CREATE TABLE parts (
    oracle_id      VARCHAR NOT NULL,   -- the card that lists the relation
    component      VARCHAR NOT NULL,   -- token | meld_part | meld_result | combo_piece
    part_name      VARCHAR NOT NULL,
    part_type_line VARCHAR,
    part_id        VARCHAR,            -- printing id of the related object
    part_oracle_id VARCHAR             -- its oracle_id, when that printing was ingested
);

CREATE TABLE rulings (
    oracle_id    VARCHAR NOT NULL,
    source       VARCHAR,
    published_at DATE,
    comment      VARCHAR NOT NULL
);

CREATE TABLE ingest_runs (
    run_id      INTEGER NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    source      VARCHAR NOT NULL,   -- scryfall-api | bulk-file | sample | rules-file | kept
    kind        VARCHAR NOT NULL,   -- cards | rulings | rules
    file        VARCHAR,
    bulk_type   VARCHAR,
    updated_at  VARCHAR,
    rows        BIGINT,
    seconds     DOUBLE
);
