// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Functions cloned for AVX2 next to the baseline, picked at load time by GCC's ifunc
// dispatch; x86 only: on other architectures (aarch64) the baseline alone is built.
#if defined(__x86_64__) || defined(__i386__)
#define GPUSIFT_CLONES_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define GPUSIFT_CLONES_AVX2
#endif
