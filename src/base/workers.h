/* A pool of worker processes (internal utility module, not published; used by the tool's
 * `kprio sweep -j N`): tasks 0..n-1 handed out one at a time to forked workers, each task's
 * result sent back over a pipe. A task runs in a process of its own line of work, so a crash
 * or a leak in one costs that task, never the caller: the worker's death is reported as the
 * task's failure and a new worker takes its place. Results reach the caller in completion
 * order; the caller orders them (by task) for a deterministic answer.
 *
 * POSIX only (fork, pipe, poll, waitpid). Not thread-safe: call from the main thread. SIGPIPE is
 * ignored while the pool runs and restored after. */
#ifndef KP_BASE_WORKERS_H
#define KP_BASE_WORKERS_H

#include <stddef.h>

#include "base/buf.h"
#include "kprio/common.h"

/* In a worker: runs task i, its result appended to out (any bytes). A non-OK status ends the
 * worker (the task is reported as failed: "worker failed: STATUS"). */
typedef kp_status (*kp__work_fn)(void *ctx, size_t task, kp__buf *out);
/* In the caller: task i ended, with its result (failure NULL), or without one (failure: "the
 * worker process was killed by signal 11", ...; result NULL). A non-OK status stops the pool
 * (the workers are killed) and is returned. */
typedef kp_status (*kp__done_fn)(void *ctx, size_t task, const char *result, size_t len,
                                 const char *failure);

/* Runs tasks[0..n_tasks) (task numbers, any order) on up to jobs workers (at least 1; at most
 * n_tasks). Before forking, stdout and stderr are flushed; a worker ends with _exit, flushing
 * nothing of its parent's. Returns KP_OK when every task was reported, or the first error
 * (KP_EIO: fork or pipe failed; KP_ENOMEM; a done callback's status). */
kp_status kp__workers_run(const size_t *tasks, size_t n_tasks, unsigned jobs, kp__work_fn work,
                          kp__done_fn done, void *ctx, kp_error *err);

#endif
