/* Building a Summary API document (/stats/summary) without JSON: the fields the eviction manager
 * reads (kprio/eviction.h), filled straight into a kp_evict_summary, and the document written
 * back as the kubelet serves it.
 *
 * A program that has its nodes' usage at hand (a simulator, an agent reading cgroups) fills the
 * summary a step takes through these calls instead of printing JSON for
 * kp_evict_summary_load_buffer to parse; the result is the summary that decoding the document
 * kp_evict_summary_encode_json writes would give, field for field. Typical use:
 *     kp_summary_builder *b = kp_summary_builder_new();
 *     for each step:
 *         kp_summary_builder_reset(b);
 *         kp_summary_builder_node(b, "node-1");
 *         kp_summary_memory m = {KP_SUMMARY_AVAILABLE | KP_SUMMARY_WORKING_SET, t_ns, a, 0, w};
 *         kp_summary_builder_node_memory(b, &m);
 *         ... node_fs, rlimit, pods_memory; per pod: pod, its containers and volumes,
 *             pod_stats
 *         kp_evict_summary *s;
 *         kp_summary_builder_finish(b, &s, &err);
 *         kp_evict_manager_step(m, s, &res, &err);
 *         kp_evict_summary_free(s);
 *     kp_summary_builder_free(b);
 *
 * Values are the Summary API's unsigned integers, given as int64_t: a negative one is refused
 * (KP_ERANGE), as the decoder refuses a negative number. Every field is optional, as the Go
 * types are pointers: the `has` bits say which are reported. Times are unix nanoseconds from 0
 * (the epoch, which a decoded summary does not tell from an absent time) to year 2262. The first
 * error sticks: later calls do nothing and return it, and kp_summary_builder_finish reports it. A
 * builder is not thread-safe. */
#ifndef KP_SUMMARY_BUILDER_H
#define KP_SUMMARY_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/common.h"
#include "kprio/encode.h"
#include "kprio/eviction.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fields of a stats object that are reported (the `has` bits). */
enum {
    KP_SUMMARY_AVAILABLE = 1 << 0, /* availableBytes */
    KP_SUMMARY_CAPACITY = 1 << 1, /* capacityBytes */
    KP_SUMMARY_USED = 1 << 2, /* usedBytes */
    KP_SUMMARY_INODES_FREE = 1 << 3, /* inodesFree */
    KP_SUMMARY_INODES = 1 << 4, /* inodes */
    KP_SUMMARY_INODES_USED = 1 << 5, /* inodesUsed */
    KP_SUMMARY_USAGE = 1 << 6, /* usageBytes (memory) */
    KP_SUMMARY_WORKING_SET = 1 << 7 /* workingSetBytes (memory) */
};

/* MemoryStats: AVAILABLE, USAGE, WORKING_SET. */
typedef struct {
    unsigned has;
    int64_t time_ns;
    int64_t available, usage, working_set;
} kp_summary_memory;

/* FsStats: AVAILABLE, CAPACITY, USED, INODES_FREE, INODES, INODES_USED. */
typedef struct {
    unsigned has;
    int64_t time_ns;
    int64_t available, capacity, used, inodes_free, inodes, inodes_used;
} kp_summary_fs;

/* The node's filesystems: node.fs, node.runtime.imageFs, node.runtime.containerFs. */
typedef enum {
    KP_SUMMARY_NODE_FS = 0,
    KP_SUMMARY_IMAGE_FS,
    KP_SUMMARY_CONTAINER_FS
} kp_summary_fs_kind;

/* A pod's own stats (PodStats): of memory its working set, of ephemeral-storage its used bytes
 * and inodes (the fields eviction reads, and the kubelet's inodesUsed; a pod-side object's other
 * fields and time are not read); a pod-side object with no `has` bit is not reported. */
typedef struct {
    kp_summary_memory memory;
    kp_summary_fs ephemeral_storage;
    bool has_processes; /* process_stats.process_count */
    int64_t processes;
} kp_summary_pod;

/* A container's (ContainerStats): of memory its working set, of rootfs and logs their used
 * bytes and inodes. */
typedef struct {
    kp_summary_memory memory;
    kp_summary_fs rootfs, logs;
} kp_summary_container;

typedef struct kp_summary_builder kp_summary_builder;

/* A new builder holding an empty summary; NULL on allocation failure. */
kp_summary_builder *kp_summary_builder_new(void);
/* Releases a builder. NULL is a no-op. */
void kp_summary_builder_free(kp_summary_builder *b);
/* Starts a new, empty summary (and clears a stuck error), keeping the memory already grown. */
void kp_summary_builder_reset(kp_summary_builder *b);

/* node.nodeName (copied; "" = absent). Calling any node-level function makes the document a
 * Summary (it has a "node" object). */
kp_status kp_summary_builder_node(kp_summary_builder *b, const char *name);
/* node.memory. */
kp_status kp_summary_builder_node_memory(kp_summary_builder *b, const kp_summary_memory *m);
/* node.fs, node.runtime.imageFs or node.runtime.containerFs. */
kp_status kp_summary_builder_node_fs(kp_summary_builder *b, kp_summary_fs_kind which,
                                     const kp_summary_fs *fs);
/* node.rlimit: its time, maxpid and curproc (has_maxpid / has_curproc: reported). */
kp_status kp_summary_builder_rlimit(kp_summary_builder *b, int64_t time_ns, bool has_maxpid,
                                    int64_t maxpid, bool has_curproc, int64_t curproc);
/* node.systemContainers[name=pods].memory: the pods cgroup (allocatableMemory.available). */
kp_status kp_summary_builder_pods_memory(kp_summary_builder *b, const kp_summary_memory *m);

/* Appends a pod entry: podRef (namespace and name; uid NULL or "" = absent). Strings are
 * copied. */
kp_status kp_summary_builder_pod(kp_summary_builder *b, const char *ns, const char *name,
                                 const char *uid);
/* The last pod's own stats (replacing any given before; pod-side times are not kept): a caller
 * may sum its containers and volumes first, as the kubelet's calcEphemeralStorage does.
 * KP_EINVAL when no pod was added. */
kp_status kp_summary_builder_pod_stats(kp_summary_builder *b, const kp_summary_pod *p);
/* Appends a container to the last pod's containers. KP_EINVAL when no pod was added. */
kp_status kp_summary_builder_container(kp_summary_builder *b, const char *name,
                                       const kp_summary_container *c);
/* Appends a volume to the last pod's volume stats (VolumeStats: of its FsStats the used bytes
 * and inodes). KP_EINVAL when no pod was added. */
kp_status kp_summary_builder_volume(kp_summary_builder *b, const char *name,
                                    const kp_summary_fs *fs);

/* The summary built since the last reset into *out (owned by the caller:
 * kp_evict_summary_free; NULL on error); its time is the newest node-level time, as a decoded
 * one's. The builder is left as it was (finish twice gives the same summary). Errors: the stuck
 * error, its message naming the field as the decoder does ("Summary: pods[2].containers[0].
 * rootfs.usedBytes: must not be negative"): KP_ERANGE (a negative value or a time out of range),
 * KP_EINVAL (a container or volume before any pod), KP_ENOMEM (also past 4 Gi entries or string
 * bytes); KP_EINVAL when no node-level call was made (no "node" object: not a Summary). */
kp_status kp_summary_builder_finish(kp_summary_builder *b, kp_evict_summary **out, kp_error *err);

/* Writes summary s as one line of compact JSON, the Summary API document a kubelet serves
 * (pods, then node; each object's members in the Go types' order; times in RFC 3339, UTC):
 * the fields the summary holds. Decoding the text gives s back, field for field. The text is
 * handed to w in one call (without a newline). Errors: KP_ENOMEM, or w's status. */
kp_status kp_evict_summary_encode_json(const kp_evict_summary *s, kp_write_fn w, void *ctx,
                                       kp_error *err);

#ifdef __cplusplus
}
#endif
#endif
