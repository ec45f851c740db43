"""oracle_tools.store.download against a real loopback HTTP server (tests/scryfall_server.py).

No requests mocking: every test talks HTTP over 127.0.0.1. Sleeps are injected and
recorded (not slept) except in the one test that checks Retry-After in real time.
"""

from __future__ import annotations

import gzip
import json
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from oracle_tools.errors import DownloadError, IngestError
from oracle_tools.store.download import (
    ACCEPT,
    BULK_TYPES,
    MANIFEST,
    USER_AGENT,
    BulkFile,
    fetch_bulk_files,
    fetch_index,
    fetch_rules_text,
    fetch_set_list,
    parse_retry_after,
)

from scryfall_server import Reply, ScryfallServer, sample_payload

OC = "oracle_cards"
OC_PATH = ScryfallServer.file_path(OC)


class SleepRecorder:
    """Injected sleep: records each requested wait and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture(scope="module")
def payload() -> bytes:
    return sample_payload(50)


@pytest.fixture
def server(payload: bytes) -> Iterator[ScryfallServer]:
    with ScryfallServer(payload=payload) as srv:
        yield srv


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


# fetch_bulk_files with the loopback server's URL, a temporary cache and fast retries bound
Fetch = Callable[..., list[BulkFile]]


@pytest.fixture
def fetch(server: ScryfallServer, tmp_path: Path, sleeps: SleepRecorder) -> Fetch:
    """fetch_bulk_files bound to the loopback server, fast retries, no progress bar."""

    def _fetch(types: Sequence[str] = (OC,), **kw: Any) -> list[BulkFile]:
        kw.setdefault("api_url", server.url)
        kw.setdefault("cache_dir", tmp_path / "cache")
        kw.setdefault("progress", False)
        kw.setdefault("backoff", 0.01)
        kw.setdefault("timeout", 5.0)
        kw.setdefault("request_interval", 0)
        kw.setdefault("sleep", sleeps)
        return fetch_bulk_files(list(types), **kw)

    return _fetch


def leftovers(cache: Path) -> list[str]:
    """Temp files a download may have left behind (there must be none)."""
    return sorted(p.name for p in cache.glob("*.tmp")) + sorted(p.name for p in cache.glob(".*"))


# --------------------------------------------------------------------------- payload sanity


def test_payload_is_real_scryfall_cards(payload: bytes) -> None:
    cards = json.loads(payload)
    assert isinstance(cards, list) and 2 <= len(cards) <= 50
    assert all(c["object"] == "card" and c["name"] and c["id"] for c in cards)


# --------------------------------------------------------------------------- index + headers


def test_fetch_index_shape(server: ScryfallServer, sleeps: SleepRecorder) -> None:
    entries = fetch_index(server.url, request_interval=0, sleep=sleeps)
    assert {e["type"] for e in entries} == set(BULK_TYPES)
    oc = next(e for e in entries if e["type"] == OC)
    assert oc["object"] == "bulk_data" and oc["download_uri"].endswith(OC_PATH)


def test_headers_sent_on_every_request(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    [bf] = fetch()
    assert bf.type == OC and not bf.from_cache
    assert bf.path.name == "oracle_cards.json" and bf.path.read_bytes() == payload
    recorded = server.requests_for("/bulk-data") + server.requests_for(OC_PATH)
    assert len(recorded) == 2
    for req in recorded:
        assert req.headers["User-Agent"] == USER_AGENT
        assert req.headers["User-Agent"].startswith("oracle-tools/") and "(+http" in req.headers["User-Agent"]
        assert req.headers["Accept"] == ACCEPT == "application/json;q=0.9,*/*;q=0.8"
        assert "gzip" in req.headers["Accept-Encoding"]


def test_sidecar_written(fetch: Fetch, tmp_path: Path, server: ScryfallServer, payload: bytes) -> None:
    [bf] = fetch()
    meta = json.loads((tmp_path / "cache" / "oracle_cards.meta.json").read_text())
    assert meta["updated_at"] == bf.updated_at == server.index()["data"][0]["updated_at"]
    assert meta["size"] == bf.size == len(payload)
    assert meta["download_uri"] == bf.download_uri == f"{server.url}{OC_PATH}"
    assert meta["path"] == "oracle_cards.json"
    assert leftovers(tmp_path / "cache") == []


# --------------------------------------------------------------------------- redirects, gzip


@pytest.mark.parametrize("status", [301, 302])
def test_redirect_followed(fetch: Fetch, server: ScryfallServer, payload: bytes, status: int) -> None:
    server.add_route("/real/oracle-cards-20241012090135.json", payload)
    server.script(OC_PATH, Reply.redirect("/real/oracle-cards-20241012090135.json", status))
    [bf] = fetch()
    assert bf.path.read_bytes() == payload
    assert server.count(OC_PATH) == 1
    target = server.requests_for("/real/oracle-cards-20241012090135.json")
    assert len(target) == 1 and target[0].headers["User-Agent"] == USER_AGENT


def test_gzip_encoded_body_stored_compressed(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    server.add_bulk(OC, gzip=True)
    [bf] = fetch()
    assert bf.path.name == "oracle_cards.json.gz"
    raw = bf.path.read_bytes()
    assert raw[:2] == b"\x1f\x8b" and len(raw) < len(payload)
    assert gzip.decompress(raw) == payload
    assert json.loads(gzip.decompress(raw)) == json.loads(payload)
    assert not (bf.path.parent / "oracle_cards.json").exists()


def test_gz_url_without_content_encoding_kept_as_gz(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    gz = gzip.compress(payload)
    server.add_bulk(OC, gz, path="/file/oracle-cards.json.gz", gzip=False)
    [bf] = fetch()
    assert bf.path.name == "oracle_cards.json.gz"
    assert bf.path.read_bytes() == gz and gzip.decompress(bf.path.read_bytes()) == payload


def test_encoding_change_replaces_old_copy(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    [first] = fetch()
    assert first.path.name == "oracle_cards.json"
    server.add_bulk(OC, gzip=True, updated_at="2024-10-13T09:01:35.443+00:00")
    [second] = fetch()
    assert second.path.name == "oracle_cards.json.gz" and not first.path.exists()
    assert gzip.decompress(second.path.read_bytes()) == payload


# --------------------------------------------------------------------------- retries


def test_429_retry_after_honoured(fetch: Fetch, server: ScryfallServer, sleeps: SleepRecorder, payload: bytes) -> None:
    server.script(OC_PATH, Reply.too_many_requests(retry_after="1"))
    [bf] = fetch()
    assert bf.path.read_bytes() == payload
    assert server.count(OC_PATH) == 2
    assert sleeps.calls and max(sleeps.calls) >= 1.0


def test_429_retry_after_http_date(fetch: Fetch, server: ScryfallServer, sleeps: SleepRecorder) -> None:
    when = formatdate(time.time() + 5, usegmt=True)
    server.script("/bulk-data", Reply.too_many_requests(retry_after=when))
    fetch()
    assert server.count("/bulk-data") == 2
    assert 3.0 <= max(sleeps.calls) <= 5.0


def test_429_without_retry_after_waits_scryfall_lockout(
    fetch: Fetch, server: ScryfallServer, sleeps: SleepRecorder
) -> None:
    server.script(OC_PATH, Reply.too_many_requests(retry_after=None))
    fetch()
    assert max(sleeps.calls) >= 30.0  # Scryfall documents a 30 s lock-out after a 429


def test_429_retry_after_real_time(server: ScryfallServer, tmp_path: Path, payload: bytes) -> None:
    """Same as above but with the real time.sleep: the retry really comes >= 1 s later."""
    server.script(OC_PATH, Reply.too_many_requests(retry_after="1"))
    [bf] = fetch_bulk_files([OC], api_url=server.url, cache_dir=tmp_path, progress=False, backoff=0.01)
    assert bf.path.read_bytes() == payload
    first, second = server.requests_for(OC_PATH)
    assert second.time - first.time >= 1.0


def test_retry_after_parsing() -> None:
    assert parse_retry_after("1") == 1.0
    assert parse_retry_after(" 2.5 ") == 2.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("100000") == 120.0  # capped
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after(formatdate(0, usegmt=True)) == 0.0  # in the past
    wait = parse_retry_after(formatdate(time.time() + 10, usegmt=True))
    assert wait is not None and 8 <= wait <= 10


def test_500_then_success(fetch: Fetch, server: ScryfallServer, sleeps: SleepRecorder, payload: bytes) -> None:
    server.script(OC_PATH, Reply.error(500), Reply.error(503))
    [bf] = fetch(backoff=0.5)
    assert bf.path.read_bytes() == payload
    assert server.count(OC_PATH) == 3
    assert sleeps.calls == [0.5, 1.0]  # exponential backoff


def test_index_500_then_success(fetch: Fetch, server: ScryfallServer) -> None:
    server.script("/bulk-data", Reply.error(502))
    [bf] = fetch()
    assert server.count("/bulk-data") == 2 and bf.path.is_file()


def test_always_500_gives_up(fetch: Fetch, server: ScryfallServer, tmp_path: Path) -> None:
    server.script(OC_PATH, Reply.error(500), repeat_last=True)
    with pytest.raises(DownloadError) as ei:
        fetch(max_retries=3)
    msg = str(ei.value)
    assert f"{server.url}{OC_PATH}" in msg and "500" in msg and "4 attempts" in msg
    assert server.count(OC_PATH) == 4
    assert not (tmp_path / "cache" / "oracle_cards.json").exists()


def test_404_is_immediate(fetch: Fetch, server: ScryfallServer, sleeps: SleepRecorder) -> None:
    server.script(OC_PATH, Reply.error(404), repeat_last=True)
    with pytest.raises(DownloadError) as ei:
        fetch()
    assert "404" in str(ei.value) and f"{server.url}{OC_PATH}" in str(ei.value)
    assert server.count(OC_PATH) == 1 and sleeps.calls == []


def test_truncated_body_retried_then_success(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    server.script(OC_PATH, Reply.truncated(len(payload) // 2))
    [bf] = fetch()
    assert bf.path.read_bytes() == payload
    assert server.count(OC_PATH) == 2


def test_gzip_cut_without_content_length_retried(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    """No Content-Length, connection closed mid-gzip: only the gzip trailer check can tell."""
    server.add_bulk(OC, gzip=True)
    gz_len = len(gzip.compress(payload, mtime=0))
    server.script(OC_PATH, Reply.truncated(gz_len - 10, content_length=False))
    [bf] = fetch()
    assert gzip.decompress(bf.path.read_bytes()) == payload
    assert server.count(OC_PATH) == 2


def test_always_truncated_keeps_previous_copy(
    fetch: Fetch, server: ScryfallServer, tmp_path: Path, payload: bytes
) -> None:
    cache = tmp_path / "cache"
    [old] = fetch()
    old_bytes = old.path.read_bytes()
    old_meta = (cache / "oracle_cards.meta.json").read_bytes()

    server.set_bulk(OC, updated_at="2024-10-13T09:01:35.443+00:00", payload=payload.replace(b"card", b"CARD"))
    server.script(OC_PATH, Reply.truncated(1000), repeat_last=True)
    with pytest.raises(DownloadError) as ei:
        fetch(max_retries=2)
    msg = str(ei.value)
    assert f"{server.url}{OC_PATH}" in msg and "truncated" in msg
    assert server.count(OC_PATH) == 1 + 3
    assert old.path.read_bytes() == old_bytes  # previous cached copy intact
    assert (cache / "oracle_cards.meta.json").read_bytes() == old_meta
    assert leftovers(cache) == []


def test_always_truncated_leaves_no_file(fetch: Fetch, server: ScryfallServer, tmp_path: Path, payload: bytes) -> None:
    server.add_bulk(OC, gzip=True)
    server.script(OC_PATH, Reply.truncated(500, content_length=False), repeat_last=True)
    with pytest.raises(DownloadError, match="truncated"):
        fetch(max_retries=1)
    cache = tmp_path / "cache"
    assert not (cache / "oracle_cards.json.gz").exists() and not (cache / "oracle_cards.json").exists()
    assert not (cache / "oracle_cards.meta.json").exists()
    assert leftovers(cache) == []


def test_read_timeout_retried(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    # The retry's answer must come within the timeout even on a loaded machine (0.3 s was not always enough for
    # the in-process server's reply, and a third request was made); the slow one is well past it.
    server.script(OC_PATH, Reply.slow(6.0))
    [bf] = fetch(timeout=2.0)
    assert bf.path.read_bytes() == payload
    assert server.count(OC_PATH) == 2


def test_connection_refused_gives_up_at_once(tmp_path: Path, sleeps: SleepRecorder) -> None:
    """Nothing listens there: no retry can help, so none is made, and the line says how to work offline."""
    cache = tmp_path / "cache"
    # a port bound and never listened on: refused, and held, so no other process (an xdist worker) can take it
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(DownloadError, match=r"cannot reach 127\.0\.0\.1:\d+: the connection was refused") as caught:
            fetch_bulk_files(
                [OC],
                api_url=f"http://127.0.0.1:{port}",
                cache_dir=cache,
                progress=False,
                max_retries=2,
                backoff=0.01,
                request_interval=0,
                sleep=sleeps,
            )
    assert sleeps.calls == []
    assert "oracle-tools ingest --sample" in str(caught.value) and "--bulk-file" in str(caught.value)
    assert not cache.exists()  # no empty cache folder left behind


def test_a_name_that_does_not_resolve_gives_up_at_once(tmp_path: Path, sleeps: SleepRecorder) -> None:
    """No DNS (an offline machine): one line at once, not six retries over half a minute. '.invalid' never
    resolves (RFC 2606)."""
    with pytest.raises(DownloadError, match=r"cannot reach no-such-host.invalid: its name does not resolve"):
        fetch_bulk_files(
            [OC], api_url="http://no-such-host.invalid", cache_dir=tmp_path / "c", progress=False, sleep=sleeps
        )
    assert sleeps.calls == [] and not (tmp_path / "c").exists()


def test_a_transient_failure_says_it_retries(
    tmp_path: Path, sleeps: SleepRecorder, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 500 is worth another attempt: each retry says when and which attempt; the last line says how to work offline."""
    with ScryfallServer(payload=b"[]") as server:
        server.script("/bulk-data", Reply.error(500), Reply.error(500), Reply.error(500))
        with pytest.raises(DownloadError, match="after 3 attempts") as caught:
            fetch_bulk_files(
                [OC],
                api_url=server.url,
                cache_dir=tmp_path / "c",
                progress=False,
                max_retries=2,
                backoff=0.01,
                request_interval=0,
                sleep=sleeps,
            )
    assert "oracle-tools ingest --sample" in str(caught.value)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("; ")[-1] for line in lines] == [
        "retrying in 0.01 s (attempt 2 of 3)",
        "retrying in 0.02 s (attempt 3 of 3)",
    ]


# --------------------------------------------------------------------------- cache


def test_cache_hit_skips_download(fetch: Fetch, server: ScryfallServer) -> None:
    [first] = fetch()
    [second] = fetch()
    assert not first.from_cache and second.from_cache
    assert second.path == first.path and second.updated_at == first.updated_at
    assert server.count(OC_PATH) == 1
    assert server.count("/bulk-data") == 2  # the index is always consulted


def test_changed_updated_at_redownloads(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    fetch()
    new_payload = payload.replace(b'"object":"card"', b'"object":"card" ', 1)
    server.set_bulk(OC, updated_at="2024-10-13T09:01:35.443+00:00", payload=new_payload)
    [bf] = fetch()
    assert not bf.from_cache and bf.updated_at == "2024-10-13T09:01:35.443+00:00"
    assert bf.path.read_bytes() == new_payload
    assert server.count(OC_PATH) == 2


def test_changed_size_redownloads(fetch: Fetch, server: ScryfallServer) -> None:
    fetch()
    server.set_bulk(OC, size=123)
    [bf] = fetch()
    assert not bf.from_cache and bf.size == 123 and server.count(OC_PATH) == 2


def test_missing_file_redownloads(fetch: Fetch, server: ScryfallServer) -> None:
    [first] = fetch()
    first.path.unlink()
    [second] = fetch()
    assert not second.from_cache and second.path.is_file() and server.count(OC_PATH) == 2


# --------------------------------------------------------------------------- types, politeness


def test_unknown_type_lists_available(fetch: Fetch, server: ScryfallServer) -> None:
    server.remove_bulk("all_cards")
    with pytest.raises(DownloadError) as ei:
        fetch([OC, "oracle_cardz"])
    msg = str(ei.value)
    assert "'oracle_cardz'" in msg
    for t in ("oracle_cards", "unique_artwork", "default_cards", "rulings"):
        assert t in msg
    assert "all_cards" not in msg
    assert server.count(OC_PATH) == 0  # nothing downloaded before the check


def test_several_types_in_order_deduplicated(fetch: Fetch, server: ScryfallServer, payload: bytes) -> None:
    files = fetch(["rulings", OC, "rulings"])
    assert [f.type for f in files] == ["rulings", OC]
    assert all(f.path.read_bytes() == payload for f in files)
    assert server.count("/bulk-data") == 1


def test_polite_delay_between_requests(server: ScryfallServer, tmp_path: Path) -> None:
    """Each request after the first waits for what is left of the interval, asked of the injected sleep before
    the request goes out. The delay requested is checked, not the one measured: the clock of a loaded machine
    says nothing about the code (an interval of a minute: no local request takes that long)."""
    requested: list[tuple[float, int]] = []  # (seconds asked for, requests the server had seen by then)

    def sleep(seconds: float) -> None:
        requested.append((seconds, len(server.all_requests)))

    fetch_bulk_files(
        ["rulings", OC], api_url=server.url, cache_dir=tmp_path, progress=False, request_interval=60, sleep=sleep
    )
    assert len(server.all_requests) == 3  # the index, then the two files
    assert [seen for _, seen in requested] == [1, 2]  # a wait before the second and before the third request
    assert all(30 < seconds <= 60 for seconds, _ in requested), requested


def test_progress_bar_does_not_break(fetch: Fetch, payload: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    [bf] = fetch(progress=True)
    assert bf.path.read_bytes() == payload


# --------------------------------------------------------------------------- the user's own files in the cache

MINE = b"my own notes, not a download\n"
REFUSED = "is not a file oracle-tools downloaded, so the download cache neither replaces nor reads it"


@pytest.mark.parametrize(
    ("name", "file_requests"),
    [("oracle_cards.json", 1), ("oracle_cards.meta.json", 0)],
    ids=["the-file's-name", "the-sidecar's-name"],
)
def test_a_file_the_cache_did_not_write_is_never_replaced(
    fetch: Fetch, server: ScryfallServer, tmp_path: Path, name: str, file_requests: int
) -> None:
    """--cache-dir may be any folder (~/Downloads), and the cache's names are fixed: a file of the user's at one
    of them was replaced by the download. It is refused in one line, the file kept; a name known before the
    download (the sidecar's) is refused before the file is requested, the file's own once its encoding is known
    (before its body is read)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / name).write_bytes(MINE)
    with pytest.raises(IngestError) as refused:
        fetch()
    assert str(refused.value).startswith(f"{cache / name}: {REFUSED}; move it elsewhere, or give --cache-dir")
    assert (cache / name).read_bytes() == MINE
    assert server.count(OC_PATH) == file_requests
    assert sorted(p.name for p in cache.iterdir()) == [name]  # nothing else written, no temp file left


def test_a_downloaded_file_the_user_replaced_is_neither_read_nor_replaced(
    fetch: Fetch, server: ScryfallServer, tmp_path: Path
) -> None:
    [first] = fetch()
    first.path.write_bytes(MINE)  # the user's own file now has the name: the cache must not pass it off as Scryfall's
    with pytest.raises(IngestError, match=REFUSED):
        fetch()
    server.set_bulk(OC, updated_at="2024-10-13T09:01:35.443+00:00")
    with pytest.raises(IngestError, match=REFUSED):
        fetch()
    assert first.path.read_bytes() == MINE


def test_the_cache_replaces_its_own_files_also_those_written_before_it_kept_a_record(
    fetch: Fetch, server: ScryfallServer, tmp_path: Path, payload: bytes
) -> None:
    """The record (download.MANIFEST) is new: a cache written before it is known by its sidecars, and still
    updated in place, as is any file the cache wrote."""
    cache = tmp_path / "cache"
    fetch()
    assert json.loads((cache / MANIFEST).read_text())["files"] == {
        "oracle_cards.json": len(payload),
        "oracle_cards.meta.json": (cache / "oracle_cards.meta.json").stat().st_size,
    }
    (cache / MANIFEST).unlink()  # as an older version left it
    server.add_bulk(OC, gzip=True, updated_at="2024-10-13T09:01:35.443+00:00")
    [second] = fetch()
    assert not second.from_cache and gzip.decompress(second.path.read_bytes()) == payload
    assert not (cache / "oracle_cards.json").exists()  # the stale copy (the cache's own) removed
    assert set(json.loads((cache / MANIFEST).read_text())["files"]) == {
        "oracle_cards.json.gz",
        "oracle_cards.meta.json",
    }


def test_the_set_list_and_the_rules_text_never_replace_a_users_file(server: ScryfallServer, tmp_path: Path) -> None:
    server.add_route("/sets", json.dumps({"object": "list", "has_more": False, "data": []}).encode())
    server.add_route("/rules.txt", b"1. Game Concepts\n", content_type="text/plain")
    (tmp_path / "rules").mkdir()
    for name in ("sets.json", "rules/MagicCompRules-downloaded.txt"):
        (tmp_path / name).write_bytes(MINE)
    with pytest.raises(IngestError, match=f"sets.json: {REFUSED}"):
        fetch_set_list(server.url, cache_dir=tmp_path, sleep=lambda _: None)
    with pytest.raises(IngestError, match=f"MagicCompRules-downloaded.txt: {REFUSED}"):
        fetch_rules_text(server.url + "/rules.txt", cache_dir=tmp_path, sleep=lambda _: None)
    assert server.count("/sets") == server.count("/rules.txt") == 0  # refused before the download
    assert (tmp_path / "sets.json").read_bytes() == (tmp_path / "rules/MagicCompRules-downloaded.txt").read_bytes()
    assert (tmp_path / "sets.json").read_bytes() == MINE
