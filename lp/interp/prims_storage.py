"""Private SQLite stores for LP programs (docs/durable.md): `Storage at: path`, `execute:with:`,
`query:with:`, `transaction:` over runtime/sql.c, and the durable grain bound to the running
actor (`Storage current`, `currentGrain`, `currentDir`; its owner binds it with `bindGrain:dir:`).

A request is built here, handed to the runtime's job threads (lprt_wait_sql) and the actor
suspends: the send runs again when the job is done, finds the request in `frame.wait` and turns
its materialised results into LP values. A failed request raises the StorageError subclass of
its status and has changed nothing."""
from __future__ import annotations

import hashlib
import os
import threading
import urllib.parse
import weakref

from lp.interp.errors import LPRaise, make_error
from lp.interp.registry import prim
from lp.interp.values import Association, Instance, LPDict
from lp.interp.vm import SUSPEND
from lp.runtime.binding import ffi, lib

ERRORS = {lib.LPRT_SQL_INVALID: "InvalidSql", lib.LPRT_SQL_CONSTRAINT: "ConstraintViolation",
          lib.LPRT_SQL_NUMERIC: "NumericOutOfRange", lib.LPRT_SQL_TOO_LARGE: "ResultTooLarge",
          lib.LPRT_SQL_FULL: "StorageFull", lib.LPRT_SQL_BUSY: "StorageBusy",
          lib.LPRT_SQL_BACKEND: "BackendUnavailable"}
RESULT_LIMIT = 32 * 1024 * 1024   # bytes of result values one request may answer
BUSY_MS = 1000


class StorageHandle:
    """A store: its file and limits. Handles with the same file and limits share one connection
    (opened by the first request), so the actors of a process never lock each other out."""
    __slots__ = ("path", "limit", "result_limit", "busy_ms", "db")

    def __init__(self, path, limit=0, result_limit=RESULT_LIMIT, busy_ms=BUSY_MS):
        self.path, self.limit, self.result_limit, self.busy_ms = path, limit, result_limit, busy_ms
        key = (os.path.abspath(path), limit, busy_ms)
        with _lock:
            d = _dbs.get(key)
            if d is None:
                d = lib.lprt_db_new(key[0].encode(), limit, busy_ms)
                if d == ffi.NULL:
                    raise MemoryError("lprt_db_new")
                _dbs[key] = d = ffi.gc(d, lib.lprt_db_release)
        self.db = d

    def with_(self, **kw):
        v = dict(limit=self.limit, result_limit=self.result_limit, busy_ms=self.busy_ms) | kw
        return StorageHandle(self.path, **v)

    def _key(self):
        return os.path.abspath(self.path), self.limit, self.result_limit, self.busy_ms

    def __eq__(self, other):
        return type(other) is StorageHandle and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())


_dbs = weakref.WeakValueDictionary()
_lock = threading.Lock()


def grain_path(directory, key):
    """The file of grain key (Class/id) under directory: directory/Class/id.sqlite, the id
    percent-encoded (a long one shortened with its hash), so any id is one file name."""
    cls, _, gid = key.partition("/")
    name = urllib.parse.quote(gid, safe="-_")
    if not name or name.startswith(".") or len(name) > 180:
        name = name[:100] + "~" + hashlib.sha256(gid.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(directory, cls, name + ".sqlite")


class GrainBinding:
    """What the owner of a durable grain binds in its actor: its key, data directory and store."""
    __slots__ = ("key", "directory", "storage")

    def __init__(self, key, directory):
        self.key, self.directory = key, directory
        self.storage = None


def _raise(p, cls, text):
    p.stack[-1].wait = None
    raise LPRaise(make_error(p.interp, text, cls))


def _param(p, q, i, j, v, what):
    t = type(v)
    if v is None:
        lib.lprt_sql_param(q, i, j, lib.LPRT_SQL_NULL, 0, 0.0, ffi.NULL, 0)
    elif t is int:   # LP integers are 64-bit: runtime/sql.c checks the safe range
        lib.lprt_sql_param(q, i, j, lib.LPRT_SQL_INT, v, 0.0, ffi.NULL, 0)
    elif t is float:
        lib.lprt_sql_param(q, i, j, lib.LPRT_SQL_REAL, 0, v, ffi.NULL, 0)
    elif t is str:
        b = v.encode("utf-8", "surrogatepass")
        lib.lprt_sql_param(q, i, j, lib.LPRT_SQL_TEXT, 0, 0.0, b, len(b))
    elif t is bytes:
        lib.lprt_sql_param(q, i, j, lib.LPRT_SQL_BLOB, 0, 0.0, v, len(v))
    else:
        _raise(p, "InvalidSql", f"{what} a parameter is nil, an Integer, a Float, a String or a "
                                f"ByteArray, not {p.interp.describe(v)}")


def _request(p, s, mode, stmts, what):
    """The runtime request for stmts, a list of (sql, params)."""
    if type(s) is not StorageHandle:
        _raise(p, "Error", f"{what} is sent to a Storage, not {p.interp.describe(s)}")
    q = lib.lprt_sql_new(s.db, mode, len(stmts), s.result_limit)
    if q == ffi.NULL:
        raise MemoryError("lprt_sql_new")
    q = ffi.gc(q, lib.lprt_sql_release)
    for i, (sql, params) in enumerate(stmts):
        if type(sql) is not str:
            _raise(p, "Error", f"{what} the SQL is a String, not {p.interp.describe(sql)}")
        if type(params) is not tuple:
            _raise(p, "Error", f"{what} the parameters are an Array, not {p.interp.describe(params)}")
        b = sql.encode("utf-8", "surrogatepass")
        lib.lprt_sql_set(q, i, b, len(b), len(params))
        if len(params) <= lib.LPRT_SQL_MAX_PARAMS:
            for j, v in enumerate(params):
                _param(p, q, i, j, v, what)
    return q


def _value(q, i, r, c, out):
    iv, fv, pp, n = out
    t = lib.lprt_sql_cell(q, i, r, c, iv, fv, pp, n)
    if t == lib.LPRT_SQL_INT:
        return iv[0]
    if t == lib.LPRT_SQL_REAL:
        return fv[0]
    if t == lib.LPRT_SQL_TEXT:
        return ffi.unpack(pp[0], n[0]).decode("utf-8", "replace")
    if t == lib.LPRT_SQL_BLOB:
        return ffi.unpack(pp[0], n[0])
    return None


def _run(p, s, mode, stmts, what):
    """Send the request and suspend; on the send's second run, its results (or its error)."""
    frame = p.stack[-1]
    w = frame.wait
    if w is None:
        q = _request(p, s, mode, stmts, what)
        r = lib.lprt_wait_sql(p.ctx._ptr, q)
        if r < 0:
            raise MemoryError("lprt_wait_sql")
        if r == 0:
            frame.wait = ("sql", q)
            return SUSPEND
    else:
        q = w[1]
    frame.wait = None
    status = lib.lprt_sql_status(q)
    if status:
        msg = ffi.string(lib.lprt_sql_message(q)).decode("utf-8", "replace")
        at = lib.lprt_sql_failed_at(q)
        where = f" (statement {at + 1})" if mode == lib.LPRT_SQL_TRANSACTION and at >= 0 else ""
        _raise(p, ERRORS.get(status, "StorageError"), f"{what}{where} {msg}")
    cls = p.interp.classes["SqlResult"]
    out = (ffi.new("int64_t *"), ffi.new("double *"), ffi.new("char **"), ffi.new("size_t *"))
    res = []
    for i in range(len(stmts)):
        cols = tuple(ffi.string(lib.lprt_sql_column(q, i, c)).decode("utf-8", "replace")
                     for c in range(lib.lprt_sql_columns(q, i)))
        rows = tuple(LPDict.of((name, _value(q, i, r, c, out)) for c, name in enumerate(cols))
                     for r in range(lib.lprt_sql_rows(q, i)))
        res.append(Instance(cls, (cols, rows, int(lib.lprt_sql_written(q, i)))))
    return res


def _first(r):
    return r if r is SUSPEND else r[0]


# ---- stores

@prim("Storage", "at:", class_side=True)
def _at(p, cls, path):
    if type(path) is not str or not path:
        _raise(p, "Error", f"Storage at: takes a file path, not {p.interp.describe(path)}")
    if "\0" in path:
        _raise(p, "Error", "Storage at: takes a file path, which cannot hold the NUL character")
    return StorageHandle(path)


@prim("Storage", "printString", "displayString")
def _print(p, s):
    return f"Storage({s.path})"


@prim("Storage", "path")
def _path(p, s):
    return s.path


def _positive(p, v, what):
    if type(v) is not int or v < 0:
        _raise(p, "Error", f"{what} takes an Integer of at least 0, not {p.interp.describe(v)}")
    return v


@prim("Storage", "limit:")
def _limit(p, s, n):
    return s.with_(limit=_positive(p, n, "Storage limit:"))


@prim("Storage", "resultLimit:")
def _result_limit(p, s, n):
    return s.with_(result_limit=_positive(p, n, "Storage resultLimit:"))


@prim("Storage", "busyTimeout:")
def _busy(p, s, ms):
    return s.with_(busy_ms=_positive(p, ms, "Storage busyTimeout:"))


# ---- requests

@prim("Storage", "execute:")
def _execute0(p, s, sql):
    return _first(_run(p, s, lib.LPRT_SQL_EXECUTE, [(sql, ())], "storage execute:"))


@prim("Storage", "execute:with:")
def _execute(p, s, sql, params):
    return _first(_run(p, s, lib.LPRT_SQL_EXECUTE, [(sql, params)], "storage execute:with:"))


@prim("Storage", "query:")
def _query0(p, s, sql):
    return _first(_run(p, s, lib.LPRT_SQL_QUERY, [(sql, ())], "storage query:"))


@prim("Storage", "query:with:")
def _query(p, s, sql, params):
    return _first(_run(p, s, lib.LPRT_SQL_QUERY, [(sql, params)], "storage query:with:"))


@prim("Storage", "transaction:")
def _transaction(p, s, statements):
    what = "storage transaction:"
    if type(statements) is not tuple:
        _raise(p, "Error", f"{what} takes an Array of sql -> parameters, not {p.interp.describe(statements)}")
    stmts = []
    for a in statements:
        if type(a) is Association:
            stmts.append((a.key, a.value))
        elif type(a) is str:
            stmts.append((a, ()))
        else:
            _raise(p, "Error", f"{what} a statement is sql -> parameters, not {p.interp.describe(a)}")
    if not 1 <= len(stmts) <= lib.LPRT_SQL_MAX_STATEMENTS:
        _raise(p, "InvalidSql", f"{what} a transaction has 1 to 100 statements, not {len(stmts)}")
    r = _run(p, s, lib.LPRT_SQL_TRANSACTION, stmts, what)
    return r if r is SUSPEND else tuple(r)


# ---- the grain whose owner is the running actor (docs/durable.md)

@prim("Storage", "bindGrain:dir:", class_side=True)
def _bind(p, cls, key, directory):
    if type(key) is not str or type(directory) is not str or not directory or "\0" in key + directory:
        _raise(p, "Error", "Storage bindGrain:dir: takes a grain key and a directory")
    p.grain_binding = GrainBinding(key, directory)
    return key


def _binding(p):
    b = getattr(p, "grain_binding", None)
    if b is None:
        _raise(p, "Error", "no durable grain here: Grain storage and Grain alarm are for the methods of a "
                           "grain whose server has a data directory (docs/durable.md)")
    return b


@prim("Storage", "current", class_side=True)
def _current(p, cls):
    b = _binding(p)
    if b.storage is None:
        b.storage = StorageHandle(grain_path(b.directory, b.key))
    return b.storage


@prim("Storage", "currentGrain", class_side=True)
def _current_grain(p, cls):
    return _binding(p).key


# ---- the process registry of a durable server's hub of hosted sockets (stdlib/grain_sockets.lp;
# runtime/native/storage_registry.c in binaries)

@prim("Storage", "register:as:", class_side=True)
def _register(p, cls, value, name):
    """A value the process keeps under a name, until the name is registered again."""
    if type(name) is not str:
        _raise(p, "Error", "Storage register:as: takes a String name")
    p.interp.__dict__.setdefault("grain_registry", {})[name] = value
    return value


@prim("Storage", "registered:like:", class_side=True)
def _registered(p, cls, name, sample):
    """The value registered as name, when its class is the sample's (or below it): the checker types
    the answer as the sample."""
    if type(name) is not str:
        _raise(p, "Error", "Storage registered:like: takes a String name")
    registry = getattr(p.interp, "grain_registry", {})
    if name not in registry:
        _raise(p, "Error", f"nothing is registered as {name}")
    value = registry[name]
    want = p.interp.class_of(sample)
    if not p.interp.class_of(value).inherits(want):
        article = "an" if want.name[0] in "AEIOU" else "a"
        _raise(p, "Error", f"the value registered as {name} is {p.interp.describe(value)}, not {article} "
                           f"{want.name} like the sample")
    return value


@prim("Storage", "asDynamic:", class_side=True)
def _as_dynamic(p, cls, value):
    return value


@prim("Storage", "currentDir", class_side=True)
def _current_dir(p, cls):
    return _binding(p).directory
