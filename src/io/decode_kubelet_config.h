/* Decoding the kubelet's eviction settings (internal): KubeletConfiguration documents and kubelet
 * flags into src/core/kubelet_config.h. The functions are public (include/kprio/eviction.h:
 * kp_evict_config_load_buffer, kp_evict_config_load_path, kp_evict_config_set_flag,
 * kp_evict_config_set_reclaimable); this header holds the decoder's limits. */
#ifndef KP_IO_DECODE_KUBELET_CONFIG_H
#define KP_IO_DECODE_KUBELET_CONFIG_H

#include "kprio/eviction.h"

/* kp_evict_config_load_path reads at most this many bytes. rule 8: a real limit, reported:
 * kp__read_file fails with KP_ELIMIT "file is larger than the limit of N bytes". */
#define KP_KUBELET_CONFIG_MAX_BYTES ((size_t)64 << 20)

#endif
