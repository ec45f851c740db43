"""Shared test fixtures.

Tests that read ``../shared/realdata`` use the ``realdata`` fixture and skip only
when that folder is absent (CI always has it beside the checkout).
"""

from __future__ import annotations

import os

# Polars' allocator (jemalloc) hands freed pages back to the system at once instead of keeping them for reuse: a test
# module's frames are gone when it ends, and the suite's peak stays what one module needs, not what all of them kept.
# Read when Polars loads, so set before anything imports it.
os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:true,dirty_decay_ms:0,muzzy_decay_ms:0")
# The servers' time limits for a request's headers and body (10 s each; serve/connection_limits.py, serve/app.py): the tests of
# them wait them out, so the servers of the suite (and this process, which reads them) take 3 s.
os.environ.setdefault("ORACLE_TOOLS_SERVE_HEADER_TIMEOUT", "3")
os.environ.setdefault("ORACLE_TOOLS_SERVE_BODY_TIMEOUT", "3")

# The tests of Ctrl-C send SIGINT to the commands they start, as a terminal would. A suite started in the background
# by a script (`pytest … &`) inherits SIGINT ignored, and an ignored signal stays ignored across exec: every command
# it starts would ignore Ctrl-C (as the program rightly keeps an inherited SIG_IGN), and those tests would see no
# interrupt. Python's own handler in this process makes its children start with the default, as a terminal's do.
import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported inside the fixtures: collecting the tests does not load the package
    from oracle_tools import OracleDB

    from oracle_server import Server

REPO = Path(__file__).resolve().parents[1]
REALDATA = Path(os.environ.get("ORACLE_TOOLS_REALDATA", REPO.parent / "shared" / "realdata"))

#: DuckDB's memory limit for the ingests the tests run (the library's default is ingest.INGEST_MEMORY_LIMIT, 256 MB):
#: the real files build within it by spilling, and the suite stays under 1 GB of resident memory on a CI machine.
TEST_INGEST_MEMORY = "600MB"

DUMP_2019 = "scryfall-default-cards-2019-10-per-set-dump.json.gz"
FILE_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
FOREIGN_2022 = "scryfall-foreign-printings-from-mtgjson-2022.json.gz"

_BUILD_IN_CHILD = """
import json, sys
from pathlib import Path
from oracle_tools import ingest
spec = json.loads(sys.argv[1])
sources = ingest.sample_sources() if spec["sample"] else [ingest.sniff(Path(f)) for f in spec["files"]]
ingest.Ingest(
    Path(spec["path"]), progress=False, memory_limit=spec["memory"], replace_anyway=spec["replace_anyway"]
).run(sources)
"""


def _hypothesis_profiles() -> None:
    """``quick`` (the default: 25 examples a test, see tests/fuzzing.py for the tests that name their count) and
    ``full`` (Hypothesis's own 100; CI's, HYPOTHESIS_PROFILE=full in .ci/run)."""
    from hypothesis import settings

    from fuzzing import PROFILE

    settings.register_profile("quick", max_examples=25)
    settings.register_profile("full", max_examples=100)
    settings.load_profile(PROFILE)


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Binary parameters (a gzip, zip or tar file made at import) are named by their length: their bytes hold the
    time they were made, and xdist's workers, which each collect the tests, must see the same names."""
    if isinstance(val, bytes) and not (len(val) <= 40 and all(32 <= b < 127 or b in b"\t\n" for b in val)):
        return f"{len(val)}-bytes"
    return None


def pytest_configure(config: pytest.Config) -> None:
    _hypothesis_profiles()
    # The ingests a test runs in this process build within the same limit as the shared databases below.
    from oracle_tools import ingest

    defaults = ingest.Ingest.__init__.__kwdefaults__
    assert defaults is not None and "memory_limit" in defaults
    defaults["memory_limit"] = TEST_INGEST_MEMORY


#: Fixtures that make a test slow, by name: the real-data files and every database built from them (each takes
#: minutes), the browser, the real Scryfall clients' servers. A test that uses one, directly or through another
#: fixture, is marked ``slow`` at collection (pytest_collection_modifyitems): `make test-fast` runs the others.
SLOW_FIXTURES = frozenset(
    {"realdata", "full_db", "full_server", "ingest_steps", "db_2024_path", "browser", "hostile_results"}
)

#: Modules slow as a whole: third-party Scryfall clients against servers of their own, every README example run,
#: every notebook executed.
SLOW_MODULES = frozenset({"test_clients.py", "test_doc_examples.py", "test_notebooks.py"})

#: Tests that no fixture tells slow, each over ~0.5 s of CPU on a 2-core machine (its own and its child processes',
#: measured test by test in a `make test-fast` run; a parametrized test by all its cases): real ingests of the
#: sample or of whole files, signals sent to child processes, servers and CLI runs of their own, whole-vocabulary
#: sweeps, Hypothesis' fuzzing. Every module keeps tests in `make test-fast`.
SLOW_TESTS = frozenset(
    {
        "test_architecture.py::test_no_private_name_crosses_a_module_boundary",
        "test_architecture.py::test_one_place_chooses_how_names_are_resolved",
        "test_cardjson.py::test_the_newest_files_oracle_wording_wins_reversible_printings_included",
        "test_changes.py::test_keywords_of_one_text_are_no_change_those_of_an_errata_are",
        "test_changes.py::test_no_false_changes_whitespace_list_order_or_a_missing_keywords_field",
        "test_choose_name.py::test_201_4_token_name_that_is_also_a_card_name_is_valid",
        "test_cli.py::test_a_bulk_file_that_ends_early_is_said_in_one_line",
        "test_cli.py::test_bulk_files_may_be_given_as_arguments",
        "test_cli.py::test_ingest_from_the_scryfall_api_over_http",
        "test_cli.py::test_ingest_json_is_json_and_progress_only_for_a_terminal",
        "test_cli.py::test_rules_downloaded_over_http_refresh_the_rules_only",
        "test_cli.py::test_sql_json_writes_a_blob_as_duckdb_writes_it",
        "test_cli.py::test_sql_placeholders_without_values_point_at_param",
        "test_cli.py::test_the_library_ingests_from_the_scryfall_api_without_the_cli",
        "test_companions.py::test_the_companion_rule_through_every_door",
        "test_constraints.py::test_random_text_and_vocabulary_never_crash",
        "test_deck_limits.py::test_the_cli_refuses_a_deck_over_the_limits_unless_told",
        "test_decklist.py::test_fuzz_parse_never_raises",
        "test_decks.py::test_201_3b_override_table_pair_of_two_oracle_cards_counts_together",
        "test_decks.py::test_cards_of_one_name_that_differ_in_legality_are_not_judged",
        "test_error_blame.py::test_a_full_disk_during_ingest_says_so",
        "test_error_blame.py::test_a_full_disk_met_while_keeping_the_card_objects_is_said_as_one",
        "test_every_layout.py::test_an_unknown_layout_loads_with_one_warning_and_info_lists_it",
        "test_export.py::test_a_file_named_for_the_other_format_is_refused",
        "test_first_hour.py::test_a_bench_without_the_real_data_says_so_in_one_line",
        "test_first_hour.py::test_mcp_stops_at_the_first_ctrl_c_and_says_what_it_waits_for",
        "test_first_hour.py::test_sql_fits_the_terminal_and_keeps_duckdbs_hints",
        "test_hardening.py::test_a_damaged_database_is_named_as_damaged_by_every_command",
        "test_hardening.py::test_a_signal_while_the_program_starts_is_one_line",
        "test_hardening.py::test_csv_and_json_stream_rows_instead_of_holding_them",
        "test_hardening.py::test_ctrl_c_just_after_the_database_opens_is_an_interrupt_not_a_bug",
        "test_hardening.py::test_ctrl_c_stops_a_nested_loop_join",
        "test_hardening.py::test_ctrl_c_stops_a_runaway_query_at_once",
        "test_hardening.py::test_every_result_type_prints",
        "test_hardening.py::test_ingest_twice_into_a_database_named_like_an_internal_one",
        "test_hardening.py::test_serve_stops_gracefully_on_sigterm",
        "test_hardening.py::test_sql_has_a_memory_and_spill_limit",
        "test_hardening.py::test_sql_queries_still_work",
        "test_hardening.py::test_sql_timeout_stops_a_runaway_query",
        "test_hardening.py::test_the_sandbox_has_no_readable_folder",
        "test_ingest.py::test_a_bulk_file_from_standard_input_or_a_pipe_is_ingested_under_the_name_given",
        "test_ingest.py::test_a_bulk_file_is_read_by_its_bytes_whatever_its_name",
        "test_ingest.py::test_a_failing_step_on_the_second_connection_keeps_the_old_database",
        "test_ingest.py::test_a_named_pipe_is_read_when_written_and_refused_in_one_line_when_nothing_writes_it",
        "test_ingest.py::test_card_objects_without_an_oracle_id_are_reported_not_dropped_silently",
        "test_ingest.py::test_ndjson_plain_and_gzip_arrays_give_the_same_tables",
        "test_ingest.py::test_oracle_cards_file_is_authoritative",
        "test_ingest.py::test_rulings_alone_are_added_to_the_existing_cards",
        "test_ingest.py::test_rulings_file_is_recognised_by_content",
        "test_ingest.py::test_same_printing_in_two_files_is_kept_once",
        "test_ingest.py::test_the_card_objects_are_kept_beside_the_layers_not_the_staging",
        "test_ingest.py::test_the_library_reads_the_streams_the_command_line_reads",
        "test_ingest.py::test_the_trimmed_commander_list_is_refused_with_the_command_that_converts_it",
        "test_ingest_safety.py::test_a_card_without_a_name_is_refused",
        "test_ingest_safety.py::test_a_compression_bomb_is_refused",
        "test_ingest_safety.py::test_a_damaged_database_is_replaced_when_asked",
        "test_ingest_safety.py::test_a_name_of_megabytes_is_a_bad_input_not_a_card",
        "test_ingest_safety.py::test_a_rulings_file_that_would_lose_most_rulings_is_refused",
        "test_ingest_safety.py::test_a_second_ingest_fails_at_once_or_waits_and_no_run_is_lost",
        "test_ingest_safety.py::test_a_signal_once_the_new_database_is_in_place_lets_the_ingest_finish",
        "test_ingest_safety.py::test_a_signal_stops_an_ingest_keeps_the_old_database_and_removes_every_file",
        "test_ingest_safety.py::test_a_stale_wal_is_one_clear_line_and_the_next_ingest_leaves_a_consistent_pair",
        "test_ingest_safety.py::test_an_empty_file_at_db_becomes_the_new_database",
        "test_ingest_safety.py::test_an_ingest_that_would_lose_most_cards_is_refused",
        "test_ingest_safety.py::test_an_ingest_through_a_symlink_replaces_the_real_file_under_its_lock",
        "test_ingest_safety.py::test_an_object_nested_deep_is_refused_naming_the_file_and_the_object",
        "test_ingest_safety.py::test_every_text_field_has_a_limit",
        "test_ingest_safety.py::test_info_lists_what_killed_ingests_left_and_the_next_ingest_removes_it",
        "test_ingest_safety.py::test_no_lock_file_stays_beside_the_database_and_a_stale_one_is_removed",
        "test_ingest_safety.py::test_the_limits_are_checked_on_the_objects_kept_not_by_another_read",
        "test_land_cycles.py::test_commander_of_brawl_and_oathbreaker_from_the_raw_objects",
        "test_land_cycles.py::test_firstprint_is_a_printing_of_the_cards_first_release_day",
        "test_land_cycles.py::test_french_vanilla_is_a_creature_with_keyword_abilities_only",
        "test_land_cycles.py::test_land_cycle_matches_its_rules_text_in_the_raw_objects",
        "test_land_cycles.py::test_print_and_set_counts_from_the_raw_objects",
        "test_layouts.py::test_every_role_the_ingest_assigns_has_a_row",
        "test_lookup.py::test_index_reads_names_in_any_order_alike",
        "test_lookup.py::test_point_chooser_equals_full_chooser",
        "test_lookup.py::test_point_deck_checker_equals_full_checker_on_sample_decks",
        "test_lookup.py::test_point_fuzzy_and_misses_equal_index",
        "test_lookup.py::test_point_resolve_equals_index_for_every_sample_name_and_variant",
        "test_lookup.py::test_point_token_answers_equal_index",
        "test_lookup.py::test_sql_and_search_print_without_polars_or_arrow",
        "test_mcp.py::test_a_damaged_database_is_the_clis_line_from_every_tool",
        "test_mcp.py::test_a_runaway_search_is_a_tool_error",
        "test_mcp.py::test_calls_read_before_stdin_closes_are_answered_then_it_exits",
        "test_names.py::test_a_blank_is_a_word_of_the_name_through_every_door",
        "test_names.py::test_a_full_name_beats_other_cards_face_names",
        "test_names.py::test_a_name_with_a_bidi_override_resolves_by_its_visible_text",
        "test_names.py::test_batch_reads_every_encoding_a_decklist_is_read_in",
        "test_names.py::test_name_sticker_goblin_is_a_card_of_its_own_not_the_blank",
        "test_names.py::test_random_strings_never_crash_the_resolver",
        "test_nontraditional.py::test_the_attraction_rule_through_every_door",
        "test_reversible_cards.py::test_the_card_is_the_same_whichever_bulk_file_it_came_from",
        "test_rules_edges.py::test_720_the_trimmed_lists_converter_makes_an_omen_card_as_scryfall_does",
        "test_rules_edges.py::test_one_oracle_card_from_a_converted_list_and_a_real_file",
        "test_rules_edges.py::test_two_real_cards_are_never_merged",
        "test_sample.py::test_duckdb_reads_it",
        "test_schema_version.py::test_an_ingest_of_card_files_rebuilds_an_older_database_keeping_its_history",
        "test_schema_version.py::test_serve_and_mcp_refuse_an_older_database_before_they_start",
        "test_scryfall_objects.py::test_a_download_whose_reader_stops_reading_is_cut_off",
        "test_scryfall_objects.py::test_a_printing_in_two_files_keeps_the_later_files_object",
        "test_scryfall_objects.py::test_an_ingest_of_rulings_alone_keeps_the_objects",
        "test_scryfall_objects.py::test_bulk_data_as_scryfall_serves_it",
        "test_scryfall_objects.py::test_bulk_data_has_a_json_lines_download_and_format_file",
        "test_scryfall_objects.py::test_downloads_asked_for_while_the_file_is_built_are_still_at_most_four",
        "test_scryfall_objects.py::test_listing_the_bulk_files_reads_kept_facts_and_builds_nothing",
        "test_search.py::test_cli_table_json_exit_codes",
        "test_search.py::test_docs_examples_show_the_real_output_on_the_sample",
        "test_search.py::test_every_keyword_operator_and_odd_value_runs_or_says_why",
        "test_search.py::test_every_order_runs_in_every_unique_mode",
        "test_search.py::test_flavor_text_is_searched_as_scryfall_does",
        "test_search.py::test_kw_finds_every_card_whose_object_lists_the_keyword",
        "test_search_recovers.py::test_a_bad_search_leaves_the_servers_threads_answering",
        "test_search_recovers.py::test_a_search_stopped_by_its_time_limit_then_good_searches",
        "test_serve.py::test_a_damaged_database_is_one_503_on_every_route",
        "test_serve.py::test_a_name_several_oracle_cards_print_alike_finds_one_card",
        "test_serve.py::test_a_server_error_is_scryfall_shaped_with_cors_and_the_server_keeps_answering",
        "test_serve.py::test_autocomplete_finds_in_one_text_what_a_scan_found_and_keeps_its_answers",
        "test_serve.py::test_concurrent_clients",
        "test_serve.py::test_no_warm_builds_nothing_at_open_and_answers_on_first_use",
        "test_serve.py::test_port_0_prints_the_port_bound_and_serves_there",
        "test_serve.py::test_reingest_swap_is_picked_up_without_failing_requests",
        "test_serve.py::test_rules_endpoints_equal_cli_json",
        "test_serve.py::test_unusable_address_is_one_line_before_serving",
        "test_serve_hardening.py::test_a_client_that_leaves_with_answers_unread_logs_no_traceback",
        "test_serve_hardening.py::test_a_deck_of_misspelt_names_holds_up_no_other_request",
        "test_serve_hardening.py::test_a_runaway_search_is_stopped_and_the_server_goes_on",
        "test_serve_hardening.py::test_a_stalled_body_never_holds_up_a_reload_and_is_cut_off",
        "test_serve_hardening.py::test_an_answer_its_client_leaves_unread_is_cut_off",
        "test_serve_hardening.py::test_caches_are_bounded_in_bytes",
        "test_serve_hardening.py::test_changes_follow_each_clients_address_and_a_stop_is_clean",
        "test_serve_hardening.py::test_pipelined_requests_each_have_their_own_header_limit",
        "test_serve_hardening.py::test_slow_headers_are_cut_off",
        "test_serve_hardening.py::test_the_next_pipelined_answer_after_its_client_left_ends_quietly",
        "test_sets.py::test_a_later_ingest_without_a_set_list_keeps_it",
        "test_sets.py::test_a_malformed_set_list_is_refused_at_ingest_in_one_line",
        "test_sets.py::test_an_online_ingest_downloads_and_keeps_the_set_list",
        "test_sets.py::test_an_online_ingest_without_a_set_list_builds_the_sets_and_says_so",
        "test_sql_bounds.py::test_a_signal_kills_the_child",
        "test_sql_bounds.py::test_memory_blow_up_is_bounded_and_one_line",
        "test_sql_bounds.py::test_memory_blow_up_peak_stays_under_the_limit",
        "test_sql_bounds.py::test_timeout_is_one_line_and_no_child_is_left",
        "test_sql_bounds.py::test_timeout_kills_the_child_even_when_the_query_ignores_its_interrupt",
        "test_tokens.py::test_collisions_in_a_fresh_process_are_the_librarys",
        "test_tokens.py::test_every_name_token_list_shows_gets_one_answer",
        "test_web.py::test_a_set_and_number_name_the_same_printing_on_the_page_and_in_the_api",
        "test_web.py::test_card_facts_are_oracledbs_per_card_answers",
        "test_web.py::test_search_page_counts_pages_and_keeps_order_dir_unique",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``realdata`` and ``slow`` marks read from each test's fixtures (its whole closure), so that no test using the
    real data or a browser can be left out of the marks by hand; and the tests no fixture tells (their own server
    processes, real ingests, whole-suite reproductions) by their module's ``slow`` mark or their own."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "realdata" in used:
            item.add_marker(pytest.mark.realdata)
        module, name = item.path.name, getattr(item, "originalname", item.name)  # a doctest has no originalname
        if used & SLOW_FIXTURES or module in SLOW_MODULES or f"{module}::{name}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


def build_in_child(
    path: Path, files: Sequence[Path] = (), *, sample: bool = False, replace_anyway: bool = False
) -> Path:
    """Ingest ``files`` (or the embedded sample) into ``path`` in a child process: what the build takes (DuckDB's
    buffers, the parsed objects) goes back to the system when the child ends, instead of staying in the test
    process for the rest of the session. Used for the real-data databases, each built once per session."""
    spec = {
        "path": str(path),
        "files": [str(f) for f in files],
        "sample": sample,
        "memory": TEST_INGEST_MEMORY,
        "replace_anyway": replace_anyway,
    }
    done = subprocess.run(
        [sys.executable, "-c", _BUILD_IN_CHILD, json.dumps(spec)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return path


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real data folder {REALDATA} is absent")
    return REALDATA


#: The folder of the databases a run builds once (built_once), under the run's base temporary folder: shared by the
#: pytest-xdist workers, removed at the end of the run (pytest_sessionfinish below), passed or failed.
SHARED = "built-once"


def _shared_folder(factory: pytest.TempPathFactory) -> Path:
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker's base is <the run's base>/popen-gwN
        base = base.parent
    folder = base / SHARED
    folder.mkdir(exist_ok=True)
    return folder


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder ``name`` that ``build(folder)`` fills, built once for the whole run: by the first process (of the
    pytest-xdist workers) that asks, under a file lock; the others wait for it, then read what it built (the
    databases are opened read-only). Built under another name and renamed when whole, so a build that failed is
    never taken for a built one."""
    from filelock import FileLock

    folder = _shared_folder(factory)
    done = folder / name
    with FileLock(folder / f"{name}.lock"):
        if not done.is_dir():
            building = folder / f"{name}.building"
            shutil.rmtree(building, ignore_errors=True)
            building.mkdir()
            build(building)
            building.rename(done)
    return done


def link_or_copy(source: Path, target: Path) -> Path:
    """``target`` as a hard link to ``source`` (no second copy on disk; an ingest replaces a database by renaming a
    new file over it, so the link keeps the old one), or a copy where links cannot be made."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy(source, target)
    return target


@pytest.fixture(scope="session")
def sample_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database built once per test run from the embedded sample (oracle_tools/data/sample/), in a child
    process as the real-data ones are (an ingest's peak, ~300 MB, stays out of the test process)."""
    folder = built_once(tmp_path_factory, "sample", lambda into: build_in_child(into / "sample.duckdb", sample=True))
    return folder / "sample.duckdb"


@pytest.fixture(scope="session")
def sample_db(sample_db_path: Path) -> Iterator[OracleDB]:
    from oracle_tools import OracleDB

    db = OracleDB(sample_db_path)
    yield db
    db.close()


@pytest.fixture(scope="session")
def full_db(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    """The real 2019 default-cards dump + the 2024 Scryfall objects + the foreign printings."""
    from oracle_tools import OracleDB

    files = [realdata / DUMP_2019, realdata / FILE_2024, realdata / FOREIGN_2022]
    folder = built_once(tmp_path_factory, "full", lambda into: build_in_child(into / "full.duckdb", files))
    db = OracleDB(folder / "full.duckdb")
    _CLOSED_AFTER_EACH_MODULE.append(db)
    yield db
    db.close()


#: Session databases whose connection and answerers (name index, chooser, deck checker, …) are let go at the end of
#: every test module: the next module that reads one opens it again and builds only what it asks for. Without
#: this, everything any module built on the real data stayed in the test process for the rest of the session.
_CLOSED_AFTER_EACH_MODULE: list[OracleDB] = []


@pytest.fixture(scope="module", autouse=True)
def _let_go_after_the_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """What a module kept for its own tests goes when it ends: the shared databases' answerers (above) and the
    module's ``functools`` caches (parsed real files, source trees), which would otherwise last the session."""
    yield
    for db in _CLOSED_AFTER_EACH_MODULE:
        db.close()  # OracleDB reopens on first use
    for value in vars(request.module).values():
        if (
            callable(getattr(value, "cache_clear", None))
            and getattr(value, "__module__", None) == request.module.__name__
        ):
            value.cache_clear()


@pytest.fixture(scope="session")
def db_2024_path(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real 2024 Scryfall objects alone (MH3, OTJ, FDN), built once per session: the whole objects kept
    and the ones rebuilt from the tables are each compared with that file's own."""
    folder = built_once(
        tmp_path_factory, "2024", lambda into: build_in_child(into / "2024.duckdb", [realdata / FILE_2024])
    )
    return folder / "2024.duckdb"


@pytest.fixture(scope="session")
def ingest_steps(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One database after each of a sequence of ingests, copied: ``first`` (2019), ``second`` (2019 + 2024),
    ``again`` (the same files), ``foreign`` (the 2022 foreign printings alone), ``failed`` (a broken file),
    ``sample`` (ingest --sample). The change history reads the sequence; ``second`` is also the 2019 + 2024
    database the tests of name mentions read."""
    steps = ("first", "second", "again", "foreign", "failed", "sample")
    folder = built_once(tmp_path_factory, "steps", lambda into: _ingest_steps(realdata, into))
    return {step: folder / f"{step}.duckdb" for step in steps}


def _ingest_steps(realdata: Path, folder: Path) -> None:
    from oracle_tools import OracleDB
    from oracle_tools.errors import IngestError

    db = folder / "oracle.duckdb"

    def keep(step: str) -> None:
        link_or_copy(db, folder / f"{step}.duckdb")  # the next ingest renames its new file over db

    build_in_child(db, [realdata / DUMP_2019])
    keep("first")
    build_in_child(db, [realdata / DUMP_2019, realdata / FILE_2024])
    keep("second")
    build_in_child(db, [realdata / DUMP_2019, realdata / FILE_2024])
    keep("again")
    build_in_child(db, [realdata / FOREIGN_2022])
    keep("foreign")
    broken = folder / "default-cards-broken.json"
    broken.write_text('[{"object": "card", "id": "x", "name": "Half', encoding="utf-8")
    before = os.stat(db)
    with pytest.raises(IngestError):
        OracleDB.ingest_files(db, [broken])
    after = os.stat(db)  # "failed" is a link to "foreign": it must be the very same file, untouched
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    keep("failed")
    build_in_child(db, sample=True, replace_anyway=True)  # far fewer cards than the real files: said explicitly
    keep("sample")


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixture_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    """The sample cards plus real-shaped fixtures: flavor names on Ikoria Godzilla printings (201.6), a
    pair of two Oracle cards joined only by the optional override table (201.3; the real pairs — om1
    printings of Spider-Man Oracle cards — are in the sample itself) and a token object named like a card
    (201.4)."""
    from oracle_tools import OracleDB
    from oracle_tools.ingest import sample_dir

    path = tmp_path_factory.mktemp("fixtures") / "fixtures.duckdb"
    files = [
        *sorted(sample_dir().glob("cards-*.json.gz")),
        FIXTURES / "alternate_names.json",
        FIXTURES / "interchangeable_pair.json",
        FIXTURES / "token_named_like_card.json",
    ]
    db = OracleDB.ingest_files(path, files, interchangeable_file=FIXTURES / "interchangeable_names.csv")
    yield db
    db.close()


@pytest.fixture(scope="session")
def same_name_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Unstable's six Very Cryptic Commands (six Oracle cards printed under one name, CR 201.2a) and Lightning
    Bolt: the real card objects of the 2019 Scryfall dump (tests/fixtures/same_name_unstable.json)."""
    from oracle_tools import OracleDB

    path = tmp_path_factory.mktemp("same_name") / "same_name.duckdb"
    OracleDB.ingest_files(path, [FIXTURES / "same_name_unstable.json"]).close()
    return path


@pytest.fixture(scope="session")
def full_server(full_db: OracleDB) -> Iterator[Server]:
    """One ``oracle-tools serve --no-warm`` on ``full_db`` for the session (an ``oracle_server.Server``), for every
    module that talks HTTP to the real data: it builds the card objects the tests ask for, not every one. A
    traceback in its log at the end fails the session's last test."""
    from oracle_server import Server as ServeProcess

    srv = ServeProcess(full_db.path, "--no-warm")  # what the tests ask is built on first use (warm: test_serve)
    yield srv
    assert "Traceback" not in srv.stop()


@pytest.fixture(scope="session")
def sample_server(sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One ``oracle-tools serve`` for the session on a copy of the sample database, alone in its folder (so a
    test can tell the served file was only read), shared by the modules whose tests do not stop, signal or
    stress it. A traceback in its log at the end fails the session's last test."""
    from oracle_server import Server as ServeProcess

    served = link_or_copy(sample_db_path, tmp_path_factory.mktemp("served") / "served.duckdb")
    srv = ServeProcess(served, "--no-warm")
    yield srv
    err = srv.stop()
    assert "Traceback" not in err, err  # malformed input never printed a traceback


#: DuckDB's file headers: the main header and two database headers of 4 KiB each. A file cut just after them is a
#: database DuckDB starts to open and cannot read (its first block is missing), whatever the layout of its blocks:
#: damage that every read meets at once, in every door (cutting a file in half left it to the block layout which
#: reads met it).
DUCKDB_HEADER_BYTES = 3 * 4096


@pytest.fixture
def cut_short() -> Callable[..., re.Pattern[str]]:
    """``cut_short(path)`` damages the database at ``path`` in place (a server that has it open sees its size and
    mtime change); ``cut_short(path, source=db)`` writes such a damaged copy of ``db`` at ``path``. Returns the
    line every door says for it (the CLI after "error: ", HTTP's details, MCP after the tool's name)."""

    def cut(path: Path, source: Path | None = None) -> re.Pattern[str]:
        if source is not None:
            with source.open("rb") as whole:
                path.write_bytes(whole.read(DUCKDB_HEADER_BYTES))
        else:
            os.truncate(path, DUCKDB_HEADER_BYTES)
        name = re.escape(path.name)
        return re.compile(
            rf'{name} is damaged \(IO Error: Could not read enough bytes from file "{name}": attempted to read '
            r"\d+ bytes from location \d+\), so it cannot be read; rebuild it with `oracle-tools ingest "
            r"--replace-anyway` \(its change history goes with it\), or put back a copy of it"
        )

    return cut


#: The ``tmp_path`` of each test that failed in this process: kept after the run for a look (pyproject.toml's
#: tmp_path_retention_policy = "failed" removes the others' as each test ends).
_FAILED_TMP_PATHS: set[Path] = set()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    tmp = getattr(item, "funcargs", {}).get("tmp_path")
    if report.failed and isinstance(tmp, Path):
        _FAILED_TMP_PATHS.add(tmp)
    return report


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Nothing left behind in the temporary folder but the failed tests' own folders: the databases built once
    (built_once) and every fixture's folder (tmp_path_factory.mktemp) are removed at the end of the run, passed or
    failed (pytest keeps them on a failure: gigabytes of real-data databases). Under pytest-xdist each worker
    cleans its own folder; the controller removes the shared one once the workers have ended."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    base = getattr(factory, "_basetemp", None)
    if not isinstance(base, Path) or not base.is_dir():
        return
    if session.config.pluginmanager.has_plugin("dsession"):  # the xdist controller: its workers' folders stay
        shutil.rmtree(base / SHARED, ignore_errors=True)
        return
    kept = {parent for tmp in _FAILED_TMP_PATHS for parent in (tmp, *tmp.parents)}
    for entry in base.iterdir():
        if entry not in kept:
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
