/* sql.c — private SQLite stores: a request (one statement, a read that rolls
 * back, or a transaction of several) is built by the caller, run on the job
 * threads (jobs.c) and its results materialised here before the commit, so
 * the caller reads plain values after its wake. Every failure is one of the
 * storage codes in lprt.h; a request that fails leaves the store as it was.
 *
 * A store is one file, opened by its first request: WAL journal, full
 * synchronous commits, foreign keys on, no checkpoint at close (closing is
 * cheap wherever the last reference goes). While user statements run, an
 * authorizer refuses what would escape the request or the file: transaction
 * control, savepoints, ATTACH / DETACH and pragmas other than schema reads. */
#include "lprt_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SAFE_INT 9007199254740991LL

struct lprt_db {
    _Atomic int refs;
    pthread_mutex_t mu; /* one request at a time on the connection */
    char *path;
    int64_t max_bytes;  /* 0: no quota */
    int busy_ms;
    int user;           /* user statements are running: the authorizer applies */
    sqlite3 *db;
};

typedef struct {
    int type;
    int64_t i;
    double f;
    char *p;
    size_t n;
} sqlv;

typedef struct {
    char *sql;
    size_t len;
    int nparams;
    sqlv *params;
    int ncols;
    char **cols;
    int64_t nrows, cap;
    sqlv *cells;
    int64_t written;
} stmt;

struct lprt_sql {
    _Atomic int refs;
    lprt_db *db;
    int mode;
    int n;
    stmt *st;
    int64_t result_limit, result_bytes;
    int status, failed_at;
    char msg[600];
};

/* ---- stores */

lprt_db *lprt_db_new(const char *path, int64_t max_bytes, int busy_ms) {
    lprt_db *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    atomic_init(&d->refs, 1);
    pthread_mutex_init(&d->mu, NULL);
    d->path = strdup(path);
    d->max_bytes = max_bytes;
    d->busy_ms = busy_ms;
    return d;
}

void lprt_db_release(lprt_db *d) {
    if (!d || atomic_fetch_sub(&d->refs, 1) != 1) return;
    if (d->db) sqlite3_close_v2(d->db);
    pthread_mutex_destroy(&d->mu);
    free(d->path);
    free(d);
}

static int authorize(void *ud, int action, const char *a, const char *b, const char *c, const char *e) {
    lprt_db *d = ud;
    if (!d->user) return SQLITE_OK;
    switch (action) {
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        return SQLITE_DENY;
    case SQLITE_PRAGMA: {
        static const char *schema_reads[] = {"table_info", "table_xinfo", "table_list", "index_list", "index_info",
                                             "index_xinfo", "foreign_key_list", "foreign_key_check", NULL};
        static const char *value_reads[] = {"user_version", "page_count", "page_size", "freelist_count", NULL};
        for (int i = 0; a && schema_reads[i]; i++)
            if (!strcmp(a, schema_reads[i])) return SQLITE_OK;
        for (int i = 0; a && !b && value_reads[i]; i++) /* without an argument: read, not set */
            if (!strcmp(a, value_reads[i])) return SQLITE_OK;
        return SQLITE_DENY;
    }
    default:
        return SQLITE_OK;
    }
}

/* mkdir -p of the directory part of path */
static int make_parent(const char *path) {
    char *p = strdup(path);
    if (!p) return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

static int fail(lprt_sql *q, int code, const char *fmt, ...) {
    if (q->status) return q->status;
    q->status = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q->msg, sizeof q->msg, fmt, ap);
    va_end(ap);
    return code;
}

static int classify(int rc, const char *msg) {
    switch (rc & 0xff) {
    case SQLITE_CONSTRAINT: return LPRT_SQL_CONSTRAINT;
    case SQLITE_FULL: return LPRT_SQL_FULL;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return LPRT_SQL_BUSY;
    case SQLITE_TOOBIG: return LPRT_SQL_TOO_LARGE;
    case SQLITE_ERROR:
        if (msg && strstr(msg, "integer overflow")) return LPRT_SQL_NUMERIC;
        return LPRT_SQL_INVALID;
    case SQLITE_AUTH:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH: return LPRT_SQL_INVALID;
    default: return LPRT_SQL_BACKEND;
    }
}

static int sqlite_fail(lprt_sql *q, int rc) {
    const char *m = q->db->db ? sqlite3_errmsg(q->db->db) : sqlite3_errstr(rc);
    return fail(q, classify(rc, m), "%s", m);
}

static int open_db(lprt_sql *q) {
    lprt_db *d = q->db;
    if (d->db) return 0;
    if (make_parent(d->path) != 0) return fail(q, LPRT_SQL_BACKEND, "cannot make the store's directory: %s", strerror(errno));
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(d->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    /* before the pragmas: switching to WAL waits for another process's lock like any write */
    if (rc == SQLITE_OK) sqlite3_busy_timeout(db, d->busy_ms);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
                                           NULL, NULL, NULL);
    if (rc == SQLITE_OK && d->max_bytes > 0) {
        char buf[96];
        snprintf(buf, sizeof buf, "PRAGMA max_page_count=%lld;", (long long)(d->max_bytes / 4096 > 0 ? d->max_bytes / 4096 : 1));
        rc = sqlite3_exec(db, buf, NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        fail(q, LPRT_SQL_BACKEND, "cannot open the store: %s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close_v2(db);
        return q->status;
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    sqlite3_set_authorizer(db, authorize, d);
    d->db = db;
    return 0;
}

/* ---- requests */

lprt_sql *lprt_sql_new(lprt_db *db, int mode, int nstmts, int64_t result_limit) {
    lprt_sql *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->st = calloc((size_t)(nstmts > 0 ? nstmts : 1), sizeof(stmt));
    if (!q->st) {
        free(q);
        return NULL;
    }
    atomic_init(&q->refs, 1);
    atomic_fetch_add(&db->refs, 1);
    q->db = db;
    q->mode = mode;
    q->n = nstmts;
    q->result_limit = result_limit;
    q->failed_at = -1;
    return q;
}

static void free_value(sqlv *v) {
    if (v->type == LPRT_SQL_TEXT || v->type == LPRT_SQL_BLOB) free(v->p);
}

void lprt_sql_release(lprt_sql *q) {
    if (!q || atomic_fetch_sub(&q->refs, 1) != 1) return;
    for (int i = 0; i < q->n; i++) {
        stmt *s = &q->st[i];
        free(s->sql);
        for (int j = 0; j < s->nparams; j++) free_value(&s->params[j]);
        free(s->params);
        for (int c = 0; c < s->ncols; c++) free(s->cols[c]);
        free(s->cols);
        for (int64_t k = 0; k < s->nrows * s->ncols; k++) free_value(&s->cells[k]);
        free(s->cells);
    }
    free(q->st);
    lprt_db_release(q->db);
    free(q);
}

static char *copy(const char *p, size_t n) {
    char *c = malloc(n + 1);
    if (!c) return NULL;
    if (n) memcpy(c, p, n);
    c[n] = 0;
    return c;
}

int lprt_sql_set(lprt_sql *q, int i, const char *sql, size_t len, int nparams) {
    stmt *s = &q->st[i];
    s->sql = copy(sql, len);
    s->len = len;
    s->params = calloc((size_t)(nparams > 0 ? nparams : 1), sizeof(sqlv));
    s->nparams = nparams;
    return s->sql && s->params ? LPRT_OK : LPRT_ENOMEM;
}

int lprt_sql_param(lprt_sql *q, int i, int j, int type, int64_t iv, double fv, const char *p, size_t n) {
    sqlv *v = &q->st[i].params[j];
    v->type = type;
    v->i = iv;
    v->f = fv;
    v->n = n;
    if (type == LPRT_SQL_TEXT || type == LPRT_SQL_BLOB) {
        v->p = copy(p, n);
        if (!v->p) return LPRT_ENOMEM;
    }
    return LPRT_OK;
}

static size_t utf8_chars(const char *p, size_t n) {
    size_t c = 0;
    for (size_t k = 0; k < n; k++) c += ((unsigned char)p[k] & 0xC0) != 0x80;
    return c;
}

static int check_value(lprt_sql *q, const sqlv *v, int result) {
    switch (v->type) {
    case LPRT_SQL_INT:
        if (v->i > SAFE_INT || v->i < -SAFE_INT)
            return fail(q, LPRT_SQL_NUMERIC, "the integer %lld is outside the safe range (at most 2^53 - 1 either way)",
                        (long long)v->i);
        return 0;
    case LPRT_SQL_REAL:
        if (!isfinite(v->f) || fabs(v->f) > (double)SAFE_INT)
            return fail(q, LPRT_SQL_NUMERIC, "a number is not finite or outside the safe range (at most 2^53 - 1 either way)");
        return 0;
    case LPRT_SQL_TEXT:
        if (v->n > LPRT_SQL_MAX_VALUE && utf8_chars(v->p, v->n) > LPRT_SQL_MAX_VALUE)
            return fail(q, result ? LPRT_SQL_TOO_LARGE : LPRT_SQL_INVALID,
                        "a string is longer than 1,000,000 characters");
        return 0;
    case LPRT_SQL_BLOB:
        if (v->n > LPRT_SQL_MAX_VALUE)
            return fail(q, result ? LPRT_SQL_TOO_LARGE : LPRT_SQL_INVALID,
                        "a byte array is longer than 1,000,000 bytes");
        return 0;
    default:
        return 0;
    }
}

static int validate(lprt_sql *q) {
    if (q->n < 1 || q->n > LPRT_SQL_MAX_STATEMENTS)
        return fail(q, LPRT_SQL_INVALID, "a transaction has 1 to 100 statements");
    for (int i = 0; i < q->n; i++) {
        stmt *s = &q->st[i];
        q->failed_at = i;
        size_t chars = utf8_chars(s->sql, s->len);
        if (chars < 1 || chars > LPRT_SQL_MAX_SQL)
            return fail(q, LPRT_SQL_INVALID, "SQL text has 1 to 100,000 characters");
        if (s->nparams > LPRT_SQL_MAX_PARAMS) return fail(q, LPRT_SQL_INVALID, "at most 100 parameters");
        for (int j = 0; j < s->nparams; j++)
            if (check_value(q, &s->params[j], 0)) return q->status;
    }
    q->failed_at = -1;
    return 0;
}

static int add_cell(lprt_sql *q, stmt *s, sqlite3_stmt *ps, int c) {
    sqlv *v = &s->cells[s->nrows * s->ncols + c];
    memset(v, 0, sizeof *v);
    switch (sqlite3_column_type(ps, c)) {
    case SQLITE_INTEGER:
        v->type = LPRT_SQL_INT;
        v->i = sqlite3_column_int64(ps, c);
        q->result_bytes += 8;
        break;
    case SQLITE_FLOAT:
        v->type = LPRT_SQL_REAL;
        v->f = sqlite3_column_double(ps, c);
        q->result_bytes += 8;
        break;
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
        int text = sqlite3_column_type(ps, c) == SQLITE_TEXT;
        const void *p = text ? (const void *)sqlite3_column_text(ps, c) : sqlite3_column_blob(ps, c);
        v->n = (size_t)sqlite3_column_bytes(ps, c);
        q->result_bytes += (int64_t)v->n;
        if (q->result_bytes > q->result_limit) return 0; /* reported by the caller */
        v->p = copy(p ? p : "", v->n);
        if (!v->p) return fail(q, LPRT_SQL_BACKEND, "out of memory");
        v->type = text ? LPRT_SQL_TEXT : LPRT_SQL_BLOB;
        break;
    }
    default:
        v->type = LPRT_SQL_NULL;
    }
    return check_value(q, v, 1);
}

static int bind(lprt_sql *q, stmt *s, sqlite3_stmt *ps) {
    int want = sqlite3_bind_parameter_count(ps);
    if (want != s->nparams) {
        return fail(q, LPRT_SQL_INVALID, "the statement takes %d parameter%s, not %d", want, want == 1 ? "" : "s",
                    s->nparams);
    }
    for (int j = 0; j < s->nparams; j++) {
        sqlv *v = &s->params[j];
        int rc;
        switch (v->type) {
        case LPRT_SQL_INT: rc = sqlite3_bind_int64(ps, j + 1, v->i); break;
        case LPRT_SQL_REAL: rc = sqlite3_bind_double(ps, j + 1, v->f); break;
        case LPRT_SQL_TEXT: rc = sqlite3_bind_text(ps, j + 1, v->p, (int)v->n, SQLITE_STATIC); break;
        case LPRT_SQL_BLOB: rc = sqlite3_bind_blob(ps, j + 1, v->p, (int)v->n, SQLITE_STATIC); break;
        default: rc = sqlite3_bind_null(ps, j + 1);
        }
        if (rc != SQLITE_OK) return sqlite_fail(q, rc);
    }
    return 0;
}

static int only_space(const char *p) {
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ';') p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e) return 0;
            p = e + 2;
        } else {
            return *p == 0;
        }
    }
}

static int run_one(lprt_sql *q, stmt *s) {
    sqlite3 *db = q->db->db;
    sqlite3_stmt *ps = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(db, s->sql, (int)s->len, &ps, &tail);
    if (rc != SQLITE_OK) return sqlite_fail(q, rc);
    if (!ps) return fail(q, LPRT_SQL_INVALID, "the SQL text holds no statement");
    if (tail && !only_space(tail)) {
        sqlite3_finalize(ps);
        return fail(q, LPRT_SQL_INVALID, "the SQL text holds more than one statement (use transaction:)");
    }
    if (bind(q, s, ps)) {
        sqlite3_finalize(ps);
        return q->status;
    }
    s->ncols = sqlite3_column_count(ps);
    s->cols = calloc((size_t)(s->ncols > 0 ? s->ncols : 1), sizeof(char *));
    for (int c = 0; c < s->ncols; c++) {
        const char *name = sqlite3_column_name(ps, c);
        s->cols[c] = strdup(name ? name : "");
    }
    int64_t before = sqlite3_total_changes64(db);
    while ((rc = sqlite3_step(ps)) == SQLITE_ROW) {
        if (s->nrows == s->cap) {
            int64_t cap = s->cap ? s->cap * 2 : 16;
            sqlv *cells = realloc(s->cells, (size_t)(cap * (s->ncols > 0 ? s->ncols : 1)) * sizeof(sqlv));
            if (!cells) {
                sqlite3_finalize(ps);
                return fail(q, LPRT_SQL_BACKEND, "out of memory");
            }
            s->cells = cells;
            s->cap = cap;
        }
        for (int c = 0; c < s->ncols; c++) {
            int bad = add_cell(q, s, ps, c);
            if (!bad && q->result_bytes > q->result_limit) {
                bad = fail(q, LPRT_SQL_TOO_LARGE, "the results are larger than %lld bytes", (long long)q->result_limit);
            }
            if (bad) {
                s->nrows++; /* the row's cells so far are freed with the rest */
                for (int k = c + 1; k < s->ncols; k++) s->cells[(s->nrows - 1) * s->ncols + k].type = LPRT_SQL_NULL;
                sqlite3_finalize(ps);
                return q->status;
            }
        }
        s->nrows++;
    }
    if (rc != SQLITE_DONE) {
        int code = sqlite_fail(q, rc);
        sqlite3_finalize(ps);
        return code;
    }
    sqlite3_finalize(ps);
    s->written = q->mode == LPRT_SQL_QUERY ? 0 : sqlite3_total_changes64(db) - before;
    return 0;
}

/* Test hook LPRT_TEST_SQL_TRACE=file: after each statement of a transaction, append its
   index to the file and pause 100 ms, so a test can kill the process between two statements. */
static void trace_step(const char *path, int i) {
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%d\n", i + 1);
        fclose(f);
    }
    struct timespec ts = {0, 100000000L};
    nanosleep(&ts, NULL);
}

/* Test hook LPRT_TEST_SQL_CRASH_AFTER=N: the process exits (status 86, nothing flushed) right
   after its Nth successful commit of a writing request, so a test can crash a program at each
   commit boundary in turn (docs/reliable.md, "Crash tests"). */
static void crash_point(void) {
    static _Atomic long commits;
    const char *n = getenv("LPRT_TEST_SQL_CRASH_AFTER");
    if (n && *n && atomic_fetch_add(&commits, 1) + 1 == atol(n)) _exit(86);
}

void lprt_sql_run(lprt_sql *q) {
    lprt_db *d = q->db;
    pthread_mutex_lock(&d->mu);
    if (validate(q) || open_db(q)) goto out;
    int rc = sqlite3_exec(d->db, q->mode == LPRT_SQL_QUERY ? "BEGIN" : "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        sqlite_fail(q, rc);
        goto out;
    }
    d->user = 1;
    const char *trace = getenv("LPRT_TEST_SQL_TRACE");
    for (int i = 0; i < q->n && !q->status; i++) {
        q->failed_at = i;
        run_one(q, &q->st[i]);
        if (trace && *trace && q->mode == LPRT_SQL_TRANSACTION) trace_step(trace, i);
    }
    d->user = 0;
    if (q->status || q->mode == LPRT_SQL_QUERY) {
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
    } else {
        q->failed_at = -1;
        rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            sqlite_fail(q, rc);
            sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        } else {
            crash_point();
        }
    }
    if (!q->status) q->failed_at = -1;
out:
    pthread_mutex_unlock(&d->mu);
}

static void job_done(void *q) { lprt_sql_release(q); }
static void job_run(void *q) { lprt_sql_run(q); }

int lprt_wait_sql(lprt_actor *self, lprt_sql *q) {
    atomic_fetch_add(&q->refs, 1);
    int r = lprt_wait_job(self, job_run, job_done, q, -1);
    if (r < 0) lprt_sql_release(q);
    return r;
}

int lprt_sql_status(const lprt_sql *q) { return q->status; }
const char *lprt_sql_message(const lprt_sql *q) { return q->msg; }
int lprt_sql_failed_at(const lprt_sql *q) { return q->failed_at; }
int lprt_sql_columns(const lprt_sql *q, int i) { return q->st[i].ncols; }
const char *lprt_sql_column(const lprt_sql *q, int i, int c) { return q->st[i].cols[c]; }
int64_t lprt_sql_rows(const lprt_sql *q, int i) { return q->st[i].nrows; }
int64_t lprt_sql_written(const lprt_sql *q, int i) { return q->st[i].written; }

int lprt_sql_cell(const lprt_sql *q, int i, int64_t r, int c, int64_t *iv, double *fv, const char **p, size_t *n) {
    const sqlv *v = &q->st[i].cells[r * q->st[i].ncols + c];
    *iv = v->i;
    *fv = v->f;
    *p = v->p;
    *n = v->n;
    return v->type;
}
