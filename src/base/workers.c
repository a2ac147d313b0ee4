/* A pool of worker processes (base/workers.h): fork, one task pipe and one result pipe per
 * worker, poll over the result pipes. Messages on a result pipe: the task number and the
 * result's length (two uint64_t in the machine's order: both ends are this program), then the
 * result's bytes. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/workers.h"

typedef struct {
    pid_t pid; /* 0: no process */
    int task_wr, res_rd; /* -1: closed */
    int busy; /* a task is out */
    size_t task;
    kp__buf in; /* result bytes received, not yet consumed */
} worker;

static int write_full(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_full(int fd, void *p, size_t n) {
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* A worker's life: tasks in until the pipe closes, results out. Never returns. */
static void serve(int task_rd, int res_wr, kp__work_fn work, void *ctx) {
    kp__buf b;
    kp__buf_init(&b);
    uint64_t t;
    while (read_full(task_rd, &t, sizeof t) == 0) {
        kp__buf_reset(&b);
        if (work(ctx, (size_t)t, &b) != KP_OK) _exit(3);
        uint64_t hdr[2] = {t, (uint64_t)b.len};
        if (write_full(res_wr, hdr, sizeof hdr) != 0 || (b.len && write_full(res_wr, b.p, b.len)))
            _exit(4);
    }
    _exit(0);
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static kp_status spawn(worker *ws, size_t nw, size_t k, kp__work_fn work, void *ctx,
                       kp_error *err) {
    int tp[2], rp[2];
    if (pipe(tp) != 0) return kp_error_set(err, KP_EIO, "pipe: %s", strerror(errno));
    if (pipe(rp) != 0) {
        close(tp[0]);
        close(tp[1]);
        return kp_error_set(err, KP_EIO, "pipe: %s", strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(tp[0]), close(tp[1]), close(rp[0]), close(rp[1]);
        return kp_error_set(err, KP_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* the other workers' pipe ends: a worker holding them would keep their pipes open */
        for (size_t i = 0; i < nw; i++) {
            close_fd(&ws[i].task_wr);
            close_fd(&ws[i].res_rd);
        }
        close(tp[1]);
        close(rp[0]);
        signal(SIGPIPE, SIG_DFL);
        serve(tp[0], rp[1], work, ctx);
    }
    close(tp[0]);
    close(rp[1]);
    ws[k].pid = pid;
    ws[k].task_wr = tp[1];
    ws[k].res_rd = rp[0];
    ws[k].busy = 0;
    return KP_OK;
}

/* Gives worker w the next task, or closes its task pipe when none is left (it then ends). */
static void assign(worker *w, const size_t *tasks, size_t n_tasks, size_t *next) {
    if (*next >= n_tasks) {
        close_fd(&w->task_wr);
        return;
    }
    uint64_t t = tasks[*next];
    if (write_full(w->task_wr, &t, sizeof t) != 0) { /* it died: its EOF comes next */
        close_fd(&w->task_wr);
        return;
    }
    (*next)++;
    w->busy = 1;
    w->task = (size_t)t;
}

/* What ended a worker that still owed a result. */
static void describe(int status, char *buf, size_t cap) {
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "the worker process was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        snprintf(buf, cap, "the worker process failed (out of memory)");
    else snprintf(buf, cap, "the worker process ended (exit status %d)", WEXITSTATUS(status));
}

/* Hands every complete message of w->in to done. */
static kp_status consume(worker *w, kp__done_fn done, void *ctx, size_t *reported) {
    size_t off = 0;
    kp_status st = KP_OK;
    while (st == KP_OK && w->in.len - off >= 16) {
        uint64_t hdr[2];
        memcpy(hdr, w->in.p + off, sizeof hdr);
        if (w->in.len - off - 16 < hdr[1]) break;
        st = done(ctx, (size_t)hdr[0], w->in.p + off + 16, (size_t)hdr[1], NULL);
        off += 16 + (size_t)hdr[1];
        w->busy = 0;
        (*reported)++;
    }
    if (off) {
        memmove(w->in.p, w->in.p + off, w->in.len - off);
        w->in.len -= off;
    }
    return st;
}

static void stop_all(worker *ws, size_t nw) {
    for (size_t i = 0; i < nw; i++) {
        close_fd(&ws[i].task_wr);
        close_fd(&ws[i].res_rd);
        if (ws[i].pid > 0) {
            kill(ws[i].pid, SIGKILL);
            waitpid(ws[i].pid, NULL, 0);
        }
        kp__buf_free(&ws[i].in);
    }
}

/* One poll round: reads what the workers wrote; an ended worker's task is failed and a new
 * worker takes its place while tasks remain. */
static kp_status round_once(worker *ws, size_t nw, struct pollfd *pf, const size_t *tasks,
                            size_t n_tasks, size_t *next, size_t *reported, kp__work_fn work,
                            kp__done_fn done, void *ctx, kp_error *err) {
    size_t np = 0;
    for (size_t i = 0; i < nw; i++)
        if (ws[i].res_rd >= 0) pf[np].fd = ws[i].res_rd, pf[np].events = POLLIN, np++;
    if (np == 0) return kp_error_set(err, KP_EIO, "every worker ended with tasks left");
    if (poll(pf, (nfds_t)np, -1) < 0) {
        if (errno == EINTR) return KP_OK;
        return kp_error_set(err, KP_EIO, "poll: %s", strerror(errno));
    }
    for (size_t i = 0, p = 0; i < nw; i++) {
        worker *w = &ws[i];
        if (w->res_rd < 0) continue;
        if (!(pf[p++].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char chunk[65536];
        ssize_t r = read(w->res_rd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR) continue;
        if (r > 0) {
            if (!kp__buf_append(&w->in, chunk, (size_t)r))
                return kp_error_set(err, KP_ENOMEM, "out of memory");
            kp_status st = consume(w, done, ctx, reported);
            if (st != KP_OK) return st;
            if (!w->busy) assign(w, tasks, n_tasks, next);
            continue;
        }
        /* end of file: the worker is gone */
        close_fd(&w->res_rd);
        close_fd(&w->task_wr);
        int status = 0;
        waitpid(w->pid, &status, 0);
        w->pid = 0;
        w->in.len = 0;
        if (w->busy) {
            char why[160];
            describe(status, why, sizeof why);
            w->busy = 0;
            (*reported)++;
            kp_status st = done(ctx, w->task, NULL, 0, why);
            if (st != KP_OK) return st;
        }
        if (*next < n_tasks) {
            kp_status st = spawn(ws, nw, i, work, ctx, err);
            if (st != KP_OK) return st;
            assign(w, tasks, n_tasks, next);
        }
    }
    return KP_OK;
}

kp_status kp__workers_run(const size_t *tasks, size_t n_tasks, unsigned jobs, kp__work_fn work,
                          kp__done_fn done, void *ctx, kp_error *err) {
    if (n_tasks == 0) return KP_OK;
    size_t nw = jobs < 1 ? 1 : jobs;
    if (nw > n_tasks) nw = n_tasks;
    worker *ws = kp__calloc(nw, sizeof *ws);
    struct pollfd *pf = kp__calloc(nw, sizeof *pf);
    if (!ws || !pf) {
        kp__free(ws);
        kp__free(pf);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < nw; i++) {
        ws[i].task_wr = ws[i].res_rd = -1;
        kp__buf_init(&ws[i].in);
    }
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    kp_status st = KP_OK;
    size_t next = 0, reported = 0;
    for (size_t i = 0; i < nw && st == KP_OK; i++)
        if ((st = spawn(ws, nw, i, work, ctx, err)) == KP_OK) assign(&ws[i], tasks, n_tasks, &next);
    while (st == KP_OK && reported < n_tasks)
        st = round_once(ws, nw, pf, tasks, n_tasks, &next, &reported, work, done, ctx, err);
    if (st == KP_OK) /* every result is in: the workers end on their closed task pipes */
        for (size_t i = 0; i < nw; i++) {
            close_fd(&ws[i].task_wr);
            close_fd(&ws[i].res_rd);
            if (ws[i].pid > 0) waitpid(ws[i].pid, NULL, 0);
            ws[i].pid = 0;
        }
    stop_all(ws, nw);
    signal(SIGPIPE, old);
    kp__free(ws);
    kp__free(pf);
    return st;
}
