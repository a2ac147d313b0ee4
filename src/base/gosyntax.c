/* Go syntax helpers: strconv.Quote, time.ParseDuration, time.Duration.String and
 * strconv.ParseFloat(s, 32) as Go spells their results and errors (see gosyntax.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gosyntax.h"

/* Go's strconv.Quote for the plain strings we see; escapes quote, backslash and controls. */
void kp__go_quote(const char *s, size_t len, char *buf, size_t cap) {
    size_t o = 0;
    if (cap < 3) {
        if (cap) buf[0] = 0;
        return;
    }
    buf[o++] = '"';
    for (size_t i = 0; i < len && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
        } else buf[o++] = (char)c;
    }
    buf[o++] = '"';
    buf[o] = 0;
}

static kp_status dur_invalid(const char *s, size_t len, char *msg, size_t msg_cap) {
    char q[160];
    kp__go_quote(s, len, q, sizeof q);
    snprintf(msg, msg_cap, "time: invalid duration %s", q);
    return KP_EINVAL;
}

/* mirrors time.ParseDuration */
kp_status kp__go_parse_duration(const char *s, size_t len, int64_t *out_ns, char *msg,
                                size_t msg_cap) {
    const char *orig = s;
    size_t orig_len = len, i = 0;
    bool neg = false;
    uint64_t d = 0;
    const uint64_t lim = (uint64_t)1 << 63;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (len - i == 1 && s[i] == '0') {
        *out_ns = 0;
        return KP_OK;
    }
    if (i == len) return dur_invalid(orig, orig_len, msg, msg_cap);
    while (i < len) {
        uint64_t v = 0, f = 0;
        double scale = 1.0;
        if (!(s[i] == '.' || (s[i] >= '0' && s[i] <= '9')))
            return dur_invalid(orig, orig_len, msg, msg_cap);
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (v > (lim - 1) / 10) return dur_invalid(orig, orig_len, msg, msg_cap);
            v = v * 10 + (uint64_t)(s[i] - '0');
            if (v > lim - 1) return dur_invalid(orig, orig_len, msg, msg_cap);
            i++;
        }
        bool pre = i != start, post = false;
        if (i < len && s[i] == '.') {
            i++;
            size_t fs = i;
            bool overflow = false;
            while (i < len && s[i] >= '0' && s[i] <= '9') {
                if (!overflow) {
                    if (f > (lim - 1) / 10) overflow = true;
                    else {
                        uint64_t y = f * 10 + (uint64_t)(s[i] - '0');
                        if (y > lim) overflow = true;
                        else {
                            f = y;
                            scale *= 10;
                        }
                    }
                }
                i++;
            }
            post = i != fs;
        }
        if (!pre && !post) return dur_invalid(orig, orig_len, msg, msg_cap);
        size_t us = i;
        while (i < len && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9')) i++;
        if (i == us) {
            char q[160];
            kp__go_quote(orig, orig_len, q, sizeof q);
            snprintf(msg, msg_cap, "time: missing unit in duration %s", q);
            return KP_EINVAL;
        }
        size_t ul = i - us;
        const char *u = s + us;
        uint64_t unit = 0;
        if (ul == 2 && memcmp(u, "ns", 2) == 0) unit = 1;
        else if ((ul == 2 && memcmp(u, "us", 2) == 0) ||
                 (ul == 3 && memcmp(u, "\xc2\xb5s", 3) == 0) ||
                 (ul == 3 && memcmp(u, "\xce\xbcs", 3) == 0))
            unit = 1000;
        else if (ul == 2 && memcmp(u, "ms", 2) == 0) unit = 1000000;
        else if (ul == 1 && u[0] == 's') unit = 1000000000ULL;
        else if (ul == 1 && u[0] == 'm') unit = 60ULL * 1000000000ULL;
        else if (ul == 1 && u[0] == 'h') unit = 3600ULL * 1000000000ULL;
        if (!unit) {
            char q1[64], q2[160];
            kp__go_quote(u, ul, q1, sizeof q1);
            kp__go_quote(orig, orig_len, q2, sizeof q2);
            snprintf(msg, msg_cap, "time: unknown unit %s in duration %s", q1, q2);
            return KP_EINVAL;
        }
        if (v > lim / unit) return dur_invalid(orig, orig_len, msg, msg_cap);
        v *= unit;
        if (f > 0) {
            v += (uint64_t)((double)f * ((double)unit / scale));
            if (v > lim) return dur_invalid(orig, orig_len, msg, msg_cap);
        }
        d += v;
        if (d > lim) return dur_invalid(orig, orig_len, msg, msg_cap);
    }
    if (neg) {
        *out_ns = d == lim ? INT64_MIN : -(int64_t)d;
        return KP_OK;
    }
    if (d > lim - 1) return dur_invalid(orig, orig_len, msg, msg_cap);
    *out_ns = (int64_t)d;
    return KP_OK;
}

/* digits of v with trailing zeros dropped, as Go's fmtFrac; returns "" when v is 0 */
static void frac_digits(uint64_t v, int prec, char *buf, size_t cap) {
    char tmp[24];
    int n = 0;
    bool printed = false;
    for (int i = 0; i < prec; i++) {
        int digit = (int)(v % 10);
        printed = printed || digit != 0;
        if (printed) tmp[n++] = (char)('0' + digit);
        v /= 10;
    }
    size_t o = 0;
    if (n > 0 && cap > 1) buf[o++] = '.';
    while (n > 0 && o + 1 < cap) buf[o++] = tmp[--n];
    if (cap) buf[o] = 0;
}

/* mirrors time.Duration.String */
void kp__go_format_duration(int64_t ns, char *buf, size_t cap) {
    if (ns == 0) {
        snprintf(buf, cap, "0s");
        return;
    }
    const char *sign = ns < 0 ? "-" : "";
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char fr[24];
    if (u < 1000000000ULL) {
        if (u < 1000) {
            snprintf(buf, cap, "%s%lluns", sign, (unsigned long long)u);
            return;
        }
        if (u < 1000000) {
            frac_digits(u % 1000, 3, fr, sizeof fr);
            snprintf(buf, cap, "%s%llu%s\xc2\xb5s", sign, (unsigned long long)(u / 1000), fr);
            return;
        }
        frac_digits(u % 1000000, 6, fr, sizeof fr);
        snprintf(buf, cap, "%s%llu%sms", sign, (unsigned long long)(u / 1000000), fr);
        return;
    }
    frac_digits(u % 1000000000ULL, 9, fr, sizeof fr);
    uint64_t secs = u / 1000000000ULL;
    if (secs >= 3600)
        snprintf(buf, cap, "%s%lluh%llum%llu%ss", sign, (unsigned long long)(secs / 3600),
                 (unsigned long long)(secs / 60 % 60), (unsigned long long)(secs % 60), fr);
    else if (secs >= 60)
        snprintf(buf, cap, "%s%llum%llu%ss", sign, (unsigned long long)(secs / 60),
                 (unsigned long long)(secs % 60), fr);
    else snprintf(buf, cap, "%s%llu%ss", sign, (unsigned long long)secs, fr);
}

/* ---------------------------------------------------------------- strconv.ParseFloat */

static bool is_alpha_word(const char *s, const char *word) {
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[i]) return false;
    }
    return s[n] == 0;
}

/* Go strconv.ParseFloat(body, 32) syntax check (decimal, hex with p exponent, inf, nan). */
static bool go_float_syntax(const char *b) {
    const char *p = b;
    if (*p == '+' || *p == '-') p++;
    if (is_alpha_word(p, "inf") || is_alpha_word(p, "infinity")) return true;
    if (p == b && is_alpha_word(p, "nan")) return true;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return strpbrk(p, "pP") != NULL;
    bool digits = false;
    while (*p >= '0' && *p <= '9') {
        p++;
        digits = true;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            p++;
            digits = true;
        }
    }
    if (!digits) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return false;
        while (*p >= '0' && *p <= '9') p++;
    }
    return *p == 0;
}


/* mirrors strconv.ParseFloat(s, 32): syntax first, then range (an infinity spelled as such is
 * not out of range) */
kp_status kp__go_parse_float32(const char *s, size_t len, float *out, char *msg, size_t msg_cap) {
    char body[128], q[160];
    if (len >= sizeof body) len = sizeof body - 1;
    memcpy(body, s, len);
    body[len] = 0;
    kp__go_quote(body, len, q, sizeof q);
    if (!go_float_syntax(body)) {
        snprintf(msg, msg_cap, "strconv.ParseFloat: parsing %s: invalid syntax", q);
        return KP_EINVAL;
    }
    errno = 0;
    char *end = NULL;
    float v = strtof(body, &end);
    if (end != body + len) {
        snprintf(msg, msg_cap, "strconv.ParseFloat: parsing %s: invalid syntax", q);
        return KP_EINVAL;
    }
    if (isinf(v) && !strpbrk(body, "iI")) {
        snprintf(msg, msg_cap, "strconv.ParseFloat: parsing %s: value out of range", q);
        return KP_ERANGE;
    }
    *out = v;
    return KP_OK;
}
