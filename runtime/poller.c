/* poller.c — the io thread: epoll readiness and timer expiry.
 *
 * One service thread, started by the first timer or fd wait, waits in epoll
 * and serves the timer heap (timer.c).
 * Domains never block in epoll: a domain whose actor waits for an fd
 * registers it EPOLLONESHOT itself (epoll_ctl is safe beside a thread in
 * epoll_wait, which sees the new interest at once), under the lock that also
 * guards the table of waits by fd; on readiness the io thread takes the wait
 * from the table and wakes the actor for the wait sequence it was made for.
 * Registering on the domain saves the io thread a wake-up per wait (before,
 * each wait was queued to it and an eventfd kicked: two context switches per
 * request of an HTTP server). Keeping epoll_wait off the domains keeps their
 * parking a plain futex wait and lets readiness be noticed while all domains
 * are busy. Registrations are keyed by fd (one waiting actor per fd at a
 * time); a new wait on an fd replaces the previous registration, so
 * closed-and-reused fds and abandoned (timed-out) waits never accumulate. */
#include "lprt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct fdreq {
    lprt_actor *a;
    uint64_t seq;
    int fd, events;
} fdreq;

struct lprt__io {
    lprt *rt;
    int epfd, evfd;
    pthread_t thread;
    _Atomic int stop;
    pthread_mutex_t lock; /* guards byfd and nfd */
    fdreq **byfd;
    size_t nfd;
};

#define EV_KICK UINT64_MAX

static void kick(lprt__io *io) {
    uint64_t one = 1;
    ssize_t r = write(io->evfd, &one, sizeof one);
    (void)r;
}

void lprt__io_kick(lprt *rt) {
    lprt__io *io = atomic_load_explicit(&rt->io, memory_order_acquire);
    if (io) kick(io);
}

static void req_done(fdreq *r, bool wake) {
    if (wake) lprt__wake(r->a, LPRT_WAKE_FD, r->seq);
    lprt_release(r->a);
    free(r);
}

/* Register r's fd (io->lock held): true when epoll watches it for r. */
static bool do_register(lprt__io *io, fdreq *r, fdreq **replaced) {
    if ((size_t)r->fd >= io->nfd) {
        size_t n = io->nfd ? io->nfd : 64;
        while (n <= (size_t)r->fd) n *= 2;
        io->byfd = realloc(io->byfd, n * sizeof *io->byfd);
        if (!io->byfd) abort();
        for (size_t i = io->nfd; i < n; i++) io->byfd[i] = NULL;
        io->nfd = n;
    }
    *replaced = io->byfd[r->fd];
    io->byfd[r->fd] = r;
    struct epoll_event ev = {0};
    ev.events = EPOLLONESHOT | EPOLLRDHUP;
    if (r->events & LPRT_READ) ev.events |= EPOLLIN;
    if (r->events & LPRT_WRITE) ev.events |= EPOLLOUT;
    ev.data.u64 = (uint64_t)r->fd;
    if (epoll_ctl(io->epfd, EPOLL_CTL_MOD, r->fd, &ev) == 0) return true;
    if (errno == ENOENT && epoll_ctl(io->epfd, EPOLL_CTL_ADD, r->fd, &ev) == 0) return true;
    io->byfd[r->fd] = NULL;
    return false;
}

void lprt__io_wait_fd(lprt_actor *a, int fd, int events, uint64_t seq) {
    lprt__io *io = atomic_load_explicit(&a->rt->io, memory_order_acquire);
    fdreq *r = malloc(sizeof *r);
    if (!r) abort();
    lprt_retain(a);
    r->a = a;
    r->seq = seq;
    r->fd = fd;
    r->events = events;
    fdreq *replaced = NULL;
    bool watched = false;
    if (fd >= 0) {
        pthread_mutex_lock(&io->lock);
        watched = do_register(io, r, &replaced);
        pthread_mutex_unlock(&io->lock);
    }
    if (replaced) req_done(replaced, false);
    /* not pollable (regular file, bad fd): ready now, the actor's own read/write
       succeeds or gives the error (the actor is still RUNNING: lprt__wake records it) */
    if (!watched) req_done(r, true);
}

static void *io_main(void *arg) {
    lprt__io *io = arg;   /* not rt->io, which lprt__io_stop may have taken before this runs */
    lprt *rt = io->rt;
    struct epoll_event evs[64];
    while (!atomic_load(&io->stop)) {
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
            fdreq *r = NULL;
            pthread_mutex_lock(&io->lock);
            if (key < io->nfd) {
                r = io->byfd[key];
                io->byfd[key] = NULL;
            }
            pthread_mutex_unlock(&io->lock);
            if (r) req_done(r, true);
        }
    }
    return NULL;
}

static lprt__io *io_start(lprt *rt) {
    lprt__io *io = calloc(1, sizeof *io);
    if (!io) return NULL;
    pthread_mutex_init(&io->lock, NULL);
    io->rt = rt;
    io->epfd = epoll_create1(EPOLL_CLOEXEC);
    io->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (io->epfd < 0 || io->evfd < 0) return NULL;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_KICK};
    if (epoll_ctl(io->epfd, EPOLL_CTL_ADD, io->evfd, &ev) != 0) return NULL;
    if (pthread_create(&io->thread, NULL, io_main, io) != 0) return NULL;
    atomic_store_explicit(&rt->io, io, memory_order_release);   /* io->thread is set: joinable */
    return io;
}

/* The io thread, started by the first timer or fd wait (a program that waits for neither has
   none; that saved a tenth of a millisecond of every start-up). NULL in deterministic mode and
   once the runtime is stopping (lprt__io_stop may have run: nothing would stop a new thread). */
lprt__io *lprt__io_need(lprt *rt) {
    lprt__io *io = atomic_load_explicit(&rt->io, memory_order_acquire);
    if (io || rt->det) return io;
    pthread_mutex_lock(&rt->start_mu);
    io = atomic_load_explicit(&rt->io, memory_order_acquire);
    if (!io && !atomic_load(&rt->stopping) && !(io = io_start(rt))) {
        fprintf(stderr, "lprt: cannot start the io thread\n");
        abort();
    }
    pthread_mutex_unlock(&rt->start_mu);
    return io;
}

/* After the domains have stopped: nothing starts the thread again. */
void lprt__io_stop(lprt *rt) {
    lprt__io *io = atomic_exchange(&rt->io, NULL);
    if (!io) return;
    atomic_store(&io->stop, 1);
    kick(io);
    pthread_join(io->thread, NULL);
    for (size_t i = 0; i < io->nfd; i++)
        if (io->byfd[i]) req_done(io->byfd[i], false);
    free(io->byfd);
    close(io->epfd);
    close(io->evfd);
    pthread_mutex_destroy(&io->lock);
    free(io);
}
