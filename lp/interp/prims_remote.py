"""Remote proxies (docs/network.md, "Remote"): `Remote at: url for: #Class id: x` answers a
RemoteProxy; every send to it other than the messages every object understands becomes a call
of `RemoteClient class >> call:class:id:selector:arguments:timeout:` (stdlib/remote.lp, the
JSON-RPC 2.0 client on the Http module) in the caller's actor, so a call waits like any socket
read: only the caller's actor waits.

Also here: the JSON that carries LP values between LP programs (`Remote encode:` / `decode:`:
instances, symbols, characters, Maybes and byte arrays tagged so that they come back as what they
were; plain JSON from other peers decodes as `JSON decode:` does), and `Remote perform: sel on: obj
withArguments: args`, how a server runs a call on an object (only the methods its program's
classes define, never the ones every object has).
"""
from __future__ import annotations

from lp.interp.code import Code, FieldGetter, Method, Primitive
from lp.interp import code as C
from lp.interp.errors import LPRaise, make_error, said
from lp.interp.net_values import RemoteProxy
from lp.interp import value_json
from lp.interp.registry import prim
from lp.interp.value_json import untagged
from lp.interp.values import NONE, Instance, LPClass, Maybe, Symbol, Closure
from lp.interp.vm import Call

DEFAULT_TIMEOUT = 5000
CLIENT_CLASS = "RemoteClient"
CLIENT_CALL = "call:class:id:selector:arguments:timeout:"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


# ---- calling a selector from Python: a one-instruction block `[:r :a1 ... | r sel: a1 ...]`

_SENDERS: dict[tuple[str, int], Code] = {}


def sender(selector: str, nargs: int) -> Closure:
    """A block that sends `selector` to its first argument with the others as arguments (its
    frame has no source span of its own, so a call stack shows the send that asked for it)."""
    code = _SENDERS.get((selector, nargs))
    if code is None:
        code = Code(f"a send of #{selector}", None, True)
        code.nparams = nargs + 1
        code.template = [None] * (nargs + 1)
        code.instrs = [(C.TSEND, 0, selector, tuple(range(1, nargs + 1)), None)]
        _SENDERS[(selector, nargs)] = code
    return Closure(code, (), None)


class RemoteClass(LPClass):
    """How a proxy looks its methods up (a hidden subclass of Remote, named Remote): Object's and
    Remote's methods answer locally, any other selector is a call."""

    def lookup(self, selector: str):
        m = LPClass.lookup(self, selector)
        if m is None:
            m = self._cache[selector] = Primitive(_caller(selector), selector)
        return m


def _caller(selector: str):
    def call(p, proxy, *args):
        client = p.interp.classes.get(CLIENT_CLASS)
        if client is None:
            raise LPRaise(make_error(p.interp, f"#{selector} to {p.interp.describe(proxy)}: a Remote proxy "
                                     "needs `Import module: #Remote`"))
        return Call(sender(CLIENT_CALL, 6), (client, proxy.url, proxy.class_name, proxy.id, Symbol(selector),
                                             tuple(args), proxy.timeout))
    return call


@prim("Remote", "at:for:id:", class_side=True)
def _at(p, cls, url, class_name, id_):
    return _at_timeout(p, cls, url, class_name, id_, DEFAULT_TIMEOUT)


@prim("Remote", "at:for:id:timeout:", class_side=True)
def _at_timeout(p, cls, url, class_name, id_, ms):
    what = "Remote at:for:id:"
    if type(url) is not str:
        raise LPRaise(make_error(p.interp, f"{what} expects a URL String, not {p.interp.describe(url)}"))
    if type(class_name) is Symbol:
        class_name = class_name.name
    elif type(class_name) is LPClass:
        class_name = class_name.name
    elif type(class_name) is not str:
        raise LPRaise(make_error(p.interp, f"{what} expects a class name (a Symbol), not "
                                 f"{p.interp.describe(class_name)}"))
    if type(ms) not in (int, float) or ms != ms:
        raise LPRaise(make_error(p.interp, f"{what}timeout: expects a number of milliseconds, not "
                                 f"{p.interp.describe(ms)}"))
    ms = max(ms, 0)     # a negative deadline counts as 0, as every deadline
    id_json = encode(p, id_)   # an id that cannot travel fails here, not at the first call
    return RemoteProxy(url, class_name, id_, ms, id_json)


# ---- the JSON of LP values (lp/interp/value_json.py)

def encode(p, v) -> str:
    return value_json.encode(p, v)


@prim("Remote", "encode:", class_side=True)
def _encode(p, cls, v):
    return encode(p, v)


@prim("Remote", "decode:", class_side=True)
def _decode(p, cls, s):
    if type(s) is not str:
        raise LPRaise(make_error(p.interp, f"Remote decode: expects a String, not {p.interp.describe(s)}"))
    try:
        data = value_json.loads(s)
    except (ValueError, RecursionError) as e:
        raise LPRaise(make_error(p.interp, f"Remote decode: invalid JSON: {e}")) from None
    return untagged(p.interp, data)


# ---- running a call on the server

def _remote_error_value(interp, text, code):
    cls = interp.classes.get("RemoteError")
    if cls is None or "code" not in cls.field_index:
        return make_error(interp, text)
    err = make_error(interp, text, "RemoteError")
    values = list(err.values)
    values[cls.field_index["code"]] = code
    return Instance(cls, tuple(values))


def _remote_error(p, text, code):
    raise LPRaise(_remote_error_value(p.interp, text, code))


@prim("Remote", "perform:on:withArguments:", class_side=True)
def _perform(p, cls, sel, obj, args):
    if type(sel) is str:
        sel = Symbol(sel)
    if type(sel) is not Symbol or type(args) is not tuple:
        _remote_error(p, "Remote perform:on:withArguments: expects a Symbol and an Array", INVALID_PARAMS)
    name = sel.name
    c = p.interp.class_of(obj)
    m = c.lookup(name) if type(obj) is not LPClass else None
    owner = _owner(c, name)
    if owner is None or owner.builtin or type(m) not in (Method, FieldGetter):
        _remote_error(p, f"{p.interp.describe(obj)} has no method #{name}", METHOD_NOT_FOUND)
    arity = name.count(":") if name[-1] == ":" else (0 if name[0].isalpha() else 1)
    if len(args) != arity:
        _remote_error(p, f"#{name} takes {arity} argument{'' if arity == 1 else 's'}, not {len(args)}",
                      INVALID_PARAMS)
    return Call(sender(name, arity), (obj, *args))


@prim("Remote", "isInstance:named:", class_side=True)
def _is_instance_named(p, cls, obj, name):
    """Is obj an instance of the program class so named (a Symbol), or of a subclass of it?"""
    want = p.interp.classes.get(name.name if type(name) is Symbol else name)
    return type(obj) is Instance and want is not None and not want.builtin and obj.cls.inherits(want)


def _owner(c, name):
    while c is not None:
        if name in c.methods:
            return c
        c = c.superclass
    return None


# ---- the JSON-RPC 2.0 messages

PARSE_ERROR, INVALID_REQUEST, SERVER_ERROR = -32700, -32600, -32000


def _loads(p, text, what):
    if type(text) is not str:
        raise LPRaise(make_error(p.interp, f"{what} expects a String, not {p.interp.describe(text)}"))
    try:
        return value_json.loads(text)
    except (ValueError, RecursionError) as e:
        _remote_error(p, said(what, f"invalid JSON: {e}"), PARSE_ERROR)


def _bad_call(interp, tag):
    """A malformed tagged value in a call or an answer: RemoteError -32600."""
    raise LPRaise(_remote_error_value(interp, "invalid request: " + value_json.malformed_text(tag), INVALID_REQUEST))


@prim("Remote", "request:", class_side=True)
def _request(p, cls, text):
    """A call as the server reads it: {"jsonrpc": "2.0", "id": ..., "method": selector,
    "params": {"class": name, "id": id, "args": [...]}} (and "takeover": the URL of a node the
    client could not reach, when it retries at its entry URL), else RemoteError -32700 / -32600."""
    data = _loads(p, text, "Remote request:")
    params = data.get("params") if type(data) is dict else None
    if type(params) is not dict or type(data.get("method")) is not str or not data["method"] \
            or type(params.get("class")) is not str or "id" not in params or type(params.get("args")) is not list:
        _remote_error(p, "invalid request: a call needs method and params with class, id and args",
                      INVALID_REQUEST)
    takeover = params.get("takeover", "")
    if type(takeover) is not str:
        _remote_error(p, "invalid request: takeover is the URL of a node that did not answer", INVALID_REQUEST)
    values = (untagged(p.interp, data.get("id"), bad=_bad_call), Symbol(data["method"]), params["class"],
              untagged(p.interp, params["id"], bad=_bad_call), untagged(p.interp, params["args"], bad=_bad_call),
              takeover)
    return Instance(p.interp.classes["RemoteRequest"], values)


@prim("Remote", "result:", class_side=True)
def _result(p, cls, text):
    """The client's reading of a response: the result, or RemoteError with the error's code."""
    data = _loads(p, text, "Remote result:")
    if type(data) is dict and "result" in data:
        return untagged(p.interp, data["result"], bad=_bad_call)
    err = data.get("error") if type(data) is dict else None
    if type(err) is dict:
        code = err.get("code")
        msg = err.get("message")
        _remote_error(p, msg if type(msg) is str else "a remote error",
                      code if type(code) is int else SERVER_ERROR)
    _remote_error(p, "Remote: the answer is no JSON-RPC response", INVALID_REQUEST)


# ---- where each id lives: the client's cache of redirects (docs/network.md, "Routing")

OWNERS_KEPT = 100_000   # the oldest entry goes first beyond this


def _owner_key(p, entry, class_name, id_):
    return (entry, class_name if type(class_name) is str else str(class_name), encode(p, id_))


def _owners(interp) -> dict:
    """The cache belongs to the running program (as the connection pool does), shared by its actors."""
    owners = getattr(interp, "remote_owners", None)
    if owners is None:
        owners = interp.remote_owners = {}
    return owners


@prim("Remote", "ownerFor:class:id:", class_side=True)
def _owner_for(p, cls, entry, class_name, id_):
    """The URL a redirect named for (class, id) reached through entry, if one is remembered."""
    url = _owners(p.interp).get(_owner_key(p, entry, class_name, id_))
    return NONE if url is None else Maybe(True, url)


@prim("Remote", "remember:for:class:id:", class_side=True)
def _remember(p, cls, url, entry, class_name, id_):
    """Remember url as where (class, id) lives; the entry URL itself is forgotten, not stored."""
    owners = _owners(p.interp)
    key = _owner_key(p, entry, class_name, id_)
    owners.pop(key, None)
    if url != entry:
        owners[key] = url
        if len(owners) > OWNERS_KEPT:
            del owners[next(iter(owners))]
    return None
