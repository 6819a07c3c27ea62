/* poller.c — the io thread: epoll readiness and timer expiry.
 *
 * One service thread owns the epoll set and serves the timer heap (timer.c).
 * Domains never block in epoll: a domain whose actor waits for an fd queues a
 * request (lock-free stack) and kicks an eventfd; the io thread registers the
 * fd EPOLLONESHOT and, on readiness, wakes the actor for the wait sequence the
 * request was made for. Keeping epoll off the domains keeps their parking a
 * plain futex wait and lets readiness be noticed while all domains are busy.
 * Registrations are keyed by fd (one waiting actor per fd at a time); a new
 * wait on an fd replaces the previous registration, so closed-and-reused fds
 * and abandoned (timed-out) waits never accumulate.                        */
#include "lprt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct fdreq {
    struct fdreq *next;
    lprt_actor *a;
    uint64_t seq;
    int fd, events;
} fdreq;

struct lprt__io {
    int epfd, evfd;
    pthread_t thread;
    _Atomic(fdreq *) reqs;
    _Atomic int stop;
    fdreq **byfd; /* io thread only */
    size_t nfd;
};

#define EV_KICK UINT64_MAX

void lprt__io_kick(lprt *rt) {
    lprt__io *io = rt->io;
    if (!io) return;
    uint64_t one = 1;
    ssize_t r = write(io->evfd, &one, sizeof one);
    (void)r;
}

void lprt__io_wait_fd(lprt_actor *a, int fd, int events, uint64_t seq) {
    lprt__io *io = a->rt->io;
    fdreq *r = malloc(sizeof *r);
    if (!r) abort();
    lprt_retain(a);
    r->a = a;
    r->seq = seq;
    r->fd = fd;
    r->events = events;
    fdreq *h = atomic_load_explicit(&io->reqs, memory_order_relaxed);
    do {
        r->next = h;
    } while (!atomic_compare_exchange_weak_explicit(&io->reqs, &h, r, memory_order_release,
                                                    memory_order_relaxed));
    lprt__io_kick(a->rt);
}

static void req_done(fdreq *r, bool wake) {
    if (wake) lprt__wake(r->a, LPRT_WAKE_FD, r->seq);
    lprt_release(r->a);
    free(r);
}

static void do_register(lprt__io *io, fdreq *r) {
    if (r->fd < 0) {
        req_done(r, true);
        return;
    }
    if ((size_t)r->fd >= io->nfd) {
        size_t n = io->nfd ? io->nfd : 64;
        while (n <= (size_t)r->fd) n *= 2;
        io->byfd = realloc(io->byfd, n * sizeof *io->byfd);
        if (!io->byfd) abort();
        for (size_t i = io->nfd; i < n; i++) io->byfd[i] = NULL;
        io->nfd = n;
    }
    if (io->byfd[r->fd]) req_done(io->byfd[r->fd], false);
    io->byfd[r->fd] = r;
    struct epoll_event ev = {0};
    ev.events = EPOLLONESHOT | EPOLLRDHUP;
    if (r->events & LPRT_READ) ev.events |= EPOLLIN;
    if (r->events & LPRT_WRITE) ev.events |= EPOLLOUT;
    ev.data.u64 = (uint64_t)r->fd;
    if (epoll_ctl(io->epfd, EPOLL_CTL_MOD, r->fd, &ev) == 0) return;
    if (errno == ENOENT && epoll_ctl(io->epfd, EPOLL_CTL_ADD, r->fd, &ev) == 0) return;
    /* not pollable (regular file, bad fd): report ready, the actor's own
       read/write will succeed or give the error */
    io->byfd[r->fd] = NULL;
    req_done(r, true);
}

static void take_requests(lprt__io *io) {
    fdreq *s = atomic_exchange_explicit(&io->reqs, NULL, memory_order_acquire);
    fdreq *rev = NULL;
    while (s) {
        fdreq *n = s->next;
        s->next = rev;
        rev = s;
        s = n;
    }
    while (rev) {
        fdreq *n = rev->next;
        do_register(io, rev);
        rev = n;
    }
}

static void *io_main(void *arg) {
    lprt *rt = arg;
    lprt__io *io = rt->io;
    struct epoll_event evs[64];
    while (!atomic_load(&io->stop)) {
        take_requests(io);
        int64_t now = lprt_now();
        int64_t next = lprt__timers_fire(rt, now);
        int timeout = -1;
        if (next >= 0) {
            int64_t ms = (next - now + 999999) / 1000000;
            timeout = ms < 0 ? 0 : ms > 1000000 ? 1000000 : (int)ms;
        }
        int n = epoll_wait(io->epfd, evs, 64, timeout);
        for (int i = 0; i < n; i++) {
            uint64_t key = evs[i].data.u64;
            if (key == EV_KICK) {
                uint64_t v;
                ssize_t r = read(io->evfd, &v, sizeof v);
                (void)r;
                continue;
            }
            if (key < io->nfd && io->byfd[key]) {
                fdreq *r = io->byfd[key];
                io->byfd[key] = NULL;
                req_done(r, true);
            }
        }
    }
    return NULL;
}

int lprt__io_start(lprt *rt) {
    lprt__io *io = calloc(1, sizeof *io);
    if (!io) return -1;
    io->epfd = epoll_create1(EPOLL_CLOEXEC);
    io->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (io->epfd < 0 || io->evfd < 0) return -1;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_KICK};
    if (epoll_ctl(io->epfd, EPOLL_CTL_ADD, io->evfd, &ev) != 0) return -1;
    rt->io = io;
    if (pthread_create(&io->thread, NULL, io_main, rt) != 0) return -1;
    return 0;
}

void lprt__io_stop(lprt *rt) {
    lprt__io *io = rt->io;
    if (!io) return;
    atomic_store(&io->stop, 1);
    lprt__io_kick(rt);
    pthread_join(io->thread, NULL);
    take_requests(io);
    for (size_t i = 0; i < io->nfd; i++)
        if (io->byfd[i]) req_done(io->byfd[i], false);
    free(io->byfd);
    close(io->epfd);
    close(io->evfd);
    rt->io = NULL;
    free(io);
}
