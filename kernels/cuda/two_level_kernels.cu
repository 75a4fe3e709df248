// SPDX-License-Identifier: LGPL-2.1-or-later
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "gpusift/error.h"
#include "level_tile.h"
#include "overlapped_launch.h"
#include "pyramid_kernels.h"

namespace gpusift::cuda {

namespace {

// Tiles of 2N rows: N = 16 where two_level_tile_rows() allows, else 8. At 32 rows the halo
// that both blurs recompute is shared by twice the outputs, but the larger radii's two tiles then
// take more than the 48 KiB a block gets without opting in, and a multiprocessor fits three
// blocks instead of four. That pays only where the halo is wide (H100, ncu: radii 5 and 6 took
// 55 instead of 65 us at 4K, radii 3 and 3 from bytes 17 instead of 15 at 1080p), and a small
// level would get fewer blocks.
constexpr int kTwoLevelMaxRadius = 7;
constexpr int kTallTilesMinHalo = 10;
constexpr int kTallN = 16;
constexpr int kShortN = 8;
static_assert(kThreadsPerColumn * kShortN == kTwoLevelShortTileRows &&
              kThreadsPerColumn * kTallN == kTwoLevelTallTileRows &&
              2 * kTwoLevelMaxRadius < kTwoLevelShortTileRows);
// Successive levels' radii differ by a factor 2^(1/layers); the kernels cover the pairs of the
// usual layer counts, and only those, to keep their number down.
constexpr int kTwoLevelMaxRadiusGap = 2;
constexpr size_t kSharedBytesWithoutOptIn = 48 * 1024;

__host__ __device__ constexpr int round_up_to_4(int n) {
  return (n + 3) / 4 * 4;
}

// The first blur (radius A) makes its level on the second blur's (radius B) whole tile: the
// block's 128 columns and 2N lines with B more on each side.
template <int A, int B, int N>
struct TwoLevelTiles {
  static constexpr int kFirstColumns = round_up_to_4(kLevelTileWidth + 2 * B);
  static constexpr int kOutputLines = kThreadsPerColumn * N;
  using Source = TileShape<A + B, kOutputLines + 2 * (A + B),
                           kFirstColumns - kRowOutputsPerLane + 4 * window_vectors(A)>;
  using First = LevelTile<B, N>;
  static_assert(First::kLine >= kFirstColumns);
  // Source::kLine is a multiple of 4 floats, so the first level's tile starts on 16 bytes.
  static constexpr int kSourceFloats = Source::kLines * Source::kLine;
  static constexpr size_t kSharedBytes =
      sizeof(float) * (kSourceFloats + First::kLines * First::kLine);
};

// The column pass of the first blur, from the row-blurred source tile into the first level's
// tile: each thread takes a run of lines of one column through a window of registers.
template <int A, int B, int N>
__device__ void blur_first_columns(TileLines<typename TwoLevelTiles<A, B, N>::Source> rows,
                                   TileLines<typename TwoLevelTiles<A, B, N>::First> into,
                                   const GaussianTaps& taps) {
  using Tiles = TwoLevelTiles<A, B, N>;
  constexpr int kRun = 8;
  constexpr int kLines = Tiles::First::kLines;
  constexpr int kRuns = (kLines + kRun - 1) / kRun;
  constexpr int kColumns = Tiles::kFirstColumns;
  for (int task = threadIdx.x; task < kColumns * kRuns; task += kLevelThreads) {
    const int column = task % kColumns, line0 = task / kColumns * kRun;
    float w[kRun + 2 * A];
#pragma unroll
    for (int j = 0; j < kRun + 2 * A; ++j)
      w[j] = line0 + j < Tiles::Source::kLines ? rows[line0 + j][column] : 0.f;
#pragma unroll
    for (int o = 0; o < kRun; ++o) {
      if (line0 + o < kLines)
        into[line0 + o][column] = blurred<A>(w + o, taps);
    }
  }
}

// a = blur(src, first_taps) and b = blur(a, second_taps) in one pass; a stays in shared memory.
// At the image's edges the first level's halo is made from the reflected source, which gives
// the reflected level bit for bit (the kernel is symmetric and the sums pair their terms).
// Three blocks a multiprocessor: the tall tiles of radii 5 and 6 take 57 KiB.
template <int A, int B, int N, class T>
__global__ void __launch_bounds__(kLevelThreads, 3)
    blur_two_levels_kernel(SourceRows<T> src, GaussianTaps first_taps, GaussianTaps second_taps,
                           TwoLevelTargets out, int first_tile_row) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  using Tiles = TwoLevelTiles<A, B, N>;
  using Source = typename Tiles::Source;
  using First = typename Tiles::First;
  extern __shared__ __align__(16) float shared_tiles[];
  const auto source_tile = reinterpret_cast<TileLines<Source>>(shared_tiles);
  const auto first_tile = reinterpret_cast<TileLines<First>>(shared_tiles + Tiles::kSourceFloats);
  const int width = out.dog.width, height = out.dog.height;
  const int x0 = blockIdx.x * kLevelTileWidth;
  const int y0 = (first_tile_row + static_cast<int>(blockIdx.y)) * Tiles::kOutputLines;
  load_tile<Source>(source_tile, src, width, height, x0, y0);
  __syncthreads();

  const int column = threadIdx.x % kLevelTileWidth;
  const int first = threadIdx.x / kLevelTileWidth * N;
  const int x = x0 + column;
  float source[N];
  if (out.first_dog.data) {
    load_tile_centres<A + B, N, Source>(source_tile, first, column, source);
    __syncthreads();  // the row pass overwrites these
  }
  blur_tile_rows<A, Tiles::kFirstColumns, Source>(source_tile, first_taps);
  __syncthreads();
  blur_first_columns<A, B, N>(source_tile, first_tile, first_taps);
  __syncthreads();
  float first_level[N];
  load_tile_centres<B, N, First>(first_tile, first, column, first_level);
  // Written now, so that the source's values need no registers through the second blur.
  if (out.first_dog.data && x < width) {
#pragma unroll
    for (int o = 0; o < N; ++o) {
      const int y = y0 + first + o;
      if (y < height)
        row_of(out.first_dog, y)[x] = first_level[o] - source[o];
    }
  }
  __syncthreads();  // the row pass overwrites the first level's values
  blur_tile_rows<B, kLevelTileWidth, First>(first_tile, second_taps);
  __syncthreads();

  if (x >= width)
    return;
  float w[N + 2 * B];
  load_column_window<B, N, First>(first_tile, first, column, w);
#pragma unroll
  for (int o = 0; o < N; ++o) {
    const int y = y0 + first + o;
    if (y >= height)
      return;
    const float second_level = blurred<B>(w + o, second_taps);
    if (out.level.data)
      row_of(out.level, y)[x] = second_level;
    row_of(out.dog, y)[x] = second_level - first_level[o];
  }
}

template <class T>
using TwoLevelLaunch = void (*)(const SourceRows<T>&, const GaussianTaps&, const GaussianTaps&,
                                const TwoLevelTargets&, RowRange, int, cudaStream_t);

size_t current_device_shared_bytes_per_block() {
  int device = 0, bytes = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  return static_cast<size_t>(bytes);
}

template <int A, int B, int N, class T>
void launch_two_levels(const SourceRows<T>& src, const GaussianTaps& first,
                       const GaussianTaps& second, const TwoLevelTargets& out, RowRange rows,
                       cudaStream_t stream) {
  constexpr int kTileRows = kThreadsPerColumn * N;
  constexpr size_t kBytes = TwoLevelTiles<A, B, N>::kSharedBytes;
  const int end = std::min(rows.end, out.dog.height);
  if (rows.first < 0 || rows.first % kTileRows != 0)
    throw Error(ErrorCode::kInvalidArgument,
                "two-level rows must start on a multiple of " + std::to_string(kTileRows));
  if (end <= rows.first)
    return;
  const auto kernel = blur_two_levels_kernel<A, B, N, T>;
  if (kBytes > kSharedBytesWithoutOptIn) {
    if (kBytes > current_device_shared_bytes_per_block())
      throw Error(ErrorCode::kInvalidArgument,
                  "two-level tiles of " + std::to_string(kTileRows) + " rows and radii " +
                      std::to_string(A) + ", " + std::to_string(B) + " need " +
                      std::to_string(kBytes) + " bytes of shared memory, more than the device has");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(kBytes)),
          "cudaFuncSetAttribute");
  }
  const dim3 grid((out.dog.width + kLevelTileWidth - 1) / kLevelTileWidth,
                  (end - rows.first + kTileRows - 1) / kTileRows);
  launch_overlapped(kernel, grid, dim3(kLevelThreads), kBytes, stream, "blur_two_levels_kernel",
                    src, first, second, out, rows.first / kTileRows);
}

template <int A, int B, class T>
void launch_two_levels_of_height(const SourceRows<T>& src, const GaussianTaps& first,
                                 const GaussianTaps& second, const TwoLevelTargets& out,
                                 RowRange rows, int tile_rows, cudaStream_t stream) {
  switch (tile_rows) {
    case kTwoLevelShortTileRows:
      launch_two_levels<A, B, kShortN, T>(src, first, second, out, rows, stream);
      return;
    case kTwoLevelTallTileRows:
      launch_two_levels<A, B, kTallN, T>(src, first, second, out, rows, stream);
      return;
    default:
      throw Error(ErrorCode::kInvalidArgument, "two-level tiles are " +
                                                   std::to_string(kTwoLevelShortTileRows) + " or " +
                                                   std::to_string(kTwoLevelTallTileRows) +
                                                   " rows high, not " + std::to_string(tile_rows));
  }
}

// A radius pair's launcher, and the shared memory of its tall tiles.
template <class T>
struct TwoLevelPair {
  TwoLevelLaunch<T> launch = nullptr;
  size_t tall_shared_bytes = 0;
};

template <int A, int B, class T>
constexpr TwoLevelPair<T> two_level_pair() {
  if constexpr (A - B <= kTwoLevelMaxRadiusGap && B - A <= kTwoLevelMaxRadiusGap)
    return {&launch_two_levels_of_height<A, B, T>, TwoLevelTiles<A, B, kTallN>::kSharedBytes};
  else
    return {};
}

template <class T, int... Pairs>
TwoLevelPair<T> two_level_pair_for(int a, int b, std::integer_sequence<int, Pairs...>) {
  TwoLevelPair<T> found;
  ((a == Pairs / kTwoLevelMaxRadius + 1 && b == Pairs % kTwoLevelMaxRadius + 1
        ? (found =
               two_level_pair<Pairs / kTwoLevelMaxRadius + 1, Pairs % kTwoLevelMaxRadius + 1, T>(),
           0)
        : 0),
   ...);
  return found;
}

template <class T>
TwoLevelPair<T> two_level_pair_for(const GaussianTaps& first, const GaussianTaps& second) {
  return two_level_pair_for<T>(
      first.radius, second.radius,
      std::make_integer_sequence<int, kTwoLevelMaxRadius * kTwoLevelMaxRadius>{});
}

template <class T>
void launch_required_two_levels(const SourceRows<T>& src, const GaussianTaps& first,
                                const GaussianTaps& second, const TwoLevelTargets& out,
                                RowRange rows, int tile_rows, cudaStream_t stream) {
  const TwoLevelLaunch<T> launch = two_level_pair_for<T>(first, second).launch;
  if (!launch)
    throw Error(ErrorCode::kInvalidArgument, "no two-level blur kernel for radii " +
                                                 std::to_string(first.radius) + " and " +
                                                 std::to_string(second.radius));
  if (tile_rows == 0)
    tile_rows = two_level_tile_rows(first, second, out.dog.width, out.dog.height);
  launch(src, first, second, out, rows, tile_rows, stream);
}

}  // namespace

bool blurs_two_levels_at_once(const GaussianTaps& first, const GaussianTaps& second) {
  return two_level_pair_for<float>(first, second).launch != nullptr;
}

// Tall tiles for wide halos, where the level is large enough that they still give every
// multiprocessor two blocks (as one_pass_tile_height() decides for the one-level kernel) and the
// device can give a block their shared memory.
int two_level_tile_rows(const GaussianTaps& first, const GaussianTaps& second, int width,
                        int height) {
  const TwoLevelPair<float> pair = two_level_pair_for<float>(first, second);
  const bool tall = pair.launch && first.radius + second.radius >= kTallTilesMinHalo &&
                    one_pass_tile_height(width, height) >= kTwoLevelTallTileRows &&
                    pair.tall_shared_bytes <= current_device_shared_bytes_per_block();
  return tall ? kTwoLevelTallTileRows : kTwoLevelShortTileRows;
}

void blur_two_levels(const DeviceImage& src, const GaussianTaps& first, const GaussianTaps& second,
                     const TwoLevelTargets& out, cudaStream_t stream, int tile_rows) {
  launch_required_two_levels<float>(LevelSource{src.data, src.stride, 1}, first, second, out,
                                    RowRange{}, tile_rows, stream);
}

void blur_two_levels_from_gray8(const uint8_t* frame, size_t pitch_bytes, LumaRange range,
                                const GaussianTaps& first, const GaussianTaps& second,
                                const TwoLevelTargets& out, cudaStream_t stream, RowRange rows,
                                int tile_rows) {
  launch_required_two_levels<uint8_t>(
      SourceRows<uint8_t>{frame, static_cast<int>(pitch_bytes), 1, range}, first, second, out, rows,
      tile_rows, stream);
}

}  // namespace gpusift::cuda
