/* t_selective.c — selective receive by a step actor: interleaved message
 * classes, non-matching messages keep their order, a blocked receive rescans
 * only messages newer than its cursor, timeouts while unrelated mail arrives;
 * finding a cursor's place in a long mailbox costs the nearer end's distance. */
#include "harness.h"

#define CLS(v) ((v) / 10000000L)
#define SEQ(v) ((v) % 10000000L)
#define MK(c, s) ((c) * 10000000L + (s))

typedef struct {
    lprt_actor *main;
    int n;         /* messages per class A(1), B(2) */
    int phase;
    uint64_t cursor;
    long scanned;  /* entries examined while waiting for C */
    int noise;     /* class-5 messages expected during the timed wait */
    int64_t deadline;
} rstate;

static void *nval(lprt_msg *m) { return m->value; }

static int receiver(lprt_actor *self, void *ud) {
    rstate *s = ud;
    lprt *rt = lprt_runtime(self);
    switch (s->phase) {
    case 0: { /* wait for class 3, skipping everything else exactly once */
        lprt_msg *m = s->cursor ? lprt_mbox_after(self, s->cursor) : lprt_mbox_first(self);
        for (; m; m = lprt_mbox_next(self, m)) {
            s->cursor = m->seq;
            s->scanned++;
            if (CLS(NUM(nval(m))) == 3) {
                lprt_mbox_take(self, m);
                lprt_msg_free(rt, m);
                s->phase = 1;
                break;
            }
        }
        if (s->phase == 0) {
            lprt_wait_receive(self, s->cursor, -1);
            return LPRT_BLOCK;
        }
        CHECK(s->scanned == 2L * s->n + 1); /* no entry was examined twice */
        CHECK((long)lprt_mbox_len(self) == 2L * s->n);
    }
    /* fallthrough */
    case 1: { /* all B first, in order, A untouched */
        long next = 0;
        lprt_msg *m = lprt_mbox_first(self);
        while (m) {
            lprt_msg *n = lprt_mbox_next(self, m);
            long v = NUM(m->value);
            if (CLS(v) == 2) {
                CHECK(SEQ(v) == next);
                next++;
                lprt_mbox_take(self, m);
                lprt_msg_free(rt, m);
            }
            m = n;
        }
        CHECK(next == s->n);
        next = 0;
        while ((m = lprt_mbox_first(self))) {
            long v = NUM(m->value);
            CHECK(CLS(v) == 1 && SEQ(v) == next);
            next++;
            lprt_mbox_take(self, m);
            lprt_msg_free(rt, m);
        }
        CHECK(next == s->n);
        s->phase = 2;
        s->cursor = 0;
        s->scanned = 0;
        s->deadline = lprt_deadline_ms(30);
        lprt_send(s->main, VAL(MK(4, 0))); /* "start the noise" */
    }
    /* fallthrough */
    case 2: { /* wait for class 9 (never sent) until the deadline */
        if (lprt_wake_reason(self) == LPRT_WAKE_TIMEOUT) {
            CHECK(lprt_now() >= s->deadline);
            /* anything not yet scanned is scanned now, as a last chance */
            for (lprt_msg *m = lprt_mbox_after(self, s->cursor); m; m = lprt_mbox_next(self, m)) {
                s->cursor = m->seq;
                s->scanned++;
            }
            CHECK(s->scanned == (long)lprt_mbox_len(self));
            CHECK(s->scanned <= s->noise);
            s->phase = 3;
            lprt_send(s->main, VAL(MK(6, s->scanned)));
            lprt_wait_receive(self, s->cursor, -1);
            return LPRT_BLOCK;
        }
        for (lprt_msg *m = lprt_mbox_after(self, s->cursor); m; m = lprt_mbox_next(self, m)) {
            s->cursor = m->seq;
            s->scanned++;
            CHECK(CLS(NUM(m->value)) == 5);
        }
        lprt_wait_receive(self, s->cursor, s->deadline);
        return LPRT_BLOCK;
    }
    case 3: { /* wait for class 7: end */
        for (lprt_msg *m = lprt_mbox_after(self, s->cursor); m; m = lprt_mbox_next(self, m)) {
            s->cursor = m->seq;
            if (CLS(NUM(m->value)) == 7) return LPRT_DONE; /* leftovers freed at death */
        }
        lprt_wait_receive(self, s->cursor, -1);
        return LPRT_BLOCK;
    }
    }
    return LPRT_DONE;
}

typedef struct {
    lprt_actor *to;
    int cls, n;
} sarg;

static void sender(lprt_actor *self, void *ud) {
    sarg *a = ud;
    for (int i = 0; i < a->n; i++) {
        lprt_send(a->to, VAL(MK(a->cls, i)));
        lprt_reductions(self, 37);
    }
}

typedef struct {
    int n;
} margs;

static void main_fiber(lprt_actor *self, void *ud) {
    margs *ma = ud;
    lprt *rt = lprt_runtime(self);
    rstate rs = {.main = self, .n = ma->n, .noise = 20};
    lprt_actor *r = lprt_create_step(rt, receiver, &rs);
    uint64_t rref = lprt_monitor(self, r);
    lprt_start(r);
    sarg sa = {r, 1, ma->n}, sb = {r, 2, ma->n};
    lprt_actor *a = lprt_create_fiber(rt, sender, &sa, 0), *b = lprt_create_fiber(rt, sender, &sb, 0);
    lprt_monitor(self, a);
    lprt_monitor(self, b);
    lprt_start(a);
    lprt_start(b);
    for (int downs = 0; downs < 2;) {
        lprt_msg *m = lprt_receive(self, -1);
        CHECK(m->kind == LPRT_MSG_DOWN && m->reason.kind == LPRT_NORMAL);
        downs++;
        lprt_msg_free(rt, m);
    }
    lprt_send(r, VAL(MK(3, 0)));
    CHECK(h_recv_num(self) == MK(4, 0));
    /* noise while the receiver waits (some may land after its timeout) */
    int noise = rs.noise;
    for (int i = 0; i < noise; i++) {
        lprt_send(r, VAL(MK(5, i)));
        lprt_sleep_ms(self, i % 3 == 0 ? 1 : 0);
    }
    long got = h_recv_num(self);
    CHECK(CLS(got) == 6);
    lprt_send(r, VAL(MK(7, 0)));
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m->kind == LPRT_MSG_DOWN && m->ref == rref && m->reason.kind == LPRT_NORMAL);
    CHECK(m->actor == r && m->actor_id == lprt_id(r));
    lprt_msg_free(rt, m);
    lprt_release(a);
    lprt_release(b);
    lprt_release(r);
}

static uint64_t seek_steps(lprt *rt) {
    lprt_stats st;
    lprt_get_stats(rt, &st);
    return st.seek_steps;
}

/* first entry after seq, by walking from the head */
static lprt_msg *after_slowly(lprt_actor *self, uint64_t seq) {
    lprt_msg *m = lprt_mbox_first(self);
    while (m && m->seq <= seq) m = lprt_mbox_next(self, m);
    return m;
}

static void take_free(lprt_actor *self, lprt_msg *m) {
    lprt_mbox_take(self, m);
    lprt_msg_free(lprt_runtime(self), m);
}

/* The interpreter's receive resumes right after the message it took last: in a long mailbox
   that place is the head, found without a step, wherever the mailbox ends. Elsewhere it is
   found from the nearer end, and always the same entry a walk from the head finds. */
static void seek_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    long n = *(long *)ud;
    for (long i = 0; i < n; i++) lprt_send(self, VAL(i));
    uint64_t before = seek_steps(rt);
    for (long i = 0; i < n / 2; i++) {
        lprt_msg *head = lprt_mbox_first(self);
        CHECK(lprt_mbox_after(self, head->seq - 1) == head && NUM(head->value) == i);
        take_free(self, head);
        lprt_send(self, VAL(n + i)); /* the mailbox stays long */
    }
    CHECK(seek_steps(rt) == before);
    /* keep `kept` entries passed over at the front, `fresh` after them */
    long kept = n / 10, fresh = n - kept;
    lprt_msg *last_kept = lprt_mbox_first(self);
    for (long i = 1; i < kept; i++) last_kept = lprt_mbox_next(self, last_kept);
    before = seek_steps(rt);
    CHECK(lprt_mbox_after(self, last_kept->seq) == lprt_mbox_next(self, last_kept));
    CHECK(seek_steps(rt) - before <= (uint64_t)(kept < fresh ? kept : fresh));
    /* every cursor, present or taken, against the walk from the head */
    unsigned r = 7;
    for (long i = 0; i < n / 4; i++) {
        lprt_msg *m = after_slowly(self, h_rand(&r) % (uint64_t)n);
        if (m && h_rand(&r) % 2) take_free(self, m);
    }
    uint64_t top = lprt_mbox_mark(self) + 2;
    for (uint64_t seq = 0; seq < top; seq += 1 + h_rand(&r) % 50)
        CHECK(lprt_mbox_after(self, seq) == after_slowly(self, seq));
    while (lprt_mbox_first(self)) take_free(self, lprt_mbox_first(self));
    CHECK(lprt_mbox_after(self, 0) == NULL);
}

int main(void) {
    long n = SCALE(20000);
    lprt *srt = h_new(1);
    h_run(srt, lprt_create_fiber(srt, seek_fiber, &n, 0));
    for (size_t d = 0; d < 3; d++)
        for (int rep = 0; rep < 5; rep++) {
            margs ma = {SCALE(2000) + rep * 17};
            lprt *rt = h_new(h_domain_counts[d]);
            h_run(rt, lprt_create_fiber(rt, main_fiber, &ma, 0));
        }
    printf("ok\n");
    return 0;
}
