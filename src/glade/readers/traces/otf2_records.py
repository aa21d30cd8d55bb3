"""Reading the event records of an OTF2 archive into flat numpy arrays, through the
OTF2 library's local event readers with callbacks compiled by numba (``cfunc``): the
library calls native code that writes each record's numbers into one preallocated
int64 buffer, so no Python object is made per event. Rare record types (everything
but regions, messages, metrics and the program's start) go through small Python
callbacks that write into the same buffer, so records keep their order.

The buffer (:class:`RecordBuffer`) holds a header, then per record its time (the raw
uint64 bits), its code (``id << 2 | kind``: the region id for Enter/Leave, the index
of its record type in :data:`RECORD_TYPES` order for instants, the metric id for
metric records) and the index of its extra values in an "aux" area: five values for
a message (partner rank, communicator, tag, size, request), the value count then the
raw 8-byte values for a metric record, the program name's string id for
``ProgramBegin``. When a callback fills the buffer it asks the library to stop
(``OTF2_CALLBACK_INTERRUPT``); the buffer grows and reading goes on.
"""

from __future__ import annotations

import ctypes
import importlib
from typing import Any

import numpy as np
from numba import carray, cfunc, types

from glade.compiled import kernel
from glade.errors import ReaderError
from glade.trace.events import ENTER, INSTANT, LEAVE

METRIC = 3  # kind code of a metric record until it is attached to an event
#: Record types with compiled callbacks; their index is their code.
COMPILED = (
    "MpiSend",
    "MpiRecv",
    "MpiIsend",
    "MpiIrecv",
    "MpiIsendComplete",
    "MpiIrecvRequest",
    "ProgramBegin",
)
MESSAGES = COMPILED[:6]
#: Aux values a message record takes.
MESSAGE_WIDTH = 5
_BATCH = 1 << 16  # records read per call into the OTF2 library
#: The buffer starts with room for the records the archive declares, at most this
#: many (it grows when an archive holds more), and this many aux values.
FIRST_RECORDS = 1 << 26
FIRST_AUX = 1 << 16
_INTERRUPTED = 92  # OTF2_ERROR_INTERRUPTED_BY_CALLBACK

# header slots of the buffer
_COUNT, _CAPACITY, _AUX_COUNT, _AUX_CAPACITY, _LENGTH = range(5)
_HEADER = 8
#: Free aux slots a callback leaves before it interrupts (a metric record takes at
#: most 1 + 255 values).
_AUX_MARGIN = 260

_u32, _u64, _i64 = types.uint32, types.uint64, types.int64
_buffer_t = types.CPointer(types.int64)
_head = (_u64, _u64, _u64, _buffer_t, types.voidptr)  # location, time, position, data, attrs


def _signature(*args: Any) -> Any:
    return types.int32(*_head, *args)


def _compile(*args: Any):
    """A decorator compiling a record callback with the extra C arguments ``args``, its
    machine code cached on disk where numba finds a writable cache directory (else
    compiled once per process)."""

    def decorate(function):
        try:
            return cfunc(_signature(*args), cache=True, nopython=True)(function)
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            return cfunc(_signature(*args), nopython=True)(function)

    return decorate


@kernel
def _view(data):
    """The whole buffer behind the callback's user data pointer."""
    return carray(data, carray(data, _HEADER)[_LENGTH])


@kernel
def _push(buf, time, code, extra):
    """Append a record (time, code, aux index ``extra``); the new record's row."""
    n = buf[_COUNT]
    capacity = buf[_CAPACITY]
    buf[_HEADER + n] = np.int64(time)
    buf[_HEADER + capacity + n] = code
    buf[_HEADER + 2 * capacity + n] = extra
    buf[_COUNT] = n + 1
    return n


@kernel
def _full(buf):
    """1 (interrupt) when the next record might not fit, else 0 (go on)."""
    if buf[_CAPACITY] - buf[_COUNT] < 1 or buf[_AUX_CAPACITY] - buf[_AUX_COUNT] < _AUX_MARGIN:
        return 1
    return 0


@kernel
def _aux_base(buf):
    """Where the next aux values go."""
    return _HEADER + 3 * buf[_CAPACITY] + buf[_AUX_COUNT]


@_compile(_u32)
def _enter(location, time, position, data, attrs, region):
    buf = _view(data)
    _push(buf, time, np.int64(region) << 2 | ENTER, -1)
    return _full(buf)


@_compile(_u32)
def _leave(location, time, position, data, attrs, region):
    buf = _view(data)
    _push(buf, time, np.int64(region) << 2 | LEAVE, -1)
    return _full(buf)


def _message_callback(code: int, request: bool):
    """The compiled callback of a point-to-point record (with a request id or not)."""
    if request:

        @_compile(_u32, _u32, _u32, _u64, _u64)
        def record(location, time, position, data, attrs, other, comm, tag, size, req):
            buf = _view(data)
            at = _aux_base(buf)
            buf[at] = other
            buf[at + 1] = comm
            buf[at + 2] = tag
            buf[at + 3] = np.int64(size)
            buf[at + 4] = np.int64(req)
            _push(buf, time, code, buf[_AUX_COUNT])
            buf[_AUX_COUNT] += MESSAGE_WIDTH
            return _full(buf)
    else:

        @_compile(_u32, _u32, _u32, _u64)
        def record(location, time, position, data, attrs, other, comm, tag, size):
            buf = _view(data)
            at = _aux_base(buf)
            buf[at] = other
            buf[at + 1] = comm
            buf[at + 2] = tag
            buf[at + 3] = np.int64(size)
            buf[at + 4] = -1
            _push(buf, time, code, buf[_AUX_COUNT])
            buf[_AUX_COUNT] += MESSAGE_WIDTH
            return _full(buf)

    return record


def _completion_callback(code: int):
    """The compiled callback of a request completion record."""

    @_compile(_u64)
    def record(location, time, position, data, attrs, req):
        buf = _view(data)
        at = _aux_base(buf)
        buf[at] = -1
        buf[at + 1] = -1
        buf[at + 2] = -1
        buf[at + 3] = -1
        buf[at + 4] = np.int64(req)
        _push(buf, time, code, buf[_AUX_COUNT])
        buf[_AUX_COUNT] += MESSAGE_WIDTH
        return _full(buf)

    return record


@_compile(_u32, types.uint8, types.voidptr, types.CPointer(types.int64))
def _metric(location, time, position, data, attrs, metric, count, kinds, values):
    buf = _view(data)
    at = _aux_base(buf)
    buf[at] = count
    raw = carray(values, count)
    for k in range(count):
        buf[at + 1 + k] = raw[k]
    _push(buf, time, np.int64(metric) << 2 | METRIC, buf[_AUX_COUNT])
    buf[_AUX_COUNT] += 1 + count
    return _full(buf)


_PROGRAM_CODE = COMPILED.index("ProgramBegin") << 2 | INSTANT


@_compile(_u32, _u32, types.voidptr)
def _program_begin(location, time, position, data, attrs, name, argc, argv):
    buf = _view(data)
    buf[_aux_base(buf)] = name
    _push(buf, time, _PROGRAM_CODE, buf[_AUX_COUNT])
    buf[_AUX_COUNT] += 1
    return _full(buf)


_CALLBACKS = {
    "Enter": _enter,
    "Leave": _leave,
    "Metric": _metric,
    "ProgramBegin": _program_begin,
    "MpiSend": _message_callback(COMPILED.index("MpiSend") << 2 | INSTANT, False),
    "MpiRecv": _message_callback(COMPILED.index("MpiRecv") << 2 | INSTANT, False),
    "MpiIsend": _message_callback(COMPILED.index("MpiIsend") << 2 | INSTANT, True),
    "MpiIrecv": _message_callback(COMPILED.index("MpiIrecv") << 2 | INSTANT, True),
    "MpiIsendComplete": _completion_callback(COMPILED.index("MpiIsendComplete") << 2 | INSTANT),
    "MpiIrecvRequest": _completion_callback(COMPILED.index("MpiIrecvRequest") << 2 | INSTANT),
}


class RecordBuffer:
    """The growable int64 buffer the callbacks write (see the module doc)."""

    def __init__(self, capacity: int, aux_capacity: int):
        self.array = self._allocate(max(capacity, 1), max(aux_capacity, _AUX_MARGIN))

    @staticmethod
    def _allocate(capacity: int, aux_capacity: int) -> np.ndarray:
        array = np.zeros(_HEADER + 3 * capacity + aux_capacity, dtype=np.int64)
        array[_CAPACITY], array[_AUX_CAPACITY], array[_LENGTH] = capacity, aux_capacity, array.size
        return array

    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Views of the records so far: times (uint64), codes, aux indices, aux values."""
        a = self.array
        n, capacity, m = int(a[_COUNT]), int(a[_CAPACITY]), int(a[_AUX_COUNT])
        return (
            a[_HEADER : _HEADER + n].view(np.uint64),
            a[_HEADER + capacity : _HEADER + capacity + n],
            a[_HEADER + 2 * capacity : _HEADER + 2 * capacity + n],
            a[_HEADER + 3 * capacity : _HEADER + 3 * capacity + m],
        )

    def make_room(self) -> bool:
        """Grow the buffer (doubling what is full) if the next record might not fit;
        whether it moved."""
        a = self.array
        capacity, aux_capacity = int(a[_CAPACITY]), int(a[_AUX_CAPACITY])
        need_events = capacity - int(a[_COUNT]) < 1
        need_aux = aux_capacity - int(a[_AUX_COUNT]) < _AUX_MARGIN
        if not (need_events or need_aux):
            return False
        times, codes, extra, aux = self.parts()
        grown = self._allocate(
            2 * capacity if need_events else capacity,
            2 * aux_capacity if need_aux else aux_capacity,
        )
        n, m = times.size, aux.size
        new_capacity = int(grown[_CAPACITY])
        grown[_HEADER : _HEADER + n] = times.view(np.int64)
        grown[_HEADER + new_capacity : _HEADER + new_capacity + n] = codes
        grown[_HEADER + 2 * new_capacity : _HEADER + 2 * new_capacity + n] = extra
        grown[_HEADER + 3 * new_capacity : _HEADER + 3 * new_capacity + m] = aux
        grown[_COUNT], grown[_AUX_COUNT] = n, m
        self.array = grown
        return True

    def push(self, time: int, code: int) -> int:
        """Append a record from Python (rare record types); 1 to interrupt, else 0."""
        a = self.array
        n, capacity = int(a[_COUNT]), int(a[_CAPACITY])
        a[_HEADER + n] = np.uint64(time).view(np.int64) if time >= 2**63 else time
        a[_HEADER + capacity + n] = code
        a[_HEADER + 2 * capacity + n] = -1
        a[_COUNT] = n + 1
        return int(capacity - n - 1 < 1)


def record_types(_otf2_mod: Any) -> list[str]:
    """Every event record type the installed OTF2 library reports: the compiled ones
    first (their index is their code), then the others sorted."""
    prefix, suffix = "EvtReaderCallbacks_Set", "Callback"
    names = {
        name[len(prefix) : -len(suffix)]
        for name in dir(_otf2_mod)
        if name.startswith(prefix) and name.endswith(suffix)
    }
    others = sorted(names - {"Enter", "Leave", "Metric", "Unknown", *COMPILED})
    return [*COMPILED, *others]


def _callback_set(_otf2_mod: Any, buffer: RecordBuffer, names: list[str]) -> tuple[Any, list]:
    """A fresh OTF2 callback set: compiled callbacks for frequent records, Python ones
    appending to ``buffer`` for the others; and the ctypes objects to keep alive."""
    conf = importlib.import_module("_otf2.Config").conf
    module = importlib.import_module("_otf2.EvtReaderCallbacks")
    cbs = _otf2_mod.EvtReaderCallbacks_New()
    keep: list = []

    def setter(name: str, pointer: Any) -> None:
        function = getattr(conf.lib, f"OTF2_EvtReaderCallbacks_Set{name}Callback")
        function.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        function.restype = ctypes.c_int
        if function(ctypes.cast(cbs, ctypes.c_void_p), pointer) != 0:
            raise ReaderError(None, f"the OTF2 library refused a callback for {name} records")

    for name, compiled in _CALLBACKS.items():
        setter(name, ctypes.c_void_p(compiled.address))

    def instant(code: int):
        def record(location, time, position, data, attrs, *args):
            return buffer.push(time, code)

        return record

    for code, name in enumerate(names):
        if name in _CALLBACKS:
            continue
        prototype = getattr(module, f"_EvtReaderCallback_FP_{name}", None)
        if prototype is None:
            continue
        pointer = prototype(instant(code << 2 | INSTANT))
        keep.append(pointer)
        setter(name, ctypes.cast(pointer, ctypes.c_void_p))
    return cbs, keep


def read_records(
    _otf2_mod: Any, handle: Any, locations: list, bar: Any, path: Any
) -> tuple[RecordBuffer, list[str], list[int]]:
    """Every location's records, location after location, into a RecordBuffer (local
    definitions are read first, where the archive has them); the record type names
    and the number of records read after each location."""
    conf = importlib.import_module("_otf2.Config").conf
    register = conf.lib.OTF2_Reader_RegisterEvtCallbacks
    register.argtypes = [ctypes.c_void_p] * 4
    register.restype = ctypes.c_int
    read = conf.lib.OTF2_Reader_ReadLocalEvents
    read.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_uint64,
        ctypes.POINTER(ctypes.c_uint64),
    ]
    read.restype = ctypes.c_int
    for loc in locations:
        _otf2_mod.Reader_SelectLocation(handle, loc._ref)
    try:
        _otf2_mod.Reader_OpenDefFiles(handle)
        local_defs = True
    except _otf2_mod.Error:
        local_defs = False
    _otf2_mod.Reader_OpenEvtFiles(handle)
    names = record_types(_otf2_mod)
    declared = sum(int(loc.number_of_events) for loc in locations)
    buffer = RecordBuffer(min(declared, FIRST_RECORDS) + 1, FIRST_AUX)
    cbs, keep = _callback_set(_otf2_mod, buffer, names)
    reader = ctypes.cast(handle, ctypes.c_void_p)
    ends = []
    got = ctypes.c_uint64()
    try:
        for loc in locations:
            if local_defs:
                def_reader = _otf2_mod.Reader_GetDefReader(handle, loc._ref)
                if def_reader:
                    _otf2_mod.Reader_ReadAllLocalDefinitions(handle, def_reader)
                    _otf2_mod.Reader_CloseDefReader(handle, def_reader)
            events = _otf2_mod.Reader_GetEvtReader(handle, loc._ref)
            evt_reader = ctypes.cast(events, ctypes.c_void_p)
            registered = None
            while True:
                buffer.make_room()
                if registered is not buffer.array:
                    registered = buffer.array
                    if (
                        register(
                            reader,
                            evt_reader,
                            ctypes.cast(cbs, ctypes.c_void_p),
                            registered.ctypes.data,
                        )
                        != 0
                    ):
                        raise ReaderError(path, "the OTF2 library refused the callbacks")
                code = read(reader, evt_reader, _BATCH, ctypes.byref(got))
                bar.update(got.value)
                if code not in (0, _INTERRUPTED):
                    raise ReaderError(
                        path,
                        f"the OTF2 library failed reading the events of "
                        f"location {loc.name!r} (error {code})",
                    )
                if code == 0 and got.value < _BATCH:
                    break
            _otf2_mod.Reader_CloseEvtReader(handle, events)
            ends.append(int(buffer.array[_COUNT]))
    finally:
        _otf2_mod.EvtReaderCallbacks_Delete(cbs)
        if local_defs:
            _otf2_mod.Reader_CloseDefFiles(handle)
        _otf2_mod.Reader_CloseEvtFiles(handle)
        keep.clear()
    return buffer, names, ends
