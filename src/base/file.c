/* Output files and directory listings of the tool (base/file.h). With src/io/ the only place
 * that opens files: these write or list, io reads. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"

static void set_source(kp_error *err, const char *path) {
    if (err) snprintf(err->source, sizeof err->source, "%s", path);
}

struct kp__out {
    FILE *f;
    char *path; /* the target as given (error messages) */
    char *tmp; /* the temporary file, NULL when written in place */
    char *target; /* where tmp is renamed to (symbolic links followed) */
};

static kp_status out_fail(kp_error *err, kp_status st, const char *path, const char *what,
                          const char *reason) {
    kp_error_set(err, st, reason ? "%s: %s" : "%s", what, reason);
    set_source(err, path);
    return st;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = kp__malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The file a write to path lands in: path itself, or where its chain of symbolic links ends
 * (the last link's target may not exist yet: its directory must). */
static char *resolve_target(const char *path, int *eno) {
    char *cur = dup_str(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat sb;
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) return cur;
        size_t cap = (size_t)sb.st_size + 1;
        if (cap < 256) cap = 256;
        char *link = kp__malloc(cap);
        ssize_t n = link ? readlink(cur, link, cap - 1) : -1;
        if (n < 0) {
            *eno = link ? errno : ENOMEM;
            kp__free(link);
            kp__free(cur);
            return NULL;
        }
        link[n] = 0;
        char *next = link;
        if (link[0] != '/') { /* relative to the link's directory */
            const char *slash = strrchr(cur, '/');
            size_t dl = slash ? (size_t)(slash - cur) + 1 : 0;
            next = kp__malloc(dl + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, dl);
                memcpy(next + dl, link, (size_t)n + 1);
            }
            kp__free(link);
        }
        kp__free(cur);
        cur = next;
    }
    if (cur) *eno = ELOOP;
    else *eno = ENOMEM;
    kp__free(cur);
    return NULL;
}

void kp__out_abort(kp__out *o) {
    if (!o) return;
    if (o->f) fclose(o->f);
    if (o->tmp) remove(o->tmp);
    kp__free(o->path);
    kp__free(o->tmp);
    kp__free(o->target);
    kp__free(o);
}

/* a temporary file beside target, mode as the target's (or as a new file's: 0666 less umask) */
static kp_status open_temp(kp__out *o, const struct stat *old, int *eno) {
    const char *slash = strrchr(o->target, '/');
    size_t dl = slash ? (size_t)(slash - o->target) + 1 : 0;
    const char *base = o->target + dl;
    size_t n = dl + strlen(base) + sizeof ".kprio-XXXXXX" + 1;
    if (!(o->tmp = kp__malloc(n))) return KP_ENOMEM;
    snprintf(o->tmp, n, "%.*s.%s.kprio-XXXXXX", (int)dl, o->target, base);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        *eno = errno;
        kp__free(o->tmp);
        o->tmp = NULL;
        return KP_EIO;
    }
    mode_t mode;
    if (old) mode = old->st_mode & 07777;
    else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
        *eno = errno;
        close(fd);
        return KP_EIO; /* kp__out_abort removes tmp */
    }
    return KP_OK;
}

kp_status kp__out_open(const char *path, kp__out **out, kp_error *err) {
    *out = NULL;
    kp__out *o = kp__calloc(1, sizeof *o);
    int eno = 0;
    if (!o || !(o->path = dup_str(path))) {
        kp__free(o);
        return out_fail(err, KP_ENOMEM, path, "out of memory", NULL);
    }
    if (!(o->target = resolve_target(path, &eno))) {
        kp__out_abort(o);
        if (eno == ENOMEM) return out_fail(err, KP_ENOMEM, path, "out of memory", NULL);
        return out_fail(err, KP_EIO, path, "cannot create", strerror(eno));
    }
    struct stat sb;
    bool exists = stat(o->target, &sb) == 0;
    kp_status st = KP_OK;
    if (exists && S_ISDIR(sb.st_mode)) {
        kp__out_abort(o);
        return out_fail(err, KP_EIO, path, "cannot create", "is a directory");
    }
    if (exists && !S_ISREG(sb.st_mode)) { /* a device, FIFO or socket: in place, never removed */
        if (!(o->f = fopen(o->target, "w"))) eno = errno, st = KP_EIO;
    } else {
        st = open_temp(o, exists ? &sb : NULL, &eno);
    }
    if (st != KP_OK) {
        kp__out_abort(o);
        /* fdopen/fopen failing for want of memory (ENOMEM) is out of memory, not a bad path */
        if (st == KP_ENOMEM || eno == ENOMEM)
            return out_fail(err, KP_ENOMEM, path, "out of memory", NULL);
        return out_fail(err, KP_EIO, path, "cannot create", strerror(eno));
    }
    *out = o;
    return KP_OK;
}

FILE *kp__out_stream(kp__out *o) { return o->f; }

kp_status kp__out_commit(kp__out *o, kp_status fill, kp_error *err) {
    kp_status st = fill;
    if (ferror(o->f) && st == KP_OK) st = KP_EIO;
    int rc = fclose(o->f);
    o->f = NULL;
    if (rc != 0 && st == KP_OK) st = KP_EIO;
    int eno = 0;
    if (st == KP_OK && o->tmp) {
        if (rename(o->tmp, o->target) == 0) {
            kp__free(o->tmp);
            o->tmp = NULL;
        } else {
            eno = errno;
            st = KP_EIO;
        }
    }
    if (st != KP_OK) {
        if (eno) out_fail(err, KP_EIO, o->path, "cannot rename", strerror(eno));
        else if (st == KP_EIO) out_fail(err, KP_EIO, o->path, "write error", NULL);
        else out_fail(err, st, o->path, st == KP_ENOMEM ? "out of memory" : "cannot write", NULL);
    }
    kp__out_abort(o);
    return st;
}

kp_status kp__file_write(const char *path, kp_status (*fill)(FILE *f, void *ctx), void *ctx,
                         kp_error *err) {
    kp__out *o;
    kp_status st = kp__out_open(path, &o, err);
    if (st != KP_OK) return st;
    return kp__out_commit(o, fill(kp__out_stream(o), ctx), err);
}

kp_status kp__dir_make(const char *path, kp_error *err) {
    struct stat sb;
    if (mkdir(path, 0777) == 0) return KP_OK;
    int e = errno;
    if (e == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return KP_OK;
    return out_fail(err, KP_EIO, path, "cannot create directory",
                    e == EEXIST ? "a file of that name exists" : strerror(e));
}

bool kp__file_rereadable(const char *path) {
    struct stat sb;
    if (strcmp(path, "-") == 0) return false;
    if (stat(path, &sb) != 0) return true;
    return S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode);
}

bool kp__is_dir(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

void kp__paths_free(char **paths, size_t n) {
    for (size_t i = 0; paths && i < n; i++) kp__free(paths[i]);
    kp__free(paths);
}

static int path_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static kp_status add_path(char ***paths, size_t *n, size_t *cap, const char *dir, const char *name,
                          kp_error *err) {
    size_t l = strlen(dir) + strlen(name) + 2;
    char *p = kp__malloc(l);
    if (!p || !kp__grow((void **)paths, cap, *n + 1, sizeof **paths, 16)) {
        kp__free(p);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    snprintf(p, l, "%s/%s", dir, name);
    (*paths)[(*n)++] = p;
    return KP_OK;
}

kp_status kp__dir_files(const char *dir, bool (*keep)(const char *name), char ***paths, size_t *n,
                        kp_error *err) {
    *paths = NULL;
    *n = 0;
    size_t cap = 0;
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        kp_status st = kp_error_set(err, KP_EIO, "cannot open directory: %s", strerror(e));
        set_source(err, dir);
        return st;
    }
    kp_status st = KP_OK;
    struct dirent *de;
    while (st == KP_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.' || (keep && !keep(de->d_name))) continue;
        st = add_path(paths, n, &cap, dir, de->d_name, err);
    }
    closedir(d);
    /* regular files only (a FIFO would block its reader): others are left out */
    size_t k = 0;
    struct stat sb;
    for (size_t i = 0; i < *n; i++) {
        if (st == KP_OK && stat((*paths)[i], &sb) == 0 && S_ISREG(sb.st_mode))
            (*paths)[k++] = (*paths)[i];
        else kp__free((*paths)[i]);
    }
    *n = k;
    if (st != KP_OK) {
        kp__paths_free(*paths, 0);
        *paths = NULL;
        *n = 0;
        return st;
    }
    if (*n) qsort(*paths, *n, sizeof **paths, path_cmp);
    return KP_OK;
}
