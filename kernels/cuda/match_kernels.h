// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA matcher's kernels. Matching is exact but screened:
//  1. stage: each row goes to 16-bit floats (scaled by a power of two into fp16's range) or stays
//     bytes, zero-padded to whole 32-byte chunks, with its squared norm and, for floats, the L2
//     norm of its rounding error;
//  2. screen: tensor cores compute every approximate squared distance |q|^2 + |t|^2 - 2 q.t and
//     keep the kScreenKeep smallest per query row and train split;
//  3. rerank: a bound on the screening error says which train rows can still be among the two
//     nearest; those get the exact shared distance (gpusift/match_distance.h) and are ranked
//     with the CPU's order. A row whose bound admits more rows than were kept is scanned
//     exhaustively with the exact distance. Either way the result is the CPU backend's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpusift/match_distance.h"
#include "gpusift/match_types.h"
#include "gpusift/ransac_winner.h"

namespace gpusift::cuda {

// Approximate neighbours kept per query row and train split by the screening pass.
inline constexpr int kScreenKeep = 4;
// Query rows per screening block (4 warps of 32) and train rows per shared-memory tile; staged
// sets are padded to these.
inline constexpr int kScreenRowsPerBlock = 128;
inline constexpr int kScreenTileRows = 64;
// 32-byte chunks of a staged row: 16 fp16 or 32 byte values each (one mma k-step).
inline constexpr int kChunkBytes = 32;

struct ScreenEntry {
  float distance_sq;  // approximate
  int32_t index;      // -1: empty slot
};

// A staged descriptor set on the device.
struct StagedSet {
  const uint32_t* words;  // padded_count rows of chunks * 8 words
  const float* norm_sq;   // of the staged row in the caller's units; +inf on padding rows
  const float* unscale;   // 2^-p when the row was scaled by 2^p (1 for bytes)
  const float* rounding;  // L2 norm of (row - staged row), rounded up (0 for bytes)
  const void* values;     // the caller's rows: float or uint8, `size` values each
  int count;
  int padded_count;
  int chunks;  // 4 or 8
  int size;
  bool bytes;
};

// Largest squared norm and rounding error over a set's real rows, as float bit patterns
// (non-negative floats order like their bits).
struct SetBounds {
  unsigned max_norm_sq_bits;
  unsigned max_rounding_bits;
};

// A match call's scalars on the device, zeroed by one memset before its kernels run.
struct MatchScalars {
  SetBounds bounds[2];      // [0] query, [1] train
  int exhaustive_count[2];  // rows scanned exhaustively: [0] forward, [1] backward
};

// One query row's outcome: its train row, or -1 when it has no match.
struct Decision {
  int32_t train;
  float distance;
};

// Writes the staged words and per-row values of both sets (their pointers cast to writable)
// from their values, in one launch; the bounds go to scalars->bounds.
void stage_sets(const StagedSet& query, const StagedSet& train, MatchScalars* scalars,
                cudaStream_t stream);

// partial[(split * rows.padded_count + row) * kScreenKeep + k]: the smallest approximate squared
// distances of each row to the columns of train split `split` (tiles_per_split tiles each).
void screen(const StagedSet& rows, const StagedSet& columns, int splits, int tiles_per_split,
            ScreenEntry* partial, cudaStream_t stream);

// chunk_nearest, the exhaustive scan's scratch, holds kScanChunks entries per row of the larger
// set; the scan splits the columns into as many chunks as fit in it for the rows it lists.
constexpr int kScanChunks = 16;

// Exact two nearest columns of every row into nearest[row]; rows the screening cannot settle go
// to exhaustive_rows (count at *exhaustive_count, zeroed first) and are then scanned.
void rerank(const StagedSet& rows, const StagedSet& columns, const SetBounds* column_bounds,
            const ScreenEntry* partial, int splits, TwoNearest* nearest, int* exhaustive_rows,
            int* exhaustive_count, TwoNearest* chunk_nearest, cudaStream_t stream);
// The same for every row by exhaustive scans alone (devices without the tensor-core path).
void nearest_by_exhaustive_scan(const StagedSet& rows, const StagedSet& columns,
                                TwoNearest* nearest, int* exhaustive_rows, int* exhaustive_count,
                                TwoNearest* chunk_nearest, cudaStream_t stream);

#ifdef __CUDACC__
// Orders matches to one train row: nearest first, then the lowest query (non-negative distances
// order like their bits).
__device__ inline unsigned long long nearest_query_key(const Decision& d, int query) {
  return (static_cast<unsigned long long>(__float_as_uint(d.distance)) << 32) |
         static_cast<unsigned>(query);
}
#endif

// decisions[i].train = nearest train row of query i when it passes the ratio test (and, with
// cross-checking, query i is the nearest query row of that train row), else -1; .distance its
// L2 distance. *header becomes a copy of *scalars, so that one transfer brings back both. With
// nearest_query_of_train (entries ~0 before), each train row's entry becomes the least
// nearest_query_key of its matches.
void decide_matches(const TwoNearest* forward, const TwoNearest* backward, int query_count,
                    float ratio, bool cross_check, const MatchScalars* scalars,
                    MatchScalars* header, Decision* decisions,
                    unsigned long long* nearest_query_of_train, cudaStream_t stream);

// The matches of a match-and-fit job, in query order, from the decisions of its query rows:
// with nearest_query_of_train (filled by decide_matches) only the nearest query of each train
// row, whose entries go back to ~0 for the next job; with their point pairs. *match_count gets
// their number.
void select_matches(const Decision* decisions, int query_count,
                    unsigned long long* nearest_query_of_train, const PointXY* query_points,
                    const PointXY* train_points, bool pairs_from_train, Match* matches,
                    PointPair* pairs, int* match_count, cudaStream_t stream);

// The device state of a RANSAC run, zeroed before it.
struct RansacScratch {
  unsigned long long best_key;
  unsigned blocks_done;
  int block_inliers[kWinnerBlocks];
  double block_totals[kWinnerBlocks][kMotionSumCount + 1];
};

// Scores every hypothesis of a RANSAC run over pairs[0..*count); scratch->best_key becomes
// (inliers + 1) << 32 | (0xffffffff - iteration) of the best one (0: none usable).
void score_hypotheses(const PointPair* pairs, const int* count, const RansacParams& params,
                      RansacScratch* scratch, cudaStream_t stream);

// The winner's score and least-squares sums (gpusift/ransac_winner.h) and its inlier mask
// (mask[0..*count)); winner->found = 0 when there is none.
void score_winner(const PointPair* pairs, const int* count, const RansacParams& params,
                  RansacScratch* scratch, RansacWinner* winner, uint8_t* mask, cudaStream_t stream);

}  // namespace gpusift::cuda
