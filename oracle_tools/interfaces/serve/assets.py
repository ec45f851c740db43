"""The pages' own files: the favicon (built once) and the stylesheet and script under ``/static/{name}``."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

STATIC = Path(__file__).parent / "static"


# -- the favicon: a 16x16 mana-symbol-like dot, built once (a PNG inside an ICO) ------------------------------


def _favicon() -> bytes:
    size = 16
    rows = []
    for y in range(size):
        row = bytearray([0])  # filter: none
        for x in range(size):
            d2 = (x - 7.5) ** 2 + (y - 7.5) ** 2
            if d2 <= 7.5**2:
                inner = d2 <= 3.2**2
                row += bytes((0xF8, 0xF3, 0xD6, 255) if inner else (0x24, 0x34, 0x47, 255))
            else:
                row += bytes((0, 0, 0, 0))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png


FAVICON = _favicon()


async def favicon(request: Request) -> Response:
    return Response(FAVICON, media_type="image/x-icon", headers={"Cache-Control": "public, max-age=86400"})


async def static(request: Request) -> Response:
    """The page's own stylesheet and script (a fixed list: no path from the request reaches the file system)."""
    name = request.path_params["name"]
    kinds = {"web.css": "text/css; charset=utf-8", "web.js": "text/javascript; charset=utf-8"}
    if name not in kinds:
        return Response("not found", status_code=404, media_type="text/plain")
    return Response(
        (STATIC / name).read_bytes(),
        media_type=kinds[name],
        headers={"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )
