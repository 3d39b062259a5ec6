"""How the store keeps a result document: the exact text, in as few bytes as its numbers allow.

Nearly all of a monitored window's compressed bytes are long arrays of whole numbers, as decimal digits: a
histogram's ``[lower, width, count]`` buckets and a series' worst per window. Kept as numbers they take
under half of that. So each such array is taken out of the text and kept as columns: each column's
differences from one element to the next, zigzagged (small either way), as 64-bit integers whose bytes of
one significance are kept together (the high ones are nearly all zero, which zlib all but removes), under
zlib. The rest of the text, each array's place marked by a NUL (which JSON text never holds), is kept under
zlib as text.

The text read back is the text stored, byte for byte: an array is written back in the layout it was read in
(``json.dumps``' own, with ``", "`` as the probe writes or ``","``), and ``pack`` takes an array out only when
writing it back gives its text exactly; any other array stays in the text. A document kept before this
encoding (a plain zlib stream, schema version 5 and earlier) is read as it was.
"""

import json
import re
import struct
import zlib
from typing import Any

import numpy as np

MAGIC = b"rtsd1"  # a zlib stream from Python starts 0x78, never "r"
PLACE = "\0"
_LEVEL = 6
# Shorter arrays are cheaper as text: the columns' widths and the array's description cost bytes too.
_MIN_NUMBERS = 16
_DIGITS = 18  # numbers of up to 18 digits (and their differences) fit a signed 64-bit integer
# An array of rows of whole numbers, or of whole numbers and nulls.
_ARRAY = re.compile(
    r"\[\[-?\d+(?:, ?-?\d+)*\](?:, ?\[-?\d+(?:, ?-?\d+)*\])+\]|\[(?:-?\d+|null)(?:, ?(?:-?\d+|null))+\]"
)
_NUMBER_OR_NULL = re.compile(r"-?\d+|null")


def pack(text: str) -> bytes:
    """``text`` as the store keeps it."""
    if PLACE in text:  # not JSON text: kept whole
        return zlib.compress(text.encode(), _LEVEL)
    layouts: list[dict[str, Any]] = []
    steps: list[np.ndarray] = []

    def taken(match: re.Match[str]) -> str:
        found = _array(match.group(0))
        if found is None:
            return match.group(0)
        layout, values = found
        layouts.append(layout)
        steps.extend(np.diff(column, prepend=np.int64(0)) for column in values.T)
        return PLACE

    skeleton = _ARRAY.sub(taken, text)
    if not layouts:
        return zlib.compress(text.encode(), _LEVEL)
    head = zlib.compress((json.dumps(layouts, separators=(",", ":")) + "\n" + skeleton).encode(), _LEVEL)
    every = np.concatenate(steps)
    zigzag = ((every << 1) ^ (every >> 63)).view(np.uint64)
    planes = zigzag.astype("<u8").view(np.uint8).reshape(-1, 8).T.tobytes()
    return MAGIC + struct.pack("<I", len(head)) + head + zlib.compress(planes, _LEVEL)


def unpack(data: bytes) -> str:
    """The text :func:`pack` was given."""
    if not data.startswith(MAGIC):
        return zlib.decompress(data).decode()
    (head_length,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    described, skeleton = zlib.decompress(data[start : start + head_length]).decode().split("\n", 1)
    layouts = json.loads(described)
    planes = np.frombuffer(zlib.decompress(data[start + head_length :]), dtype=np.uint8)
    zigzag = np.ascontiguousarray(planes.reshape(8, -1).T).view("<u8").ravel()
    steps = (zigzag >> np.uint64(1)).view(np.int64) ^ -(zigzag & np.uint64(1)).view(np.int64)
    # Each column's numbers are its steps summed from its own start.
    lengths = [layout["rows"] for layout in layouts for _ in range(layout["columns"])]
    sums = np.cumsum(steps)
    ends = np.cumsum(lengths)
    numbers = sums - np.repeat(np.concatenate(([0], sums[ends[:-1] - 1])), lengths)
    parts = skeleton.split(PLACE)
    out = [parts[0]]
    offset = 0
    for layout, part in zip(layouts, parts[1:], strict=True):
        size = layout["rows"] * layout["columns"]
        values = numbers[offset : offset + size].reshape(layout["columns"], layout["rows"]).T
        out += [_text(values, layout), part]
        offset += size
    return "".join(out)


def _array(text: str) -> tuple[dict[str, Any], np.ndarray] | None:
    """How ``text`` is laid out and its numbers (a column per element of a row), or None when it stays
    text: too short, numbers too large, or a layout :func:`_text` does not give back exactly."""
    tokens = _NUMBER_OR_NULL.findall(text)
    nested = text.startswith("[[")
    nulls = [index for index, token in enumerate(tokens) if token == "null"] if "null" in text else []
    if len(tokens) < _MIN_NUMBERS or (nested and nulls) or max(map(len, tokens)) > _DIGITS:
        return None
    for index in nulls:
        tokens[index] = "0"
    per_row = len(_NUMBER_OR_NULL.findall(text[: text.index("]")])) if nested else 1
    if len(tokens) % per_row:
        return None
    values = np.array(tokens).astype(np.int64).reshape(-1, per_row)
    layout = {
        "rows": len(values),
        "columns": per_row,
        "separator": ", " if ", " in text else ",",
        "nested": nested,
        "nulls": nulls,
    }
    return (layout, values) if _text(values, layout) == text else None


def _text(values: np.ndarray, layout: dict[str, Any]) -> str:
    """An array's text, as ``layout`` says it was laid out (``json.dumps``' own layouts)."""
    numbers: list[Any] = values.tolist() if layout["nested"] else values[:, 0].tolist()
    for index in layout["nulls"]:
        numbers[index] = None
    return json.dumps(numbers, separators=(layout["separator"], ":"))
