"""A compiled scanner of JSON arrays of flat objects (trace events), for the Chrome
reader: one pass over the bytes, compiled with numba, that validates the JSON (syntax,
UTF-8, nesting depth) and records, for every object of the array, where the values of
a few known keys are (their kind and byte span) and the numbers of the numeric keys.
No Python object is made per event: the caller types the columns in bulk (strings are
interned by a hash of their bytes, numbers come parsed) and decodes only the values
it cannot type that way (nested ``args`` objects, rare numbers).

Numbers are parsed exactly: a number with at most 15 significant digits and a decimal
exponent within 22 is one correctly rounded division or multiplication of two exact
doubles (Clinger's fast path); any other number is left NaN for the caller to parse
with ``float`` (NaN is not a JSON number, so it marks those).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from glade.compiled import kernel

#: Kinds of the value of a key.
ABSENT, NUMBER, STRING, NULL, BOOL, ARRAY, OBJECT = range(7)
KINDS = 7
#: The keys whose values are recorded, in column order; the first ``len(NUMERIC)``
#: of ``KEYS`` after the text keys are parsed as numbers.
TEXT_KEYS = ("ph", "name", "cat", "id")
NUMERIC = ("ts", "dur", "pid", "tid")
KEYS = (*TEXT_KEYS, *NUMERIC, "args")
#: How deeply arrays and objects may nest (the event array counts).
MAX_DEPTH = 256

#: Scan results: the chunk is full, the array closed, the input ended inside the array.
MORE, END, EOF = 0, 1, 2
#: Errors (info[0]) and where they are (info[1], a byte offset).
SYNTAX, DEPTH, UTF8, CONTROL, NOT_OBJECT = 1, 2, 3, 4, 5
ERRORS = {
    SYNTAX: "invalid JSON",
    DEPTH: f"JSON nested deeper than {MAX_DEPTH} levels",
    UTF8: "not UTF-8 text",
    CONTROL: "invalid JSON (a control character in a string)",
    NOT_OBJECT: "every event must be a JSON object",
}

_POW10 = np.array([10.0**k for k in range(23)])
_QUOTE, _BACKSLASH, _COLON, _COMMA = 34, 92, 58, 44
_TRUE, _FALSE, _NULL = (np.frombuffer(w, dtype=np.uint8) for w in (b"true", b"false", b"null"))
_LBRACE, _RBRACE, _LBRACKET, _RBRACKET = 123, 125, 91, 93


@kernel
def skip_space(data, pos):
    """The position of the first byte at or after ``pos`` that is not JSON whitespace
    (``data.size`` when there is none).

    Parameters
    ----------
    data : numpy.ndarray
        The bytes (``uint8``).
    pos : int
        Where to start.

    Returns
    -------
    int
        The position.

    Examples
    --------
    >>> import numpy as np
    >>> skip_space(np.frombuffer(b"[  1]", dtype=np.uint8), 1)
    3
    """
    n = data.size
    while pos < n:
        c = data[pos]
        if c != 32 and c != 10 and c != 13 and c != 9:
            return pos
        pos += 1
    return pos


@kernel
def _fail(info, code, pos):
    info[0] = code
    info[1] = pos
    return -1


@kernel
def _utf8(data, pos, info):
    """The position after the UTF-8 sequence that starts at ``pos`` (a byte >= 0x80)."""
    n = data.size
    c = data[pos]
    if 0xC2 <= c <= 0xDF:
        length, low, high = 2, 0x80, 0xBF
    elif 0xE0 <= c <= 0xEF:
        length = 3
        low = 0xA0 if c == 0xE0 else 0x80
        high = 0x9F if c == 0xED else 0xBF
    elif 0xF0 <= c <= 0xF4:
        length = 4
        low = 0x90 if c == 0xF0 else 0x80
        high = 0x8F if c == 0xF4 else 0xBF
    else:
        return _fail(info, UTF8, pos)
    if pos + length > n:
        return _fail(info, UTF8, pos)
    second = data[pos + 1]
    if second < low or second > high:
        return _fail(info, UTF8, pos)
    for k in range(2, length):
        if data[pos + k] < 0x80 or data[pos + k] > 0xBF:
            return _fail(info, UTF8, pos)
    return pos + length


@kernel
def _string(data, pos, info):
    """The position after the string whose opening quote is at ``pos`` (its closing
    quote is one before); -1 on an error."""
    n = data.size
    pos += 1
    while pos < n:
        c = data[pos]
        if c == _QUOTE:
            return pos + 1
        if c == _BACKSLASH:
            if pos + 1 >= n:
                return _fail(info, SYNTAX, pos)
            e = data[pos + 1]
            if e == 117:  # \uXXXX
                if pos + 6 > n:
                    return _fail(info, SYNTAX, pos)
                for k in range(2, 6):
                    h = data[pos + k]
                    if not (48 <= h <= 57 or 65 <= h <= 70 or 97 <= h <= 102):
                        return _fail(info, SYNTAX, pos)
                pos += 6
            elif e in (_QUOTE, _BACKSLASH, 47, 98, 102, 110, 114, 116):
                pos += 2
            else:
                return _fail(info, SYNTAX, pos)
        elif c < 32:
            return _fail(info, CONTROL, pos)
        elif c >= 128:
            pos = _utf8(data, pos, info)
            if pos < 0:
                return -1
        else:
            pos += 1
    return _fail(info, SYNTAX, n)


@kernel
def _number(data, pos, info, out):
    """Parse the number at ``pos`` into ``out[0]`` (NaN when it needs an exact slow
    parse); the position after it, or -1."""
    n = data.size
    start = pos
    negative = data[pos] == 45
    if negative:
        pos += 1
    if pos >= n or not (48 <= data[pos] <= 57):
        return _fail(info, SYNTAX, start)
    mantissa = np.uint64(0)
    digits = 0
    exponent = 0
    if data[pos] == 48:
        pos += 1
    else:
        while pos < n and 48 <= data[pos] <= 57:
            if digits < 19:
                mantissa = mantissa * np.uint64(10) + np.uint64(data[pos] - 48)
                digits += 1
            else:
                exponent += 1
                digits += 1
            pos += 1
    if pos < n and data[pos] == 46:
        pos += 1
        if pos >= n or not (48 <= data[pos] <= 57):
            return _fail(info, SYNTAX, pos)
        while pos < n and 48 <= data[pos] <= 57:
            if digits < 19:
                if mantissa != 0 or data[pos] != 48:
                    digits += 1
                mantissa = mantissa * np.uint64(10) + np.uint64(data[pos] - 48)
                exponent -= 1
            else:
                digits += 1
            pos += 1
    if pos < n and (data[pos] == 101 or data[pos] == 69):
        pos += 1
        sign = 1
        if pos < n and (data[pos] == 43 or data[pos] == 45):
            sign = -1 if data[pos] == 45 else 1
            pos += 1
        if pos >= n or not (48 <= data[pos] <= 57):
            return _fail(info, SYNTAX, pos)
        power = 0
        while pos < n and 48 <= data[pos] <= 57:
            if power < 100000:
                power = power * 10 + (data[pos] - 48)
            pos += 1
        exponent += sign * power
    if mantissa == 0:
        out[0] = -0.0 if negative else 0.0
    elif digits <= 15 and -22 <= exponent <= 22:
        value = float(mantissa)
        value = value * _POW10[exponent] if exponent >= 0 else value / _POW10[-exponent]
        out[0] = -value if negative else value
    else:
        out[0] = np.nan
    return pos


@kernel
def _matches(data, pos, word):
    """Whether the bytes at ``pos`` spell ``word``."""
    if pos + word.size > data.size:
        return False
    for j in range(word.size):  # noqa: SIM110 (compiled: a loop, no temporary array)
        if data[pos + j] != word[j]:
            return False
    return True


@kernel
def _literal(data, pos, info):
    """The position after ``true``, ``false`` or ``null`` at ``pos``, or -1."""
    c = data[pos]
    word = _TRUE if c == 116 else (_FALSE if c == 102 else _NULL)
    if not _matches(data, pos, word):
        return _fail(info, SYNTAX, pos)
    return pos + word.size


@kernel
def _key(data, pos, info):
    """At a key of an object: the position after ``"key" :`` (ws skipped), or -1."""
    if pos >= data.size or data[pos] != _QUOTE:
        return _fail(info, SYNTAX, pos)
    pos = _string(data, pos, info)
    if pos < 0:
        return -1
    pos = skip_space(data, pos)
    if pos >= data.size or data[pos] != _COLON:
        return _fail(info, SYNTAX, pos)
    return skip_space(data, pos + 1)


@kernel
def _skip(data, pos, depth, info, number, stack):
    """The position after the JSON value at ``pos`` (validated; arrays and objects
    nest at most to ``MAX_DEPTH`` counting ``depth`` levels around it), or -1."""
    n = data.size
    level = 0
    while True:
        # a value starts here
        pos = skip_space(data, pos)
        if pos >= n:
            return _fail(info, SYNTAX, n)
        c = data[pos]
        opened = False
        if c in (_LBRACE, _LBRACKET):
            if depth + level + 1 > MAX_DEPTH:
                return _fail(info, DEPTH, pos)
            stack[level] = c
            level += 1
            pos = skip_space(data, pos + 1)
            if pos >= n:
                return _fail(info, SYNTAX, n)
            close = _RBRACE if c == _LBRACE else _RBRACKET
            if data[pos] == close:
                level -= 1
                pos += 1
            else:
                opened = True
                if c == _LBRACE:
                    pos = _key(data, pos, info)
                    if pos < 0:
                        return -1
        elif c == _QUOTE:
            pos = _string(data, pos, info)
        elif c == 45 or 48 <= c <= 57:
            pos = _number(data, pos, info, number)
        elif c == 116 or c == 102 or c == 110:
            pos = _literal(data, pos, info)
        else:
            return _fail(info, SYNTAX, pos)
        if pos < 0:
            return -1
        if opened:
            continue
        # after a value: close containers or go to the next element
        while True:
            if level == 0:
                return pos
            pos = skip_space(data, pos)
            if pos >= n:
                return _fail(info, SYNTAX, n)
            c = data[pos]
            top = stack[level - 1]
            if c == _COMMA:
                pos = skip_space(data, pos + 1)
                if top == _LBRACE:
                    pos = _key(data, pos, info)
                    if pos < 0:
                        return -1
                break
            if (c == _RBRACE and top == _LBRACE) or (c == _RBRACKET and top == _LBRACKET):
                level -= 1
                pos += 1
            else:
                return _fail(info, SYNTAX, pos)


@kernel
def is_valid(data):
    """Whether the bytes ``data`` are one JSON value with only whitespace around it,
    valid UTF-8, nested at most :data:`MAX_DEPTH` levels.

    Parameters
    ----------
    data : numpy.ndarray
        The bytes of a document (``uint8``).

    Returns
    -------
    bool
        True when the whole of ``data`` is valid JSON within the depth.

    Examples
    --------
    >>> import numpy as np
    >>> bool(is_valid(np.frombuffer(b' [1, {"a": "b"}] ', dtype=np.uint8)))
    True
    >>> bool(is_valid(np.frombuffer(b"[1,]", dtype=np.uint8)))
    False
    """
    info = np.zeros(2, dtype=np.int64)
    number = np.empty(1)
    stack = np.empty(MAX_DEPTH + 1, dtype=np.uint8)
    pos = _skip(data, 0, 0, info, number, stack)
    return pos >= 0 and skip_space(data, pos) == data.size


@kernel
def which_key(data, start, stop, keys, lengths):
    """The row of ``keys`` (padded key bytes, ``lengths`` long, as :func:`key_table`
    makes them) that spells ``data[start:stop]``, or -1.

    Parameters
    ----------
    data : numpy.ndarray
        The bytes (``uint8``).
    start, stop : int
        The span of a key (inside its quotes).
    keys, lengths : numpy.ndarray
        The key table.

    Returns
    -------
    int
        The row, or -1.

    Examples
    --------
    >>> import numpy as np
    >>> which_key(np.frombuffer(b'"dur"', dtype=np.uint8), 1, 4, *key_table(("ts", "dur")))
    1
    """
    length = stop - start
    for k in range(lengths.size):
        if lengths[k] != length:
            continue
        same = True
        for j in range(length):
            if data[start + j] != keys[k, j]:
                same = False
                break
        if same:
            return k
    return -1


@kernel
def _event(data, pos, row, depth, keys, lengths, kind, start, stop, numbers, info, number, stack):
    """Record the object at ``pos`` (its ``{``) in row ``row``; the position after it."""
    n = data.size
    pos = skip_space(data, pos + 1)
    if pos < n and data[pos] == _RBRACE:
        return pos + 1
    first_numeric = len(TEXT_KEYS)
    while True:
        if pos >= n or data[pos] != _QUOTE:
            return _fail(info, SYNTAX, pos)
        key_start = pos + 1
        pos = _string(data, pos, info)
        if pos < 0:
            return -1
        field = which_key(data, key_start, pos - 1, keys, lengths)
        pos = skip_space(data, pos)
        if pos >= n or data[pos] != _COLON:
            return _fail(info, SYNTAX, pos)
        pos = skip_space(data, pos + 1)
        if pos >= n:
            return _fail(info, SYNTAX, n)
        c = data[pos]
        begin = pos
        if c == _QUOTE:
            what = STRING
            pos = _string(data, pos, info)
        elif c == 45 or 48 <= c <= 57:
            what = NUMBER
            pos = _number(data, pos, info, number)
        elif c == 116 or c == 102:
            what = BOOL
            pos = _literal(data, pos, info)
        elif c == 110:
            what = NULL
            pos = _literal(data, pos, info)
        elif c in (_LBRACE, _LBRACKET):
            what = OBJECT if c == _LBRACE else ARRAY
            pos = _skip(data, pos, depth + 1, info, number, stack)
        else:
            return _fail(info, SYNTAX, pos)
        if pos < 0:
            return -1
        if field >= 0:
            kind[row, field] = what
            if what == STRING:
                start[row, field] = begin + 1
                stop[row, field] = pos - 1
            else:
                start[row, field] = begin
                stop[row, field] = pos
            k = field - first_numeric
            if 0 <= k < numbers.shape[1]:
                numbers[row, k] = number[0] if what == NUMBER else np.nan
        pos = skip_space(data, pos)
        if pos >= n:
            return _fail(info, SYNTAX, n)
        if data[pos] == _COMMA:
            pos = skip_space(data, pos + 1)
        elif data[pos] == _RBRACE:
            return pos + 1
        else:
            return _fail(info, SYNTAX, pos)


@kernel
def scan(data, pos, first, depth, keys, lengths, kind, start, stop, numbers, offset, info):
    """Scan the events of the array from ``pos`` (just after its ``[`` when ``first``,
    else just after a comma) into the rows of ``kind``/``start``/``stop``/``numbers``
    (and each event's byte ``offset``), until they are full or the array ends.

    Returns (result, position, events scanned): MORE with the position of the next
    event, END with the position after the closing ``]``, EOF when the input ended
    after a complete event (or a comma after one); result -1 on an error (``info``)."""
    n = data.size
    capacity = kind.shape[0]
    number = np.empty(1)
    stack = np.empty(MAX_DEPTH + 1, dtype=np.uint8)
    kind[:] = ABSENT
    numbers[:] = np.nan
    row = 0
    while True:
        pos = skip_space(data, pos)
        if pos >= n:
            return EOF, pos, row
        c = data[pos]
        if c == _RBRACKET and first and row == 0:
            return END, pos + 1, row
        if row == capacity:
            return MORE, pos, row
        if c != _LBRACE:
            if c in (_LBRACKET, _QUOTE, 45, 116, 102, 110) or 48 <= c <= 57:
                _fail(info, NOT_OBJECT, pos)
            else:
                _fail(info, SYNTAX, pos)
            return -1, pos, row
        if depth + 1 > MAX_DEPTH:
            _fail(info, DEPTH, pos)
            return -1, pos, row
        offset[row] = pos
        pos = _event(
            data,
            pos,
            row,
            depth + 1,
            keys,
            lengths,
            kind,
            start,
            stop,
            numbers,
            info,
            number,
            stack,
        )
        if pos < 0:
            return -1, info[1], row
        row += 1
        first = False
        pos = skip_space(data, pos)
        if pos >= n:
            return EOF, pos, row
        c = data[pos]
        if c == _COMMA:
            pos += 1
        elif c == _RBRACKET:
            return END, pos + 1, row
        else:
            _fail(info, SYNTAX, pos)
            return -1, pos, row


@kernel
def _same(data, a, a_stop, b, b_stop):
    """Whether two spans hold the same bytes."""
    if a_stop - a != b_stop - b:
        return False
    for j in range(a_stop - a):  # noqa: SIM110 (compiled: no generator)
        if data[a + j] != data[b + j]:
            return False
    return True


@kernel
def intern(data, start, stop, present):
    """Codes of the spans ``data[start:stop]`` at the ``present`` rows (-1 elsewhere),
    equal bytes sharing a code, numbered in order of first appearance; and the row of
    the first appearance of each code. One pass with a hash table (FNV-1a hashes,
    bytes compared on a hit), no sort."""
    n = start.size
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int64)
    codes = np.full(n, -1, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    count = 0
    prime = np.uint64(1099511628211)
    for i in range(n):
        if not present[i]:
            continue
        h = np.uint64(14695981039346656037)
        for p in range(start[i], stop[i]):
            h = (h ^ np.uint64(data[p])) * prime
        slot = h & mask
        while True:
            code = table[slot]
            if code < 0:
                table[slot] = count
                first[count] = i
                codes[i] = count
                count += 1
                break
            j = first[code]
            if _same(data, start[i], stop[i], start[j], stop[j]):
                codes[i] = code
                break
            slot = (slot + np.uint64(1)) & mask
    return codes, first[:count]


@kernel
def _integer(data, start, stop):
    """The JSON number ``data[start:stop]`` as an int64 when it is an integer of at
    most 18 digits (exact), with a flag saying whether it is."""
    negative = data[start] == 45
    pos = start + 1 if negative else start
    if stop - pos > 18:
        return False, 0
    value = 0
    for p in range(pos, stop):
        c = data[p]
        if c < 48 or c > 57:
            return False, 0
        value = value * 10 + (c - 48)
    return True, -value if negative else value


@kernel
def members(
    data,
    objects,
    key_start,
    key_stop,
    kind,
    value_start,
    value_stop,
    numbers,
    integers,
    integral,
    owner,
):
    """The members of the objects starting at byte offsets ``objects`` (spans already
    validated by :func:`scan`): for each, its key span, its value's kind and span, its
    number (NaN when not a number or left for an exact parse), its integer value and
    whether it is an integer, and the index of its object. Returns how many."""
    info = np.zeros(2, dtype=np.int64)
    number = np.empty(1)
    stack = np.empty(MAX_DEPTH + 1, dtype=np.uint8)
    m = 0
    for i in range(objects.size):
        pos = skip_space(data, objects[i] + 1)
        if data[pos] == _RBRACE:
            continue
        while True:
            key_start[m] = pos + 1
            pos = _string(data, pos, info)
            key_stop[m] = pos - 1
            pos = skip_space(data, skip_space(data, pos) + 1)
            kind[m], value_start[m], value_stop[m], pos, integral[m], integers[m] = value(
                data, pos, info, number, stack
            )
            numbers[m] = number[0]
            owner[m] = i
            m += 1
            pos = skip_space(data, pos)
            if data[pos] != _COMMA:
                break
            pos = skip_space(data, pos + 1)
    return m


@kernel
def value(data, pos, info, number, stack):
    """The (validated) JSON value at ``pos``: its kind, its span (inside the quotes of a
    string), the position after it, and for a number whether it is an integer of at
    most 18 digits and which (its parse goes to ``number[0]``: NaN when it is not a
    number or is left for an exact parse). Containers are skipped.

    Parameters
    ----------
    data : numpy.ndarray
        The bytes of a document that :func:`is_valid` accepts (``uint8``).
    pos : int
        Where the value starts.
    info, number, stack : numpy.ndarray
        Scratch space: two int64, one float64, ``MAX_DEPTH + 1`` uint8.

    Returns
    -------
    tuple
        ``(kind, start, stop, after, integral, integer)``.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.frombuffer(b'[12, "ab"]', dtype=np.uint8)
    >>> scratch = (np.zeros(2, np.int64), np.empty(1), np.empty(MAX_DEPTH + 1, np.uint8))
    >>> kind, start, stop, after, integral, integer = value(data, 1, *scratch)
    >>> kind == NUMBER, start, stop, after, bool(integral), integer
    (True, 1, 3, 3, True, 12)
    >>> value(data, 5, *scratch)[:4] == (STRING, 6, 8, 9)
    True
    """
    c = data[pos]
    number[0] = np.nan
    if c == _QUOTE:
        after = _string(data, pos, info)
        return STRING, pos + 1, after - 1, after, False, 0
    if c == 45 or 48 <= c <= 57:
        after = _number(data, pos, info, number)
        integral, integer = _integer(data, pos, after)
        return NUMBER, pos, after, after, integral, integer
    if c == 116 or c == 102 or c == 110:
        after = _literal(data, pos, info)
        return (NULL if c == 110 else BOOL), pos, after, after, False, 0
    after = _skip(data, pos, 0, info, number, stack)
    number[0] = np.nan
    return (OBJECT if c == _LBRACE else ARRAY), pos, after, after, False, 0


def key_table(keys: tuple[str, ...] = KEYS) -> tuple[np.ndarray, np.ndarray]:
    """Keys as :func:`scan` and :func:`which_key` compare with them: their UTF-8 bytes
    (one row each, padded) and their lengths.

    Parameters
    ----------
    keys : tuple of str, default KEYS
        The keys (default: those :func:`scan` records).

    Returns
    -------
    tuple of numpy.ndarray
        ``(bytes, lengths)``.

    Examples
    --------
    >>> table, lengths = key_table(("ts", "dur"))
    >>> table.shape, lengths.tolist()
    ((2, 3), [2, 3])
    """
    encoded = [k.encode() for k in keys]
    width = max(len(k) for k in encoded)
    table = np.array([list(k.ljust(width, b"\0")) for k in encoded], dtype=np.uint8)
    return table, np.array([len(k) for k in encoded], dtype=np.int64)


@kernel
def count_byte(data, byte):
    """How many times ``byte`` occurs in ``data`` (one pass, no temporary array).

    Parameters
    ----------
    data : numpy.ndarray
        The bytes (``uint8``).
    byte : int
        The byte value.

    Returns
    -------
    int
        The count.

    Examples
    --------
    >>> import numpy as np
    >>> count_byte(np.frombuffer(b'[{}, {"a": {}}]', dtype=np.uint8), ord("{"))
    3
    """
    count = 0
    for c in data:
        if c == byte:
            count += 1
    return count


@kernel
def _gather(data, start, length, offsets):
    """The bytes ``data[start[i] : start[i] + length[i]]`` one after the other (the i-th
    at ``offsets[i]``)."""
    out = np.empty(offsets[-1], dtype=np.uint8)
    for i in range(start.size):
        out[offsets[i] : offsets[i] + length[i]] = data[start[i] : start[i] + length[i]]
    return out


def text_column(data: np.ndarray, start: np.ndarray, stop: np.ndarray, valid: np.ndarray):
    """The strings ``data[start[i]:stop[i]]`` (escape-free UTF-8, as :func:`is_valid`
    accepts it) as a pandas ``str`` column, NaN where not ``valid``: what pandas makes of
    the same strings decoded one by one, built from one copy of the bytes.

    Parameters
    ----------
    data : numpy.ndarray
        The bytes (``uint8``).
    start, stop : numpy.ndarray
        The span of every string (int64; ignored where not valid).
    valid : numpy.ndarray
        Which rows have a string (bool).

    Returns
    -------
    pandas.Series
        The column.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.frombuffer(b'"ab" "c"', dtype=np.uint8)
    >>> valid = np.array([True, False, True])
    >>> text_column(data, np.array([1, 0, 6]), np.array([3, 0, 7]), valid).tolist()
    ['ab', nan, 'c']
    """
    length = np.where(valid, stop - start, 0)
    offsets = np.zeros(valid.size + 1, dtype=np.int64)
    np.cumsum(length, out=offsets[1:])
    strings = pa.Array.from_buffers(
        pa.large_string(),
        valid.size,
        [
            pa.py_buffer(np.packbits(valid, bitorder="little")),
            pa.py_buffer(offsets),
            pa.py_buffer(_gather(data, np.where(valid, start, 0), length, offsets)),
        ],
        null_count=int(valid.size - np.count_nonzero(valid)),
    )
    return pd.Series(pd.array(strings, dtype="str"))


def exact_numbers(
    data: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    number: np.ndarray,
    integer: np.ndarray,
    integral: np.ndarray,
) -> bool:
    """Finish the numbers :func:`value` left for an exact parse (NaN and not integral)
    in place, as Python's JSON readers parse them: a token with ``.``, ``e`` or ``E`` is
    a float, any other an integer (``integral`` and ``integer`` set). Rare, so parsed
    one by one.

    Parameters
    ----------
    data : numpy.ndarray
        The bytes (``uint8``).
    start, stop : numpy.ndarray
        The span of every number.
    number, integer, integral : numpy.ndarray
        The parses, as :func:`value` gave them; updated.

    Returns
    -------
    bool
        False when an integer is past int64 (pandas would keep it as a Python int).

    Examples
    --------
    >>> import numpy as np
    >>> data = np.frombuffer(b"12345678901234567890.5", dtype=np.uint8)
    >>> number, integer, integral = np.array([np.nan]), np.zeros(1, np.int64), np.zeros(1, bool)
    >>> exact_numbers(data, np.array([0]), np.array([22]), number, integer, integral)
    True
    >>> float(number[0])
    1.2345678901234567e+19
    """
    for j in np.flatnonzero(np.isnan(number) & ~integral):
        token = data[start[j] : stop[j]].tobytes()
        if any(c in token for c in b".eE"):
            number[j] = float(token)
        elif -(2**63) <= int(token) < 2**63:
            integral[j], integer[j] = True, int(token)
        else:
            return False
    return True
