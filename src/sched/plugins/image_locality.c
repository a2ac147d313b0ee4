/* ImageLocality (pkg/scheduler/framework/plugins/imagelocality). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "sched/compat.h"
#include "sched/plugins/image_locality.h"

#define MB (1024LL * 1024LL)

/* The container's image. The cluster model does not record spec.containers[].image yet (asked of
 * the loader's owner), so no image is known and every node gets the same (minimum) score: the
 * plugin then never changes a decision. */
static kp_str container_image(const kp_container *ct) { return ct->image; }

/* The pod's images as ImageLocality sees them (normalizedImageName), one entry per container
 * (init containers included) and, from v1.36 (PR #130231), per image volume
 * (spec.volumes[].image.reference), with the number of nodes having each; images no node has are
 * left out (they score nothing). n_ct: the image count calculatePriority's maximum threshold
 * scales with — containers only up to v1.36, image volumes too from v1.37 (PR #138951). */
#define POD_IMAGES_INLINE 16
typedef struct {
    uint32_t n, n_ct, n_src;
    kp_str *name;
    int64_t *nodes_with;
    kp_str name_buf[POD_IMAGES_INLINE];
    int64_t nodes_with_buf[POD_IMAGES_INLINE];
} pod_images;

static void pod_images_fini(pod_images *pi) {
    if (pi->name != pi->name_buf) kp__free(pi->name);
    if (pi->nodes_with != pi->nodes_with_buf) kp__free(pi->nodes_with);
}

/* false on allocation failure (more containers than the inline buffers hold) */
static bool pod_images_init(const kp_sched *s, const kp_pod *p, pod_images *pi) {
    const kp_cluster *cl = s->cl;
    uint32_t n_cont = (uint32_t)p->n_containers + p->n_init;
    uint32_t n_vol = kp__compat_image_volumes(s->compat) ? p->n_image_volumes : 0;
    pi->n = 0;
    pi->n_src = n_cont + n_vol;
    pi->n_ct = n_cont + (kp__compat_image_volume_threshold(s->compat) ? n_vol : 0);
    pi->name = pi->name_buf;
    pi->nodes_with = pi->nodes_with_buf;
    if (pi->n_src > POD_IMAGES_INLINE) {
        pi->name = kp__malloc(pi->n_src * sizeof *pi->name);
        pi->nodes_with = kp__malloc(pi->n_src * sizeof *pi->nodes_with);
        if (!pi->name || !pi->nodes_with) {
            pod_images_fini(pi);
            return false;
        }
    }
    for (uint32_t i = 0; i < pi->n_src; i++) {
        kp_str img = i < n_cont ? container_image(&p->containers[i]) : p->image_volumes[i - n_cont];
        if (!img) continue;
        /* normalizedImageName: append ":latest" when the last path element has no tag */
        const char *name = kp__s(cl, img);
        const char *slash = strrchr(name, '/'), *colon = strrchr(name, ':');
        kp_str norm = img;
        bool needs_tag = !colon || (slash && colon < slash);
        if (needs_tag && !strchr(name, '@')) {
            char inline_buf[512]; /* a longer name takes the heap: never cut, never skipped */
            size_t len = strlen(name) + 7;
            char *buf = len < sizeof inline_buf ? inline_buf : kp__malloc(len + 1);
            if (!buf) {
                pod_images_fini(pi);
                return false;
            }
            memcpy(buf, name, len - 7);
            memcpy(buf + len - 7, ":latest", 8);
            norm = kp__intern_find(&cl->strs, buf, len);
            if (buf != inline_buf) kp__free(buf);
        }
        if (norm == UINT32_MAX) continue;
        int64_t nodes_with = kp__pairmap_get(&s->image_nodes, norm);
        if (nodes_with == 0) continue;
        pi->name[pi->n] = norm;
        pi->nodes_with[pi->n++] = nodes_with;
    }
    return true;
}

/* mirrors ImageLocality.Score: sumImageScores scaled by spread, calculatePriority */
static int64_t image_score(const kp_sched *s, const pod_images *pi, const kp_node *n) {
    int64_t sum = 0;
    for (uint32_t i = 0; n && i < pi->n; i++) {
        for (uint32_t j = 0; j < n->n_images; j++) {
            if (n->images[j].name != pi->name[i]) continue;
            /* scaledImageScore: size * (numNodes / totalNumNodes), float as upstream */
            double spread = (double)pi->nodes_with[i] / (double)kp__cluster_live_nodes(s->cl);
            sum += (int64_t)((double)n->images[j].size * spread);
            break;
        }
    }
    int64_t max_threshold = 1000 * MB * (int64_t)pi->n_ct, min_threshold = 23 * MB;
    if (sum < min_threshold) sum = min_threshold;
    else if (sum > max_threshold) sum = max_threshold;
    if (max_threshold == min_threshold) return 0;
    return KP_MAX_NODE_SCORE * (sum - min_threshold) / (max_threshold - min_threshold);
}


/* mirrors ImageLocality.Score over nodes[n]: 1 scored, KP_ENOMEM */
int kp__image_locality_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                             int64_t *out) {
    const kp_cluster *cl = s->cl;
    pod_images pi;
    if (!pod_images_init(s, p, &pi)) return KP_ENOMEM;
    if (pi.n == 0) { /* no node has any of the pod's images: the same score everywhere */
        int64_t v = image_score(s, &pi, NULL);
        for (uint32_t i = 0; i < n; i++) out[i] = v;
    } else {
        for (uint32_t i = 0; i < n; i++) out[i] = image_score(s, &pi, &cl->nodes[nodes[i]]);
    }
    pod_images_fini(&pi);
    return 1;
}
