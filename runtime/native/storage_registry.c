/* storage_registry.c — the process registry of native binaries: `Storage register:as:`,
 * `registered:like:` and `asDynamic:` (lp/interp/prims_storage.py, whose messages these are), with
 * which a durable server's hub of hosted sockets (stdlib/grain_sockets.lp) is found by its grains.
 * A registered value is shared (every domain may read it) and held by the registry until its name
 * is registered again; a lookup answers it only when its class is the sample's (or a subclass). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"

typedef struct entry {
    char *name;
    lpn_value value;   /* one count held by the registry */
    struct entry *next;
} entry;

static entry *entries;
static pthread_mutex_t entries_mu = PTHREAD_MUTEX_INITIALIZER;

static entry *find(const char *name) {
    entry *e = entries;
    while (e && strcmp(e->name, name)) e = e->next;
    return e;
}

static const char *class_name(uint64_t cls) {
    return cls < lpn_prog.nclasses && lpn_prog.class_names[cls] ? lpn_prog.class_names[cls] : "Object";
}

lpn_value lpn_storage_register(lpn_value *a) {   /* Storage register: value as: name */
    if (a[2].cls != LPN_STRING) {
        lpnet_drop_all(a, 3);
        return lpn_raise("Storage register:as: takes a String name");
    }
    const char *name = ((lpn_str *)lpn_ptr(a[2]))->data;
    lpn_value v = a[1], old = LPN_NIL_VALUE;
    lpn_share(v);
    lpn_dup(v);
    pthread_mutex_lock(&entries_mu);
    entry *e = find(name);
    if (e) {
        old = e->value;
    } else {
        e = calloc(1, sizeof *e);
        if (!e || !(e->name = strdup(name))) abort();
        e->next = entries;
        entries = e;
    }
    e->value = v;
    pthread_mutex_unlock(&entries_mu);
    lpn_drop(old);   /* outside the lock: freeing it may run finalisers */
    lpn_drop(a[0]);
    lpn_drop(a[2]);
    return v;
}

/* Whether a value of class have may stand where the sample's class is trusted (a class value: one
   of the sample class or below it). */
static int fits(lpn_value have, lpn_value sample) {
    if (sample.cls == LPN_CLASS) return have.cls == LPN_CLASS && lpn_is_kind_of(have.bits, sample.bits);
    return have.cls == sample.cls || lpn_is_kind_of(have.cls, sample.cls);
}

lpn_value lpn_storage_registered(lpn_value *a) {   /* Storage registered: name like: sample */
    if (a[1].cls != LPN_STRING) {
        lpnet_drop_all(a, 3);
        return lpn_raise("Storage registered:like: takes a String name");
    }
    const char *name = ((lpn_str *)lpn_ptr(a[1]))->data;
    pthread_mutex_lock(&entries_mu);
    entry *e = find(name);
    lpn_value v = e ? e->value : LPN_UNWIND_VALUE;
    lpn_dup(v);
    pthread_mutex_unlock(&entries_mu);
    lpn_value r = v;
    if (!e) {
        r = lpn_raise("nothing is registered as %s", name);
    } else if (!fits(v, a[2])) {
        const char *want = class_name(a[2].cls == LPN_CLASS ? a[2].bits : a[2].cls);
        lpn_value d = lpn_describe(v);   /* consumes v */
        r = lpn_raise("the value registered as %s is %s, not %s %s like the sample", name,
                      ((lpn_str *)lpn_ptr(d))->data, strchr("AEIOU", want[0]) ? "an" : "a", want);
        lpn_drop(d);
    }
    lpnet_drop_all(a, 3);
    return r;
}

lpn_value lpn_storage_as_dynamic(lpn_value *a) {   /* Storage asDynamic: value (its own class travels with it) */
    lpn_drop(a[0]);
    return a[1];
}
