// A design point's resources (see resources.h).
#include "runtime/dse/resources.h"

#include <cstdlib>
#include <filesystem>

#include "hardware/cost/resource_estimate.h"
#include "hardware/isa/errors.h"
#include "runtime/io/files.h"

namespace weft::rt::dse {

namespace fs = std::filesystem;

bool synthesis_available() {
#if defined(WEFT_SOURCE_DIR) && defined(WEFT_BUILD_DIR)
  std::error_code ec;
  return fs::exists(fs::path(WEFT_SOURCE_DIR) / "scripts/synth/synth.sh", ec);
#else
  return false;
#endif
}

namespace {

// synth.sh on one configuration file: its JSON.
nlohmann::json synthesize(const nlohmann::ordered_json& config_file, int timeout_s) {
#if defined(WEFT_SOURCE_DIR) && defined(WEFT_BUILD_DIR)
  const std::string name = config_file.at("name").get<std::string>();
  std::string tmpl = (fs::temp_directory_path() / "weft-dse-synth-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw UserError("dse --synth: cannot make a temporary folder");
  const fs::path dir(tmpl);
  struct Remove {
    fs::path d;
    ~Remove() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } remove{dir};
  fs::create_directory(dir / "in");
  const fs::path cfg = dir / "in" / (name + ".json");
  write_text_file(cfg.string(), config_file.dump(2) + "\n");
  const std::string cmd = "WEFT_BUILD='" + std::string(WEFT_BUILD_DIR) + "' '" +
                          std::string(WEFT_SOURCE_DIR) + "/scripts/synth/synth.sh' --timeout " +
                          std::to_string(timeout_s) + " --out '" + dir.string() + "' '" +
                          cfg.string() + "' > '" + (dir / "synth.out").string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const fs::path out = dir / (name + ".json");
  std::error_code ec;
  if (rc != 0 || !fs::exists(out, ec))
    throw UserError("dse --synth: synth.sh failed for '" + name + "' (exit status " +
                    std::to_string(rc) + "): " + read_text_file((dir / "synth.out").string()));
  return nlohmann::json::parse(read_text_file(out.string()));
#else
  (void)config_file;
  (void)timeout_s;
  throw UserError("dse --synth: this weft does not know its source tree (scripts/synth)");
#endif
}

}  // namespace

nlohmann::ordered_json point_resources(const isa::Layout& layout,
                                       const nlohmann::ordered_json& config_file, bool synth,
                                       int synth_timeout_s) {
  const cost::ResourceEstimate e = cost::estimate_resources(layout);
  nlohmann::ordered_json r = {{"source", synth ? "yosys" : "estimate"}, {"macs", e.macs},
                              {"bram36", e.bram36}};
  if (!synth) return r;
  const nlohmann::json s = synthesize(config_file, synth_timeout_s);
  for (const char* k : {"finished", "seconds", "cpu_seconds", "lut", "ff", "dsp", "bram36",
                        "ramb36", "ramb18", "lutram", "carry", "reason"})
    if (s.contains(k)) r[k] = s[k];
  return r;
}

}  // namespace weft::rt::dse
