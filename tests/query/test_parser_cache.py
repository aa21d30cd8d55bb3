"""The string dialect's parser tables are kept in a per-user cache file: a parser loaded
from it parses every query form exactly as one built from the grammar, and a cache that
cannot be written, or a damaged one, changes nothing but the time it takes."""

from __future__ import annotations

import os

import pytest
from lark.exceptions import UnexpectedInput

from glade.query.strings import build_parser, cache_directory

QUERIES = [
    'MATCH (".", p)->("*") WHERE p."name" =~ "P?MPI_.*" AND p."PAPI_L2_TCM" > 5',
    'match (".", p) where p.name starts with "MPI" or p.name ends with "_x"',
    'MATCH ("+", p) WHERE p.name CONTAINS "solve" AND NOT p."time (inc)" <= 2.5',
    'MATCH (2, p)->(".", q) WHERE p.x > 1 OR q.y < 2',
    'MATCH (".", p) WHERE p.t IS NAN OR p.t IS NOT INF OR p.u IS NONE',
    'MATCH (".", p) WHERE p.name IN ["a", "b", 3] AND p.k <> 4 AND p.k != 5',
    'MATCH (".", p) WHERE p IS LEAF AND NOT p IS ROOT',
    'MATCH ("*")->(".", p) WHERE (p.a = 1 OR p.b >= 2) AND p.c = \'x\'',
    'MATCH (".")',
    '{MATCH (".", p) WHERE p.a = 1} AND {MATCH ("*")} XOR NOT {MATCH (".", q) WHERE q.b < 0}',
    '{{MATCH (".", n0) WHERE n0.module = "app"} OR {MATCH (".", n0)->("*", n1) '
    'WHERE n1.name = "main\\\\n"}}',
]
BAD = ['MATCH (".", p) WHERE', 'MATCH (".", p) WHERE p.x >> 1', "MATCH ("]


def parsed(parser) -> list:
    return [parser.parse(text) for text in QUERIES]


def errors(parser) -> list:
    out = []
    for text in BAD:
        with pytest.raises(UnexpectedInput) as caught:
            parser.parse(text)
        out.append((type(caught.value), caught.value.line, caught.value.column))
    return out


def test_a_parser_from_the_cache_parses_as_one_built_from_the_grammar(tmp_path):
    built = build_parser(None)
    expected, expected_errors = parsed(built), errors(built)
    directory = tmp_path / "cache" / "glade"
    writing = build_parser(directory)
    (cache,) = directory.iterdir()
    assert cache.stat().st_size > 0
    loaded = build_parser(directory)
    for parser in (writing, loaded):
        assert parsed(parser) == expected
        assert errors(parser) == expected_errors


def test_an_unwritable_or_damaged_cache_changes_nothing(tmp_path):
    expected = parsed(build_parser(None))
    blocked = tmp_path / "a file"
    blocked.write_text("not a directory")
    assert parsed(build_parser(blocked / "glade")) == expected
    directory = tmp_path / "glade"
    build_parser(directory)
    (cache,) = directory.iterdir()
    cache.write_bytes(b"damaged\n" + bytes(range(256)))
    assert parsed(build_parser(directory)) == expected
    # the damaged file was replaced by a good one
    assert parsed(build_parser(directory)) == expected
    assert cache.read_bytes()[:8] != b"damaged\n"


def test_a_cache_others_may_write_to_is_never_read(tmp_path):
    """The cache is a pickle: in a directory others may write to, or that belongs to
    someone else, it is neither read nor written."""
    expected = parsed(build_parser(None))
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert parsed(build_parser(shared)) == expected
    assert list(shared.iterdir()) == []
    if os.getuid() == 0:  # root can give a directory away
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        assert parsed(build_parser(theirs)) == expected
        assert list(theirs.iterdir()) == []


def test_the_cache_is_the_users_own(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_directory() == tmp_path / "glade"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_directory() == tmp_path / "home" / ".cache" / "glade"
