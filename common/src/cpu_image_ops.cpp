// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_image_ops.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gpusift/sift_scale_space.h"

// The AVX2 variants pass 32-byte vectors between inlined helpers; the ABI note does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

// The wide variants (AVX2, AVX-512) and the streaming stores are x86's; elsewhere (aarch64) the
// 16-byte variant alone runs, as NEON through GCC's generic vectors.
#if defined(__x86_64__) || defined(__i386__)
#define GPUSIFT_CPU_X86 1
#define GPUSIFT_TARGET(isa) __attribute__((target(isa)))
#include <xmmintrin.h>
#else
#define GPUSIFT_CPU_X86 0
#define GPUSIFT_TARGET(isa)
#endif

namespace gpusift::cpu {

namespace {

typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef int v8si __attribute__((vector_size(32)));
typedef float v16sf __attribute__((vector_size(64)));

template <class V>
struct IntVector;
template <>
struct IntVector<v4sf> {
  using type = v4si;
};
template <>
struct IntVector<v8sf> {
  using type = v8si;
};

template <class V>
inline __attribute__((always_inline)) V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
inline __attribute__((always_inline)) void store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}

// Lanes of an all-ones/all-zeros mask as bits, lane 0 in bit 0.
inline __attribute__((always_inline)) unsigned lane_bits(const v4si& mask) {
#if GPUSIFT_CPU_X86
  return static_cast<unsigned>(__builtin_ia32_movmskps(reinterpret_cast<v4sf>(mask)));
#else
  return (mask[0] & 1u) | (mask[1] & 2u) | (mask[2] & 4u) | (mask[3] & 8u);
#endif
}
inline __attribute__((always_inline)) unsigned lane_bits(const v8si& mask) {
  const v4si low = {mask[0], mask[1], mask[2], mask[3]};
  const v4si high = {mask[4], mask[5], mask[6], mask[7]};
  return lane_bits(low) | lane_bits(high) << 4;
}

// The value of a product, hidden from the optimiser so that it cannot fuse the product and the
// following addition into an FMA (the AVX-512 variant's target implies FMA): every variant must
// round the product and the sum separately, as the baseline does.
template <class V>
inline __attribute__((always_inline)) V no_fma(const V& value) {
  V v = value;
#if GPUSIFT_CPU_X86
  asm("" : "+v"(v));
#elif defined(__aarch64__)
  // GCC contracts into FMAs by default on aarch64; a vector wider than a NEON register goes
  // through memory (only the 16-byte variant runs there).
  if constexpr (sizeof(V) <= 16)
    asm("" : "+w"(v));
  else
    asm("" : "+m"(v));
#else
  asm("" : "+m"(v));
#endif
  return v;
}

// Folds the three values at p - 1, p, p + 1 into the running maximum and minimum. A NaN value
// is passed over, as is_scale_space_extremum passes over a NaN neighbour.
template <class V>
inline __attribute__((always_inline)) void include_row(const float* p, V* hi, V* lo) {
  for (int dc = -1; dc <= 1; ++dc) {
    const V value = load<V>(p + dc);
    *hi = value > *hi ? value : *hi;
    *lo = value < *lo ? value : *lo;
  }
}

// ---- Gaussian blur ---------------------------------------------------------------------------
// Per output value, the same operations in the same order as the plain loops
//   acc = t0 * centre; acc += tk * (above_k + below_k) for k = 1..r   (vertical, then)
//   out = t0 * mid[x]; out += tk * (mid[x - k] + mid[x + k]) for k = 1..r   (horizontal).
// The accumulators stay in registers across all taps.

// rows[k] for k in [-r, r] is the source row at offset k (already mirrored); writes w values.
template <class V>
inline __attribute__((always_inline)) void blur_vertical(const float* const* rows,
                                                         const float* taps, int r, int w,
                                                         float* __restrict out) {
  constexpr int L = sizeof(V) / sizeof(float);
  const float t0 = taps[0];
  int x = 0;
  for (; x + 4 * L <= w; x += 4 * L) {
    const float* c = rows[0] + x;
    V a0 = load<V>(c) * t0, a1 = load<V>(c + L) * t0;
    V a2 = load<V>(c + 2 * L) * t0, a3 = load<V>(c + 3 * L) * t0;
    for (int k = 1; k <= r; ++k) {
      const float* up = rows[-k] + x;
      const float* dn = rows[k] + x;
      const float t = taps[k];
      a0 += no_fma<V>((load<V>(up) + load<V>(dn)) * t);
      a1 += no_fma<V>((load<V>(up + L) + load<V>(dn + L)) * t);
      a2 += no_fma<V>((load<V>(up + 2 * L) + load<V>(dn + 2 * L)) * t);
      a3 += no_fma<V>((load<V>(up + 3 * L) + load<V>(dn + 3 * L)) * t);
    }
    store(out + x, a0);
    store(out + x + L, a1);
    store(out + x + 2 * L, a2);
    store(out + x + 3 * L, a3);
  }
  for (; x + L <= w; x += L) {
    V a = load<V>(rows[0] + x) * t0;
    for (int k = 1; k <= r; ++k)
      a += no_fma<V>((load<V>(rows[-k] + x) + load<V>(rows[k] + x)) * taps[k]);
    store(out + x, a);
  }
  for (; x < w; ++x) {
    float a = t0 * rows[0][x];
    for (int k = 1; k <= r; ++k)
      a += no_fma<float>(taps[k] * (rows[-k][x] + rows[k][x]));
    out[x] = a;
  }
}

// blur_vertical for rows y and y + 1 at once: rows[k] for k in [-r, r + 1] is the source row at
// offset k. Tap k of output 0 adds rows -k and k, tap k of output 1 rows 1 - k and 1 + k, so each
// source row loaded serves both outputs (row -k now and for output 1 at tap k + 1, row 1 + k now
// and for output 0 at tap k + 1): half the loads, the same operations per output.
template <class V>
inline __attribute__((always_inline)) void blur_vertical_2rows(const float* const* rows,
                                                               const float* taps, int r, int w,
                                                               float* __restrict out0,
                                                               float* __restrict out1) {
  constexpr int L = sizeof(V) / sizeof(float);
  const float t0 = taps[0];
  int x = 0;
  for (; x + 2 * L <= w; x += 2 * L) {
    // up: row -k (output 0's upper tap k, output 1's upper tap k + 1);
    // down: row 1 + k (output 1's lower tap k, output 0's lower tap k + 1).
    V up_a = load<V>(rows[0] + x), up_b = load<V>(rows[0] + x + L);
    V down_a = load<V>(rows[1] + x), down_b = load<V>(rows[1] + x + L);
    V a0 = up_a * t0, b0 = up_b * t0;
    V a1 = down_a * t0, b1 = down_b * t0;
    for (int k = 1; k <= r; ++k) {
      const float t = taps[k];
      const V next_up_a = load<V>(rows[-k] + x), next_up_b = load<V>(rows[-k] + x + L);
      const V next_down_a = load<V>(rows[1 + k] + x), next_down_b = load<V>(rows[1 + k] + x + L);
      a0 += no_fma<V>((next_up_a + down_a) * t);  // rows -k and +k
      b0 += no_fma<V>((next_up_b + down_b) * t);
      a1 += no_fma<V>((up_a + next_down_a) * t);  // rows 1 - k and 1 + k
      b1 += no_fma<V>((up_b + next_down_b) * t);
      up_a = next_up_a;
      up_b = next_up_b;
      down_a = next_down_a;
      down_b = next_down_b;
    }
    store(out0 + x, a0);
    store(out0 + x + L, b0);
    store(out1 + x, a1);
    store(out1 + x + L, b1);
  }
  for (; x < w; ++x) {
    float a0 = t0 * rows[0][x], a1 = t0 * rows[1][x];
    for (int k = 1; k <= r; ++k) {
      a0 += no_fma<float>(taps[k] * (rows[-k][x] + rows[k][x]));
      a1 += no_fma<float>(taps[k] * (rows[1 - k][x] + rows[1 + k][x]));
    }
    out0[x] = a0;
    out1[x] = a1;
  }
}

// Stores that bypass the caches, to a 16-byte aligned address (the SSE intrinsics, which gcc
// and clang both have, unlike gcc's __builtin_ia32_movntps).
#if GPUSIFT_CPU_X86
inline __attribute__((always_inline)) __m128 to_m128(const v4sf& v) {
  return reinterpret_cast<const __m128&>(v);
}
inline __attribute__((always_inline)) void store_streaming(float* p, const v4sf& v) {
  _mm_stream_ps(p, to_m128(v));
}
inline __attribute__((always_inline)) void store_streaming(float* p, const v16sf& v) {
  _mm_stream_ps(p, to_m128(v4sf{v[0], v[1], v[2], v[3]}));
  _mm_stream_ps(p + 4, to_m128(v4sf{v[4], v[5], v[6], v[7]}));
  _mm_stream_ps(p + 8, to_m128(v4sf{v[8], v[9], v[10], v[11]}));
  _mm_stream_ps(p + 12, to_m128(v4sf{v[12], v[13], v[14], v[15]}));
}
inline __attribute__((always_inline)) void store_streaming(float* p, const v8sf& v) {
  _mm_stream_ps(p, to_m128(v4sf{v[0], v[1], v[2], v[3]}));
  _mm_stream_ps(p + 4, to_m128(v4sf{v[4], v[5], v[6], v[7]}));
}
inline void streaming_fence() {
  _mm_sfence();
}
#else
template <class V>
inline __attribute__((always_inline)) void store_streaming(float* p, const V& v) {
  store(p, v);
}
inline void streaming_fence() {}
#endif

// mid has r valid values on either side of [0, w); optionally dog = out - previous, written
// with streaming stores (nothing reads it before the whole octave is built).
template <class V>
inline __attribute__((always_inline)) void blur_horizontal(const float* mid, const float* taps,
                                                           int r, int w, float* __restrict out,
                                                           const float* previous,
                                                           float* __restrict dog) {
  constexpr int L = sizeof(V) / sizeof(float);
  const float t0 = taps[0];
  const auto one = [&](int x) {
    float a = t0 * mid[x];
    for (int k = 1; k <= r; ++k)
      a += no_fma<float>(taps[k] * (mid[x - k] + mid[x + k]));
    out[x] = a;
    if (dog)
      dog[x] = a - previous[x];
  };
  int x = 0;
  if (dog) {
    // Up to the first aligned dog address one value at a time.
    const int misaligned = static_cast<int>(reinterpret_cast<uintptr_t>(dog) % 16);
    const int head = misaligned == 0 ? 0 : (16 - misaligned) / static_cast<int>(sizeof(float));
    for (; x < head && x < w; ++x)
      one(x);
  }
  for (; x + 4 * L <= w; x += 4 * L) {
    const float* m = mid + x;
    V a0 = load<V>(m) * t0, a1 = load<V>(m + L) * t0;
    V a2 = load<V>(m + 2 * L) * t0, a3 = load<V>(m + 3 * L) * t0;
    for (int k = 1; k <= r; ++k) {
      const float t = taps[k];
      a0 += no_fma<V>((load<V>(m - k) + load<V>(m + k)) * t);
      a1 += no_fma<V>((load<V>(m + L - k) + load<V>(m + L + k)) * t);
      a2 += no_fma<V>((load<V>(m + 2 * L - k) + load<V>(m + 2 * L + k)) * t);
      a3 += no_fma<V>((load<V>(m + 3 * L - k) + load<V>(m + 3 * L + k)) * t);
    }
    store(out + x, a0);
    store(out + x + L, a1);
    store(out + x + 2 * L, a2);
    store(out + x + 3 * L, a3);
    if (dog) {
      const float* p = previous + x;
      store_streaming(dog + x, a0 - load<V>(p));
      store_streaming(dog + x + L, a1 - load<V>(p + L));
      store_streaming(dog + x + 2 * L, a2 - load<V>(p + 2 * L));
      store_streaming(dog + x + 3 * L, a3 - load<V>(p + 3 * L));
    }
  }
  for (; x + L <= w; x += L) {
    const float* m = mid + x;
    V a = load<V>(m) * t0;
    for (int k = 1; k <= r; ++k)
      a += no_fma<V>((load<V>(m - k) + load<V>(m + k)) * taps[k]);
    store(out + x, a);
    if (dog)
      store_streaming(dog + x, a - load<V>(previous + x));
  }
  for (; x < w; ++x)
    one(x);
  if (dog)
    streaming_fence();  // streaming stores are weakly ordered
}

template <class V>
inline __attribute__((always_inline)) void blur_row(const float* const* rows, const float* taps,
                                                    int r, int w, float* scratch, float* out,
                                                    float* dog) {
  float* mid = scratch + r;
  blur_vertical<V>(rows, taps, r, w, mid);
  for (int p = 0; p < r; ++p) {
    scratch[p] = mid[reflect101(p - r, w)];
    mid[w + p] = mid[reflect101(w + p, w)];
  }
  blur_horizontal<V>(mid, taps, r, w, out, rows[0], dog);
}

// blur_row for rows y and y + 1 (rows[k] for k in [-r, r + 1]); scratch holds two padded rows.
template <class V>
inline __attribute__((always_inline)) void blur_2rows(const float* const* rows, const float* taps,
                                                      int r, int w, float* scratch, float* out0,
                                                      float* out1, float* dog0, float* dog1) {
  float* scratch1 = scratch + w + 2 * r;
  float* mid0 = scratch + r;
  float* mid1 = scratch1 + r;
  blur_vertical_2rows<V>(rows, taps, r, w, mid0, mid1);
  for (int p = 0; p < r; ++p) {
    scratch[p] = mid0[reflect101(p - r, w)];
    mid0[w + p] = mid0[reflect101(w + p, w)];
    scratch1[p] = mid1[reflect101(p - r, w)];
    mid1[w + p] = mid1[reflect101(w + p, w)];
  }
  blur_horizontal<V>(mid0, taps, r, w, out0, rows[0], dog0);
  blur_horizontal<V>(mid1, taps, r, w, out1, rows[1], dog1);
}

GPUSIFT_TARGET("avx512f")
void blur_2rows_avx512(const float* const* rows, const float* taps, int r, int w, float* scratch,
                       float* out0, float* out1, float* dog0, float* dog1) {
  blur_2rows<v16sf>(rows, taps, r, w, scratch, out0, out1, dog0, dog1);
}
void blur_2rows_sse2(const float* const* rows, const float* taps, int r, int w, float* scratch,
                     float* out0, float* out1, float* dog0, float* dog1) {
  blur_2rows<v4sf>(rows, taps, r, w, scratch, out0, out1, dog0, dog1);
}
GPUSIFT_TARGET("avx2")
void blur_2rows_avx2(const float* const* rows, const float* taps, int r, int w, float* scratch,
                     float* out0, float* out1, float* dog0, float* dog1) {
  blur_2rows<v8sf>(rows, taps, r, w, scratch, out0, out1, dog0, dog1);
}

void blur_row_sse2(const float* const* rows, const float* taps, int r, int w, float* scratch,
                   float* out, float* dog) {
  blur_row<v4sf>(rows, taps, r, w, scratch, out, dog);
}
GPUSIFT_TARGET("avx512f")
void blur_row_avx512(const float* const* rows, const float* taps, int r, int w, float* scratch,
                     float* out, float* dog) {
  blur_row<v16sf>(rows, taps, r, w, scratch, out, dog);
}
GPUSIFT_TARGET("avx2")
void blur_row_avx2(const float* const* rows, const float* taps, int r, int w, float* scratch,
                   float* out, float* dog) {
  blur_row<v8sf>(rows, taps, r, w, scratch, out, dog);
}

// ---- extremum candidates ---------------------------------------------------------------------

template <class V>
inline __attribute__((always_inline)) int candidates(const float* const* rows, int c0, int c1,
                                                     float threshold, int* columns) {
  using VI = typename IntVector<V>::type;
  constexpr int L = sizeof(V) / sizeof(float);
  const float* centre = rows[4];
  int count = 0, c = c0;
  for (; c + L <= c1; c += L) {
    const V v = load<V>(centre + c);
    const V magnitude = reinterpret_cast<V>(reinterpret_cast<VI>(v) & 0x7fffffff);
    const VI strong = magnitude > threshold;
    if (lane_bits(strong) == 0)
      continue;
    // The 3x3 neighbourhood in the DoG layer itself first: it rejects most columns.
    V hi = v, lo = v;
    for (int i = 3; i < 6; ++i)
      include_row(rows[i] + c, &hi, &lo);
    const V zero = {};
    const VI maximum = v > zero;
    VI keep = strong & ((maximum & (v >= hi)) | (~maximum & (v <= lo)));
    if (lane_bits(keep) == 0)
      continue;
    for (int i : {0, 1, 2, 6, 7, 8})
      include_row(rows[i] + c, &hi, &lo);
    keep &= (maximum & (v >= hi)) | (~maximum & (v <= lo));
    for (unsigned bits = lane_bits(keep); bits != 0; bits &= bits - 1)
      columns[count++] = c + __builtin_ctz(bits);
  }
  for (; c < c1; ++c) {
    if (__builtin_fabsf(centre[c]) > threshold)
      columns[count++] = c;
  }
  return count;
}

int candidates_sse2(const float* const* rows, int c0, int c1, float threshold, int* columns) {
  return candidates<v4sf>(rows, c0, c1, threshold, columns);
}
GPUSIFT_TARGET("avx2")
int candidates_avx2(const float* const* rows, int c0, int c1, float threshold, int* columns) {
  return candidates<v8sf>(rows, c0, c1, threshold, columns);
}

enum class Isa { kSse2, kAvx2, kAvx512 };

// GPUSIFT_TEST_CPU_ISA=sse2|avx2|avx512, a test hook read once at load, takes that variant
// instead of the best where the CPU has its instructions (avx512 then needs AVX-512F alone), so
// that a test can show every variant gives the same bits (cli_features_file). Other values, and
// variants the CPU lacks, leave the best.
Isa best_isa() {
#if !GPUSIFT_CPU_X86
  return Isa::kSse2;  // the 16-byte variant
#else
  __builtin_cpu_init();
  if (const char* forced = std::getenv("GPUSIFT_TEST_CPU_ISA")) {
    if (std::strcmp(forced, "sse2") == 0)
      return Isa::kSse2;
    if (std::strcmp(forced, "avx2") == 0 && __builtin_cpu_supports("avx2"))
      return Isa::kAvx2;
    if (std::strcmp(forced, "avx512") == 0 && __builtin_cpu_supports("avx512f"))
      return Isa::kAvx512;
  }
  // AVX-512 only where it does not slow the core down (Ice Lake and later, Zen 4 and later,
  // which all have VBMI2); the older Xeons lower their clock for 512-bit arithmetic.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vbmi2"))
    return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2"))
    return Isa::kAvx2;
  return Isa::kSse2;
#endif
}
const Isa kIsa = best_isa();
const bool kUseAvx2 = kIsa != Isa::kSse2;  // the extremum scan has no AVX-512 variant

// Calls row(i) for i in [0, count): shared between the threads of the enclosing parallel region
// (every thread calls; ends on a barrier) or all on the calling thread.
template <class Row>
void for_each_row(int count, Sharing sharing, const Row& row) {
  if (sharing == Sharing::kSerial) {
    for (int i = 0; i < count; ++i)
      row(i);
    return;
  }
  // About 16 chunks per thread, so that a thread that the OS holds back delays the others by
  // little at the closing barrier.
  const int chunk = std::max(1, count / (16 * omp_get_num_threads()));
#pragma omp for schedule(dynamic, chunk)
  for (int i = 0; i < count; ++i)
    row(i);
}

}  // namespace

GaussianKernel make_gaussian_kernel(float sigma) {
  GaussianKernel kernel;
  kernel.radius = gaussian_radius(sigma);
  std::vector<float> full(2 * kernel.radius + 1);
  gaussian_taps(sigma, kernel.radius, full.data());
  kernel.taps.assign(full.begin() + kernel.radius, full.end());
  return kernel;
}

size_t blur_scratch_floats(int width, int radius) {
  // Two padded rows of the vertical pass, then room for two output rows that are not kept.
  return 4 * static_cast<size_t>(width) + 4 * static_cast<size_t>(radius) + 16;
}

void gray8_to_float(const uint8_t* gray, size_t pitch_bytes, const FloatImage& dst,
                    Sharing sharing) {
  for_each_row(dst.height, sharing, [&](int y) {
    const uint8_t* in = gray + static_cast<size_t>(y) * pitch_bytes;
    float* out = dst.row(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = in[x];
  });
}

void upscale_2x(const FloatImage& src, const FloatImage& dst, Sharing sharing) {
  const FloatImageView view{src.data, src.width, src.height, src.stride};
  const int w = src.width;
  for_each_row(dst.height, sharing, [&](int y) {
    float* out = dst.row(y);
    // upscaled_pixel for every x, with the parities and the edge tests of its interior columns
    // known to the compiler: output x = 2 * sx and 2 * sx + 1 read source columns sx - 1..sx + 1.
    const auto interior = [&](auto parity) {
      const int yy = 2 * (y / 2) + decltype(parity)::value;  // == y
      for (int sx = 1; sx + 1 < w; ++sx) {
        out[2 * sx] = upscaled_pixel(view, yy, 2 * sx);
        out[2 * sx + 1] = upscaled_pixel(view, yy, 2 * sx + 1);
      }
    };
    if (y % 2 == 0)
      interior(std::integral_constant<int, 0>{});
    else
      interior(std::integral_constant<int, 1>{});
    for (int x = 0; x < dst.width; ++x) {
      if (x == 2 && w > 2)
        x = 2 * (w - 1);  // the interior is done
      out[x] = upscaled_pixel(view, y, x);
    }
  });
}

void decimate_2x(const FloatImage& src, const FloatImage& dst, Sharing sharing) {
  for_each_row(dst.height, sharing, [&](int y) {
    const float* in = src.row(2 * y);
    float* out = dst.row(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = in[2 * x];
  });
}

void gaussian_blur(const FloatImage& src, const FloatImage* dst, const GaussianKernel& kernel,
                   const FloatImage* dog, float* scratch, Sharing sharing) {
  const int w = src.width, h = src.height, r = kernel.radius;
  const float* taps = kernel.taps.data();
  // Outputs that are not kept go after the two padded rows.
  float* discarded0 = scratch + 2 * (w + 2 * r);
  float* discarded1 = discarded0 + w;
  // Two rows at a time.
  for_each_row((h + 1) / 2, sharing, [&](int pair) {
    const float* rows_storage[2 * kMaxGaussianRadius + 2];
    const float** rows = rows_storage + r;
    const int y = 2 * pair;
    const int last = y + 1 < h ? r + 1 : r;
    for (int k = -r; k <= last; ++k)
      rows[k] = src.row(reflect101(y + k, h));
    float* out0 = dst ? dst->row(y) : discarded0;
    float* dog0 = dog ? dog->row(y) : nullptr;
    if (y + 1 < h) {
      float* out1 = dst ? dst->row(y + 1) : discarded1;
      float* dog1 = dog ? dog->row(y + 1) : nullptr;
      switch (kIsa) {
        case Isa::kAvx512:
          blur_2rows_avx512(rows, taps, r, w, scratch, out0, out1, dog0, dog1);
          break;
        case Isa::kAvx2:
          blur_2rows_avx2(rows, taps, r, w, scratch, out0, out1, dog0, dog1);
          break;
        case Isa::kSse2:
          blur_2rows_sse2(rows, taps, r, w, scratch, out0, out1, dog0, dog1);
          break;
      }
    } else {
      switch (kIsa) {
        case Isa::kAvx512:
          blur_row_avx512(rows, taps, r, w, scratch, out0, dog0);
          break;
        case Isa::kAvx2:
          blur_row_avx2(rows, taps, r, w, scratch, out0, dog0);
          break;
        case Isa::kSse2:
          blur_row_sse2(rows, taps, r, w, scratch, out0, dog0);
          break;
      }
    }
  });
}

int extremum_candidates(const float* layers, size_t layer_stride, int stride, int layer, int row,
                        int c0, int c1, float threshold, int* columns) {
  const float* rows[9];
  for (int dl = -1; dl <= 1; ++dl)
    for (int dr = -1; dr <= 1; ++dr)
      rows[(dl + 1) * 3 + dr + 1] =
          layers + (layer + dl) * layer_stride + static_cast<ptrdiff_t>(row + dr) * stride;
  return kUseAvx2 ? candidates_avx2(rows, c0, c1, threshold, columns)
                  : candidates_sse2(rows, c0, c1, threshold, columns);
}

}  // namespace gpusift::cpu
