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

// 16-row tiles: at 32 rows the two tiles of the largest radii would not fit 48 KiB.
constexpr int kTwoLevelN = 8;
constexpr int kTwoLevelMaxRadius = 7;
static_assert(kThreadsPerColumn * kTwoLevelN == kTwoLevelTileRows &&
              2 * kTwoLevelMaxRadius < kTwoLevelTileRows);
// Successive levels' radii differ by a factor 2^(1/layers); the kernels cover the pairs of the
// usual layer counts, and only those, to keep their number down.
constexpr int kTwoLevelMaxRadiusGap = 2;

__host__ __device__ constexpr int round_up_to_4(int n) {
  return (n + 3) / 4 * 4;
}

// The first blur (radius A) makes its level on the second blur's (radius B) whole tile: the
// block's 128 columns and 2N lines with B more on each side.
template <int A, int B>
struct TwoLevelTiles {
  static constexpr int kFirstColumns = round_up_to_4(kLevelTileWidth + 2 * B);
  static constexpr int kOutputLines = kThreadsPerColumn * kTwoLevelN;
  using Source = TileShape<A + B, kOutputLines + 2 * (A + B),
                           kFirstColumns - kRowOutputsPerLane + 4 * window_vectors(A)>;
  using First = LevelTile<B, kTwoLevelN>;
  static_assert(First::kLine >= kFirstColumns);
  static_assert(sizeof(float) * (Source::kLines * Source::kLine + First::kLines * First::kLine) <=
                48 * 1024);
};

// The column pass of the first blur, from the row-blurred source tile into the first level's
// tile: each thread takes a run of lines of one column through a window of registers.
template <int A, int B>
__device__ void blur_first_columns(TileLines<typename TwoLevelTiles<A, B>::Source> rows,
                                   TileLines<typename TwoLevelTiles<A, B>::First> into,
                                   const GaussianTaps& taps) {
  using Tiles = TwoLevelTiles<A, B>;
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
template <int A, int B, class T>
__global__ void __launch_bounds__(kLevelThreads, 3)
    blur_two_levels_kernel(SourceRows<T> src, GaussianTaps first_taps, GaussianTaps second_taps,
                           TwoLevelTargets out, int first_tile_row) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  using Tiles = TwoLevelTiles<A, B>;
  using Source = typename Tiles::Source;
  using First = typename Tiles::First;
  constexpr int N = kTwoLevelN;
  __shared__ __align__(16) float source_tile[Source::kLines][Source::kLine];
  __shared__ __align__(16) float first_tile[First::kLines][First::kLine];
  const int width = out.dog.width, height = out.dog.height;
  const int x0 = blockIdx.x * kLevelTileWidth;
  const int y0 = (first_tile_row + static_cast<int>(blockIdx.y)) * Tiles::kOutputLines;
  load_tile<Source>(source_tile, src, width, height, x0, y0);
  __syncthreads();

  const int column = threadIdx.x % kLevelTileWidth;
  const int first = threadIdx.x / kLevelTileWidth * N;
  float source[N];
  if (out.first_dog.data) {
    load_tile_centres<A + B, N, Source>(source_tile, first, column, source);
    __syncthreads();  // the row pass overwrites these
  }
  blur_tile_rows<A, Tiles::kFirstColumns, Source>(source_tile, first_taps);
  __syncthreads();
  blur_first_columns<A, B>(source_tile, first_tile, first_taps);
  __syncthreads();
  float first_level[N];
  load_tile_centres<B, N, First>(first_tile, first, column, first_level);
  __syncthreads();  // the row pass overwrites these
  blur_tile_rows<B, kLevelTileWidth, First>(first_tile, second_taps);
  __syncthreads();

  const int x = x0 + column;
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
    if (out.first_dog.data)
      row_of(out.first_dog, y)[x] = first_level[o] - source[o];
  }
}

template <class T>
using TwoLevelLaunch = void (*)(const SourceRows<T>&, const GaussianTaps&, const GaussianTaps&,
                                const TwoLevelTargets&, RowRange, cudaStream_t);

template <int A, int B, class T>
void launch_two_levels(const SourceRows<T>& src, const GaussianTaps& first,
                       const GaussianTaps& second, const TwoLevelTargets& out, RowRange rows,
                       cudaStream_t stream) {
  const int end = std::min(rows.end, out.dog.height);
  if (rows.first < 0 || rows.first % kTwoLevelTileRows != 0)
    throw Error(ErrorCode::kInvalidArgument,
                "two-level rows must start on a multiple of " + std::to_string(kTwoLevelTileRows));
  if (end <= rows.first)
    return;
  const dim3 grid((out.dog.width + kLevelTileWidth - 1) / kLevelTileWidth,
                  (end - rows.first + kTwoLevelTileRows - 1) / kTwoLevelTileRows);
  launch_overlapped(blur_two_levels_kernel<A, B, T>, grid, dim3(kLevelThreads), 0, stream,
                    "blur_two_levels_kernel", src, first, second, out,
                    rows.first / kTwoLevelTileRows);
}

template <int A, int B, class T>
constexpr TwoLevelLaunch<T> two_level_launch() {
  if constexpr (A - B <= kTwoLevelMaxRadiusGap && B - A <= kTwoLevelMaxRadiusGap)
    return &launch_two_levels<A, B, T>;
  else
    return nullptr;
}

template <class T, int... Pairs>
TwoLevelLaunch<T> two_level_launch_for(int a, int b, std::integer_sequence<int, Pairs...>) {
  TwoLevelLaunch<T> found = nullptr;
  ((a == Pairs / kTwoLevelMaxRadius + 1 && b == Pairs % kTwoLevelMaxRadius + 1
        ? (found = two_level_launch<Pairs / kTwoLevelMaxRadius + 1, Pairs % kTwoLevelMaxRadius + 1,
                                    T>(),
           0)
        : 0),
   ...);
  return found;
}

template <class T>
TwoLevelLaunch<T> two_level_launch_for(const GaussianTaps& first, const GaussianTaps& second) {
  return two_level_launch_for<T>(
      first.radius, second.radius,
      std::make_integer_sequence<int, kTwoLevelMaxRadius * kTwoLevelMaxRadius>{});
}

template <class T>
TwoLevelLaunch<T> required_two_level_launch(const GaussianTaps& first, const GaussianTaps& second) {
  if (const TwoLevelLaunch<T> launch = two_level_launch_for<T>(first, second))
    return launch;
  throw Error(ErrorCode::kInvalidArgument, "no two-level blur kernel for radii " +
                                               std::to_string(first.radius) + " and " +
                                               std::to_string(second.radius));
}

}  // namespace

bool blurs_two_levels_at_once(const GaussianTaps& first, const GaussianTaps& second) {
  return two_level_launch_for<float>(first, second) != nullptr;
}

void blur_two_levels(const DeviceImage& src, const GaussianTaps& first, const GaussianTaps& second,
                     const TwoLevelTargets& out, cudaStream_t stream) {
  required_two_level_launch<float>(first, second)(LevelSource{src.data, src.stride, 1}, first,
                                                  second, out, RowRange{}, stream);
}

void blur_two_levels_from_gray8(const uint8_t* frame, size_t pitch_bytes, const GaussianTaps& first,
                                const GaussianTaps& second, const TwoLevelTargets& out,
                                cudaStream_t stream, RowRange rows) {
  required_two_level_launch<uint8_t>(first, second)(
      SourceRows<uint8_t>{frame, static_cast<int>(pitch_bytes), 1}, first, second, out, rows,
      stream);
}

}  // namespace gpusift::cuda
