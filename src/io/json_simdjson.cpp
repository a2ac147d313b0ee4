// The project's one C++ translation unit: wraps simdjson's On-Demand API behind the C event
// interface of events.h. Nothing else in kprio is C++. simdjson validates structure and UTF-8 up
// front; scalars are validated as they are read, and every scalar is read here (bar skipped
// members), so malformed numbers or literals are reported, not passed through.
#include <simdjson.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

#include "io/events.h"
extern "C" {
#include "base/alloc.h"
#include "io/jscan.h"
}

using namespace simdjson;
using ondemand::json_type;

namespace {

constexpr int kSyntax = -1000;

struct Walker {
    const char *buf;
    size_t len;
    kp_ev_fn fn;
    void *ctx;
    char *errmsg;
    size_t errcap;
    uint64_t *err_off;
    uint64_t last_off = 0;

    int quiet = 0; // > 0 while a skipped scalar is read: it is validated, nothing is delivered
    int emit(kp_ev ev, const char *s, size_t n, uint64_t off) {
        return quiet ? 0 : fn(ctx, ev, s, n, off);
    }

    int fail(const char *what, error_code e, uint64_t off) {
        std::snprintf(errmsg, errcap, "%s%s%s", what, e == SUCCESS ? "" : ": ",
                      e == SUCCESS ? "" : error_message(e));
        *err_off = off;
        return kSyntax;
    }

    uint64_t offset_of(std::string_view tok) {
        if (tok.data() >= buf && tok.data() <= buf + len) last_off = uint64_t(tok.data() - buf);
        return last_off;
    }

    template <typename V> int scalar(V &v, json_type t) {
        std::string_view raw;
        raw = v.raw_json_token();
        uint64_t off = offset_of(raw);
        switch (t) {
        case json_type::string: {
            std::string_view s;
            error_code e = v.get_string().get(s);
            if (e) return fail("invalid string", e, off);
            return emit(KP_EV_STR, s.data(), s.size(), off);
        }
        case json_type::number: {
            // Validate as a JSON number; keep the text so quantities like 1e3 stay exact.
            ondemand::number n;
            error_code e = v.get_number().get(n);
            if (e) {
                return fail("invalid number", e, off);
            }
            size_t n_len = raw.size();
            while (n_len && (raw[n_len - 1] == ' ' || raw[n_len - 1] == '\n' ||
                             raw[n_len - 1] == '\r' || raw[n_len - 1] == '\t'))
                n_len--;
            return emit(KP_EV_NUM, raw.data(), n_len, off);
        }
        case json_type::boolean: {
            bool b;
            error_code e = v.get_bool().get(b);
            if (e) return fail("invalid literal", e, off);
            return emit(b ? KP_EV_TRUE : KP_EV_FALSE, nullptr, 0, off);
        }
        case json_type::null: {
            bool is_null = false;
            if (v.is_null().get(is_null) != SUCCESS || !is_null)
                return fail("invalid literal", SUCCESS, off);
            return emit(KP_EV_NULL, nullptr, 0, off);
        }
        default: break;
        }
        return fail("unexpected value", SUCCESS, off);
    }

    // A member the consumer skips: stepped over without building anything, and its text checked
    // by the grammar walk of jscan.c (simdjson checked its UTF-8 and control characters with
    // the whole text), so invalid JSON anywhere in the document is an error (issue 17 item 7).
    template <typename V> int skipped(V &&v, int depth, std::string_view key, bool raw_event) {
        json_type t;
        error_code e = v.type().get(t);
        if (e) return fail("invalid value", e, last_off);
        if (!raw_event || (t != json_type::object && t != json_type::array)) {
            // read as usual (delivered for a raw event's scalar, quietly otherwise): On-Demand
            // then checks every token as the decoders' own reads do (numbers included, so a
            // skipped member and a read one are judged alike) and the separator after it,
            // which stepping over an unread value does not do ("a": "b": 1 must fail)
            if (raw_event) return value(v, depth);
            quiet++;
            int r = value(v, depth);
            quiet--;
            if (r < 0 && errmsg[0]) { // name the member, as for a raw span below
                size_t n = std::strlen(errmsg);
                std::snprintf(errmsg + n, errcap - n, " (in \"%.*s\")",
                              int(key.size() > 64 ? 64 : key.size()), key.data());
            }
            return r;
        }
        std::string_view raw;
        if (t == json_type::object) {
            ondemand::object o;
            if ((e = v.get_object().get(o)) || (e = o.raw_json().get(raw)))
                return fail("invalid object", e, last_off);
        } else if (t == json_type::array) {
            ondemand::array a;
            if ((e = v.get_array().get(a)) || (e = a.raw_json().get(raw)))
                return fail("invalid array", e, last_off);
        } else {
            raw = v.raw_json_token();
        }
        const char *what = nullptr;
        const char *at = kp__json_check_value(raw.data(), raw.data() + raw.size(),
                                              KP_MAX_DEPTH - depth + 1, &what);
        if (!at) {
            if (!raw_event) return 0;
            size_t n = raw.size(); // raw_json runs to the next token: trailing blanks off
            while (n && (raw[n - 1] == ' ' || raw[n - 1] == '\n' || raw[n - 1] == '\r' ||
                         raw[n - 1] == '\t'))
                n--;
            return emit(KP_EV_RAW, raw.data(), n, offset_of(raw));
        }
        std::snprintf(errmsg, errcap, "%s (in \"%.*s\")", what,
                      int(key.size() > 64 ? 64 : key.size()), key.data());
        *err_off = uint64_t(at - buf);
        return kSyntax;
    }

    template <typename V> int value(V &&v, int depth) {
        if (depth > KP_MAX_DEPTH) return fail("nesting deeper than 128 levels", SUCCESS, last_off);
        json_type t;
        error_code e = v.type().get(t);
        if (e) return fail("invalid value", e, last_off);
        if (t == json_type::object) {
            ondemand::object obj;
            if ((e = v.get_object().get(obj))) return fail("invalid object", e, last_off);
            int r = emit(KP_EV_OBJ_BEGIN, nullptr, 0, last_off);
            if (r < 0) return r;
            for (auto field_res : obj) {
                ondemand::field f;
                if ((e = std::move(field_res).get(f)))
                    return fail("invalid object member", e, last_off);
                std::string_view key;
                if ((e = f.unescaped_key().get(key))) return fail("invalid key", e, last_off);
                r = emit(KP_EV_KEY, key.data(), key.size(), last_off);
                if (r < 0) return r;
                if (r == KP_EV_SKIP || r == KP_EV_SKIP_CHECKED || r == KP_EV_SKIP_RAW) {
                    r = skipped(f.value(), depth + 1, key, r == KP_EV_SKIP_RAW);
                    if (r < 0) return r;
                    continue;
                }
                r = value(f.value(), depth + 1);
                if (r < 0) return r;
            }
            return emit(KP_EV_OBJ_END, nullptr, 0, last_off);
        }
        if (t == json_type::array) {
            ondemand::array arr;
            if ((e = v.get_array().get(arr))) return fail("invalid array", e, last_off);
            int r = emit(KP_EV_ARR_BEGIN, nullptr, 0, last_off);
            if (r < 0) return r;
            for (auto el : arr) {
                ondemand::value ev;
                if ((e = std::move(el).get(ev))) return fail("invalid array element", e, last_off);
                r = value(ev, depth + 1);
                if (r < 0) return r;
            }
            return emit(KP_EV_ARR_END, nullptr, 0, last_off);
        }
        return scalar(v, t);
    }
};

} // namespace

// simdjson 3.0.1's parser::allocate() does not check its string buffer (`new (std::nothrow)`,
// then only the index's allocation is checked): when that buffer alone cannot be had, allocate
// and iterate report SUCCESS and the first string read writes through a null pointer. The
// buffer is a private member; an explicit instantiation may name it (access is not checked in
// explicit instantiations, [temp.spec.general]), which lets the shim look at it after
// allocating and report the failure itself.
namespace {
using StringBuf = std::unique_ptr<uint8_t[]> ondemand::parser::*;
template <StringBuf M> struct StringBufOf {
    friend bool string_buf_missing(const ondemand::parser &p) { return !(p.*M); }
};
template struct StringBufOf<&ondemand::parser::string_buf>;
bool string_buf_missing(const ondemand::parser &p);
} // namespace

// Out-of-memory paths of the shim, counted for the tests (kp__json_oom_counts). simdjson's own
// buffers come from operator new, outside kp__malloc; so that the allocation-failure sweep
// (kp__alloc_fail_after) reaches the three ways they fail, each place where simdjson is about to
// allocate first makes one allocation through kp__malloc and, when the sweep fails it, fails the
// way simdjson would there: a throwing allocation (std::bad_alloc), allocate's MEMALLOC, and the
// nothrow new of a parser. Real failures of malloc take the same paths (tests/unit/
// test_alloc_fail_malloc.c fails them).
static unsigned long oom_counts[3];

// simdjson picks its stage-1 kernel on first use
// (detect_best_supported_implementation_on_first_use), building its implementation singletons
// (std::string members) inside noexcept functions: an allocation failure there terminates the
// process whatever the caller catches. The choice is made here instead, while the program starts
// (static initialization, before main), where a failure to allocate means the program could not
// start at all; no later parse can meet it.
[[maybe_unused]] static const bool kImplementationChosen =
    !simdjson::get_active_implementation()->name().empty();

static bool alloc_probe() {
    void *p = kp__malloc(1);
    kp__free(p);
    return p != nullptr;
}

extern "C" void kp__json_oom_counts(unsigned long out[3]) {
    for (int i = 0; i < 3; i++) out[i] = oom_counts[i];
}

// Documents up to this size reuse the caller's parser, whose buffers then grow to the largest
// of them; a bigger one gets a parser of its own, freed after it, so that one big document does
// not keep its index for the rest of a stream.
constexpr size_t kReuseMax = size_t(16) << 20;

// A parser owned by the C side (events.h): made by kp__json_parser_new, freed by
// kp__json_parser_free. No thread_local object: glibc registers a thread_local's destructor with
// calloc and aborts the process when that fails ("failed to register TLS destructor"), and a
// thread's cached parser would outlive every caller that could free it.
struct kp__json_parser {
    ondemand::parser p{kReuseMax};
};

static ondemand::parser *parser_new(size_t max_capacity) {
    if (!alloc_probe()) return nullptr;
    return new (std::nothrow) ondemand::parser(max_capacity);
}

// Sizes p for len bytes (what iterate would do, checked): KP_EV_NOMEM when simdjson's index or
// string buffer could not be allocated.
static int reserve(ondemand::parser &p, size_t len) {
    if (p.capacity() >= len && !string_buf_missing(p)) return 0;
    if (!alloc_probe()) throw std::bad_alloc(); // the sweep's stand-in for a throwing allocation
    error_code e = alloc_probe() ? p.allocate(len) : MEMALLOC;
    if (e == SUCCESS && string_buf_missing(p)) e = MEMALLOC;
    if (e == MEMALLOC) {
        oom_counts[1]++;
        return KP_EV_NOMEM;
    }
    return 0; // CAPACITY and the like: iterate reports them
}

static int events_body(ondemand::parser &parser, const char *buf, size_t len, kp_ev_fn fn,
                       void *ctx, char *errmsg, size_t errcap, uint64_t *err_off) {
    Walker w{buf, len, fn, ctx, errmsg, errcap, err_off};
    int r = reserve(parser, len);
    if (r < 0) return r;
    ondemand::document doc;
    error_code e = parser.iterate(buf, len, len + KP_JSON_PADDING).get(doc);
    if (e == MEMALLOC) { // simdjson could not allocate its index
        oom_counts[1]++;
        return KP_EV_NOMEM;
    }
    if (e) return w.fail("invalid JSON", e, 0);
    r = w.emit(KP_EV_DOC_BEGIN, nullptr, 0, 0);
    if (r < 0) return r;
    json_type t;
    e = doc.type().get(t);
    if (e) {
        const char *loc = nullptr;
        uint64_t off = doc.current_location().get(loc) == SUCCESS && loc ? uint64_t(loc - buf) : 0;
        return w.fail("invalid JSON", e, off);
    }
    if (t == json_type::object || t == json_type::array) {
        ondemand::value root;
        if ((e = doc.get_value().get(root))) return w.fail("invalid JSON", e, 0);
        r = w.value(root, 0);
    } else {
        return w.fail("the top level must be an object or an array", SUCCESS, 0);
    }
    if (r < 0) {
        if (r == kSyntax && *err_off == 0) {
            const char *loc = nullptr;
            if (doc.current_location().get(loc) == SUCCESS && loc) *err_off = uint64_t(loc - buf);
        }
        return r;
    }
    // Trailing content: once the root is consumed, current_location() only succeeds if tokens
    // remain (simdjson 3.0 has no document::at_end()).
    {
        const char *loc = nullptr;
        if (doc.current_location().get(loc) == SUCCESS && loc && loc < buf + len)
            return w.fail("unexpected content after the top-level value", SUCCESS,
                          uint64_t(loc - buf));
    }
    return w.emit(KP_EV_DOC_END, nullptr, 0, len);
}

// One document with the caller's parser (nullptr: a parser for this document alone).
static int events(kp__json_parser *jp, const char *buf, size_t len, kp_ev_fn fn, void *ctx,
                  char *errmsg, size_t errcap, uint64_t *err_off) {
    if (jp && len <= kReuseMax)
        return events_body(jp->p, buf, len, fn, ctx, errmsg, errcap, err_off);
    ondemand::parser *own = parser_new(len > 0xFFFFFFFFull ? 0xFFFFFFFFull : len);
    if (!own) {
        oom_counts[2]++;
        return KP_EV_NOMEM; // out of memory is not a syntax error (events.h)
    }
    struct Cleanup {
        ondemand::parser *p;
        ~Cleanup() { delete p; }
    } cleanup{own};
    return events_body(*own, buf, len, fn, ctx, errmsg, errcap, err_off);
}

// The C boundary: no C++ exception may cross it (each function below is noexcept and catches
// everything). simdjson and the standard library report an allocation failure as
// std::bad_alloc, which would otherwise terminate the process; it is an out-of-memory result
// like any other. Nothing else is thrown here (simdjson is used through error codes only); any
// other exception would be a defect, reported as out of memory rather than a crash.
static int boundary(kp__json_parser *jp, const char *buf, size_t len, kp_ev_fn fn, void *ctx,
                    char *errmsg, size_t errcap, uint64_t *err_off) noexcept {
    try {
        return events(jp, buf, len, fn, ctx, errmsg, errcap, err_off);
    } catch (...) {
        oom_counts[0]++;
        return KP_EV_NOMEM;
    }
}

extern "C" int kp__json_events(const char *buf, size_t len, kp_ev_fn fn, void *ctx, char *errmsg,
                               size_t errcap, uint64_t *err_off) {
    return boundary(nullptr, buf, len, fn, ctx, errmsg, errcap, err_off);
}

extern "C" int kp__json_events_with(kp__json_parser *jp, const char *buf, size_t len, kp_ev_fn fn,
                                    void *ctx, char *errmsg, size_t errcap, uint64_t *err_off) {
    return boundary(jp, buf, len, fn, ctx, errmsg, errcap, err_off);
}

extern "C" kp__json_parser *kp__json_parser_new(void) {
    if (!alloc_probe()) return nullptr;
    kp__json_parser *jp = new (std::nothrow) kp__json_parser;
    if (!jp) oom_counts[2]++;
    return jp;
}

extern "C" void kp__json_parser_free(kp__json_parser *jp) { delete jp; }
