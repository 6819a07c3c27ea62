/* dict.c — the persistent Dictionary: a hash array mapped trie, insertion-ordered.
 *
 * Nodes and leaves are counted objects shared between versions; `at:put:` copies
 * the path to the changed leaf, except that a node (or dictionary) held by only
 * one reference is changed in place (Perceus reuse), so building a dictionary one
 * `at:put:` at a time allocates O(1) per step. `removeKey:` keeps the trie compact:
 * a node it empties goes, and a node left with one leaf gives the leaf to its parent,
 * so a dictionary emptied by removals holds no nodes but its root. Each leaf remembers when its key was
 * first added (`seq`); iteration orders the leaves by it, as the interpreter does.
 *
 * Dense mode: a dictionary whose keys are exactly the Integers 1..size, added in
 * that order (what collect:, select:, merge: and to:collect: in stdlib/core.lp
 * build through `acc at: i put:` / `acc append:`), keeps its values in one Array
 * (`dense`, capacity `cap`) instead of the trie: at:put: of key size+1 appends in
 * place when unique, at: indexes, and `values` answers that Array itself (shared,
 * counted; a later in-place change copies it first). Any other key, or a removal,
 * turns it into the trie once (O(size)), with the same keys, values and order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lpn.h"

enum { DNODE = 24, DLEAF = 25, DCOLL = 26 };
typedef struct leaf { lpn_obj h; uint64_t hash, seq; lpn_value key, value; } leaf;
typedef struct node { lpn_obj h; uint32_t bitmap, n; lpn_obj *slot[]; } node;  /* DNODE or DCOLL */
typedef struct dict { lpn_obj h; uint64_t size, next; node *root; lpn_arr *dense; uint64_t cap; int is_dense; } dict;
#define D(v) ((dict *)lpn_ptr(v))

static uint64_t mix(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t dict_hash(dict *d);

/* Equal Intervals have the same elements (equal.c), so they hash by what determines those:
   none; one (its first); or first, step and count. */
static uint64_t interval_hash(lpn_interval *r) {
    __int128 n = lpn_interval_size(r);
    if (n <= 0) return mix(LPN_INTERVAL);
    if (n == 1) return mix(mix((uint64_t)r->start) + LPN_INTERVAL);
    return mix(mix(mix((uint64_t)r->start) * 31 + (uint64_t)r->step) * 31 + (uint64_t)n);
}

typedef struct { lpn_value v; uint64_t h; } hash_job;
static void hash_deep(void *j) {
    hash_job *s = j;
    s->h = lpn_hash(s->v);
}

uint64_t lpn_hash(lpn_value v) {
    if (lpn_is_heap(v) && lpn_stack_low()) {   /* a spawned actor's first stack is full (lpn_deep) */
        hash_job j = {v, 0};
        if (lpn_deep(hash_deep, &j)) return j.h;
    }
    switch (v.cls) {
    case LPN_FLOAT: {
        double d = lpn_f(v);
        if (d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
            return mix((uint64_t)(int64_t)d);   /* equal to that Integer, so the same key */
        return mix(v.bits);
    }
    case LPN_INT: return mix(v.bits);
    case LPN_STRING: {
        lpn_str *s = (lpn_str *)lpn_ptr(v);
        uint64_t h = 1469598103934665603ULL;
        for (uint64_t i = 0; i < s->len; i++) h = (h ^ (unsigned char)s->data[i]) * 1099511628211ULL;
        return mix(h);
    }
    case LPN_BYTES: {
        lpn_bytes *s = (lpn_bytes *)lpn_ptr(v);
        uint64_t h = 3;
        for (uint64_t i = 0; i < s->len; i++) h = (h ^ s->data[i]) * 1099511628211ULL;
        return mix(h);
    }
    case LPN_SYMBOL: {
        const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)v.bits;
        uint64_t h = 7;
        for (uint64_t i = 0; i < s->len; i++) h = (h ^ (unsigned char)s->name[i]) * 1099511628211ULL;
        return mix(h);
    }
    case LPN_ARRAY: {
        lpn_arr *a = (lpn_arr *)lpn_ptr(v);
        uint64_t h = 17;
        for (uint64_t i = 0; i < a->len; i++) h = mix(h * 31 + lpn_hash(a->item[i]));
        return h;
    }
    case LPN_ASSOC: return mix(lpn_hash(((lpn_assoc *)lpn_ptr(v))->key) * 31 + lpn_hash(((lpn_assoc *)lpn_ptr(v))->value));
    case LPN_MAYBE: {
        lpn_maybe *m = (lpn_maybe *)lpn_ptr(v);
        return m->present ? mix(lpn_hash(m->value) * 31 + 1) : mix(LPN_MAYBE);
    }
    case LPN_INTERVAL: return interval_hash((lpn_interval *)lpn_ptr(v));
    case LPN_DICT: return dict_hash(D(v));
    }
    if (v.cls >= LPN_FIRST_INST && lpn_is_foreign(lpn_ptr(v))) {
        lpn_foreign *f = (lpn_foreign *)lpn_ptr(v);
        return mix(v.cls * 31 + f->ops->identity(f));
    }
    if (v.cls >= LPN_FIRST_INST) {
        lpn_inst *o = (lpn_inst *)lpn_ptr(v);
        uint64_t h = mix(v.cls);
        for (uint64_t i = 0; i < o->nfields; i++) h = mix(h * 31 + lpn_hash(o->field[i]));
        return h;
    }
    if (lpn_is_heap(v)) return mix(v.bits);
    return mix(v.bits * 131 + v.cls);
}

lpn_value lpn_dict_new(void) {
    dict *d = lpn_alloc(LPN_DICT, sizeof(dict));
    d->size = d->next = 0;
    d->root = NULL;
    d->dense = NULL;
    d->cap = 0;
    d->is_dense = 1;
    return lpn_ref(d);
}

static node *node_new(uint32_t cls, uint32_t n) {
    node *x = lpn_alloc(cls, sizeof(node) + n * sizeof(lpn_obj *));
    x->n = n;
    x->bitmap = 0;
    return x;
}

/* An owned node we may change: itself when unique, else a copy (the original's reference dropped). */
static node *own(node *x, uint32_t extra) {
    if (lpn_is_unique(&x->h)) {
        if (extra) {
            x = realloc(x, sizeof(node) + (x->n + extra) * sizeof(lpn_obj *));
            if (!x) abort();
        }
        return x;
    }
    node *c = node_new(x->h.cls, x->n);
    c->bitmap = x->bitmap;
    if (extra) {
        c = realloc(c, sizeof(node) + (x->n + extra) * sizeof(lpn_obj *));
        if (!c) abort();
    }
    for (uint32_t i = 0; i < x->n; i++) {
        c->slot[i] = x->slot[i];
        lpn_dup_obj(c->slot[i]);
    }
    lpn_drop_obj(&x->h);
    return c;
}

static leaf *leaf_new(uint64_t hash, uint64_t seq, lpn_value k, lpn_value v) {
    leaf *l = lpn_alloc(DLEAF, sizeof(leaf));
    l->hash = hash; l->seq = seq; l->key = k; l->value = v;
    return l;
}

static node *pair_node(int shift, leaf *a, leaf *b) {
    if (shift >= 64) {
        node *c = node_new(DCOLL, 2);
        c->slot[0] = &a->h; c->slot[1] = &b->h;
        return c;
    }
    uint32_t ia = (a->hash >> shift) & 31, ib = (b->hash >> shift) & 31;
    if (ia == ib) {
        node *x = node_new(DNODE, 1);
        x->bitmap = 1u << ia;
        x->slot[0] = &pair_node(shift + 5, a, b)->h;
        return x;
    }
    node *x = node_new(DNODE, 2);
    x->bitmap = (1u << ia) | (1u << ib);
    x->slot[ia < ib ? 0 : 1] = &a->h;
    x->slot[ia < ib ? 1 : 0] = &b->h;
    return x;
}

/* Replace the value of leaf *lp (owned by a node we own), keeping its key and position. */
static void set_value(lpn_obj **lp, lpn_value k, lpn_value v) {
    leaf *l = (leaf *)*lp;
    lpn_drop(k);
    if (lpn_is_unique(&l->h)) {
        lpn_drop(l->value);
        l->value = v;
        return;
    }
    lpn_dup(l->key);
    leaf *n = leaf_new(l->hash, l->seq, l->key, v);
    lpn_drop_obj(&l->h);
    *lp = &n->h;
}

static node *insert(node *x, int shift, uint64_t hash, lpn_value k, lpn_value v, dict *d) {
    if (x->h.cls == DCOLL) {
        for (uint32_t i = 0; i < x->n; i++) {
            leaf *l = (leaf *)x->slot[i];
            if (lpn_equal_b(l->key, k)) {
                x = own(x, 0);
                set_value(&x->slot[i], k, v);
                return x;
            }
        }
        x = own(x, 1);
        x->slot[x->n++] = &leaf_new(hash, d->next++, k, v)->h;
        d->size++;
        return x;
    }
    uint32_t bit = 1u << ((hash >> shift) & 31);
    uint32_t pos = (uint32_t)__builtin_popcount(x->bitmap & (bit - 1));
    if (!(x->bitmap & bit)) {
        x = own(x, 1);
        memmove(&x->slot[pos + 1], &x->slot[pos], (x->n - pos) * sizeof(lpn_obj *));
        x->slot[pos] = &leaf_new(hash, d->next++, k, v)->h;
        x->n++;
        x->bitmap |= bit;
        d->size++;
        return x;
    }
    x = own(x, 0);
    lpn_obj *child = x->slot[pos];
    if (child->cls == DLEAF) {
        leaf *l = (leaf *)child;
        if (l->hash == hash && lpn_equal_b(l->key, k)) {
            set_value(&x->slot[pos], k, v);
            return x;
        }
        x->slot[pos] = &pair_node(shift + 5, l, leaf_new(hash, d->next++, k, v))->h;
        d->size++;
        return x;
    }
    x->slot[pos] = &insert((node *)child, shift + 5, hash, k, v, d)->h;
    return x;
}

static dict *own_dict(lpn_value dv) {
    dict *d = D(dv);
    if (lpn_is_unique(&d->h)) return d;
    dict *c = lpn_alloc(LPN_DICT, sizeof(dict));
    *c = (dict){.h = c->h, .size = d->size, .next = d->next, .root = d->root,
                .dense = d->dense, .cap = d->cap, .is_dense = d->is_dense};
    c->h.rc = 1;
    c->h.cls = LPN_DICT;
    if (c->root) lpn_dup_obj(&c->root->h);
    if (c->dense) lpn_dup_obj(&c->dense->h);
    lpn_drop(dv);
    return c;
}

/* The 1-based index a key names in a dense dictionary of n entries, or 0. */
static uint64_t dense_index(lpn_value k, uint64_t n) {
    if (k.cls == LPN_INT) {
        int64_t i = (int64_t)k.bits;
        return i >= 1 && (uint64_t)i <= n ? (uint64_t)i : 0;
    }
    if (k.cls == LPN_FLOAT) {
        double f = lpn_f(k);
        return f >= 1 && f <= (double)n && f == floor(f) ? (uint64_t)f : 0;
    }
    return 0;
}

/* A dense dictionary we own becomes the trie: keys 1..size, seq 0..size-1. */
static void to_trie(dict *d) {
    lpn_arr *a = d->dense;
    uint64_t n = d->size;
    d->is_dense = 0;
    d->dense = NULL;
    d->cap = 0;
    d->size = d->next = 0;
    d->root = node_new(DNODE, 0);
    for (uint64_t i = 0; i < n; i++) {
        lpn_value v = a->item[i];
        lpn_dup(v);
        lpn_value k = lpn_int((int64_t)i + 1);
        d->root = insert(d->root, 0, lpn_hash(k), k, v, d);
    }
    if (a) lpn_drop_obj(&a->h);
}

/* The dense Array of a dictionary we own, ours to change, with room for `need` items. */
static lpn_arr *own_dense(dict *d, uint64_t need) {
    lpn_arr *a = d->dense;
    if (a && lpn_is_unique(&a->h) && need <= d->cap) return a;
    uint64_t cap = need <= d->cap ? d->cap : (d->cap < 8 ? 8 : d->cap * 2);
    if (cap < need) cap = need;
    if (a && lpn_is_unique(&a->h)) {
        a = realloc(a, sizeof(lpn_arr) + cap * sizeof(lpn_value));
        if (!a) abort();
    } else {
        lpn_arr *c = lpn_arr_new(cap);
        c->len = d->size;
        for (uint64_t i = 0; i < d->size; i++) {
            c->item[i] = a->item[i];
            lpn_dup(c->item[i]);
        }
        if (a) lpn_drop_obj(&a->h);
        a = c;
    }
    d->dense = a;
    d->cap = cap;
    return a;
}

lpn_value lpn_dict_at_put(lpn_value dv, lpn_value k, lpn_value v) {
    dict *d = own_dict(dv);
    if (d->is_dense) {
        uint64_t i = dense_index(k, d->size);
        if (i) {                                    /* an existing key: its value replaced, key kept */
            lpn_arr *a = own_dense(d, d->size);
            lpn_drop(a->item[i - 1]);
            a->item[i - 1] = v;
            lpn_drop(k);
            return lpn_ref(d);
        }
        if (k.cls == LPN_INT && (int64_t)k.bits == (int64_t)d->size + 1) {   /* the next key */
            lpn_arr *a = own_dense(d, d->size + 1);
            a->item[d->size] = v;
            a->len = ++d->size;
            d->next = d->size;
            return lpn_ref(d);
        }
        to_trie(d);
    }
    uint64_t h = lpn_hash(k);
    if (!d->root) d->root = node_new(DNODE, 0);
    d->root = insert(d->root, 0, h, k, v, d);
    return lpn_ref(d);
}

static leaf *find(dict *d, lpn_value k) {
    node *x = d->is_dense ? NULL : d->root;
    uint64_t h = lpn_hash(k);
    int shift = 0;
    while (x) {
        if (x->h.cls == DCOLL) {
            for (uint32_t i = 0; i < x->n; i++)
                if (lpn_equal_b(((leaf *)x->slot[i])->key, k)) return (leaf *)x->slot[i];
            return NULL;
        }
        uint32_t bit = 1u << ((h >> shift) & 31);
        if (!(x->bitmap & bit)) return NULL;
        lpn_obj *c = x->slot[__builtin_popcount(x->bitmap & (bit - 1))];
        if (c->cls == DLEAF) {
            leaf *l = (leaf *)c;
            return l->hash == h && lpn_equal_b(l->key, k) ? l : NULL;
        }
        x = (node *)c;
        shift += 5;
    }
    return NULL;
}

/* The value stored at k (borrowed), or NULL. */
static lpn_value *find_value(dict *d, lpn_value k) {
    if (d->is_dense) {
        uint64_t i = dense_index(k, d->size);
        return i ? &d->dense->item[i - 1] : NULL;
    }
    leaf *l = find(d, k);
    return l ? &l->value : NULL;
}

/* The value at k (owned), or {LPN_UNWIND, 1} when absent (nothing raised). Consumes d and k. */
lpn_value lpn_dict_lookup(lpn_value dv, lpn_value k) {
    lpn_value *l = find_value(D(dv), k);
    lpn_value r = {LPN_UNWIND, 1};
    if (l) {
        r = *l;
        lpn_dup(r);
    }
    lpn_drop(dv);
    lpn_drop(k);
    return r;
}

lpn_value lpn_dict_at(lpn_value dv, lpn_value k) {
    lpn_value *l = find_value(D(dv), k);
    if (l) {
        lpn_value r = *l;
        lpn_dup(r);
        lpn_drop(dv);
        lpn_drop(k);
        return r;
    }
    lpn_value t = lpn_print_string(k);
    lpn_value e = lpn_raise("key not found: %s", ((lpn_str *)lpn_ptr(t))->data);
    lpn_drop(t);
    lpn_drop(dv);
    return e;
}

lpn_value lpn_dict_includes_key(lpn_value dv, lpn_value k) {
    int r = find_value(D(dv), k) != NULL;
    lpn_drop(dv);
    lpn_drop(k);
    return lpn_bool(r);
}

/* The leaves in insertion order (borrowed); *n gets the count. The caller frees the array. */
static void collect(lpn_obj *o, leaf **out, uint64_t *n) {
    if (o->cls == DLEAF) { out[(*n)++] = (leaf *)o; return; }
    node *x = (node *)o;
    for (uint32_t i = 0; i < x->n; i++) collect(x->slot[i], out, n);
}
static int by_seq(const void *a, const void *b) {
    uint64_t x = (*(leaf *const *)a)->seq, y = (*(leaf *const *)b)->seq;
    return x < y ? -1 : x > y;
}
/* The trie's leaves in insertion order. seq numbers are 0..next-1 with holes only
 * where keys were removed, so while they are few the leaves are placed by seq
 * (O(size)) rather than sorted. */
static leaf **trie_entries(dict *d, uint64_t *n) {
    leaf **out = malloc((d->size + 1) * sizeof *out);
    if (!out) abort();
    *n = 0;
    if (d->root) collect(&d->root->h, out, n);
    if (d->next <= 2 * d->size + 64) {
        leaf **slot = calloc(d->next + 1, sizeof *slot);
        if (!slot) abort();
        for (uint64_t i = 0; i < *n; i++) slot[out[i]->seq] = out[i];
        uint64_t m = 0;
        for (uint64_t s = 0; s < d->next; s++)
            if (slot[s]) out[m++] = slot[s];
        free(slot);
    } else {
        qsort(out, *n, sizeof *out, by_seq);
    }
    return out;
}

lpn_value lpn_dict_list(int what, lpn_value dv) {   /* 'k' keys, 'v' values, 'a' associations */
    dict *d = D(dv);
    if (d->is_dense) {
        if (what == 'v' && d->dense) {                  /* the values Array itself */
            lpn_arr *a = d->dense;
            lpn_dup_obj(&a->h);
            lpn_drop(dv);
            return lpn_ref(a);
        }
        lpn_arr *a = lpn_arr_new(d->size);
        for (uint64_t i = 0; i < d->size; i++) {
            lpn_value k = lpn_int((int64_t)i + 1), v = d->dense->item[i];
            if (what == 'k') a->item[i] = k;
            else if (what == 'v') { lpn_dup(v); a->item[i] = v; }
            else { lpn_dup(v); a->item[i] = lpn_assoc_new(k, v); }
        }
        lpn_drop(dv);
        return lpn_ref(a);
    }
    uint64_t n;
    leaf **es = trie_entries(d, &n);
    lpn_arr *a = lpn_arr_new(n);
    for (uint64_t i = 0; i < n; i++) {
        lpn_dup(es[i]->key);
        lpn_dup(es[i]->value);
        if (what == 'k') { a->item[i] = es[i]->key; lpn_drop(es[i]->value); }
        else if (what == 'v') { a->item[i] = es[i]->value; lpn_drop(es[i]->key); }
        else a->item[i] = lpn_assoc_new(es[i]->key, es[i]->value);
    }
    free(es);
    lpn_drop(dv);
    return lpn_ref(a);
}

lpn_value lpn_dict_size(lpn_value dv) {
    uint64_t n = D(dv)->size;
    lpn_drop(dv);
    return lpn_int((int64_t)n);
}

static node *remove_key(node *x, int shift, uint64_t hash, lpn_value k, dict *d) {
    if (x->h.cls == DCOLL) {
        for (uint32_t i = 0; i < x->n; i++) {
            if (lpn_equal_b(((leaf *)x->slot[i])->key, k)) {
                x = own(x, 0);
                lpn_drop_obj(x->slot[i]);
                memmove(&x->slot[i], &x->slot[i + 1], (x->n - i - 1) * sizeof(lpn_obj *));
                x->n--;
                d->size--;
                return x;
            }
        }
        return x;
    }
    uint32_t bit = 1u << ((hash >> shift) & 31);
    if (!(x->bitmap & bit)) return x;
    uint32_t pos = (uint32_t)__builtin_popcount(x->bitmap & (bit - 1));
    lpn_obj *c = x->slot[pos];
    if (c->cls == DLEAF) {
        if (!lpn_equal_b(((leaf *)c)->key, k)) return x;
        x = own(x, 0);
        lpn_drop_obj(x->slot[pos]);
        memmove(&x->slot[pos], &x->slot[pos + 1], (x->n - pos - 1) * sizeof(lpn_obj *));
        x->n--;
        x->bitmap &= ~bit;
        d->size--;
        return x;
    }
    x = own(x, 0);
    node *sub = remove_key((node *)x->slot[pos], shift + 5, hash, k, d);
    if (sub->n == 0) {                              /* emptied: the slot goes */
        lpn_drop_obj(&sub->h);
        memmove(&x->slot[pos], &x->slot[pos + 1], (x->n - pos - 1) * sizeof(lpn_obj *));
        x->n--;
        x->bitmap &= ~bit;
    } else if (sub->n == 1 && sub->slot[0]->cls == DLEAF) {   /* a lone leaf moves up */
        lpn_obj *l = sub->slot[0];
        lpn_dup_obj(l);
        lpn_drop_obj(&sub->h);
        x->slot[pos] = l;
    } else {
        x->slot[pos] = &sub->h;
    }
    return x;
}

lpn_value lpn_dict_remove(lpn_value dv, lpn_value k) {
    if (!find_value(D(dv), k)) {
        lpn_drop(k);
        return dv;
    }
    dict *d = own_dict(dv);
    if (d->is_dense) to_trie(d);
    d->root = remove_key(d->root, 0, lpn_hash(k), k, d);
    lpn_drop(k);
    return lpn_ref(d);
}

/* value.c calls these while freeing / sharing. */
void lpn_dict_children(lpn_obj *o, void (*each)(lpn_value, void *), void *ud) {
    if (o->cls == LPN_DICT) {
        if (((dict *)o)->root) each(lpn_ref(((dict *)o)->root), ud);
        if (((dict *)o)->dense) each(lpn_ref(((dict *)o)->dense), ud);
    } else if (o->cls == DLEAF) {
        each(((leaf *)o)->key, ud);
        each(((leaf *)o)->value, ud);
    } else {
        node *x = (node *)o;
        for (uint32_t i = 0; i < x->n; i++) each(lpn_ref(x->slot[i]), ud);
    }
}

/* Consistent with lpn_dict_equal: the same pairs in any order hash alike. */
static uint64_t entries_hash(lpn_obj *o) {
    if (o->cls == DLEAF) return mix(((leaf *)o)->hash * 31 + lpn_hash(((leaf *)o)->value));
    node *x = (node *)o;
    uint64_t h = 0;
    for (uint32_t i = 0; i < x->n; i++) h += entries_hash(x->slot[i]);
    return h;
}

static uint64_t dict_hash(dict *d) {
    uint64_t h = mix(LPN_DICT + d->size);
    if (d->is_dense) {
        for (uint64_t i = 0; i < d->size; i++)
            h += mix(lpn_hash(lpn_int((int64_t)i + 1)) * 31 + lpn_hash(d->dense->item[i]));
    } else if (d->root) {
        h += entries_hash(&d->root->h);
    }
    return h;
}

int lpn_dict_equal(lpn_value a, lpn_value b) {
    dict *x = D(a), *y = D(b);
    if (x->size != y->size) return 0;
    if (x->is_dense) {
        for (uint64_t i = 0; i < x->size; i++) {
            lpn_value *v = find_value(y, lpn_int((int64_t)i + 1));
            if (!v || !lpn_equal_b(x->dense->item[i], *v)) return 0;
        }
        return 1;
    }
    uint64_t n;
    leaf **es = trie_entries(x, &n);
    int ok = 1;
    for (uint64_t i = 0; i < n && ok; i++) {
        lpn_value *v = find_value(y, es[i]->key);
        ok = v && lpn_equal_b(es[i]->value, *v);
    }
    free(es);
    return ok;
}
