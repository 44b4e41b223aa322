"""Generated avatars: a user picks one of `AVATAR_VARIANTS` identicons made from their username.

Pure. Nothing is uploaded, so there is nothing to scan or resize, and the SVG holds no text a
user chose: only rectangles and a colour, all computed from a SHA-256 of the name and variant.
"""
from __future__ import annotations

import hashlib

AVATAR_VARIANTS = 12
_GRID = 5  # cells per side; the left columns are mirrored onto the right, as GitHub's identicons
_CELL = 10
_MARGIN = 5


def avatar_svg(username: str, variant: int) -> str:
    """The identicon of `username`'s variant `variant` (0 ≤ variant < AVATAR_VARIANTS) as SVG text."""
    if not 0 <= variant < AVATAR_VARIANTS:
        raise ValueError(f"variant {variant} is not between 0 and {AVATAR_VARIANTS - 1}")
    digest = hashlib.sha256(f"{username}\x00{variant}".encode("utf-8", "surrogatepass")).digest()
    hue = int.from_bytes(digest[:2], "big") % 360
    saturation = 45 + digest[2] % 30
    lightness = 40 + digest[3] % 15
    colour = f"hsl({hue} {saturation}% {lightness}%)"
    half = (_GRID + 1) // 2
    cells = []
    for row in range(_GRID):
        for column in range(half):
            if digest[4 + row * half + column] & 1:
                for x in {column, _GRID - 1 - column}:
                    cells.append(
                        f'<rect x="{_MARGIN + x * _CELL}" y="{_MARGIN + row * _CELL}" width="{_CELL}" height="{_CELL}"/>'
                    )
    size = _GRID * _CELL + 2 * _MARGIN
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" height="{size}">'
        f'<rect width="{size}" height="{size}" fill="#f2f2f2"/>'
        f'<g fill="{colour}">{"".join(cells)}</g></svg>'
    )
