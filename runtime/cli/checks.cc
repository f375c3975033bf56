// Command-line checks made before any work; see checks.h.
#include "runtime/cli/checks.h"

#include <algorithm>

#include "driver/device.h"
#include "hardware/isa/errors.h"

namespace weft::cli {

std::vector<std::string> given(const CLI::App& cmd, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    const CLI::Option* opt = cmd.get_option_no_throw(n);
    if (opt && opt->count() > 0) out.push_back(n);
  }
  return out;
}

void forbid(const CLI::App& cmd, const std::vector<std::string>& names, const std::string& reason) {
  const std::vector<std::string> bad = given(cmd, names);
  if (bad.empty()) return;
  std::string list = bad[0];
  for (size_t i = 1; i < bad.size(); ++i) list += (i + 1 == bad.size() ? " and " : ", ") + bad[i];
  throw UserError(list + (bad.size() > 1 ? " go" : " goes") + " " + reason);
}

std::string one_of(const std::vector<std::string>& choices) {
  std::string s;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) s += i + 1 == choices.size() ? " or " : ", ";
    s += choices[i];
  }
  return s;
}

void check_engine(const std::string& engine, const std::vector<std::string>& allowed) {
  const std::vector<std::string> names = allowed.empty() ? driver::device_names() : allowed;
  if (std::find(names.begin(), names.end(), engine) == names.end()) {
    throw UserError("--engine '" + engine + "' is not an engine here (" + one_of(names) + ")");
  }
}

void check_target_options(const CLI::App& cmd, const std::string& target) {
  if (target == "llvm" || target == "cuda") {
    const std::string where = target == "llvm" ? "the host CPU" : "an NVIDIA GPU";
    forbid(cmd,
           {"--config", "--platform", "--vthreads", "--vthread-axis", "--tile-m", "--tile-n",
            "--tile-k", "--tile-h", "--tile-w", "--tile-ic", "--tile-oc", "--shift", "--relu",
            "--no-bias", "--no-relu", "--search", "--engine", "--trace", "--timeout",
            "--progress", "--xclbin", "--device", "--xrt-emulate", "--xrt-bank", "--dry-run",
            "--pass", "--energy"},
           "with --target accel (--target " + target + " runs on " + where + ")");
  }
  if (target == "accel") {
    forbid(cmd, {"--threads", "--repeats", "--gpu-path", "--arch", "--cpu-isa"},
           "with --target llvm or cuda (the accelerator runs the operator once, on --engine)");
  }
  if (target == "llvm") forbid(cmd, {"--gpu-path", "--arch"}, "with --target cuda");
  if (target == "cuda") {
    forbid(cmd, {"--threads", "--cpu-isa"},
           "with --target llvm (the GPU's threads come from its schedule)");
    forbid(cmd, {"--tune-db", "--no-records"},
           "with --target accel or llvm (the GPU backend has no tuning records)");
  }
}

void check_at_least(const CLI::App& cmd, const std::string& name, int64_t value, int64_t min) {
  const CLI::Option* opt = cmd.get_option_no_throw(name);
  if (opt && opt->count() > 0 && value < min) {
    throw UserError(name + " " + std::to_string(value) + " is out of range (at least " +
                    std::to_string(min) + "; leave it out to have it chosen)");
  }
}

}  // namespace weft::cli
