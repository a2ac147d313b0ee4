/* Mapped input files (see input.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
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

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Reserves len + padding bytes of zero pages, then maps the file over the start of them: the
 * bytes past end of file up to the page end read as zero, and the reserved tail covers a file
 * that ends exactly on a page boundary. */
static kp_status map_file(int fd, size_t len, kp_input *in, kp_error *err) {
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
    kp__input_advance(in, in->buf);
    return KP_OK;
}

kp_status kp__input_open(const char *path, size_t max_bytes, kp_input *in, kp_error *err) {
    memset(in, 0, sizeof *in);
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return kp_error_set(err, KP_EIO, "cannot open: %s", strerror(errno));
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size >= KP_INPUT_MAP_MIN) {
            kp_status s;
            if ((uint64_t)st.st_size > max_bytes)
                s = kp_error_set(err, KP_ELIMIT, "file is larger than the limit of %zu bytes",
                                 max_bytes);
            else s = map_file(fd, (size_t)st.st_size, in, err);
            close(fd);
            return s;
        }
        close(fd);
    }
    char *b = NULL;
    size_t n = 0;
    kp_status s = kp__read_file(path, max_bytes, &b, &n, err);
    if (s != KP_OK) return s;
    in->buf = b;
    in->len = n;
    return KP_OK;
}

/* Prefaulting a window ahead of the parser is what makes mapped input fast: measured on the
 * 224 MB snapshot, the splitter's first pass runs at memory speed (62 ms) over prefaulted pages
 * against 70-115 ms taking a fault per 64 KiB, and read() into a buffer costs 190 ms (copy plus
 * zeroing fresh pages). Releasing the window behind keeps the resident set to about two windows
 * whatever the file size. MADV_POPULATE_READ needs Linux 5.14; older kernels fault on demand. */
void kp__input_advance(kp_input *in, const char *pos) {
    if (!in->map) return;
    size_t pg = page_size();
    size_t at = (size_t)(pos - in->buf) / pg * pg;
    if (at >= in->ahead && in->ahead < in->len) {
        size_t n = in->len - at < KP_INPUT_WINDOW ? in->len - at : KP_INPUT_WINDOW;
        size_t n_pages = (n + pg - 1) / pg * pg;
#ifdef MADV_POPULATE_READ
        (void)madvise((char *)in->map + at, n_pages, MADV_POPULATE_READ);
#endif
        in->ahead = at + n_pages;
    }
    if (at >= in->behind + KP_INPUT_WINDOW) {
        (void)madvise((char *)in->map + in->behind, at - in->behind, MADV_DONTNEED);
        in->behind = at;
    }
}

void kp__input_close(kp_input *in) {
    if (in->map) munmap(in->map, in->map_len);
    else kp__free((void *)in->buf);
    memset(in, 0, sizeof *in);
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
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return kp_error_set(err, KP_EIO, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    struct stat stbuf;
    if (f != stdin && fstat(fileno(f), &stbuf) == 0 && S_ISREG(stbuf.st_mode)) {
        if ((uint64_t)stbuf.st_size > max_bytes) {
            fclose(f);
            return kp_error_set(err, KP_ELIMIT, "file is larger than the limit of %zu bytes",
                                max_bytes);
        }
        cap = (size_t)stbuf.st_size + 1;
    }
    char *b = kp__malloc(cap + KP_JSON_PADDING);
    if (!b) {
        if (f != stdin) fclose(f);
        return kp_error_set(err, KP_ENOMEM, "out of memory reading file");
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                kp__free(b);
                if (f != stdin) fclose(f);
                return kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes",
                                    max_bytes);
            }
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *nb = kp__realloc(b, ncap + KP_JSON_PADDING);
            if (!nb) {
                kp__free(b);
                if (f != stdin) fclose(f);
                return kp_error_set(err, KP_ENOMEM, "out of memory reading file");
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    if (f != stdin) fclose(f);
    if (bad) {
        kp__free(b);
        return kp_error_set(err, KP_EIO, "read error");
    }
    memset(b + n, 0, KP_JSON_PADDING);
    *buf = b;
    *len = n;
    return KP_OK;
}
