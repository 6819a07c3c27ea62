/* storage.c — Storage and SqlResult in native binaries (docs/durable.md; lp/interp/prims_storage.py,
 * whose messages, error classes and limits these are), over the runtime's SQLite layer (runtime/sql.c):
 * a request is built here, run on the job threads while the fiber waits, and its materialised results
 * become an SqlResult. A store value is a foreign cell: its path as given and its limits; stores with
 * the same file (absolute path), size limit and busy timeout share one connection while any is alive.
 * The durable grain an owner binds (`Storage bindGrain:dir:`) is kept with the running actor. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpnet.h"

#define RESULT_LIMIT (32LL * 1024 * 1024)   /* bytes of result values one request may answer */
#define BUSY_MS 1000

/* ---- shared connections, by (absolute path, size limit, busy timeout) */

typedef struct conn {
    char *abspath;
    int64_t limit, busy_ms;
    lprt_db *db;
    long users;   /* store values using it */
    struct conn *next;
} conn;

static conn *conns;
static pthread_mutex_t conns_mu = PTHREAD_MUTEX_INITIALIZER;

static conn *conn_get(const char *abspath, int64_t limit, int64_t busy_ms) {
    pthread_mutex_lock(&conns_mu);
    conn *c = conns;
    while (c && !(c->limit == limit && c->busy_ms == busy_ms && !strcmp(c->abspath, abspath))) c = c->next;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c || !(c->abspath = strdup(abspath)) || !(c->db = lprt_db_new(abspath, limit, (int)busy_ms))) abort();
        c->limit = limit;
        c->busy_ms = busy_ms;
        c->next = conns;
        conns = c;
    }
    c->users++;
    pthread_mutex_unlock(&conns_mu);
    return c;
}

static void conn_put(conn *c) {
    pthread_mutex_lock(&conns_mu);
    if (--c->users == 0) {
        conn **p = &conns;
        while (*p != c) p = &(*p)->next;
        *p = c->next;
        lprt_db_release(c->db);   /* a request still running holds its own reference */
        free(c->abspath);
        free(c);
    }
    pthread_mutex_unlock(&conns_mu);
}

/* os.path.abspath: made absolute against the working directory, ".", ".." and repeated "/" folded */
static char *abspath_of(const char *path) {
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *in = malloc(n), *out = malloc(n + 1);
    if (!in || !out) abort();
    snprintf(in, n, "%s/%s", cwd, path);
    size_t o = 0;
    for (char *s = in; *s;) {
        while (*s == '/') s++;
        char *e = s;
        while (*e && *e != '/') e++;
        size_t len = (size_t)(e - s);
        if (len == 1 && s[0] == '.') {
        } else if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--;
        } else if (len) {
            out[o++] = '/';
            memcpy(out + o, s, len);
            o += len;
        }
        s = e;
    }
    if (o == 0) out[o++] = '/';
    out[o] = 0;
    free(in);
    return out;
}

/* ---- store values */

typedef struct store {
    lpn_foreign f;
    char *path;   /* as given: printString, path */
    int64_t limit, result_limit, busy_ms;
    conn *c;
} store;

static uint64_t store_class = UINT64_MAX;

static void store_fin(lpn_foreign *f) {
    store *s = (store *)f;
    conn_put(s->c);
    free(s->path);
}
static int store_print(lpn_foreign *f, char *buf, size_t cap) { return snprintf(buf, cap, "Storage(%s)", ((store *)f)->path); }
/* Two stores are equal when their files (absolute paths) and limits are: as StorageHandle's __eq__. */
static uint64_t store_identity(lpn_foreign *f) {
    store *s = (store *)f;
    uint64_t h = 14695981039346656037ULL;
    for (const char *p = s->c->abspath; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    int64_t more[3] = {s->limit, s->result_limit, s->busy_ms};
    for (int i = 0; i < 3; i++) h = (h ^ (uint64_t)more[i]) * 1099511628211ULL;
    return h;
}
static const lpn_foreign_ops store_ops = {store_fin, store_print, store_identity, 0};

static lpn_value store_new(const char *path, int64_t limit, int64_t result_limit, int64_t busy_ms) {
    if (store_class == UINT64_MAX) store_class = lpnet_class("Storage");
    store *s = lpn_alloc((uint32_t)store_class, sizeof *s);
    s->f.h.rc = -1;   /* shared from birth: stores travel in messages */
    s->f.nfields = LPN_FOREIGN;
    s->f.ops = &store_ops;
    if (!(s->path = strdup(path))) abort();
    s->limit = limit;
    s->result_limit = result_limit;
    s->busy_ms = busy_ms;
    char *abs = abspath_of(path);
    s->c = conn_get(abs, limit, busy_ms);
    free(abs);
    return lpn_ref(s);
}

static store *store_of(lpn_value v) { return (store *)lpn_ptr(v); }

/* The checker types a Dynamic receiver of a selector only Storage has as a Storage (lp/types/
   sql_params.py): one that is not a store at run time does not understand it, as under lp run.
   Answers nonzero with the error raised and a[0..n] consumed. */
static int not_store(lpn_value *a, int n, const char *sel) {
    if (store_class == UINT64_MAX) store_class = lpnet_class("Storage");
    if (a[0].cls == store_class) return 0;
    lpnet_drop_all(a + 1, n);
    lpn_dnu(a[0], sel);
    return 1;
}

/* Raises cls with "<prefix><v described>"; consumes nothing. */
static lpn_value fail_describing(const char *cls, const char *prefix, lpn_value v) {
    lpn_dup(v);
    lpn_value d = lpn_describe(v);
    lpn_value r = lpnet_fail(cls, "%s%s", prefix, ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return r;
}

/* A String with a NUL among its bytes, which a C path or key would end at. */
static int holds_nul(lpn_value s) {
    lpn_str *t = (lpn_str *)lpn_ptr(s);
    return strlen(t->data) != t->len;
}

lpn_value lpn_storage_at(lpn_value *a) {   /* Storage at: path */
    lpn_value r;
    if (a[1].cls != LPN_STRING || !((lpn_str *)lpn_ptr(a[1]))->len)
        r = fail_describing("Error", "Storage at: takes a file path, not ", a[1]);
    else if (holds_nul(a[1]))
        r = lpnet_fail("Error", "Storage at: takes a file path, which cannot hold the NUL character");
    else
        r = store_new(((lpn_str *)lpn_ptr(a[1]))->data, 0, RESULT_LIMIT, BUSY_MS);
    lpnet_drop_all(a, 2);
    return r;
}

lpn_value lpn_storage_path(lpn_value *a) {
    if (not_store(a, 0, "path")) return LPN_UNWIND_VALUE;
    const char *p = store_of(a[0])->path;
    lpn_value r = lpn_str_new(p, strlen(p));
    lpn_drop(a[0]);
    return r;
}

/* limit: / resultLimit: / busyTimeout: — the same store with one limit changed */
static lpn_value with_limit(lpn_value *a, int which, const char *what) {
    if (not_store(a, 1, strchr(what, ' ') + 1)) return LPN_UNWIND_VALUE;
    lpn_value r;
    if (a[1].cls != LPN_INT || (int64_t)a[1].bits < 0) {
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s takes an Integer of at least 0, not ", what);
        r = fail_describing("Error", prefix, a[1]);
    } else {
        store *s = store_of(a[0]);
        int64_t v[3] = {s->limit, s->result_limit, s->busy_ms};
        v[which] = (int64_t)a[1].bits;
        r = store_new(s->path, v[0], v[1], v[2]);
    }
    lpnet_drop_all(a, 2);
    return r;
}
lpn_value lpn_storage_limit(lpn_value *a) { return with_limit(a, 0, "Storage limit:"); }
lpn_value lpn_storage_result_limit(lpn_value *a) { return with_limit(a, 1, "Storage resultLimit:"); }
lpn_value lpn_storage_busy_timeout(lpn_value *a) { return with_limit(a, 2, "Storage busyTimeout:"); }

/* ---- requests */

static const char *const error_class[] = {
    [LPRT_SQL_INVALID] = "InvalidSql", [LPRT_SQL_CONSTRAINT] = "ConstraintViolation",
    [LPRT_SQL_NUMERIC] = "NumericOutOfRange", [LPRT_SQL_TOO_LARGE] = "ResultTooLarge",
    [LPRT_SQL_FULL] = "StorageFull", [LPRT_SQL_BUSY] = "StorageBusy", [LPRT_SQL_BACKEND] = "BackendUnavailable"};

/* One statement's SQL and parameters into request q: 0, or -1 with the error raised (borrows both). */
static int set_statement(lprt_sql *q, int i, lpn_value sql, lpn_value params, const char *what) {
    char prefix[160];
    if (sql.cls != LPN_STRING) {
        snprintf(prefix, sizeof prefix, "%s the SQL is a String, not ", what);
        fail_describing("Error", prefix, sql);
        return -1;
    }
    if (params.cls != LPN_ARRAY) {
        snprintf(prefix, sizeof prefix, "%s the parameters are an Array, not ", what);
        fail_describing("Error", prefix, params);
        return -1;
    }
    lpn_str *s = (lpn_str *)lpn_ptr(sql);
    lpn_arr *ps = (lpn_arr *)lpn_ptr(params);
    if (lprt_sql_set(q, i, s->data, s->len, (int)ps->len) != LPRT_OK) abort();
    if (ps->len > LPRT_SQL_MAX_PARAMS) return 0;   /* refused by runtime/sql.c */
    for (uint64_t j = 0; j < ps->len; j++) {
        lpn_value v = ps->item[j];
        int rc;
        switch (v.cls) {
        case LPN_NIL: rc = lprt_sql_param(q, i, (int)j, LPRT_SQL_NULL, 0, 0.0, NULL, 0); break;
        case LPN_INT: rc = lprt_sql_param(q, i, (int)j, LPRT_SQL_INT, (int64_t)v.bits, 0.0, NULL, 0); break;
        case LPN_FLOAT: rc = lprt_sql_param(q, i, (int)j, LPRT_SQL_REAL, 0, lpn_f(v), NULL, 0); break;
        case LPN_STRING: {
            lpn_str *t = (lpn_str *)lpn_ptr(v);
            rc = lprt_sql_param(q, i, (int)j, LPRT_SQL_TEXT, 0, 0.0, t->data, t->len);
            break;
        }
        case LPN_BYTES: {
            lpn_bytes *b = (lpn_bytes *)lpn_ptr(v);
            rc = lprt_sql_param(q, i, (int)j, LPRT_SQL_BLOB, 0, 0.0, (const char *)b->data, b->len);
            break;
        }
        default:
            snprintf(prefix, sizeof prefix, "%s a parameter is nil, an Integer, a Float, a String or a ByteArray, not ",
                     what);
            fail_describing("InvalidSql", prefix, v);
            return -1;
        }
        if (rc != LPRT_OK) abort();
    }
    return 0;
}

static lpn_value cell(lprt_sql *q, int i, int64_t r, int c) {
    int64_t iv;
    double fv;
    const char *p;
    size_t n;
    switch (lprt_sql_cell(q, i, r, c, &iv, &fv, &p, &n)) {
    case LPRT_SQL_INT: return lpn_int(iv);
    case LPRT_SQL_REAL: return lpn_float(fv);
    case LPRT_SQL_TEXT: return lpn_str_new(p, n);
    case LPRT_SQL_BLOB: {
        lpn_bytes *b = lpn_alloc(LPN_BYTES, sizeof(lpn_bytes) + n);
        b->len = n;
        if (n) memcpy(b->data, p, n);
        return lpn_ref(b);
    }
    default: return LPN_NIL_VALUE;
    }
}

static lpn_value result_of(lprt_sql *q, int i) {
    int ncols = lprt_sql_columns(q, i);
    int64_t nrows = lprt_sql_rows(q, i);
    lpn_arr *cols = lpn_arr_new((uint64_t)ncols);
    for (int c = 0; c < ncols; c++) {
        const char *name = lprt_sql_column(q, i, c);
        cols->item[c] = lpn_str_new(name, strlen(name));
    }
    lpn_arr *rows = lpn_arr_new((uint64_t)nrows);
    for (int64_t r = 0; r < nrows; r++) {
        lpn_value d = lpn_dict_new();
        for (int c = 0; c < ncols; c++) {
            lpn_dup(cols->item[c]);
            d = lpn_dict_at_put(d, cols->item[c], cell(q, i, r, c));
        }
        rows->item[r] = d;
    }
    lpn_inst *res = lpn_inst_new(lpnet_class("SqlResult"), 3);
    res->field[0] = lpn_ref(cols);
    res->field[1] = lpn_ref(rows);
    res->field[2] = lpn_int(lprt_sql_written(q, i));
    return lpn_ref(res);
}

/* Runs the request on the job threads while the fiber waits: 0, or -1 with the error raised
   (the store's failure as its StorageError, or the unwinding of a killed actor). */
static int run(lprt_sql *q, int mode, const char *what) {
    lprt_actor *self = lpn_wait_begin();
    int r = lprt_wait_sql(self, q);
    if (r < 0) abort();
    if (r == LPRT_OK) lprt_suspend(self);
    if (lpn_wait_end()) return -1;
    int status = lprt_sql_status(q);
    if (!status) return 0;
    int at = lprt_sql_failed_at(q);
    char where[48] = "";
    if (mode == LPRT_SQL_TRANSACTION && at >= 0) snprintf(where, sizeof where, " (statement %d)", at + 1);
    const char *cls = status > 0 && status <= LPRT_SQL_BACKEND ? error_class[status] : "StorageError";
    lpnet_fail(cls, "%s%s %s", what, where, lprt_sql_message(q));
    return -1;
}

/* execute: / execute:with: / query: / query:with: — one statement: its SqlResult */
static lpn_value one(lpn_value *a, int nargs, int mode, const char *what) {
    if (not_store(a, nargs, strchr(what, ' ') + 1)) return LPN_UNWIND_VALUE;
    store *s = store_of(a[0]);
    lpn_value none = lpn_ref(lpn_arr_new(0));
    lpn_value params = nargs == 2 ? a[2] : none;
    lprt_sql *q = lprt_sql_new(s->c->db, mode, 1, s->result_limit);
    if (!q) abort();
    lpn_value r = LPN_UNWIND_VALUE;
    if (!set_statement(q, 0, a[1], params, what) && !run(q, mode, what)) r = result_of(q, 0);
    lprt_sql_release(q);
    lpn_drop(none);
    lpnet_drop_all(a, nargs + 1);
    return r;
}
lpn_value lpn_storage_execute0(lpn_value *a) { return one(a, 1, LPRT_SQL_EXECUTE, "storage execute:"); }
lpn_value lpn_storage_execute(lpn_value *a) { return one(a, 2, LPRT_SQL_EXECUTE, "storage execute:with:"); }
lpn_value lpn_storage_query0(lpn_value *a) { return one(a, 1, LPRT_SQL_QUERY, "storage query:"); }
lpn_value lpn_storage_query(lpn_value *a) { return one(a, 2, LPRT_SQL_QUERY, "storage query:with:"); }

/* transaction: { sql -> params. sql. ... } — their SqlResults, all committed or none */
lpn_value lpn_storage_transaction(lpn_value *a) {
    const char *what = "storage transaction:";
    if (not_store(a, 1, "transaction:")) return LPN_UNWIND_VALUE;
    lpn_value r = LPN_UNWIND_VALUE, none = LPN_NIL_VALUE;
    lprt_sql *q = NULL;
    if (a[1].cls != LPN_ARRAY) {
        fail_describing("Error", "storage transaction: takes an Array of sql -> parameters, not ", a[1]);
        goto done;
    }
    lpn_arr *items = (lpn_arr *)lpn_ptr(a[1]);
    for (uint64_t i = 0; i < items->len; i++) {
        lpn_value v = items->item[i];
        if (v.cls != LPN_ASSOC && v.cls != LPN_STRING) {
            fail_describing("Error", "storage transaction: a statement is sql -> parameters, not ", v);
            goto done;
        }
    }
    if (items->len < 1 || items->len > LPRT_SQL_MAX_STATEMENTS) {
        lpnet_fail("InvalidSql", "%s a transaction has 1 to 100 statements, not %llu", what,
                   (unsigned long long)items->len);
        goto done;
    }
    store *s = store_of(a[0]);
    q = lprt_sql_new(s->c->db, LPRT_SQL_TRANSACTION, (int)items->len, s->result_limit);
    if (!q) abort();
    none = lpn_ref(lpn_arr_new(0));
    for (uint64_t i = 0; i < items->len; i++) {
        lpn_value v = items->item[i];
        lpn_value sql = v, params = none;
        if (v.cls == LPN_ASSOC) {
            sql = ((lpn_assoc *)lpn_ptr(v))->key;
            params = ((lpn_assoc *)lpn_ptr(v))->value;
        }
        if (set_statement(q, (int)i, sql, params, what)) goto done;
    }
    if (run(q, LPRT_SQL_TRANSACTION, what)) goto done;
    lpn_arr *out = lpn_arr_new(items->len);
    for (uint64_t i = 0; i < items->len; i++) out->item[i] = result_of(q, (int)i);
    r = lpn_ref(out);
done:
    if (q) lprt_sql_release(q);
    lpn_drop(none);
    lpnet_drop_all(a, 2);
    return r;
}

/* ---- the durable grain the running actor owns (docs/durable.md) */

typedef struct binding {
    char *key, *dir;
    lpn_value storage;   /* Storage current, made by its first use (nil until then) */
} binding;

static void binding_free(void *p) {
    binding *b = p;
    lpn_drop(b->storage);
    free(b->key);
    free(b->dir);
    free(b);
}

lpn_value lpn_storage_bind_grain(lpn_value *a) {   /* Storage bindGrain: key dir: directory */
    if (a[1].cls != LPN_STRING || a[2].cls != LPN_STRING || !((lpn_str *)lpn_ptr(a[2]))->len || holds_nul(a[1])
        || holds_nul(a[2])) {
        lpnet_drop_all(a, 3);
        return lpn_raise("Storage bindGrain:dir: takes a grain key and a directory");
    }
    binding *b = calloc(1, sizeof *b);
    if (!b || !(b->key = strdup(((lpn_str *)lpn_ptr(a[1]))->data)) || !(b->dir = strdup(((lpn_str *)lpn_ptr(a[2]))->data)))
        abort();
    b->storage = LPN_NIL_VALUE;
    lpn_actor_set_grain(b, binding_free);
    lpn_drop(a[0]);
    lpn_drop(a[2]);
    return a[1];
}

static binding *bound(void) {
    binding *b = lpn_actor_grain();
    if (!b)
        lpn_raise("no durable grain here: Grain storage and Grain alarm are for the methods of a grain whose server "
                  "has a data directory (docs/durable.md)");
    return b;
}

/* join(a, b) as os.path.join, appended to out */
static void join(char *out, size_t cap, const char *part) {
    size_t n = strlen(out);
    if (part[0] == '/') n = 0;
    else if (n && out[n - 1] != '/') out[n++] = '/';
    snprintf(out + n, cap - n, "%s", part);
}

/* The file of grain key (Class/id) under dir: dir/Class/id.sqlite, the id percent-encoded (a long
   one shortened with its hash): prims_storage.grain_path. */
static char *grain_path(const char *dir, const char *key) {
    const char *slash = strchr(key, '/');
    size_t clen = slash ? (size_t)(slash - key) : strlen(key);
    const char *gid = slash ? slash + 1 : "";
    size_t glen = strlen(gid);
    char *name = malloc(glen * 3 + 140), *cls = strndup(key, clen);
    if (!name || !cls) abort();
    size_t n = 0;
    for (size_t i = 0; i < glen; i++) {
        unsigned char ch = (unsigned char)gid[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr("-_.~", ch))
            name[n++] = (char)ch;
        else
            n += (size_t)sprintf(name + n, "%%%02X", ch);
    }
    name[n] = 0;
    if (!n || name[0] == '.' || n > 180) {
        unsigned char d[32];
        lpn_sha256(gid, glen, d);
        n = n > 100 ? 100 : n;
        name[n++] = '~';
        for (int i = 0; i < 16; i++) n += (size_t)sprintf(name + n, "%02x", d[i]);
    }
    snprintf(name + n, 8, ".sqlite");
    size_t cap = strlen(dir) + clen + n + 16;
    char *out = calloc(1, cap);
    if (!out) abort();
    join(out, cap, dir);
    join(out, cap, cls);
    join(out, cap, name);
    free(name);
    free(cls);
    return out;
}

lpn_value lpn_storage_current(lpn_value *a) {
    lpn_drop(a[0]);
    binding *b = bound();
    if (!b) return LPN_UNWIND_VALUE;
    if (b->storage.cls == LPN_NIL) {
        char *path = grain_path(b->dir, b->key);
        b->storage = store_new(path, 0, RESULT_LIMIT, BUSY_MS);
        free(path);
    }
    lpn_dup(b->storage);
    return b->storage;
}

lpn_value lpn_storage_current_grain(lpn_value *a) {
    lpn_drop(a[0]);
    binding *b = bound();
    return b ? lpn_str_new(b->key, strlen(b->key)) : LPN_UNWIND_VALUE;
}

lpn_value lpn_storage_current_dir(lpn_value *a) {
    lpn_drop(a[0]);
    binding *b = bound();
    return b ? lpn_str_new(b->dir, strlen(b->dir)) : LPN_UNWIND_VALUE;
}
