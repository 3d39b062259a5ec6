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
encoding (a plain zlib stream, schema version 5 and earlier) is read as it was. ``document`` parses the
packed form straight, each array put in as a list, without writing its text to parse it again.

numpy is imported by the functions that pack and unpack, not with this module (as rtscope.analysis.stats
explains): every command opens the store, and one that never reads a packed document need not pay numpy's
start-up.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"rtsd1"  # a zlib stream from Python starts 0x78, never "r"
PLACE = "\0"
_MARK = json.dumps(PLACE)  # an array's place in the skeleton, as a JSON string to parse
_LEVEL = 6
# Shorter arrays are cheaper as text: an array's layout costs bytes too.
_MIN_NUMBERS = 16
_LARGEST = 10**18  # numbers below it, and their differences, fit a signed 64-bit integer
# An array of rows of whole numbers, or of whole numbers and nulls.
_ARRAY = re.compile(
    r"\[\[-?\d+(?:, ?-?\d+)*\](?:, ?\[-?\d+(?:, ?-?\d+)*\])+\]|\[(?:-?\d+|null)(?:, ?(?:-?\d+|null))+\]"
)


def pack(text: str) -> bytes:
    """``text`` as the store keeps it."""
    if PLACE in text:  # not JSON text: kept whole
        return zlib.compress(text.encode(), _LEVEL)
    import numpy as np

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
    skeleton, arrays = _unpacked(data)
    parts = skeleton.split(PLACE)
    out = [parts[0]]
    for (layout, values), part in zip(arrays, parts[1:], strict=True):
        out += [_text(values, layout), part]
    return "".join(out)


def document(data: bytes) -> Any:
    """``json.loads(unpack(data))``, in a fraction of the time: the arrays taken out go into the parsed
    skeleton as lists, never written as text to be parsed again (a long-term picture reads thousands)."""
    if not data.startswith(MAGIC):
        return json.loads(zlib.decompress(data))
    skeleton, arrays = _unpacked(data)
    try:
        whole = json.loads(skeleton.replace(PLACE, _MARK))
    except ValueError:  # an array was taken out of a string's text: the mark broke the string
        return json.loads(unpack(data))
    lists = iter([_numbers(values, layout) for layout, values in arrays])
    placed = 0

    def fill(container: Any) -> None:
        """Each mark in ``container`` and below replaced by the next array, in the order of the text."""
        nonlocal placed
        for key, item in container.items() if type(container) is dict else enumerate(container):
            if type(item) is dict or type(item) is list:
                fill(item)
            elif item == PLACE:
                container[key] = next(lists, None)
                placed += 1

    if type(whole) is dict or type(whole) is list:
        fill(whole)
    # A string of the document's own that is a NUL alone, or an array dropped by a repeated key: as text.
    return whole if placed == len(arrays) else json.loads(unpack(data))


def _unpacked(data: bytes) -> tuple[str, list[tuple[dict[str, Any], np.ndarray]]]:
    """The skeleton of packed ``data`` and each array taken out of it, in order: its layout and numbers."""
    import numpy as np

    (head_length,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    described, skeleton = zlib.decompress(data[start : start + head_length]).decode().split("\n", 1)
    layouts = json.loads(described)
    planes = np.frombuffer(zlib.decompress(data[start + head_length :]), dtype=np.uint8)
    zigzag = np.ascontiguousarray(planes.reshape(8, -1).T).view("<u8").ravel()
    steps = (zigzag >> np.uint64(1)).view(np.int64) ^ -(zigzag & np.uint64(1)).view(np.int64)
    # Each column's numbers are its steps summed from its own start: the running sum over every column less
    # its value where the column starts (exact even where that sum wraps past 64 bits: the difference
    # of two wrapped sums is the true one).
    lengths = [layout["rows"] for layout in layouts for _ in range(layout["columns"])]
    sums = np.cumsum(steps)
    ends = np.cumsum(lengths)
    numbers = sums - np.repeat(np.concatenate(([0], sums[ends[:-1] - 1])), lengths)
    arrays = []
    offset = 0
    for layout in layouts:
        size = layout["rows"] * layout["columns"]
        arrays.append((layout, numbers[offset : offset + size].reshape(layout["columns"], layout["rows"]).T))
        offset += size
    return skeleton, arrays


def _array(text: str) -> tuple[dict[str, Any], np.ndarray] | None:
    """How ``text`` is laid out and its numbers (a column per element of a row), or None when it stays
    text: too short, numbers too large, or a layout :func:`_text` does not give back exactly."""
    parsed = json.loads(text)  # whole numbers and nulls alone (_ARRAY), or rows of whole numbers
    nested = text.startswith("[[")
    nulls = [index for index, value in enumerate(parsed) if value is None] if "null" in text else []
    per_row = len(parsed[0]) if nested else 1
    if len(parsed) * per_row < _MIN_NUMBERS or (nested and any(len(row) != per_row for row in parsed)):
        return None
    for index in nulls:
        parsed[index] = 0
    import numpy as np

    try:
        values = np.array(parsed, dtype=np.int64).reshape(-1, per_row)
    except OverflowError:
        return None
    if np.abs(values).max() >= _LARGEST:
        return None
    separator = ", " if ", " in text else ","
    layout = {"rows": len(values), "columns": per_row, "separator": separator, "nested": nested, "nulls": nulls}
    return (layout, values) if _text(values, layout) == text else None


def _text(values: np.ndarray, layout: dict[str, Any]) -> str:
    """An array's text, as ``layout`` says it was laid out (``json.dumps``' own layouts)."""
    return json.dumps(_numbers(values, layout), separators=(layout["separator"], ":"))


def _numbers(values: np.ndarray, layout: dict[str, Any]) -> list[Any]:
    """An array as JSON parses it: a list of numbers (None for a null), or of lists of numbers."""
    numbers: list[Any] = values.tolist() if layout["nested"] else values[:, 0].tolist()
    for index in layout["nulls"]:
        numbers[index] = None
    return numbers
