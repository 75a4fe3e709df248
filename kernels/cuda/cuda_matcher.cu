// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "device_memory.h"
#include "extract_frame.h"
#include "gpusift/cuda_matcher.h"
#include "gpusift/match_and_fit.h"
#include "gpusift/match_validation.h"
#include "gpusift/ransac.h"
#include "match_kernels.h"

namespace gpusift {

using cuda::check;
using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

namespace {

// Screening blocks per multiprocessor to aim for. The fp16 screen of float rows is fastest with
// fewer, longer blocks (4096 x 4096 on an H100: 0.152 ms at 2, 0.167 at 4, 0.191 at 1), the
// int8 screen of byte rows with more (0.111 ms at 4, 0.117 at 2); at 1646 rows all are alike.
constexpr int kScreenBlocksPerMultiprocessorFloat = 2;
constexpr int kScreenBlocksPerMultiprocessorBytes = 4;
// Both sets are padded to this many rows, a multiple of the screening's row block and tile, so
// that either can be the rows or the columns (cross-checking screens both ways).
constexpr int kRowPadding = cuda::kScreenRowsPerBlock;

int padded(int count) {
  return (count + kRowPadding - 1) / kRowPadding * kRowPadding;
}

int staged_chunks(const DescriptorSetView& set) {
  const int bytes = set.size * (set.format == DescriptorFormat::kUint8 ? 1 : 2);
  return bytes <= 4 * cuda::kChunkBytes ? 4 : 8;
}

// What a match-and-fit job brings back in one transfer: this, then the matches (one slot per
// query row), then the winner's inlier mask (as many).
struct FitHeader {
  RansacWinner winner;
  cuda::MatchScalars scalars;
  int match_count;
};

// The device buffers of one staged descriptor set.
struct StagedBuffers {
  DeviceBuffer<uint32_t> words;
  DeviceBuffer<float> norm_sq, unscale, rounding;
  DeviceBuffer<uint8_t> values;  // the caller's rows when they came from host memory

  void release() {
    words.release(), norm_sq.release(), unscale.release(), rounding.release(), values.release();
  }
  size_t bytes() const {
    return words.bytes() + norm_sq.bytes() + unscale.bytes() + rounding.bytes() + values.bytes();
  }

  // Reserves everything for `set`; enqueues nothing.
  cuda::StagedSet reserve(const DescriptorSetView& set) {
    cuda::StagedSet s{};
    s.count = set.count;
    s.padded_count = padded(set.count);
    s.chunks = staged_chunks(set);
    s.size = set.size;
    s.bytes = set.format == DescriptorFormat::kUint8;
    words.reserve(static_cast<size_t>(s.padded_count) * s.chunks * cuda::kChunkBytes / 4);
    norm_sq.reserve(s.padded_count);
    unscale.reserve(s.padded_count);
    rounding.reserve(s.padded_count);
    const size_t value_bytes =
        static_cast<size_t>(set.count) * set.size * descriptor_value_bytes(set.format);
    if (set.memory == MemoryKind::kHost)
      values.reserve(value_bytes);
    s.words = words.get();
    s.norm_sq = norm_sq.get();
    s.unscale = unscale.get();
    s.rounding = rounding.get();
    s.values = set.memory == MemoryKind::kHost ? values.get() : set.data;
    return s;
  }
};

}  // namespace

// The device scalars of one call, zeroed by one memset before its kernels run.
struct DeviceScalars {
  cuda::MatchScalars match;
  cuda::RansacScratch ransac;
};

struct CudaMatcher::State {
  int device = 0;
  int multiprocessors = 1;
  bool tensor_path = true;  // mma.sync with fp16 and u8 operands needs compute capability 8.0

  StagedBuffers query, train;
  DeviceBuffer<DeviceScalars> scalars;
  DeviceBuffer<cuda::ScreenEntry> partial;
  DeviceBuffer<TwoNearest> forward, backward;
  DeviceBuffer<int> exhaustive_rows;
  DeviceBuffer<TwoNearest> exhaustive_chunks;
  // The scalars' copy, then one Decision per query row: what comes back in one transfer.
  DeviceBuffer<uint8_t> result;
  PinnedBuffer<uint8_t> host_result;
  int last_exhaustive_rows = 0;

  DeviceBuffer<PointPair> pairs;
  PinnedBuffer<PointPair> host_pairs;
  DeviceBuffer<int> pair_count;
  PinnedBuffer<int> host_pair_count;

  // A match-and-fit job's own.
  DeviceBuffer<cuda::Decision> decisions;
  DeviceBuffer<unsigned long long> best_of_train;  // ~0 between jobs
  size_t best_of_train_ready = 0;                  // entries known to be ~0
  DeviceBuffer<PointXY> points;
  PinnedBuffer<PointXY> host_points;  // query points, then train points
  struct Job {
    bool pending = false;
    cudaStream_t stream = nullptr;
    int query_count = 0;
    bool pairs_from_train = false;
    RansacParams ransac;
    bool fits = false;
  } job;

  void release_all() {
    query.release(), train.release(), scalars.release(), partial.release(), forward.release();
    backward.release(), exhaustive_rows.release(), exhaustive_chunks.release(), result.release(),
        host_result.release();
    pairs.release(), host_pairs.release(), pair_count.release(), host_pair_count.release(),
        best_of_train_ready = 0;
    decisions.release(), best_of_train.release(), points.release(), host_points.release();
  }

  // Train splits of the screening for `rows` x `columns`: enough blocks to fill the device.
  void split_plan(const cuda::StagedSet& rows, const cuda::StagedSet& columns, int* splits,
                  int* tiles_per_split) const {
    const int row_blocks = rows.padded_count / cuda::kScreenRowsPerBlock;
    const int tiles = columns.padded_count / cuda::kScreenTileRows;
    const int wanted =
        (rows.bytes ? kScreenBlocksPerMultiprocessorBytes : kScreenBlocksPerMultiprocessorFloat) *
        multiprocessors;
    const int s = std::clamp((wanted + row_blocks - 1) / row_blocks, 1, tiles);
    *tiles_per_split = (tiles + s - 1) / s;
    *splits = (tiles + *tiles_per_split - 1) / *tiles_per_split;
  }

  size_t partial_entries(const cuda::StagedSet& rows, const cuda::StagedSet& columns) const {
    int splits = 0, tiles_per_split = 0;
    split_plan(rows, columns, &splits, &tiles_per_split);
    return static_cast<size_t>(splits) * rows.padded_count * cuda::kScreenKeep;
  }

  // nearest[row] for every row of `rows` among `columns`, on the stream; *count (zeroed) gets
  // the rows scanned exhaustively.
  void find_nearest(const cuda::StagedSet& rows, const cuda::StagedSet& columns,
                    const cuda::SetBounds* column_bounds, TwoNearest* nearest, int* count,
                    cudaStream_t stream) {
    if (!tensor_path) {
      cuda::nearest_by_exhaustive_scan(rows, columns, nearest, exhaustive_rows.get(), count,
                                       exhaustive_chunks.get(), stream);
      return;
    }
    int splits = 0, tiles_per_split = 0;
    split_plan(rows, columns, &splits, &tiles_per_split);
    cuda::screen(rows, columns, splits, tiles_per_split, partial.get(), stream);
    cuda::rerank(rows, columns, column_bounds, partial.get(), splits, nearest,
                 exhaustive_rows.get(), count, exhaustive_chunks.get(), stream);
  }

  // Reserves what matching q to t needs besides `result`, then enqueues it up to one Decision
  // per query row and the scalars' copy in *header.
  void enqueue_decisions(const DescriptorSetView& q, const DescriptorSetView& t,
                         const MatchParams& params, cudaStream_t stream, cuda::MatchScalars* header,
                         cuda::Decision* out,
                         unsigned long long* nearest_query_of_train = nullptr) {
    const cuda::StagedSet rows = query.reserve(q);
    const cuda::StagedSet columns = train.reserve(t);
    scalars.reserve(1);
    size_t entries = partial_entries(rows, columns);
    if (params.cross_check)
      entries = std::max(entries, partial_entries(columns, rows));
    partial.reserve(entries);
    forward.reserve(q.count);
    if (params.cross_check)
      backward.reserve(t.count);
    exhaustive_rows.reserve(std::max(q.count, t.count));
    exhaustive_chunks.reserve(static_cast<size_t>(std::max(q.count, t.count)) * cuda::kScanChunks);

    for (const auto& [view, staged] : {std::pair{&q, &rows}, std::pair{&t, &columns}})
      if (view->memory == MemoryKind::kHost)
        check(cudaMemcpyAsync(const_cast<void*>(staged->values), view->data,
                              static_cast<size_t>(view->count) * view->size *
                                  descriptor_value_bytes(view->format),
                              cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (descriptors to the device)");
    cuda::MatchScalars* s = &scalars.get()->match;
    check(cudaMemsetAsync(scalars.get(), 0, sizeof(DeviceScalars), stream), "cudaMemsetAsync");
    cuda::stage_sets(rows, columns, s, stream);
    find_nearest(rows, columns, &s->bounds[1], forward.get(), &s->exhaustive_count[0], stream);
    if (params.cross_check)
      find_nearest(columns, rows, &s->bounds[0], backward.get(), &s->exhaustive_count[1], stream);
    cuda::decide_matches(forward.get(), backward.get(), q.count, params.ratio, params.cross_check,
                         s, header, out, nearest_query_of_train, stream);
  }

  void match(const DescriptorSetView& q, const DescriptorSetView& t, const MatchParams& params,
             cudaStream_t stream, std::vector<Match>* out) {
    // Everything is reserved before anything is enqueued, so that running out of memory leaves
    // no work behind.
    const size_t result_bytes = sizeof(cuda::MatchScalars) + q.count * sizeof(cuda::Decision);
    result.reserve(result_bytes);
    host_result.reserve(result_bytes);
    auto* header = reinterpret_cast<cuda::MatchScalars*>(result.get());
    auto* decisions = reinterpret_cast<cuda::Decision*>(result.get() + sizeof(cuda::MatchScalars));
    enqueue_decisions(q, t, params, stream, header, decisions);
    check(cudaMemcpyAsync(host_result.get(), result.get(), result_bytes, cudaMemcpyDeviceToHost,
                          stream),
          "cudaMemcpyAsync (matches to the host)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

    cuda::MatchScalars back;
    std::memcpy(&back, host_result.get(), sizeof(back));
    last_exhaustive_rows = back.exhaustive_count[0] + back.exhaustive_count[1];
    const uint8_t* rows_back = host_result.get() + sizeof(cuda::MatchScalars);
    for (int i = 0; i < q.count; ++i) {
      cuda::Decision d;
      std::memcpy(&d, rows_back + i * sizeof(cuda::Decision), sizeof(d));
      if (d.train >= 0)
        out->push_back(Match{i, d.train, d.distance});
    }
  }

  // The hypotheses and the winner's score over pairs[0..*count) on the device.
  void enqueue_ransac(const PointPair* device_pairs, const int* count, const RansacParams& params,
                      RansacWinner* winner, uint8_t* mask, cudaStream_t stream) {
    cuda::RansacScratch* scratch = &scalars.get()->ransac;  // zeroed with the call's scalars
    cuda::score_hypotheses(device_pairs, count, params, scratch, stream);
    cuda::score_winner(device_pairs, count, params, scratch, winner, mask, stream);
  }

  // The selection's per-train entries start at ~0 and its kernel leaves them so; set once when
  // they are (re)allocated, or after an error may have left them otherwise.
  void reserve_nearest_query_of_train(int train_count, cudaStream_t stream) {
    best_of_train.reserve(train_count);
    if (best_of_train_ready >= static_cast<size_t>(train_count))
      return;
    check(cudaMemsetAsync(best_of_train.get(), 0xff, best_of_train.bytes(), stream),
          "cudaMemsetAsync");
    best_of_train_ready = best_of_train.bytes() / sizeof(unsigned long long);
  }

  static size_t fit_result_bytes(int rows) {
    return sizeof(FitHeader) + static_cast<size_t>(rows) * (sizeof(Match) + 1);
  }

  void begin_job(const MatchAndFitRequest& r, cudaStream_t stream) {
    const DescriptorSetView& q = r.query;
    const DescriptorSetView& t = r.train;
    job = Job{};
    job.stream = stream;
    job.query_count = q.count;
    job.pairs_from_train = r.pairs_from_train;
    job.ransac = r.ransac;
    job.fits = r.ransac.model != MotionModel::kNone && r.ransac.iterations > 0;
    const size_t bytes = fit_result_bytes(q.count);
    result.reserve(bytes);
    host_result.reserve(bytes);
    auto* header = reinterpret_cast<FitHeader*>(result.get());
    if (q.count == 0 || t.count == 0) {
      check(cudaMemsetAsync(header, 0, sizeof(FitHeader), stream), "cudaMemsetAsync");
    } else {
      decisions.reserve(q.count);
      if (r.one_query_per_train)
        reserve_nearest_query_of_train(t.count, stream);
      points.reserve(static_cast<size_t>(q.count) + t.count);
      host_points.reserve(static_cast<size_t>(q.count) + t.count);
      pairs.reserve(q.count);
      std::memcpy(host_points.get(), r.query_points, q.count * sizeof(PointXY));
      std::memcpy(host_points.get() + q.count, r.train_points, t.count * sizeof(PointXY));
      check(cudaMemcpyAsync(points.get(), host_points.get(),
                            (static_cast<size_t>(q.count) + t.count) * sizeof(PointXY),
                            cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync (keypoint positions to the device)");
      auto* matches = reinterpret_cast<Match*>(result.get() + sizeof(FitHeader));
      uint8_t* mask = result.get() + sizeof(FitHeader) + q.count * sizeof(Match);
      unsigned long long* nearest_query_of_train =
          r.one_query_per_train ? best_of_train.get() : nullptr;
      enqueue_decisions(q, t, r.match, stream, &header->scalars, decisions.get(),
                        nearest_query_of_train);
      cuda::select_matches(decisions.get(), q.count, nearest_query_of_train, points.get(),
                           points.get() + q.count, r.pairs_from_train, matches, pairs.get(),
                           &header->match_count, stream);
      if (job.fits)
        enqueue_ransac(pairs.get(), &header->match_count, r.ransac, &header->winner, mask, stream);
    }
    check(cudaMemcpyAsync(host_result.get(), result.get(), bytes, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (matches and motion to the host)");
    job.pending = true;
  }

  void finish_job(MatchAndFitResult* out) {
    job.pending = false;
    check(cudaStreamSynchronize(job.stream), "cudaStreamSynchronize");
    FitHeader header;
    std::memcpy(&header, host_result.get(), sizeof(header));
    last_exhaustive_rows = header.scalars.exhaustive_count[0] + header.scalars.exhaustive_count[1];
    out->matches.resize(static_cast<size_t>(header.match_count));
    std::memcpy(out->matches.data(), host_result.get() + sizeof(FitHeader),
                out->matches.size() * sizeof(Match));
    const PointXY* query_points = host_points.get();
    pairs_of_matches(out->matches, query_points, query_points + job.query_count,
                     job.pairs_from_train, &out->pairs);
    out->motion = MotionEstimate{};
    if (!job.fits)
      return;
    const uint8_t* mask = host_result.get() + sizeof(FitHeader) + job.query_count * sizeof(Match);
    out->motion = complete_motion_estimate(out->pairs, job.ransac, header.winner,
                                           std::vector<uint8_t>(mask, mask + header.match_count));
  }

  MotionEstimate estimate_motion(const std::vector<PointPair>& p, const RansacParams& params,
                                 cudaStream_t stream) {
    const int count = static_cast<int>(p.size());
    pairs.reserve(p.size());
    host_pairs.reserve(p.size());
    pair_count.reserve(1);
    host_pair_count.reserve(1);
    const size_t bytes = sizeof(FitHeader) + p.size();
    result.reserve(bytes);
    host_result.reserve(bytes);
    std::memcpy(host_pairs.get(), p.data(), p.size() * sizeof(PointPair));
    *host_pair_count.get() = count;
    check(cudaMemcpyAsync(pairs.get(), host_pairs.get(), p.size() * sizeof(PointPair),
                          cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (point pairs to the device)");
    check(cudaMemcpyAsync(pair_count.get(), host_pair_count.get(), sizeof(int),
                          cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (pair count to the device)");
    scalars.reserve(1);
    check(cudaMemsetAsync(scalars.get(), 0, sizeof(DeviceScalars), stream), "cudaMemsetAsync");
    auto* header = reinterpret_cast<FitHeader*>(result.get());
    uint8_t* mask = result.get() + sizeof(FitHeader);
    enqueue_ransac(pairs.get(), pair_count.get(), params, &header->winner, mask, stream);
    check(cudaMemcpyAsync(host_result.get(), result.get(), bytes, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (RANSAC winner to the host)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    FitHeader back;
    std::memcpy(&back, host_result.get(), sizeof(back));
    const uint8_t* mask_back = host_result.get() + sizeof(FitHeader);
    return complete_motion_estimate(p, params, back.winner,
                                    std::vector<uint8_t>(mask_back, mask_back + count));
  }
};

CudaMatcher::CudaMatcher(int device_id) : state_(new State) {
  State& s = *state_;
  s.device = cuda::current_device_for(device_id);
  int major = 0;
  check(cudaDeviceGetAttribute(&s.multiprocessors, cudaDevAttrMultiProcessorCount, s.device),
        "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, s.device),
        "cudaDeviceGetAttribute");
  s.tensor_path = major >= 8;
}

CudaMatcher::~CudaMatcher() = default;

void CudaMatcher::match(const DescriptorSetView& query, const DescriptorSetView& train,
                        const MatchParams& params, CudaStream stream, std::vector<Match>* out) {
  out->clear();
  validate_match_inputs(query, train, params);
  if (query.count == 0 || train.count == 0)
    return;
  State& s = *state_;
  try {
    s.match(query, train, params, stream, out);
  } catch (const Error& error) {
    cudaStreamSynchronize(stream);
    cudaGetLastError();
    out->clear();
    if (error.code() == ErrorCode::kOutOfMemory)
      s.release_all();
    throw;
  }
}

MotionEstimate CudaMatcher::estimate_motion(const std::vector<PointPair>& pairs,
                                            const RansacParams& params, CudaStream stream) {
  validate(params);
  if (!ransac_can_run(pairs.size(), params))
    return MotionEstimate{};
  State& s = *state_;
  try {
    return s.estimate_motion(pairs, params, stream);
  } catch (const Error& error) {
    cudaStreamSynchronize(stream);
    cudaGetLastError();
    if (error.code() == ErrorCode::kOutOfMemory)
      s.release_all();
    throw;
  }
}

void CudaMatcher::begin_match_and_fit(const MatchAndFitRequest& request, CudaStream stream) {
  State& s = *state_;
  if (s.job.pending)
    throw Error(ErrorCode::kInvalidArgument, "match and fit: a job is already pending");
  validate_match_and_fit(request);
  try {
    s.begin_job(request, stream);
  } catch (const Error& error) {
    s.job.pending = false;
    s.best_of_train_ready = 0;
    cudaStreamSynchronize(stream);
    cudaGetLastError();
    if (error.code() == ErrorCode::kOutOfMemory)
      s.release_all();
    throw;
  }
}

void CudaMatcher::finish_match_and_fit(MatchAndFitResult* out) {
  State& s = *state_;
  if (!s.job.pending)
    throw Error(ErrorCode::kInvalidArgument, "match and fit: no job is pending");
  try {
    s.finish_job(out);
  } catch (const Error&) {
    cudaGetLastError();
    s.best_of_train_ready = 0;
    out->matches.clear();
    out->pairs.clear();
    out->motion = MotionEstimate{};
    throw;
  }
}

int CudaMatcher::last_exhaustive_rows() const {
  return state_->last_exhaustive_rows;
}

int CudaMatcher::device_id() const {
  return state_->device;
}

size_t CudaMatcher::reserved_device_bytes() const {
  const State& s = *state_;
  return s.query.bytes() + s.train.bytes() + s.scalars.bytes() + s.partial.bytes() +
         s.forward.bytes() + s.backward.bytes() + s.exhaustive_rows.bytes() + s.result.bytes() +
         s.pairs.bytes() + s.pair_count.bytes() + s.decisions.bytes() + s.best_of_train.bytes() +
         s.points.bytes();
}

}  // namespace gpusift
