/* t_sql.c — private SQLite stores on the job threads: many fibers on 1, 2 and 4
 * domains run transactions on their own files and on one shared file, some
 * failing on purpose (all or nothing), and fibers killed while their request
 * runs (the request still finishes and is freed). At the end every file holds
 * exactly the committed rows. */
#include "harness.h"

#include <unistd.h>

#define FIBERS 8
#define ROUNDS SCALE(8)

static char dir[256];
static lprt_db *shared;
static _Atomic int done_count;

static lprt_sql *request(lprt_db *db, int mode, int n, const char **sql, const long *vals) {
    lprt_sql *q = lprt_sql_new(db, mode, n, 1 << 20);
    CHECK(q);
    for (int i = 0; i < n; i++) {
        CHECK(lprt_sql_set(q, i, sql[i], strlen(sql[i]), vals ? 1 : 0) == LPRT_OK);
        if (vals) CHECK(lprt_sql_param(q, i, 0, LPRT_SQL_INT, vals[i], 0, NULL, 0) == LPRT_OK);
    }
    return q;
}

/* run q from this fiber, parked meanwhile */
static int run_q(lprt_actor *self, lprt_sql *q) {
    int r = lprt_wait_sql(self, q);
    CHECK(r >= 0);
    if (r == LPRT_OK) CHECK(lprt_suspend(self) == LPRT_WAKE_DONE);
    return lprt_sql_status(q);
}

static int64_t count(lprt_actor *self, lprt_db *db, const char *table) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    const char *s = sql;
    lprt_sql *q = request(db, LPRT_SQL_QUERY, 1, &s, NULL);
    CHECK(run_q(self, q) == LPRT_SQL_OK);
    int64_t iv;
    double fv;
    const char *p;
    size_t n;
    CHECK(lprt_sql_cell(q, 0, 0, 0, &iv, &fv, &p, &n) == LPRT_SQL_INT);
    lprt_sql_release(q);
    return iv;
}

static void worker(lprt_actor *self, void *ud) {
    long id = (long)(intptr_t)ud;
    char path[320];
    snprintf(path, sizeof path, "%s/own-%ld.sqlite", dir, id);
    lprt_db *own = lprt_db_new(path, 0, 5000);
    const char *ddl = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY)";
    lprt_sql *q = request(own, LPRT_SQL_EXECUTE, 1, &ddl, NULL);
    CHECK(run_q(self, q) == LPRT_SQL_OK);
    lprt_sql_release(q);
    unsigned seed = (unsigned)id;
    int64_t expect = 0;
    for (int r = 0; r < ROUNDS; r++) {
        const char *ins[3] = {"INSERT INTO t VALUES (?)", "INSERT INTO t VALUES (?)", "INSERT INTO t VALUES (?)"};
        int fail = h_rand(&seed) % 4 == 0;
        long vals[3] = {r * 3 + 1, r * 3 + 2, fail ? r * 3 + 1 : r * 3 + 3}; /* a failing one repeats a key */
        lprt_db *db = h_rand(&seed) % 2 ? own : shared;
        long shared_vals[3] = {id * 100000 + vals[0], id * 100000 + vals[1], id * 100000 + vals[2]};
        q = request(db, LPRT_SQL_TRANSACTION, 3, ins, db == own ? vals : shared_vals);
        int st = run_q(self, q);
        CHECK(st == (fail ? LPRT_SQL_CONSTRAINT : LPRT_SQL_OK));
        if (fail) CHECK(lprt_sql_failed_at(q) == 2);
        if (!fail && db == own) expect += 3;
        lprt_sql_release(q);
    }
    CHECK(count(self, own, "t") == expect);
    lprt_db_release(own);
    atomic_fetch_add(&done_count, 1);
}

/* killed while its long request runs on a job thread */
static void victim(lprt_actor *self, void *ud) {
    const char *s = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
                    "SELECT count(*) FROM c";
    lprt_sql *q = request(shared, LPRT_SQL_QUERY, 1, &s, NULL);
    lprt_wait_sql(self, q);
    lprt_sql_release(q); /* the job holds its own reference */
    lprt_suspend(self);
}

static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    const char *ddl = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY)";
    lprt_sql *q = request(shared, LPRT_SQL_EXECUTE, 1, &ddl, NULL);
    CHECK(run_q(self, q) == LPRT_SQL_OK);
    lprt_sql_release(q);
    lprt_actor *victims[4];
    for (int i = 0; i < 4; i++) victims[i] = lprt_spawn_fiber(rt, victim, NULL, 0);
    for (long i = 0; i < FIBERS; i++) {
        lprt_actor *a = lprt_spawn_fiber(rt, worker, (void *)(intptr_t)(i + 1), 0);
        lprt_monitor(self, a);
        lprt_release(a);
    }
    lprt_sleep_ms(self, 5);
    for (int i = 0; i < 4; i++) {
        lprt_exit(self, victims[i], LPRT_KILLED, NULL);
        lprt_release(victims[i]);
    }
    for (int i = 0; i < FIBERS; i++) {
        lprt_msg *m = lprt_receive(self, -1);
        CHECK(m && m->kind == LPRT_MSG_DOWN && m->reason.kind == LPRT_NORMAL);
        lprt_msg_free(rt, m);
    }
    CHECK(atomic_load(&done_count) == FIBERS);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/lprt-t-sql-%d", (int)getpid());
    for (size_t d = 0; d < 3; d++) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
        char path[320];
        snprintf(path, sizeof path, "%s/shared.sqlite", dir);
        shared = lprt_db_new(path, 0, 5000);
        atomic_store(&done_count, 0);
        lprt *rt = h_new(h_domain_counts[d]);
        h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 0));
        lprt_db_release(shared);
        printf("  domains=%d: %d fibers x %d transactions\n", h_domain_counts[d], FIBERS, ROUNDS);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    printf("ok\n");
    return 0;
}
