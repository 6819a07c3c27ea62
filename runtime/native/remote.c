/* remote.c — Remote in native binaries (docs/network.md "Remote"; lp/interp/prims_remote.py):
 * the proxy (a foreign cell: URL, class name, id, timeout), the JSON-RPC messages, the value
 * codec's entry points, `Remote perform:on:withArguments:` over the table the compiler emits,
 * and the program's cache of where each id lives. Every primitive takes its receiver and
 * arguments as one array (a[0] the receiver) and consumes them, as lp.compiler.net emits it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"

#define DEFAULT_TIMEOUT 5000
enum { METHOD_NOT_FOUND = -32601, INVALID_PARAMS = -32602, PARSE_ERROR = -32700, INVALID_REQUEST = -32600,
       SERVER_ERROR = -32000 };

static const char *str_of(lpn_value v) { return ((lpn_str *)lpn_ptr(v))->data; }

/* `describe` of v (borrowed) into a static-length copy for a message */
static void described(lpn_value v, char *out, size_t cap) {
    lpn_dup(v);
    lpn_value d = lpn_describe(v);
    snprintf(out, cap, "%s", str_of(d));
    lpn_drop(d);
}

/* RemoteError with code, or a plain Error when the program has no RemoteError with a code field. */
#define lpn_remote_error(code, ...) lpnet_fail_with("RemoteError", "code", code, __VA_ARGS__)

/* A malformed tagged value in a call or an answer (prims_remote._bad_call). */
static lpn_value bad_call(const char *text) { return lpn_remote_error(INVALID_REQUEST, "invalid request: %s", text); }

/* ---- the proxy */

typedef struct proxy {
    lpn_foreign f;
    lpn_value url, class_name, id, timeout;   /* shared */
    uint64_t identity;
} proxy;

static void proxy_fin(lpn_foreign *f) {
    proxy *p = (proxy *)f;
    lpn_drop(p->url); lpn_drop(p->class_name); lpn_drop(p->id); lpn_drop(p->timeout);
}
static int proxy_print(lpn_foreign *f, char *buf, size_t cap) {
    proxy *p = (proxy *)f;
    lpn_dup(p->id);
    lpn_value id = lpn_print_string(p->id);
    int n = snprintf(buf, cap, "Remote(%s %s at %s)", str_of(p->class_name), str_of(id), str_of(p->url));
    lpn_drop(id);
    return n;
}
static uint64_t proxy_identity(lpn_foreign *f) { return ((proxy *)f)->identity; }
static const lpn_foreign_ops proxy_ops = {proxy_fin, proxy_print, proxy_identity, 0};

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ^ 0xff;
}

static lpn_value remote_at(lpn_value *a, lpn_value ms, const char *what) {
    char d[200];
    lpn_value r = LPN_UNWIND_VALUE, name = LPN_NIL_VALUE;
    if (a[1].cls != LPN_STRING) {
        described(a[1], d, sizeof d);
        lpn_raise("%s expects a URL String, not %s", what, d);
        goto done;
    }
    if (a[2].cls == LPN_SYMBOL) {
        const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)a[2].bits;
        name = lpn_str_new(s->name, s->len);
    } else if (a[2].cls == LPN_CLASS) {
        const char *n = lpn_prog.class_names[a[2].bits];
        name = lpn_str_new(n, strlen(n));
    } else if (a[2].cls == LPN_STRING) {
        name = a[2];
        lpn_dup(name);
    } else {
        described(a[2], d, sizeof d);
        lpn_raise("%s expects a class name (a Symbol), not %s", what, d);
        goto done;
    }
    if (!(ms.cls == LPN_INT || (ms.cls == LPN_FLOAT && lpn_f(ms) == lpn_f(ms)))) {
        described(ms, d, sizeof d);
        lpn_raise("%stimeout: expects a number of milliseconds, not %s", what, d);
        lpn_drop(name);
        goto done;
    }
    lpn_dup(a[3]);
    lpn_value idj = lpn_json_encode_as(a[3], LPN_JSON_TAGGED);   /* an id that cannot travel fails here */
    if (idj.cls == LPN_UNWIND) { lpn_drop(name); goto done; }
    proxy *p = lpn_alloc((uint32_t)lpnet_class("Remote"), sizeof *p);
    p->f.h.rc = -1;   /* shared from birth, as sockets are: a proxy travels in messages */
    p->f.nfields = LPN_FOREIGN;
    p->f.ops = &proxy_ops;
    p->identity = fnv(fnv(fnv(14695981039346656037ULL, str_of(a[1]), strlen(str_of(a[1]))), str_of(name),
                          strlen(str_of(name))), str_of(idj), strlen(str_of(idj)));
    lpn_drop(idj);
    if (ms.cls == LPN_INT ? (int64_t)ms.bits < 0 : lpn_f(ms) < 0) ms = lpn_int(0);   /* as every deadline */
    p->url = a[1]; p->class_name = name; p->id = a[3]; p->timeout = ms;
    lpn_share(p->url); lpn_share(p->class_name); lpn_share(p->id);
    a[1] = a[3] = LPN_NIL_VALUE;
    ms = LPN_NIL_VALUE;
    r = lpn_ref(p);
done:
    lpn_drop(ms);
    lpnet_drop_all(a, 4);
    return r;
}

lpn_value lpn_remote_at(lpn_value *a) { return remote_at(a, lpn_int(DEFAULT_TIMEOUT), "Remote at:for:id:"); }
lpn_value lpn_remote_at_timeout(lpn_value *a) { return remote_at(a, a[4], "Remote at:for:id:"); }

/* A send the proxy does not answer itself (compiler/remote.py): its URL, class name, id and
   timeout in out[0..3] (owned); consumes the proxy. */
void lpn_remote_parts(lpn_value v, lpn_value *out) {
    proxy *p = (proxy *)lpn_ptr(v);
    out[0] = p->url; out[1] = p->class_name; out[2] = p->id; out[3] = p->timeout;
    for (int i = 0; i < 4; i++) lpn_dup(out[i]);
    lpn_drop(v);
}

/* The same send when the program has no RemoteClient (it did not import the module). */
lpn_value lpn_remote_no_module(lpn_value v, const char *sel) {
    char d[300];
    described(v, d, sizeof d);
    lpn_drop(v);
    return lpn_raise("#%s to %s: a Remote proxy needs `Import module: #Remote`", sel, d);
}

/* ---- the value codec */

lpn_value lpn_remote_encode(lpn_value *a) { return lpn_json_encode_as(a[1], LPN_JSON_TAGGED); }

/* s parsed as Python's json.loads: 0 with *out, else -1 with the error raised (code 0: plain Error);
   what names the primitive in the messages */
static int loads(lpn_value s, const char *what, int64_t code, lpn_value *out) {
    char err[300];
    if (s.cls != LPN_STRING) {
        described(s, err, sizeof err);
        lpn_drop(s);
        lpn_raise("%s expects a String, not %s", what, err);
        return -1;
    }
    if (lpn_json_parse(s, out, err, sizeof err, 1)) {
        if (code) lpn_remote_error(code, "%s%sinvalid JSON: %s", what, lpnet_sep(what), err);
        else lpn_raise("%s%sinvalid JSON: %s", what, lpnet_sep(what), err);
        return -1;
    }
    return 0;
}

lpn_value lpn_remote_decode(lpn_value *a) {
    lpn_value v;
    if (loads(a[1], "Remote decode:", 0, &v)) return LPN_UNWIND_VALUE;
    return lpn_json_untag(v, 0);
}

/* d at the String key k (borrows d): owned, or {LPN_UNWIND, 1} when absent (or d no Dictionary) */
static lpn_value get(lpn_value d, const char *k) {
    if (d.cls != LPN_DICT) return (lpn_value){LPN_UNWIND, 1};
    lpn_dup(d);
    return lpn_dict_lookup(d, lpn_str_new(k, strlen(k)));
}
static int absent(lpn_value v) { return v.cls == LPN_UNWIND; }

lpn_value lpn_remote_result(lpn_value *a) {
    lpn_value data;
    if (loads(a[1], "Remote result:", PARSE_ERROR, &data)) return LPN_UNWIND_VALUE;
    lpn_value res = get(data, "result"), r;
    if (!absent(res)) {
        lpn_drop(data);
        return lpn_json_untag_or(res, bad_call);
    }
    lpn_value err = get(data, "error");
    if (!absent(err) && err.cls == LPN_DICT) {
        lpn_value code = get(err, "code"), msg = get(err, "message");
        r = lpn_remote_error(code.cls == LPN_INT ? (int64_t)code.bits : SERVER_ERROR, "%s",
                             msg.cls == LPN_STRING ? str_of(msg) : "a remote error");
        if (!absent(code)) lpn_drop(code);
        if (!absent(msg)) lpn_drop(msg);
    } else r = lpn_remote_error(INVALID_REQUEST, "Remote: the answer is no JSON-RPC response");
    if (!absent(err)) lpn_drop(err);
    lpn_drop(data);
    return r;
}

lpn_value lpn_remote_request(lpn_value *a) {
    lpn_value data;
    if (loads(a[1], "Remote request:", PARSE_ERROR, &data)) return LPN_UNWIND_VALUE;
    lpn_value params = get(data, "params"), method = get(data, "method"), r = LPN_UNWIND_VALUE;
    lpn_value cls = LPN_NIL_VALUE, id = LPN_NIL_VALUE, args = LPN_NIL_VALUE, takeover = LPN_NIL_VALUE;
    int ok = !absent(params) && params.cls == LPN_DICT && method.cls == LPN_STRING && str_of(method)[0];
    if (ok) {
        cls = get(params, "class"); id = get(params, "id"); args = get(params, "args");
        ok = cls.cls == LPN_STRING && !absent(id) && args.cls == LPN_ARRAY;
    }
    if (!ok) {
        lpn_remote_error(INVALID_REQUEST, "invalid request: a call needs method and params with class, id and args");
        goto done;
    }
    takeover = get(params, "takeover");
    if (absent(takeover)) takeover = lpn_str_new("", 0);
    if (takeover.cls != LPN_STRING) {
        lpn_remote_error(INVALID_REQUEST, "invalid request: takeover is the URL of a node that did not answer");
        goto done;
    }
    lpn_value call_id = get(data, "id");
    if (absent(call_id)) call_id = LPN_NIL_VALUE;
    lpn_value vals[3] = {call_id, id, args};
    id = args = LPN_NIL_VALUE;
    int unwound = 0;
    for (int i = 0; i < 3; i++) {
        if (unwound) { lpn_drop(vals[i]); vals[i] = LPN_NIL_VALUE; continue; }
        vals[i] = lpn_json_untag_or(vals[i], bad_call);
        if (vals[i].cls == LPN_UNWIND) { vals[i] = LPN_NIL_VALUE; unwound = 1; }
    }
    if (unwound) {
        for (int i = 0; i < 3; i++) lpn_drop(vals[i]);
        goto done;
    }
    uint64_t rc = lpnet_class("RemoteRequest");
    lpn_inst *q = lpn_inst_new(rc, 6);
    lpn_str *m = (lpn_str *)lpn_ptr(method);
    q->field[0] = vals[0];
    q->field[1] = (lpn_value){LPN_SYMBOL, (uint64_t)(uintptr_t)lpn_intern(m->data, m->len)};
    q->field[2] = cls;
    q->field[3] = vals[1];
    q->field[4] = vals[2];
    q->field[5] = takeover;
    cls = takeover = LPN_NIL_VALUE;
    r = lpn_ref(q);
done:
    lpn_value held[] = {params, method, cls, id, args, takeover};
    for (int i = 0; i < 6; i++)
        if (!absent(held[i])) lpn_drop(held[i]);
    lpn_drop(data);
    return r;
}

/* ---- running a call on the server: Remote perform: sel on: obj withArguments: args */

static int arity_of(const char *name, size_t n) {
    if (name[n - 1] == ':') {
        int k = 0;
        for (size_t i = 0; i < n; i++) k += name[i] == ':';
        return k;
    }
    unsigned char c = (unsigned char)name[0];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ? 0 : 1;
}

static int by_name(const void *k, const void *e) { return strcmp((const char *)k, *(const char *const *)e); }

lpn_value lpn_remote_perform(lpn_value *a) {
    lpn_value sel = a[1], obj = a[2], args = a[3];
    const char *name = NULL;
    size_t n = 0;
    if (sel.cls == LPN_SYMBOL) {
        name = ((const lpn_symbol *)(uintptr_t)sel.bits)->name;
        n = ((const lpn_symbol *)(uintptr_t)sel.bits)->len;
    } else if (sel.cls == LPN_STRING) {
        name = str_of(sel);
        n = ((lpn_str *)lpn_ptr(sel))->len;
    }
    lpn_value r = LPN_UNWIND_VALUE;
    if (!name || args.cls != LPN_ARRAY) {
        lpn_remote_error(INVALID_PARAMS, "Remote perform:on:withArguments: expects a Symbol and an Array");
        goto fail;
    }
    const char *const *hit = NULL;
    if (obj.cls != LPN_CLASS && lpn_prog.nperform)
        hit = bsearch(name, lpn_prog.perform_names, lpn_prog.nperform, sizeof *hit, by_name);
    uint64_t i = hit ? (uint64_t)(hit - lpn_prog.perform_names) : 0;
    int found = 0;
    if (hit)
        for (const uint64_t *c = lpn_prog.perform_classes[i]; *c != UINT64_MAX && !found; c++) found = *c == obj.cls;
    if (!found) {
        char d[200];
        described(obj, d, sizeof d);
        lpn_remote_error(METHOD_NOT_FOUND, "%s has no method #%s", d, name);
        goto fail;
    }
    int arity = arity_of(name, n);
    uint64_t got = ((lpn_arr *)lpn_ptr(args))->len;
    if (got != (uint64_t)arity) {
        lpn_remote_error(INVALID_PARAMS, "#%s takes %d argument%s, not %llu", name, arity, arity == 1 ? "" : "s",
                         (unsigned long long)got);
        goto fail;
    }
    lpn_drop(sel);
    lpn_drop(a[0]);
    return lpn_prog.perform(i, obj, args);
fail:
    lpnet_drop_all(a, 4);
    return r;
}

/* ---- where each id lives: the program's cache of redirects (docs/network.md "Routing"), at most
   OWNERS_KEPT entries, the oldest dropped first */

#define OWNERS_KEPT 100000
#define OWNER_BUCKETS 65536
typedef struct owner {
    char *key, *url;
    struct owner *chain, *older, *newer;
} owner;
static owner *buckets[OWNER_BUCKETS], *oldest, *newest;
static uint64_t nowners;
static pthread_mutex_t owners_mu = PTHREAD_MUTEX_INITIALIZER;

/* "entry \x1f class \x1f id as JSON", or NULL with the error raised (an id that cannot travel) */
static char *owner_key(lpn_value entry, lpn_value cls, lpn_value id) {
    lpn_dup(id);
    lpn_value j = lpn_json_encode_as(id, LPN_JSON_TAGGED);
    if (j.cls == LPN_UNWIND) return NULL;
    const char *c = cls.cls == LPN_STRING ? str_of(cls) : "";
    size_t n = strlen(str_of(entry)) + strlen(c) + strlen(str_of(j)) + 3;
    char *k = malloc(n);
    if (!k) abort();
    snprintf(k, n, "%s\x1f%s\x1f%s", str_of(entry), c, str_of(j));
    lpn_drop(j);
    return k;
}

static owner **slot(const char *key) {
    owner **s = &buckets[fnv(14695981039346656037ULL, key, strlen(key)) % OWNER_BUCKETS];
    while (*s && strcmp((*s)->key, key)) s = &(*s)->chain;
    return s;
}

static void unlink_owner(owner **s) {
    owner *o = *s;
    *s = o->chain;
    if (o->older) o->older->newer = o->newer; else oldest = o->newer;
    if (o->newer) o->newer->older = o->older; else newest = o->older;
    free(o->key); free(o->url); free(o);
    nowners--;
}

lpn_value lpn_remote_owner_for(lpn_value *a) {
    lpn_value r = LPN_UNWIND_VALUE;
    char *key = a[1].cls == LPN_STRING ? owner_key(a[1], a[2], a[3]) : NULL;
    if (key) {
        pthread_mutex_lock(&owners_mu);
        owner *o = *slot(key);
        lpn_value url = o ? lpn_str_new(o->url, strlen(o->url)) : LPN_NIL_VALUE;
        pthread_mutex_unlock(&owners_mu);
        r = lpn_maybe_new(o != NULL, url);
        free(key);
    } else if (a[1].cls != LPN_STRING) r = lpn_maybe_new(0, LPN_NIL_VALUE);
    lpnet_drop_all(a, 4);
    return r;
}

lpn_value lpn_remote_remember(lpn_value *a) {
    lpn_value r = LPN_UNWIND_VALUE;
    char *key = a[1].cls == LPN_STRING && a[2].cls == LPN_STRING ? owner_key(a[2], a[3], a[4]) : NULL;
    if (key) {
        pthread_mutex_lock(&owners_mu);
        owner **s = slot(key);
        if (*s) unlink_owner(s);
        if (strcmp(str_of(a[1]), str_of(a[2]))) {
            owner *o = calloc(1, sizeof *o);
            if (!o) abort();
            o->key = key;
            key = NULL;
            o->url = strdup(str_of(a[1]));
            o->older = newest;
            if (newest) newest->newer = o; else oldest = o;
            newest = o;
            *slot(o->key) = o;
            if (++nowners > OWNERS_KEPT) unlink_owner(slot(oldest->key));
        }
        pthread_mutex_unlock(&owners_mu);
        free(key);
        r = LPN_NIL_VALUE;
    } else if (a[1].cls != LPN_STRING || a[2].cls != LPN_STRING) r = LPN_NIL_VALUE;
    lpnet_drop_all(a, 5);
    return r;
}

/* Remote isInstance: obj named: aSymbol — obj an instance of the program class so named, or of a subclass. */
lpn_value lpn_remote_is_instance_named(lpn_value *a) {
    const char *name = NULL;
    size_t n = 0;
    if (a[2].cls == LPN_SYMBOL) {
        name = ((const lpn_symbol *)(uintptr_t)a[2].bits)->name;
        n = ((const lpn_symbol *)(uintptr_t)a[2].bits)->len;
    } else if (a[2].cls == LPN_STRING) {
        name = str_of(a[2]);
        n = ((lpn_str *)lpn_ptr(a[2]))->len;
    }
    int r = 0;
    if (name && a[1].cls >= LPN_FIRST_INST && !lpn_is_foreign(lpn_ptr(a[1])))
        for (uint64_t c = LPN_FIRST_INST; c < lpn_prog.nclasses; c++)
            if (lpn_prog.user_class[c] && lpn_prog.class_names[c] && strlen(lpn_prog.class_names[c]) == n &&
                memcmp(lpn_prog.class_names[c], name, n) == 0) {
                r = lpn_is_kind_of(a[1].cls, c);
                break;
            }
    lpnet_drop_all(a, 3);
    return lpn_bool(r);
}
