/* Mapped input files (see input.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise, st_mtim */
#include "io/input.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/events.h"

#define CHANGED "file changed while it was read"

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static int64_t mtime_ns(const struct stat *st) {
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + (int64_t)st->st_mtim.tv_nsec;
}

/* Reserves len + padding bytes of zero pages, then maps the file over the start of them: the
 * bytes past end of file up to the page end read as zero, and the reserved tail covers a file
 * that ends exactly on a page boundary. The mapping keeps fd (see kp__input_check). */
static kp_status map_file(int fd, const struct stat *st, kp_input *in, kp_error *err) {
    size_t len = (size_t)st->st_size;
    size_t pg = page_size();
    size_t total = (len + KP_JSON_PADDING + pg - 1) / pg * pg;
    void *base = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return kp_error_set(err, KP_ENOMEM, "cannot reserve %zu bytes: %s", total, strerror(errno));
    void *m = mmap(base, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        munmap(base, total);
        return kp_error_set(err, KP_EIO, "cannot map: %s", strerror(e));
    }
    in->buf = base;
    in->len = len;
    in->map = base;
    in->map_len = total;
    in->fd = fd;
    in->mtime_ns = mtime_ns(st);
    return kp__input_advance(in, in->buf, err);
}

/* Reads fd to its end into a padded buffer, at most max_bytes (see kp__read_file). */
static kp_status read_fd(int fd, size_t max_bytes, char **buf, size_t *len, kp_error *err) {
    size_t cap = 1 << 16, n = 0;
    struct stat st0;
    bool reg = fstat(fd, &st0) == 0 && S_ISREG(st0.st_mode);
    if (reg) {
        if ((uint64_t)st0.st_size > max_bytes)
            return kp_error_set(err, KP_ELIMIT, "file is larger than the limit of %zu bytes",
                                max_bytes);
        cap = (size_t)st0.st_size + 1; /* + 1: end of file is seen without growing */
    }
    if (cap > max_bytes) cap = max_bytes;
    char *b = kp__malloc(cap + KP_JSON_PADDING);
    if (!b) return kp_error_set(err, KP_ENOMEM, "out of memory reading file");
    kp_status st = KP_OK;
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                /* full at the limit: one more byte means the input is over it */
                char probe;
                ssize_t got = read(fd, &probe, 1);
                if (got < 0 && errno == EINTR) continue;
                if (got == 0) break;
                st = got < 0
                         ? kp_error_set(err, KP_EIO, "read error: %s", strerror(errno))
                         : kp_error_set(err, KP_ELIMIT,
                                        "input is larger than the limit of %zu bytes", max_bytes);
                break;
            }
            size_t ncap = cap > max_bytes / 2 ? max_bytes : cap * 2;
            char *nb = kp__realloc(b, ncap + KP_JSON_PADDING);
            if (!nb) {
                st = kp_error_set(err, KP_ENOMEM, "out of memory reading file");
                break;
            }
            b = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            st = kp_error_set(err, KP_EIO, "read error: %s", strerror(errno));
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    struct stat st1;
    if (st == KP_OK && reg && fstat(fd, &st1) == 0 &&
        (st1.st_size != st0.st_size || mtime_ns(&st1) != mtime_ns(&st0)))
        st = kp_error_set(err, KP_EIO, CHANGED);
    if (st != KP_OK) {
        kp__free(b);
        return st;
    }
    memset(b + n, 0, KP_JSON_PADDING);
    *buf = b;
    *len = n;
    return KP_OK;
}

/* open(2) of path, with a clear message for what cannot be opened for reading. */
static int open_input(const char *path, kp_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return fd;
    int e = errno;
    struct stat sb;
    if (e == ENXIO && stat(path, &sb) == 0 && S_ISSOCK(sb.st_mode))
        kp_error_set(err, KP_EIO, "cannot read a socket");
    else kp_error_set(err, KP_EIO, "cannot open: %s", strerror(e));
    return -1;
}

kp_status kp__input_open(const char *path, size_t max_bytes, kp_input *in, kp_error *err) {
    memset(in, 0, sizeof *in);
    in->fd = -1;
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? 0 : open_input(path, err);
    if (fd < 0) return KP_EIO;
    struct stat st;
    kp_status s;
    if (!is_stdin && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size >= KP_INPUT_MAP_MIN) {
        if ((uint64_t)st.st_size > max_bytes)
            s = kp_error_set(err, KP_ELIMIT, "file is larger than the limit of %zu bytes",
                             max_bytes);
        else s = map_file(fd, &st, in, err);
        if (s != KP_OK) {
            if (in->map) munmap(in->map, in->map_len);
            memset(in, 0, sizeof *in);
            in->fd = -1;
            close(fd);
        }
        return s;
    }
    char *b = NULL;
    size_t n = 0;
    s = read_fd(fd, max_bytes, &b, &n, err);
    if (!is_stdin) close(fd);
    if (s != KP_OK) return s;
    in->buf = b;
    in->len = n;
    return KP_OK;
}

kp_status kp__input_check(const kp_input *in, kp_error *err) {
    if (!in->map || in->fd < 0) return KP_OK;
    struct stat st;
    if (fstat(in->fd, &st) != 0 || (uint64_t)st.st_size != in->len || mtime_ns(&st) != in->mtime_ns)
        return kp_error_set(err, KP_EIO, CHANGED);
    return KP_OK;
}

/* Prefaulting a window ahead of the parser is what makes mapped input fast: measured on the
 * 224 MB snapshot, the splitter's first pass runs at memory speed (62 ms) over prefaulted pages
 * against 70-115 ms taking a fault per 64 KiB, and read() into a buffer costs 190 ms (copy plus
 * zeroing fresh pages). Releasing the window behind keeps the resident set to about two windows
 * whatever the file size. MADV_POPULATE_READ needs Linux 5.14; older kernels fault on demand.
 * One fstat per window (16 MB) notices a file that was truncated or rewritten since it was
 * opened; MADV_POPULATE_READ fails with EFAULT where a read would raise SIGBUS. */
kp_status kp__input_advance(kp_input *in, const char *pos, kp_error *err) {
    if (!in->map) return KP_OK;
    size_t pg = page_size();
    size_t at = (size_t)(pos - in->buf) / pg * pg;
    if (at >= in->ahead && in->ahead < in->len) {
        kp_status st = kp__input_check(in, err);
        if (st != KP_OK) return st;
        size_t n = in->len - at < KP_INPUT_WINDOW ? in->len - at : KP_INPUT_WINDOW;
        size_t n_pages = (n + pg - 1) / pg * pg;
#ifdef MADV_POPULATE_READ
        if (madvise((char *)in->map + at, n_pages, MADV_POPULATE_READ) != 0 && errno == EFAULT)
            return kp_error_set(err, KP_EIO, CHANGED);
#endif
        in->ahead = at + n_pages;
    }
    if (at >= in->behind + KP_INPUT_WINDOW) {
        (void)madvise((char *)in->map + in->behind, at - in->behind, MADV_DONTNEED);
        in->behind = at;
    }
    return KP_OK;
}

void kp__input_close(kp_input *in) {
    if (in->map) munmap(in->map, in->map_len);
    else kp__free((void *)in->buf);
    if (in->fd >= 0) close(in->fd);
    memset(in, 0, sizeof *in);
    in->fd = -1;
}

void kp__offset_to_linecol(const char *buf, size_t len, uint64_t off, long *line, long *col) {
    long l = 1, c = 1;
    if (off > len) off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

kp_status kp__read_file(const char *path, size_t max_bytes, char **buf, size_t *len,
                        kp_error *err) {
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? 0 : open_input(path, err);
    if (fd < 0) return KP_EIO;
    kp_status st = read_fd(fd, max_bytes, buf, len, err);
    if (!is_stdin) close(fd);
    return st;
}
