"""The store's encoding of a document (rtscope.store.encoding): the text read back is the text stored, byte
for byte, whatever the text; the arrays of numbers of a monitored window take a fraction of zlib's bytes; a
document stored before it (a zlib stream) is read as it was. And a document's canonical text
(result.text_of), which puts those arrays on one line."""

import json
import os
import random
import subprocess
import sys
import zlib
from datetime import UTC, datetime

import numpy as np
import pytest

from conftest import REPO
from rtscope.model import result
from rtscope.store import encoding
from support import builders, windows

WINDOW_TEXT = windows.probe_text(
    windows.drawn_window_doc(
        np.random.default_rng(7), windows.Shape(), "0000000000000001", "rpi4", 1, datetime(2026, 1, 1, tzinfo=UTC)
    )
)


@pytest.mark.parametrize(
    "text",
    [
        WINDOW_TEXT,
        result.text_of(json.loads(WINDOW_TEXT)),
        json.dumps(json.loads(WINDOW_TEXT), separators=(",", ":")),
        json.dumps(json.loads(WINDOW_TEXT), indent=2),  # every number on a line of its own: left as text
        json.dumps(builders.result_doc(), indent=2),
        "not JSON: \0 [" + ", ".join(map(str, range(40))) + "]",  # a NUL marks an array's place: kept whole
    ],
    ids=["probe", "canonical", "compact", "indented", "small", "nul"],
)
def test_a_document_reads_back_byte_for_byte(text):
    packed = encoding.pack(text)
    assert encoding.unpack(packed) == text
    if "\0" not in text:  # JSON: parsed straight from the packed form as from the text
        assert encoding.document(packed) == json.loads(text)


@pytest.mark.parametrize(
    "array",
    [
        "[" + ", ".join(["-0"] * 20) + "]",  # -0 writes back as 0: left as text
        "[" + ", ".join(["1"] * 19 + ["1234567890123456789012"]) + "]",  # beyond 64 bits
        "[" + ", ".join(["1.5"] * 20) + "]",  # not whole numbers
        "[" + ",".join(["1"] * 10) + ", " + ", ".join(["2"] * 10) + "]",  # two separators
        "[[1, 2], [3, 4, 5, 6], " + ", ".join(["[7, 8]"] * 10) + "]",  # rows of different lengths
        "[" + ", ".join(["null", "3", "-5"] * 10) + "]",  # a series with empty windows
        "[" + ", ".join(str(n) for n in range(-(2**62), 2**63 - 1, 2**59)) + "]",  # wide differences
        "[" + ", ".join(["1"] * 10) + "]",  # short: left as text
        "[ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 ]",  # a layout json.dumps never writes
    ],
)
def test_any_array_reads_back_byte_for_byte(array):
    text = json.dumps({"a": "x", "inside": f"a string holding {array}"})[:-1] + f', "b": {array}}}'
    assert encoding.unpack(encoding.pack(text)) == text
    assert encoding.document(encoding.pack(text)) == json.loads(text)


def test_random_documents_read_back_byte_for_byte():
    rng = random.Random(2026)

    def value(depth: int) -> object:
        kind = rng.randrange(6 if depth < 4 else 3)
        if kind == 0:
            return rng.choice([None, True, 1.25, -7, "s", "[1, 2]", "\u0000"])
        if kind in (1, 2):
            return [rng.randrange(-(10 ** rng.randrange(1, 19)), 10**18) for _ in range(rng.randrange(40))]
        if kind == 3:
            width = rng.randrange(1, 4)
            return [[rng.randrange(-99, 10**9) for _ in range(width)] for _ in range(rng.randrange(30))]
        if kind == 4:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {f"k{n}": value(depth + 1) for n in range(rng.randrange(4))}

    for _ in range(300):
        doc = value(0)
        for text in (json.dumps(doc), json.dumps(doc, separators=(",", ":")), json.dumps(doc, indent=2)):
            assert encoding.unpack(encoding.pack(text)) == text
            assert encoding.document(encoding.pack(text)) == doc


def test_a_monitored_window_takes_under_half_of_zlibs_bytes():
    assert len(encoding.pack(WINDOW_TEXT)) < len(zlib.compress(WINDOW_TEXT.encode(), 6)) / 2


def test_a_document_stored_before_the_encoding_is_read_as_it_was():
    assert encoding.unpack(zlib.compress(WINDOW_TEXT.encode(), 6)) == WINDOW_TEXT
    assert encoding.document(zlib.compress(WINDOW_TEXT.encode(), 6)) == json.loads(WINDOW_TEXT)


def test_a_string_of_the_documents_own_that_looks_like_a_place_is_read_as_text():
    """A NUL string of its own, a repeated key holding an array: the parsed skeleton would misplace
    the arrays, so the document is parsed from its text."""
    numbers = "[" + ", ".join(map(str, range(30))) + "]"
    for text in (
        json.dumps({"a": "\u0000", "b": list(range(30))}),
        '{"a": ' + numbers + ', "a": ' + numbers + ', "c": [' + numbers + "]}",
    ):
        assert encoding.document(encoding.pack(text)) == json.loads(text)


def test_the_canonical_text_is_the_document_with_its_arrays_of_numbers_on_one_line():
    doc = json.loads(WINDOW_TEXT)
    text = result.text_of(doc)
    assert json.loads(text) == doc and text.endswith("}\n")
    assert '"buckets": [[' in text and '"scheme": "log-linear",\n' in text
    assert len(text.splitlines()) < len(json.dumps(doc, indent=2).splitlines()) / 10


def test_a_document_with_a_nul_string_of_its_own_is_indented_whole():
    doc = builders.result_doc()
    doc["label"] = "\u0000"
    text = result.text_of(doc)
    assert json.loads(text) == doc and text == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_columns_whose_running_sum_passes_64_bits_read_back():
    largest = 10**18 - 1  # the largest number packed: twelve columns of it sum past 2^63
    doc = {f"k{n}": [largest] * 16 for n in range(12)}
    text = json.dumps(doc)
    assert encoding.pack(text).startswith(encoding.MAGIC)
    assert encoding.unpack(encoding.pack(text)) == text and encoding.document(encoding.pack(text)) == doc


def test_the_command_line_and_its_store_start_without_numpy():
    """numpy is imported when a packed document is written or read, not when a command starts: `--version`,
    `list`, a help or a refusal cost no numpy start-up (about 0.2 s of a CPU each here)."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import sys; from rtscope import cli; from rtscope.store import database; cli.build_parser(); "
                "print(' '.join(sorted({name.split('.')[0] for name in sys.modules} & {'numpy', 'scipy'})))"
            ),
        ],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    ).stdout.split()
    assert loaded == []
