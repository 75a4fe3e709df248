// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-extract's option parser on any command line: the input's NUL-separated pieces are
// the arguments. It returns an error or fills the options, and never crashes or throws; what it
// accepts is complete.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> pieces{"gpusift-extract"};
  std::string piece;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\0') {
      pieces.push_back(piece);
      piece.clear();
    } else {
      piece += static_cast<char>(data[i]);
    }
  }
  pieces.push_back(piece);
  std::vector<const char*> argv;
  for (const std::string& p : pieces)
    argv.push_back(p.c_str());
  argv.push_back(nullptr);
  gpusift::tools::ExtractOptions options;
  const std::string error =
      gpusift::tools::parse_extract_options(static_cast<int>(pieces.size()), argv.data(), &options);
  // Accepted for extraction: the input and an output of a known kind, and numbers in range
  // (main() takes them as they are).
  const bool info_only = options.show_help || options.show_version || options.list_backends;
  if (error.empty() && !info_only &&
      (options.input_path.empty() ||
       gpusift::tools::output_kind(options.output_path) == gpusift::tools::OutputKind::kUnknown ||
       options.bench_runs < 0 || options.bench_runs > 100000 || options.cuda_device < -1))
    std::abort();
  return 0;
}
