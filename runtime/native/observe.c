/* observe.c — `./prog --observe [HOST:]PORT` (docs/observer.md): the RuntimeView primitives of a
 * native binary, which stdlib/observer.lp serves to the page. The feed is the same JSON as
 * lp/observe/view.py builds under `lp run`, so one page reads both: totals, domains, one sorted
 * page of the actor table, the supervisors, the latest unobserved deaths and the selected actor.
 * What the interpreter keeps in lp/observe/watch.py is kept here: the spawn sites and the
 * observer's own (hidden) actors in actors.c's registry, the deaths and the supervisors' last
 * reports below. Nothing is kept unless the binary was started with --observe. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../lprt.h"
#include "lpn.h"

int lpn_observing;
static char host[256] = "127.0.0.1";
static int port;
static double cost_ms;   /* what the last tick took to build */

enum { DEATHS_KEPT = 50, EVENTS_KEPT = 20, PAGE_MAX = 200, MESSAGES_SHOWN = 10, PEERS_SHOWN = 64 };

static int64_t now_ms(void) {
    static int64_t started;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (!started) started = ms;
    return ms - started;
}

/* ---- the flag ---------------------------------------------------------------------------- */

int lpn_observe_setup(const char *prog, const char *address) {
    const char *colon = strrchr(address, ':');
    const char *digits = colon ? colon + 1 : address;
    size_t hl = colon ? (size_t)(colon - address) : 0;
    char *end;
    long p = strtol(digits, &end, 10);
    if (!*digits || *end || digits[0] == '-' || digits[0] == '+' || p > 65535 || hl >= sizeof host) {
        fprintf(stderr, "%s: --observe expects [HOST:]PORT (a port from 0 to 65535), not '%.100s'\n", prog, address);
        return 2;
    }
    if (hl) {
        memcpy(host, address, hl);
        host[hl] = 0;
    }
    port = (int)p;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    const char *why = NULL;
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) why = "not an IPv4 address";
    else if (fd < 0) why = strerror(errno);
    else {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) why = strerror(errno);
    }
    if (fd >= 0) close(fd);
    if (why) {
        fprintf(stderr, "lp: --observe: cannot serve on %s:%d: %s\n", host, port, why);
        return 2;
    }
    lpn_observing = 1;
    now_ms();
    return 0;
}

/* ---- JSON text --------------------------------------------------------------------------- */

typedef struct { char *p; size_t n, cap; } text;

static void put(text *t, const char *s, size_t n) {
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) abort();
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = 0;
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void putf(text *t, const char *fmt, ...) {
    char b[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    put(t, b, n < (int)sizeof b ? (size_t)n : sizeof b - 1);
}

static void put_string(text *t, const char *s) {
    put(t, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { put(t, "\\", 1); put(t, s, 1); }
        else if (c < 0x20) putf(t, "\\u%04x", c);
        else put(t, s, 1);
    }
    put(t, "\"", 1);
}

/* ---- what the observer keeps: deaths and supervisors ------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *deaths[DEATHS_KEPT];   /* JSON objects, oldest first from death_next */
static int ndeaths, death_next;

typedef struct sup {
    uint64_t actor;
    char *name, *children;          /* children: a JSON array */
    int64_t restarts;
    char *events[EVENTS_KEPT];
    int nevents, next;
    struct sup *link;
} sup;
static sup *sups;

static const char *site_text(int32_t site, char *buf, size_t cap);

void lpn_observe_death(uint64_t id, int32_t spawn_site, const char *why, const char *where) {
    char sb[300];
    text t = {0};
    putf(&t, "{\"id\":%llu,\"site\":", (unsigned long long)id);
    put_string(&t, site_text(spawn_site, sb, sizeof sb));
    puts_(&t, ",\"reason\":");
    put_string(&t, why);
    puts_(&t, ",\"where\":");
    put_string(&t, where);
    putf(&t, ",\"t\":%lld}", (long long)now_ms());
    pthread_mutex_lock(&mu);
    free(deaths[death_next]);
    deaths[death_next] = t.p;
    death_next = (death_next + 1) % DEATHS_KEPT;
    if (ndeaths < DEATHS_KEPT) ndeaths++;
    pthread_mutex_unlock(&mu);
}

static void sup_free(sup *s) {
    free(s->name);
    free(s->children);
    for (int i = 0; i < EVENTS_KEPT; i++) free(s->events[i]);
    free(s);
}

void lpn_observe_ended(uint64_t id) {
    pthread_mutex_lock(&mu);
    for (sup **p = &sups; *p; p = &(*p)->link)
        if ((*p)->actor == id) {
            sup *s = *p;
            *p = s->link;
            sup_free(s);
            break;
        }
    pthread_mutex_unlock(&mu);
}

/* ---- sites --------------------------------------------------------------------------------- */

/* "file:line" of a spawn site (its `where` without the column), "main", or "". */
static const char *site_text(int32_t site, char *buf, size_t cap) {
    if (site == -2) return "main";
    if (site < 0) return "";
    const char *w = lpn_prog.sites[site].where;
    const char *col = strrchr(w, ':');
    size_t n = col ? (size_t)(col - w) : strlen(w);
    snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), w);
    return buf;
}

/* The text of a site, made once per site (under mu). */
static const char *cached_site(int32_t site) {
    static char **cache;
    static size_t ncache;
    if (site < 0) return site == -2 ? "main" : "";
    if ((size_t)site >= ncache) {
        size_t m = (size_t)site * 2 + 16;
        cache = realloc(cache, m * sizeof *cache);
        if (!cache) abort();
        memset(cache + ncache, 0, (m - ncache) * sizeof *cache);
        ncache = m;
    }
    if (!cache[site]) {
        char b[300];
        cache[site] = strdup(site_text(site, b, sizeof b));
    }
    return cache[site];
}

/* ---- the primitives (lp.compiler.observe: a[0] the receiver, all consumed) ---------------- */

lpn_value lpn_obs_observing(lpn_value *a) { (void)a; return lpn_bool(lpn_observing); }

lpn_value lpn_obs_hide(lpn_value *a) {
    (void)a;
    if (lpn_observing) lpn_observe_hide_self();
    return LPN_NIL_VALUE;
}

lpn_value lpn_obs_host(lpn_value *a) { (void)a; return lpn_str_new(host, strlen(host)); }

lpn_value lpn_obs_port(lpn_value *a) { (void)a; return lpn_int(port); }

lpn_value lpn_obs_announce(lpn_value *a) {
    if (lpn_observing && a[1].cls == LPN_INT) {
        lpn_flush();
        fprintf(stderr, "lp: observing at http://%s:%lld/\n", host, (long long)a[1].bits);
        fflush(stderr);
    }
    lpn_drop(a[1]);
    return LPN_NIL_VALUE;
}

lpn_value lpn_obs_pause(lpn_value *a) {
    (void)a;
    double p = cost_ms * 20;
    return lpn_int(p < 250 ? 250 : p > 10000 ? 10000 : (int64_t)p);
}

/* The page's files, embedded in the binary by the compiler (lp.compiler.observe). */
typedef struct { const char *path, *type, *data; uint64_t len; } lpn_asset;

static const lpn_asset *asset_at(const lpn_asset *table, lpn_value path) {
    if (path.cls != LPN_STRING) return NULL;
    for (; table->path; table++)
        if (!strcmp(table->path, ((lpn_str *)lpn_ptr(path))->data)) return table;
    return NULL;
}

lpn_value lpn_obs_asset(lpn_value *a, const lpn_asset *table) {
    const lpn_asset *found = asset_at(table, a[1]);
    lpn_drop(a[1]);
    return found ? lpn_maybe_new(1, lpn_str_new(found->data, found->len)) : lpn_maybe_new(0, LPN_NIL_VALUE);
}

lpn_value lpn_obs_content_type(lpn_value *a, const lpn_asset *table) {
    const lpn_asset *found = asset_at(table, a[1]);
    lpn_drop(a[1]);
    const char *type = found ? found->type : "text/plain; charset=utf-8";
    return lpn_str_new(type, strlen(type));
}

/* A value as the interpreter's report shows it: a Symbol's name, else its printString. */
static char *shown(lpn_value v) {
    if (v.cls == LPN_SYMBOL) {
        const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)v.bits;
        return strndup(s->name, s->len);
    }
    if (v.cls == LPN_STRING) {
        char *r = strdup(((lpn_str *)lpn_ptr(v))->data);
        lpn_drop(v);
        return r;
    }
    lpn_value p = lpn_print_string(v);
    char *r = strdup(p.cls == LPN_STRING ? ((lpn_str *)lpn_ptr(p))->data : "");
    lpn_drop(p);
    return r;
}

static int64_t int_at(lpn_value arr, uint64_t i) {
    lpn_arr *x = (lpn_arr *)lpn_ptr(arr);
    return x->item[i].cls == LPN_INT ? (int64_t)x->item[i].bits : 0;
}

/* `RuntimeView supervisor: name event: kind child: id detail: text children: ids actors: actors
   restarts: counts` from the supervisor's own actor (stdlib/supervision.lp). */
lpn_value lpn_obs_supervisor(lpn_value *a) {
    if (!lpn_observing || a[5].cls != LPN_ARRAY || a[6].cls != LPN_ARRAY || a[7].cls != LPN_ARRAY) {
        for (int i = 1; i <= 7; i++) lpn_drop(a[i]);
        return LPN_NIL_VALUE;
    }
    char *name = shown(a[1]), *kind = shown(a[2]), *child = shown(a[3]), *detail = shown(a[4]);
    lpn_arr *ids = (lpn_arr *)lpn_ptr(a[5]);
    uint64_t n = ids->len;
    if (((lpn_arr *)lpn_ptr(a[6]))->len < n) n = ((lpn_arr *)lpn_ptr(a[6]))->len;
    if (((lpn_arr *)lpn_ptr(a[7]))->len < n) n = ((lpn_arr *)lpn_ptr(a[7]))->len;
    text children = {0}, event = {0};
    int64_t restarts = 0;
    put(&children, "[", 1);
    for (uint64_t i = 0; i < n; i++) {
        lpn_dup(ids->item[i]);
        char *id = shown(ids->item[i]);
        puts_(&children, i ? ",{\"id\":" : "{\"id\":");
        put_string(&children, id);
        free(id);
        putf(&children, ",\"actor\":%lld,\"restarts\":%lld}", (long long)int_at(a[6], i), (long long)int_at(a[7], i));
        restarts += int_at(a[7], i);
    }
    put(&children, "]", 1);
    puts_(&event, "{\"kind\":");
    put_string(&event, kind);
    puts_(&event, ",\"child\":");
    put_string(&event, child);
    puts_(&event, ",\"detail\":");
    put_string(&event, detail);
    putf(&event, ",\"t\":%lld}", (long long)now_ms());
    free(kind);
    free(child);
    free(detail);
    for (int i = 5; i <= 7; i++) lpn_drop(a[i]);
    uint64_t me = lprt_id(lprt_self());
    pthread_mutex_lock(&mu);
    sup *s = sups;
    while (s && s->actor != me) s = s->link;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) abort();
        s->actor = me;
        s->link = sups;
        sups = s;
    }
    free(s->name);
    s->name = name;
    free(s->children);
    s->children = children.p;
    s->restarts = restarts;
    free(s->events[s->next]);
    s->events[s->next] = event.p;
    s->next = (s->next + 1) % EVENTS_KEPT;
    if (s->nevents < EVENTS_KEPT) s->nevents++;
    pthread_mutex_unlock(&mu);
    return LPN_NIL_VALUE;
}

/* ---- one tick ------------------------------------------------------------------------------ */

static const char *const STATES[] = {"embryo", "runnable", "running", "waiting", "dead"};
static const char *const FIELDS[] = {"id", "state", "mailbox", "turns", "domain", "links", "monitors", "site"};
enum { BY_ID, BY_STATE, BY_MAILBOX, BY_TURNS, BY_DOMAIN, BY_LINKS, BY_MONITORS, BY_SITE, NFIELDS };

/* The query's value for key, borrowed (nil when absent). */
static lpn_value q_at(lpn_value q, const char *key) {
    if (q.cls != LPN_DICT) return LPN_NIL_VALUE;
    lpn_dup(q);
    lpn_value v = lpn_dict_lookup(q, lpn_str_new(key, strlen(key)));
    if (v.cls == LPN_UNWIND) return LPN_NIL_VALUE;
    lpn_drop(v);   /* the dictionary still holds it */
    return v;
}

static int64_t q_int(lpn_value q, const char *key, int64_t dflt, int64_t low, int64_t high) {
    lpn_value v = q_at(q, key);
    if (v.cls != LPN_INT) return dflt;
    int64_t n = (int64_t)v.bits;
    return n < low ? low : n > high ? high : n;
}

static int truthy(lpn_value v) {
    switch (v.cls) {
    case LPN_NIL: return 0;
    case LPN_BOOL: case LPN_INT: return v.bits != 0;
    case LPN_FLOAT: { double d; memcpy(&d, &v.bits, sizeof d); return d != 0; }
    case LPN_STRING: return ((lpn_str *)lpn_ptr(v))->len != 0;
    case LPN_ARRAY: return ((lpn_arr *)lpn_ptr(v))->len != 0;
    case LPN_DICT: { lpn_dup(v); lpn_value n = lpn_dict_size(v); return n.bits != 0; }
    default: return 1;
    }
}

typedef struct {
    lprt_actor_info *rows;
    const char **sites;
    int key, desc;
} order;

static int64_t column(const lprt_actor_info *r, int key) {
    switch (key) {
    case BY_STATE: return r->state;
    case BY_MAILBOX: return (int64_t)r->mailbox;
    case BY_TURNS: return (int64_t)r->turns;
    case BY_DOMAIN: return r->domain;
    case BY_LINKS: return r->links;
    case BY_MONITORS: return r->monitors;
    default: return 0;
    }
}

static int compare(const void *x, const void *y, void *ud) {
    const order *o = ud;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const lprt_actor_info *a = &o->rows[i], *b = &o->rows[j];
    int c = 0;
    if (o->key == BY_SITE) c = strcmp(o->sites[i], o->sites[j]);
    else if (o->key != BY_ID) {
        int64_t p = column(a, o->key), q = column(b, o->key);
        c = (p > q) - (p < q);
    }
    if (!c) c = (a->id > b->id) - (a->id < b->id);
    return o->desc ? -c : c;
}

static int by_observed_id(const void *x, const void *y) {
    uint64_t a = ((const lpn_observed *)x)->id, b = ((const lpn_observed *)y)->id;
    return (a > b) - (a < b);
}

static const lpn_observed *observed(const lpn_observed *known, size_t n, uint64_t id) {
    lpn_observed key = {.id = id};
    return bsearch(&key, known, n, sizeof *known, by_observed_id);
}

static void put_row(text *t, const lprt_actor_info *r, const char *site) {
    putf(t, "{\"id\":%llu,\"state\":\"%s\",\"kind\":\"%s\",\"mailbox\":%llu,\"turns\":%llu,\"domain\":%d,",
         (unsigned long long)r->id, r->state >= 0 && r->state <= 4 ? STATES[r->state] : "dead",
         r->kind == LPRT_FIBER ? "fiber" : "step", (unsigned long long)r->mailbox, (unsigned long long)r->turns,
         r->domain);
    putf(t, "\"traps\":%s,\"links\":%d,\"monitors\":%d,\"site\":", r->traps ? "true" : "false", r->links, r->monitors);
    put_string(t, site);
    put(t, "}", 1);
}

static void put_peers(text *t, const uint64_t *ids, size_t n, const lpn_observed *known, size_t nknown,
                      const char *(*site_of)(uint64_t, void *), void *ud) {
    int first = 1;
    put(t, "[", 1);
    for (size_t i = 0; i < n; i++) {
        const lpn_observed *k = observed(known, nknown, ids[i]);
        if (k && k->hidden) continue;
        putf(t, "%s{\"id\":%llu,\"site\":", first ? "" : ",", (unsigned long long)ids[i]);
        put_string(t, site_of(ids[i], ud));
        put(t, "}", 1);
        first = 0;
    }
    put(t, "]", 1);
}

typedef struct {
    const lprt_actor_info *rows;
    const char **sites;
    size_t n;
} site_table;

static const char *site_by_id(uint64_t id, void *ud) {
    const site_table *s = ud;
    for (size_t i = 0; i < s->n; i++)
        if (s->rows[i].id == id) return s->sites[i];
    return "";
}

static void put_selected(text *t, lprt *rt, lpn_value sel, const lprt_actor_info *rows, const char **sites,
                         size_t n, const lpn_observed *known, size_t nknown) {
    if (sel.cls != LPN_INT) { puts_(t, "null"); return; }
    int64_t id = (int64_t)sel.bits;
    const lpn_observed *k = id >= 0 ? observed(known, nknown, (uint64_t)id) : NULL;
    if (k && k->hidden) { puts_(t, "null"); return; }
    size_t at = n;
    for (size_t i = 0; i < n; i++)
        if (rows[i].id == (uint64_t)id && id >= 0) at = i;
    uint64_t links[PEERS_SHOWN], watchers[PEERS_SHOWN];
    size_t nl = 0, nw = 0;
    if (at == n || !lprt_actor_peers(rt, (uint64_t)id, links, &nl, watchers, &nw, PEERS_SHOWN)) {
        putf(t, "{\"id\":%lld,\"alive\":false}", (long long)id);
        return;
    }
    text row = {0};
    put_row(&row, &rows[at], sites[at]);
    put(t, row.p, row.n - 1);   /* without its closing brace */
    free(row.p);
    site_table st = {rows, sites, n};
    puts_(t, ",\"alive\":true,\"linked\":");
    put_peers(t, links, nl < PEERS_SHOWN ? nl : PEERS_SHOWN, known, nknown, site_by_id, &st);
    putf(t, ",\"linkCount\":%zu,\"watchers\":", nl);
    put_peers(t, watchers, nw < PEERS_SHOWN ? nw : PEERS_SHOWN, known, nknown, site_by_id, &st);
    putf(t, ",\"watcherCount\":%zu,\"oldest\":[", nw);
    int kinds[MESSAGES_SHOWN];
    const char *names[MESSAGES_SHOWN];
    int m = lprt_mbox_peek_names(rt, (uint64_t)id, kinds, names, MESSAGES_SHOWN, lpn_observe_message_class);
    int first = 1;
    for (int i = 0; i < m; i++) {
        const char *name = kinds[i] == LPRT_MSG_DOWN ? "Down" : kinds[i] == LPRT_MSG_EXIT ? "Exit" : names[i];
        if (!name) continue;
        if (!first) put(t, ",", 1);
        put_string(t, name);
        first = 0;
    }
    puts_(t, "]}");
}

lpn_value lpn_obs_snapshot(lpn_value *a) {
    if (!lpn_observing) {
        lpn_drop(a[1]);
        return lpn_str_new("{}", 2);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    lpn_value q = a[1].cls == LPN_STRING ? lpn_json_decode(a[1]) : (lpn_drop(a[1]), LPN_NIL_VALUE);
    if (q.cls == LPN_UNWIND) lpn_drop(lpn_catch(LPN_FIRST_INST));   /* not JSON: the defaults */
    lprt *rt = lprt_runtime(lprt_self());

    size_t cap = lpn_observe_actors(NULL, 0) + 64;
    lpn_observed *known = malloc(cap * sizeof *known);
    size_t nknown = lpn_observe_actors(known, cap);
    if (nknown > cap) nknown = cap;
    qsort(known, nknown, sizeof *known, by_observed_id);

    size_t rcap = lprt_snapshot(rt, NULL, 0) + 64;
    lprt_actor_info *rows = malloc(rcap * sizeof *rows);
    size_t n = lprt_snapshot(rt, rows, rcap), live = 0, hidden = 0;
    if (n > rcap) n = rcap;
    const char **sites = malloc((n + 1) * sizeof *sites);

    pthread_mutex_lock(&mu);
    text sup_json = {0};
    put(&sup_json, "[", 1);
    int sfirst = 1;
    for (sup *s = sups; s; s = s->link) {
        const lpn_observed *k = observed(known, nknown, s->actor);
        if (k && k->hidden) continue;
        putf(&sup_json, "%s{\"actor\":%llu,\"name\":", sfirst ? "" : ",", (unsigned long long)s->actor);
        put_string(&sup_json, s->name);
        puts_(&sup_json, ",\"events\":[");
        for (int i = 0; i < s->nevents; i++) {
            int at = (s->next - s->nevents + i + EVENTS_KEPT) % EVENTS_KEPT;
            if (i) put(&sup_json, ",", 1);
            puts_(&sup_json, s->events[at]);
        }
        putf(&sup_json, "],\"restarts\":%lld,\"children\":", (long long)s->restarts);
        puts_(&sup_json, s->children ? s->children : "[]");
        put(&sup_json, "}", 1);
        sfirst = 0;
    }
    put(&sup_json, "]", 1);
    text death_json = {0};
    put(&death_json, "[", 1);
    for (int i = 0; i < ndeaths; i++) {   /* newest first */
        int at = (death_next - 1 - i + DEATHS_KEPT) % DEATHS_KEPT;
        if (i) put(&death_json, ",", 1);
        puts_(&death_json, deaths[at]);
    }
    put(&death_json, "]", 1);

    /* the live actors the page may show, with their sites */
    uint64_t waiting = 0, busiest = 0;
    char **supsites = NULL;
    size_t nsup = 0;
    for (size_t i = 0; i < n; i++) {
        const lpn_observed *k = observed(known, nknown, rows[i].id);
        if (k && k->hidden) { hidden++; continue; }
        const char *text_ = cached_site(k ? k->site : -1);
        for (sup *s = sups; s; s = s->link)
            if (s->actor == rows[i].id) {
                supsites = realloc(supsites, (nsup + 1) * sizeof *supsites);
                size_t len = strlen(s->name) + strlen(text_) + 16;
                supsites[nsup] = malloc(len);
                snprintf(supsites[nsup], len, "supervisor %s (%s)", s->name, text_);
                text_ = supsites[nsup++];
            }
        rows[live] = rows[i];
        sites[live++] = text_;
        waiting += rows[i].mailbox;
        if (rows[i].mailbox > busiest) busiest = rows[i].mailbox;
    }
    pthread_mutex_unlock(&mu);

    /* filter, sort, page */
    size_t *idx = malloc((live + 1) * sizeof *idx), count = 0;
    lpn_value fv = q_at(q, "filter");
    const char *filter = fv.cls == LPN_STRING ? ((lpn_str *)lpn_ptr(fv))->data : "";
    for (size_t i = 0; i < live; i++) {
        if (*filter) {
            char id[24];
            snprintf(id, sizeof id, "%llu", (unsigned long long)rows[i].id);
            int st = rows[i].state >= 0 && rows[i].state <= 4 && !strcmp(filter, STATES[rows[i].state]);
            if (!strstr(sites[i], filter) && strcmp(filter, id) && !st) continue;
        }
        idx[count++] = i;
    }
    lpn_value sv = q_at(q, "sort");
    int key = BY_ID;
    if (sv.cls == LPN_STRING)
        for (int f = 0; f < NFIELDS; f++)
            if (!strcmp(((lpn_str *)lpn_ptr(sv))->data, FIELDS[f])) key = f;
    order o = {rows, sites, key, truthy(q_at(q, "desc"))};
    qsort_r(idx, count, sizeof *idx, compare, &o);
    int64_t size = q_int(q, "size", 50, 1, PAGE_MAX);
    int64_t pages = count ? ((int64_t)count + size - 1) / size : 1;
    int64_t page = q_int(q, "page", 0, 0, pages - 1);

    lprt_stats st;
    lprt_get_stats(rt, &st);
    text t = {0};
    putf(&t, "{\"t\":%lld,\"totals\":{\"spawned\":%llu,\"exited\":%llu,\"steals\":%llu,\"parks\":%llu,",
         (long long)now_ms(), (unsigned long long)st.spawned, (unsigned long long)st.exited,
         (unsigned long long)st.steals, (unsigned long long)st.parks);
    putf(&t, "\"messages\":%llu,\"actors\":%zu,\"mailboxes\":%llu,\"busiest\":%llu},\"domains\":[",
         (unsigned long long)st.messages, live, (unsigned long long)waiting, (unsigned long long)busiest);
    lprt_domain_info doms[256];
    int nd = lprt_domain_snapshot(rt, doms, 256);
    for (int i = 0; i < nd && i < 256; i++)
        putf(&t, "%s{\"turns\":%llu,\"parked_ns\":%llu,\"queued\":%zu}", i ? "," : "",
             (unsigned long long)doms[i].turns, (unsigned long long)doms[i].parked_ns, doms[i].queued);
    putf(&t, "],\"actors\":{\"count\":%zu,\"page\":%lld,\"pages\":%lld,\"size\":%lld,\"sort\":\"%s\",\"desc\":%s,\"rows\":[",
         count, (long long)page, (long long)pages, (long long)size, FIELDS[key], o.desc ? "true" : "false");
    for (int64_t i = page * size; i < (page + 1) * size && i < (int64_t)count; i++) {
        if (i > page * size) put(&t, ",", 1);
        put_row(&t, &rows[idx[i]], sites[idx[i]]);
    }
    puts_(&t, "]},\"supervisors\":");
    put(&t, sup_json.p, sup_json.n);
    puts_(&t, ",\"deaths\":");
    put(&t, death_json.p, death_json.n);
    putf(&t, ",\"observer\":%zu,\"selected\":", hidden);
    put_selected(&t, rt, q_at(q, "select"), rows, sites, live, known, nknown);
    put(&t, "}", 1);

    lpn_value answer = lpn_str_new(t.p, t.n);
    for (size_t i = 0; i < nsup; i++) free(supsites[i]);
    free(supsites);
    free(t.p);
    free(sup_json.p);
    free(death_json.p);
    free(idx);
    free(sites);
    free(rows);
    free(known);
    lpn_drop(q);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cost_ms = (double)(t1.tv_sec - t0.tv_sec) * 1000 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    return answer;
}
