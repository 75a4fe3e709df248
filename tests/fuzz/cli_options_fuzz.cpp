// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-extract's option parser on any command line: the input's NUL-separated pieces are
// the arguments. It returns an error or fills the options, and never crashes or throws.
#include <cstddef>
#include <cstdint>
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
  gpusift::tools::parse_extract_options(static_cast<int>(pieces.size()), argv.data(), &options);
  gpusift::tools::output_kind(options.output_path);
  return 0;
}
