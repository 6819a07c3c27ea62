"""Storage and SqlResult in native code (docs/durable.md): the primitives of `Storage`, each one call
of runtime/native/storage.c, called as the network's are (compiler/net.py: receiver and arguments in
one array in the frame). SqlResult is a library class with fields, read as any instance's."""
from __future__ import annotations

from lp.compiler import net, prims
from lp.ir import nodes as I

STR, NIL, INT = I.Ty("String"), I.Ty("UndefinedObject"), I.Ty("Integer")
STORE, RESULT = I.Ty("Storage"), I.Ty("SqlResult")

TABLE = {
    ("Storage", True, "at:"): ("lpn_storage_at", 1, STORE, True),
    ("Storage", False, "path"): ("lpn_storage_path", 0, STR, False),
    ("Storage", False, "limit:"): ("lpn_storage_limit", 1, STORE, True),
    ("Storage", False, "resultLimit:"): ("lpn_storage_result_limit", 1, STORE, True),
    ("Storage", False, "busyTimeout:"): ("lpn_storage_busy_timeout", 1, STORE, True),
    ("Storage", False, "execute:"): ("lpn_storage_execute0", 1, RESULT, True),
    ("Storage", False, "execute:with:"): ("lpn_storage_execute", 2, RESULT, True),
    ("Storage", False, "query:"): ("lpn_storage_query0", 1, RESULT, True),
    ("Storage", False, "query:with:"): ("lpn_storage_query", 2, RESULT, True),
    ("Storage", False, "transaction:"): ("lpn_storage_transaction", 1, None, True),
    ("Storage", True, "bindGrain:dir:"): ("lpn_storage_bind_grain", 2, STR, True),
    ("Storage", True, "current"): ("lpn_storage_current", 0, STORE, True),
    ("Storage", True, "currentGrain"): ("lpn_storage_current_grain", 0, STR, True),
    ("Storage", True, "currentDir"): ("lpn_storage_current_dir", 0, STR, True),
    # the process registry of stdlib/grain_sockets.lp (runtime/native/storage_registry.c)
    ("Storage", True, "register:as:"): ("lpn_storage_register", 2, None, True),
    ("Storage", True, "registered:like:"): ("lpn_storage_registered", 2, None, True),
    ("Storage", True, "asDynamic:"): ("lpn_storage_as_dynamic", 1, I.Ty("Dynamic"), False),
}
C_FUNCS = {fn: ("V", ["p"]) for fn, *_ in TABLE.values()}

for _key, _row in TABLE.items():
    prims.PRIMS[_key] = net.emitter(*_row)
