-- Macros stored in the database so analysts' SQL can use them too.

-- Mana value of a mana cost string (CR 202.3): generic digits count their number,
-- X/Y/Z count 0 (202.3e), hybrid {2/W} counts 2 (202.3f), half mana {H*} / ½ counts 0.5,
-- every other symbol (coloured, hybrid, Phyrexian, {C}, {S}) counts 1.
CREATE OR REPLACE MACRO mana_value(cost) AS coalesce(list_sum(list_transform(
    regexp_extract_all(coalesce(cost, ''), '\{([^}]*)\}', 1),
    lambda s: CASE
        WHEN regexp_full_match(s, '[0-9]+') THEN s::DOUBLE
        WHEN s IN ('X', 'Y', 'Z') THEN 0.0
        WHEN s = '½' OR regexp_full_match(s, 'H[WUBRG]?') THEN 0.5
        WHEN regexp_full_match(s, '[0-9]+/.+') THEN split_part(s, '/', 1)::DOUBLE
        ELSE 1.0 END)), 0.0);

-- Colours in WUBRG order, so lists compare equal whatever order a source used.
CREATE OR REPLACE MACRO wubrg(cols) AS
    list_filter(['W', 'U', 'B', 'R', 'G'], lambda c: list_contains(coalesce(cols, []::VARCHAR[]), c));

-- Colours shown by a mana cost's symbols (CR 202.2), WUBRG order.
CREATE OR REPLACE MACRO cost_colors(cost) AS
    list_filter(['W', 'U', 'B', 'R', 'G'], lambda c: regexp_matches(coalesce(cost, ''), '\{[^}]*' || c || '[^}]*\}'));

-- Type line parts (CR 205): the words before the dash are supertypes and card types,
-- the words after it subtypes. 'Token' is not a card type and is dropped.
-- The supertype list is CR 205.4a exactly (tests/test_vocabulary.py checks it against
-- oracle_tools.text.vocabulary, read from the stored CR). 'Elite' and 'Host' (Un-set words) are not
-- CR supertypes nor CR 205.2a card types, so both macros leave them out.
CREATE OR REPLACE MACRO type_words(tl) AS
    list_filter(string_split(trim(split_part(replace(coalesce(tl, ''), ' — ', '|'), '|', 1)), ' '), lambda w: w <> '');
CREATE OR REPLACE MACRO supertypes_of(tl) AS
    list_filter(type_words(tl), lambda w: w IN ('Basic', 'Legendary', 'Ongoing', 'Snow', 'World'));
CREATE OR REPLACE MACRO card_types_of(tl) AS
    list_filter(type_words(tl), lambda w: w NOT IN ('Basic', 'Legendary', 'Ongoing', 'Snow', 'World', 'Elite', 'Host', 'Token'));
CREATE OR REPLACE MACRO subtypes_of(tl) AS
    list_filter(string_split(trim(split_part(replace(coalesce(tl, ''), ' — ', '|'), '|', 2)), ' '), lambda w: w <> '');
