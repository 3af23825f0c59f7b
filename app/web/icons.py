"""The app's icons, drawn from one description: a spade on the table's green.

``python -m app.web.icons`` writes static/icons/: ``icon.svg`` (any size), ``icon-192.png``,
``icon-512.png`` (rounded corners, transparent outside) and ``icon-maskable-512.png`` (the
green to every edge, the spade inside the middle 60 %, as a maskable icon must be). The PNGs
are rasterised here (supersampled, no imaging library) from the same circles and polygons the
SVG is written from, so the two never drift apart. The files are committed; run this again
after changing the drawing.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

GREEN = (0x0C, 0x4A, 0x2F)  # the pages' theme colour (templates/base.html, the manifest)
GOLD = (0xF2, 0xC1, 0x4E)

# the spade on a 100 x 100 square: circles (cx, cy, r) and convex polygons
CIRCLES = ((33.0, 57.0, 19.0), (67.0, 57.0, 19.0))
POLYGONS = (
    ((50.0, 8.0), (85.0, 52.0), (50.0, 72.0), (15.0, 52.0)),  # the point and the shoulders
    ((44.0, 64.0), (56.0, 64.0), (64.0, 92.0), (36.0, 92.0)),  # the stem
)
CORNER = 18.0  # the rounded square's radius (the non-maskable icons)


def svg(*, maskable: bool = False) -> str:
    scale = 0.6 if maskable else 0.76
    offset = (100 - 100 * scale) / 2
    rx = 0 if maskable else CORNER
    shapes = [f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}"/>' for cx, cy, r in CIRCLES] + [
        '<polygon points="' + " ".join(f"{x:g},{y:g}" for x, y in poly) + '"/>' for poly in POLYGONS
    ]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f'<rect width="100" height="100" rx="{rx:g}" fill="#{_hex(GREEN)}"/>'
        f'<g fill="#{_hex(GOLD)}" transform="translate({offset:g} {offset:g}) scale({scale:g})">'
        + "".join(shapes)
        + "</g></svg>\n"
    )


def _hex(rgb: tuple[int, int, int]) -> str:
    return "".join(f"{c:02x}" for c in rgb)


def _inside_polygon(x: float, y: float, poly: tuple[tuple[float, float], ...]) -> bool:
    sign = 0
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
        cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
        if cross != 0:
            s = 1 if cross > 0 else -1
            if sign and s != sign:
                return False
            sign = s
    return True


def _in_spade(x: float, y: float) -> bool:
    if any((x - cx) ** 2 + (y - cy) ** 2 <= r * r for cx, cy, r in CIRCLES):
        return True
    return any(_inside_polygon(x, y, poly) for poly in POLYGONS)


def _in_square(x: float, y: float, rx: float) -> bool:
    if not (0 <= x <= 100 and 0 <= y <= 100):
        return False
    cx = min(max(x, rx), 100 - rx)
    cy = min(max(y, rx), 100 - rx)
    return (x - cx) ** 2 + (y - cy) ** 2 <= rx * rx


def png(size: int, *, maskable: bool = False, samples: int = 3) -> bytes:
    """The icon as an RGBA PNG of ``size`` pixels (each pixel: ``samples``² points)."""
    scale = 0.6 if maskable else 0.76
    offset = (100 - 100 * scale) / 2
    rx = 0.0 if maskable else CORNER
    step = 100 / size
    rows = bytearray()
    n = samples * samples
    for py in range(size):
        rows.append(0)  # filter: none
        for px in range(size):
            bg = fg = 0
            for sy in range(samples):
                y = (py + (sy + 0.5) / samples) * step
                for sx in range(samples):
                    x = (px + (sx + 0.5) / samples) * step
                    if not _in_square(x, y, rx):
                        continue
                    bg += 1
                    if _in_spade((x - offset) / scale, (y - offset) / scale):
                        fg += 1
            if bg == 0:
                rows += b"\0\0\0\0"
                continue
            t = fg / bg
            rows += bytes(round(g + (f - g) * t) for g, f in zip(GREEN, GOLD, strict=True))
            rows.append(round(255 * bg / n))
    return _png_file(size, size, bytes(rows))


def _png_file(width: int, height: int, raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits, RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "icon.svg": svg().encode(),
        "icon-maskable.svg": svg(maskable=True).encode(),
        "icon-192.png": png(192),
        "icon-512.png": png(512),
        "icon-maskable-512.png": png(512, maskable=True),
    }
    written = []
    for name, data in files.items():
        path = directory / name
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "static" / "icons"
    for path in write(out):
        print(path)
