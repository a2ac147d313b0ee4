/* The structural check of a SimKube trace's msgpack bytes and the messages of its reader
 * (io/simkube_scan.h). msgpack-c's unpacker allocates a container's slots from the count the
 * container declares and stops at 32 nested levels with a bare parse error: this pass, run
 * first, refuses an absurd count, a length past the file's end or too deep a nesting with the
 * byte and the path (`events[2].applied_objs[0].spec`) where it is. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io/simkube_scan.h"

/* ---------------------------------------------------------------- messages */

/* s[0..n) fit for a one-line message: at most 60 bytes, others than printable ASCII as \xNN. */
void kp__sk_shown(char *buf, size_t cap, const char *s, size_t n) {
    size_t o = 0;
    for (size_t i = 0; i < n && i < 60 && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') buf[o++] = (char)c;
        else o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
    }
    if (n > 60 && o + 4 < cap) o += (size_t)snprintf(buf + o, cap - o, "...");
    buf[o] = 0;
}


/* "FILE: events[3].applied_objs[0] (Deployment shop/web): spec.replicas: MESSAGE" */
kp_status kp__sk_fail(sk *k, kp_status code, const char *fmt, ...) {
    char msg[300], where[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (k->obj_at) {
        const char *field = k->path + k->obj_at;
        if (*field == '.') field++;
        snprintf(where, sizeof where, "%.*s%s%s%s", (int)k->obj_at, k->path, k->label,
                 *field ? ": " : "", field);
    } else {
        snprintf(where, sizeof where, "%s", k->path);
    }
    kp_status st = kp_error_set(k->err, code, "%s%s%s", where, where[0] ? ": " : "", msg);
    if (k->err) snprintf(k->err->source, sizeof k->err->source, "%s", k->file);
    return st;
}

size_t kp__sk_push_key(sk *k, const char *key, size_t n) {
    size_t saved = k->path_len;
    int w = snprintf(k->path + k->path_len, sizeof k->path - k->path_len, "%s%.*s",
                     k->path_len ? "." : "", (int)(n > 80 ? 80 : n), key);
    /* a path past the buffer stays as it was (the message names where it could) */
    if (w > 0) k->path_len += (size_t)w < sizeof k->path - k->path_len ? (size_t)w : 0;
    k->path[k->path_len] = 0;
    return saved;
}

size_t kp__sk_push_text(sk *k, const char *text) {
    size_t saved = k->path_len;
    int w = snprintf(k->path + k->path_len, sizeof k->path - k->path_len, "%s", text);
    if (w > 0) k->path_len += (size_t)w < sizeof k->path - k->path_len ? (size_t)w : 0;
    k->path[k->path_len] = 0;
    return saved;
}

size_t kp__sk_push_index(sk *k, uint64_t i) {
    char s[32];
    snprintf(s, sizeof s, "[%llu]", (unsigned long long)i);
    return kp__sk_push_text(k, s);
}

void kp__sk_pop(sk *k, size_t saved) {
    k->path_len = saved;
    k->path[saved] = 0;
}

/* ---------------------------------------------------------------- structural check */

typedef struct {
    uint64_t left, idx;
    bool map, at_key; /* a map whose next value is a key */
    const char *key; /* the current entry's key (a string key), else NULL */
    size_t key_len;
} frame;

static uint64_t be(const unsigned char *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* The path to the value being read, from the open containers. */
static void scan_path(sk *k, const frame *f, int depth) {
    kp__sk_pop(k, 0);
    for (int i = 0; i < depth; i++) {
        if (!f[i].map) kp__sk_push_index(k, f[i].idx);
        else if (f[i].at_key) kp__sk_push_key(k, "(a key)", 7);
        else if (f[i].key) {
            char s[200];
            kp__sk_shown(s, sizeof s, f[i].key, f[i].key_len);
            kp__sk_push_key(k, s, strlen(s));
        } else kp__sk_push_key(k, "(a key not a string)", 20);
    }
}

/* One value's header at b[pos]: *hdr its size, *payload the bytes after it (strings, binary,
 * numbers), *count the entries of a container (-1 for others), *is_map, *str. 0, or -1 for a
 * byte no value starts with. */
static int header(const unsigned char *b, size_t avail, size_t *hdr, uint64_t *payload,
                  int64_t *count, bool *is_map, bool *str) {
    unsigned char t = b[0];
    size_t w = 0;
    *payload = 0;
    *count = -1;
    *is_map = *str = false;
    *hdr = 1;
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) return 0;
    if (t >= 0x80 && t <= 0x9f) {
        *count = t & 0x0f;
        *is_map = t <= 0x8f;
        return 0;
    }
    if (t >= 0xa0 && t <= 0xbf) {
        *payload = t & 0x1f;
        *str = true;
        return 0;
    }
    switch (t) {
    case 0xc4:
    case 0xc5:
    case 0xc6: w = (size_t)1 << (t - 0xc4); break; /* bin */
    case 0xc7:
    case 0xc8:
    case 0xc9: w = (size_t)1 << (t - 0xc7); break; /* ext */
    case 0xca: *payload = 4; return 0;
    case 0xcb: *payload = 8; return 0;
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: *payload = (uint64_t)1 << (t - 0xcc); return 0;
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: *payload = (uint64_t)1 << (t - 0xd0); return 0;
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
        *payload = 1 + ((uint64_t)1 << (t - 0xd4)); /* fixext: a type byte and the data */
        return 0;
    case 0xd9:
    case 0xda:
    case 0xdb:
        w = (size_t)1 << (t - 0xd9);
        *str = true;
        break;
    case 0xdc:
    case 0xdd: w = t == 0xdc ? 2 : 4; break;
    case 0xde:
    case 0xdf:
        w = t == 0xde ? 2 : 4;
        *is_map = true;
        break;
    default: return -1; /* 0xc1, never used */
    }
    *hdr = 1 + w;
    if (avail < 1 + w) return 0; /* the caller reports the truncation */
    uint64_t n = be(b + 1, w);
    if (t >= 0xdc) *count = (int64_t)n;
    else *payload = n + (t >= 0xc7 && t <= 0xc9); /* ext: its type byte */
    return 0;
}

kp_status kp__sk_scan(sk *k, const unsigned char *b, size_t len) {
    frame f[SK_MAX_DEPTH + 1];
    memset(f, 0, sizeof f); /* (only the open frames are read; for the analysers) */
    int depth = 0;
    size_t pos = 0;
    uint64_t values = 0;
    do {
        size_t hdr;
        uint64_t payload;
        int64_t count;
        bool is_map, str;
        if (pos >= len) {
            scan_path(k, f, depth);
            return kp__sk_fail(k, KP_EINVAL,
                               "truncated: the file ends where a value should start "
                               "(byte %zu)",
                               pos);
        }
        if (header(b + pos, len - pos, &hdr, &payload, &count, &is_map, &str) < 0) {
            scan_path(k, f, depth);
            return kp__sk_fail(k, KP_EINVAL, "byte %zu: 0x%02x starts no msgpack value", pos,
                               b[pos]);
        }
        if (hdr > len - pos || payload > len - pos - hdr) {
            scan_path(k, f, depth);
            return kp__sk_fail(k, KP_EINVAL,
                               "truncated: a value at byte %zu of %llu bytes ends past "
                               "the file's end (%zu bytes)",
                               pos, (unsigned long long)(hdr + payload), len);
        }
        size_t start = pos;
        pos += hdr + (size_t)payload;
        if (++values > SK_MAX_VALUES) {
            scan_path(k, f, depth);
            return kp__sk_fail(k, KP_ELIMIT, "more than %llu values (the reader's limit)",
                               (unsigned long long)SK_MAX_VALUES);
        }
        if (count > 0) {
            /* every entry takes at least one byte: a count the rest of the file cannot hold is
             * refused before anything is allocated for it */
            uint64_t need = (uint64_t)count * (is_map ? 2 : 1);
            if (need > len - pos) {
                scan_path(k, f, depth);
                return kp__sk_fail(
                    k, KP_EINVAL, "byte %zu: %s of %llu entries, more than the %zu bytes left hold",
                    start, is_map ? "a map" : "an array", (unsigned long long)count, len - pos);
            }
            if (depth == SK_MAX_DEPTH) {
                scan_path(k, f, depth);
                return kp__sk_fail(k, KP_ELIMIT,
                                   "nested deeper than %d maps and arrays (the reader's "
                                   "limit)",
                                   SK_MAX_DEPTH);
            }
            f[depth] = (frame){(uint64_t)count, 0, is_map, is_map, NULL, 0};
            depth++;
            continue;
        }
        /* a value is complete: the containers it completes are too */
        while (depth > 0) {
            frame *t = &f[depth - 1];
            if (t->map && t->at_key) {
                t->at_key = false;
                t->key = str ? (const char *)b + start + hdr : NULL;
                t->key_len = (size_t)payload;
                break;
            }
            t->at_key = t->map;
            t->idx++;
            if (--t->left) break;
            depth--;
            str = false; /* a container completed: not a string key */
        }
    } while (depth > 0);
    if (pos != len) {
        kp__sk_pop(k, 0);
        return kp__sk_fail(k, KP_EINVAL, "%zu bytes after the trace's end (byte %zu)", len - pos,
                           pos);
    }
    return KP_OK;
}


/* Whether s[0..n) is UTF-8 (JSON text is): no overlong forms, surrogates or code points past
 * U+10FFFF. */
bool kp__sk_utf8_ok(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t m;
        if (c < 0x80) m = 0;
        else if (c >= 0xc2 && c <= 0xdf) m = 1;
        else if (c >= 0xe0 && c <= 0xef) m = 2;
        else if (c >= 0xf0 && c <= 0xf4) m = 3;
        else return false;
        if (m >= n - i) return false;
        for (size_t j = 1; j <= m; j++)
            if ((p[i + j] & 0xc0) != 0x80) return false;
        if ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0) ||
            (c == 0xf0 && p[i + 1] < 0x90) || (c == 0xf4 && p[i + 1] >= 0x90))
            return false;
        i += m + 1;
    }
    return true;
}

/* RFC 1123 names: a DNS subdomain (max 253) or, for a namespace, a label (max 63). */
bool kp__sk_dns_name(const char *s, size_t n, bool label) {
    if (!n || n > (label ? 63u : 253u)) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && c != '-' && (label || c != '.')) return false;
        if (!alnum && (i == 0 || i == n - 1)) return false;
    }
    return true;
}
