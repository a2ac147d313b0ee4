/* CEL for DRA device selectors: semantic versions as the semver library reads them
 * (blang/semver v4 Parse and Compare, and semverlib.go's normalization). */
#include <string.h>

#include "core/cel_internal.h"

/* ---- semver (blang/semver v4 Parse, Compare) ---- */

static bool num_part(const char *s, size_t n, uint64_t *out) {
    if (n == 0 || (n > 1 && s[0] == '0')) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

static bool ident_ok(const char *s, size_t n, bool pre) {
    if (n == 0) return false;
    bool numeric = true;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum =
            (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
        if (!alnum) return false;
        if (c < '0' || c > '9') numeric = false;
    }
    /* numeric prerelease identifiers have no leading zeros */
    return !(pre && numeric && n > 1 && s[0] == '0');
}

static bool idents_ok(const char *s, size_t n, bool pre) {
    size_t b = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!ident_ok(s + b, i - b, pre)) return false;
            b = i + 1;
        }
    }
    return true;
}

static bool parse_strict(const char *s, size_t n, cel_semver *out) {
    size_t plus = n, dash = n;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '+') {
            plus = i;
            break;
        }
    if (plus < n && !idents_ok(s + plus + 1, n - plus - 1, false)) return false;
    for (size_t i = 0; i < plus; i++)
        if (s[i] == '-') {
            dash = i;
            break;
        }
    size_t core = dash < plus ? dash : plus;
    uint64_t v[3];
    size_t b = 0, k = 0;
    for (size_t i = 0; i <= core; i++) {
        if (i == core || s[i] == '.') {
            if (k == 3 || !num_part(s + b, i - b, &v[k])) return false;
            k++;
            b = i + 1;
        }
    }
    if (k != 3) return false;
    out->major = v[0];
    out->minor = v[1];
    out->patch = v[2];
    out->pre = NULL;
    out->pre_len = 0;
    if (dash < plus) {
        if (!idents_ok(s + dash + 1, plus - dash - 1, true)) return false;
        out->pre = s + dash + 1;
        out->pre_len = (uint32_t)(plus - dash - 1);
    }
    return true;
}

/* mirrors normalizeAndParse (semverlib.go): drops a "v" prefix, leading zeros of the three parts,
 * and fills a missing minor or patch with 0. buf holds the rewritten text while it is parsed; the
 * prerelease of the result points into s (the rewriting only touches the start of a part). */
bool kp__cel_semver_parse(const char *s, size_t n, bool normalize, cel_semver *out) {
    if (!normalize) return parse_strict(s, n, out);
    if (n && s[0] == 'v') s++, n--;
    const char *parts[3];
    size_t lens[3], k = 0, b = 0;
    for (size_t i = 0; i <= n && k < 3; i++) {
        if (i == n || (s[i] == '.' && k < 2)) {
            parts[k] = s + b;
            lens[k] = i - b;
            k++;
            b = i + 1;
            if (i == n) break;
        }
    }
    if (k < 3) {
        for (size_t i = 0; i < lens[k - 1]; i++)
            if (parts[k - 1][i] == '+' || parts[k - 1][i] == '-') return false;
    }
    /* strings.TrimLeft(p, "0") of a part longer than one byte, then "0" before it when it is
     * empty or does not start with a digit ("00" -> "0", "-beta" -> "0-beta") */
    bool zero[3] = {false, false, false};
    for (size_t i = 0; i < k; i++) {
        if (lens[i] > 1) {
            size_t z = 0;
            while (z < lens[i] && parts[i][z] == '0') z++;
            parts[i] += z;
            lens[i] -= z;
            zero[i] = lens[i] == 0 || parts[i][0] < '0' || parts[i][0] > '9';
        }
    }
    /* the normalized text is parts joined by '.', with "0" for missing ones; the prerelease, if
     * any, lies in the last part, which is a suffix of s, so out->pre can point into s */
    char buf[KP__CEL_MAX_LEN + 8];
    size_t total = 0;
    for (size_t i = 0; i < 3; i++) {
        const char *p = i < k ? parts[i] : "0";
        size_t l = i < k ? lens[i] : 1;
        if (total + l + 2 >= sizeof buf) return false;
        if (i) buf[total++] = '.';
        if (zero[i]) buf[total++] = '0';
        memcpy(buf + total, p, l);
        total += l;
    }
    if (!parse_strict(buf, total, out)) return false;
    if (out->pre) out->pre = s + n - (size_t)(buf + total - out->pre);
    return true;
}

static bool all_digits(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return n > 0;
}

int kp__cel_semver_cmp(const cel_semver *a, const cel_semver *b) {
    if (a->major != b->major) return a->major < b->major ? -1 : 1;
    if (a->minor != b->minor) return a->minor < b->minor ? -1 : 1;
    if (a->patch != b->patch) return a->patch < b->patch ? -1 : 1;
    if (!a->pre && !b->pre) return 0;
    if (!a->pre) return 1; /* a release is above its prereleases */
    if (!b->pre) return -1;
    /* identifier by identifier; an index past the length means that side has no more */
    size_t i = 0, j = 0;
    for (;;) {
        bool ad = i > a->pre_len, bd = j > b->pre_len;
        if (ad && bd) return 0;
        if (ad) return -1;
        if (bd) return 1;
        size_t ie = i, je = j;
        while (ie < a->pre_len && a->pre[ie] != '.') ie++;
        while (je < b->pre_len && b->pre[je] != '.') je++;
        const char *x = a->pre + i, *y = b->pre + j;
        size_t xn = ie - i, yn = je - j;
        bool xd = all_digits(x, xn), yd = all_digits(y, yn);
        int c;
        if (xd && yd) {
            c = xn != yn ? (xn < yn ? -1 : 1) : memcmp(x, y, xn);
        } else if (xd != yd) {
            c = xd ? -1 : 1; /* numeric identifiers are below alphanumeric ones */
        } else {
            size_t m = xn < yn ? xn : yn;
            c = memcmp(x, y, m);
            if (!c) c = xn < yn ? -1 : xn > yn;
        }
        if (c) return c < 0 ? -1 : 1;
        i = ie + 1;
        j = je + 1;
    }
}
