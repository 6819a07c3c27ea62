/* wait.c — what a running actor registers before blocking, reductions, own exit reason. */
#include "lprt_internal.h"

void lprt_wait_receive(lprt_actor *self, uint64_t after_seq, int64_t deadline) {
    self->wait_kind = WAIT_RECEIVE;
    self->wait_after = after_seq;
    self->wait_deadline = deadline;
}

void lprt_wait_sleep(lprt_actor *self, int64_t deadline) {
    self->wait_kind = WAIT_SLEEP;
    self->wait_deadline = deadline;
}

void lprt_wait_fd(lprt_actor *self, int fd, int events, int64_t deadline) {
    self->wait_kind = WAIT_FD;
    self->wait_fd = fd;
    self->wait_events = events;
    self->wait_deadline = deadline;
}

void lprt_wait_fd_or_receive(lprt_actor *self, int fd, int events, uint64_t after_seq, int64_t deadline) {
    lprt_wait_fd(self, fd, events, deadline);
    self->wait_kind = WAIT_FD_RECEIVE;
    self->wait_after = after_seq;
}

int lprt_wake_reason(lprt_actor *self) { return self->wake_reason; }

int lprt_reductions(lprt_actor *self, int n) {
    self->budget -= n;
    if (self->budget > 0) return 0;
    if (self->kind == LPRT_FIBER) {
        lprt_yield(self);
        return 0;
    }
    return 1;
}

void lprt_set_exit_reason(lprt_actor *self, int kind, void *value) {
    lprt__reason_release(self->rt, self->own_reason);
    self->own_reason = (lprt_reason){kind, kind == LPRT_ERROR ? value : NULL};
    if (kind != LPRT_ERROR) lprt__value_release(self->rt, value);
}
