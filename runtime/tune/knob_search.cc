// Measuring conv2d knobs and the knob cache; see knob_search.h.
#include "runtime/tune/knob_search.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/io/files.h"
#include "runtime/ops/conv2d.h"

namespace weft::rt {

namespace {

using compiler::ops::Conv2dKnobs;
using compiler::ops::Conv2dShape;

// Only integers are knobs: nlohmann converts a float such as 2e127 to int64_t by a cast whose
// result is undefined when out of range (found by fuzz_json), so a non-integer is refused.
bool knob_field(const nlohmann::json& j, const char* name, int64_t& out) {
  const nlohmann::json& v = j.at(name);
  if (!v.is_number_integer()) return false;
  out = v.get<int64_t>();
  return true;
}

std::optional<Conv2dKnobs> knobs_from_json(const nlohmann::json& j) {
  try {
    Conv2dKnobs k;
    if (!knob_field(j, "tile_h", k.tile_h) || !knob_field(j, "tile_w", k.tile_w) ||
        !knob_field(j, "tile_ic", k.tile_ic) || !knob_field(j, "tile_oc", k.tile_oc) ||
        !knob_field(j, "vthreads", k.vthreads)) {
      return std::nullopt;
    }
    const std::string axis = j.at("vthread_axis").get<std::string>();
    if (axis.size() != 1) return std::nullopt;
    k.vthread_axis = axis[0];
    return k;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

nlohmann::ordered_json knobs_to_json(const Conv2dKnobs& k) {
  return {{"tile_h", k.tile_h},     {"tile_w", k.tile_w},
          {"tile_ic", k.tile_ic},   {"tile_oc", k.tile_oc},
          {"vthreads", k.vthreads}, {"vthread_axis", std::string(1, k.vthread_axis)}};
}

KnobCache::KnobCache(std::string path) : path_(std::move(path)) {
  if (path_.empty() || !std::filesystem::exists(path_)) return;
  try {
    nlohmann::json j = nlohmann::json::parse(read_text_file(path_));
    if (j.is_object()) entries_ = std::move(j);
  } catch (const std::exception&) {
    std::cerr << "weft: ignoring the unreadable knob cache '" << path_ << "'\n";
  }
}

std::optional<Conv2dKnobs> KnobCache::find(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return knobs_from_json(*it);
}

void KnobCache::put(const std::string& key, const Conv2dKnobs& k) {
  entries_[key] = nlohmann::json(knobs_to_json(k));
}

void KnobCache::save() const {
  if (path_.empty()) return;
  try {
    std::error_code ec;
    const auto dir = std::filesystem::path(path_).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    write_text_file(path_, entries_.dump(1) + "\n");
  } catch (const std::exception& e) {
    if (!warned_) std::cerr << "weft: could not save the knob cache: " << e.what() << "\n";
    warned_ = true;
  }
}

std::string knob_key(const isa::Layout& l, const isa::Platform& p, const Conv2dShape& s,
                     int64_t vthreads) {
  return l.config.name + "/" + p.name + "/" + s.describe() +
         " vthreads=" + std::to_string(vthreads);
}

std::string default_knob_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string base = xdg && *xdg ? xdg : home && *home ? std::string(home) + "/.cache" : "";
  return base.empty() ? "" : base + "/weft/conv2d_knobs.json";
}

nlohmann::ordered_json KnobSearch::to_json() const {
  nlohmann::ordered_json j;
  j["candidates"] = candidates;
  j["measured"] = candidates > 1 && !cached ? candidates - rejected.size() : 0;
  j["rejected"] = rejected.size();
  j["rejections"] = nlohmann::ordered_json::array();
  for (const Rejected& r : rejected) {
    j["rejections"].push_back({{"knobs", knobs_to_json(r.knobs)}, {"error", r.error}});
  }
  j["best_cycles"] = best_cycles;
  j["cached"] = cached;
  return j;
}

KnobSearch measure_knobs(const isa::Layout& l, const isa::Platform& p, const Conv2dShape& s,
                         const std::vector<Conv2dKnobs>& cands,
                         const std::function<void(const std::string&)>& note) {
  if (cands.empty()) throw InternalError("measure_knobs: no candidates");
  KnobSearch out;
  out.candidates = cands.size();
  out.best = cands[0];
  if (cands.size() == 1) return out;  // nothing to choose between: the run itself checks it
  const Conv2dData data = random_conv2d_data(s, 1);
  bool any = false;
  for (size_t i = 0; i < cands.size(); ++i) {
    const Conv2dKnobs& k = cands[i];
    const std::string which =
        std::to_string(i + 1) + "/" + std::to_string(cands.size()) + " " + k.describe() + ": ";
    try {
      const LayerRun r = run_layer(l, p, "cycle", s, k, {}, data, nullptr);
      if (note) note(which + std::to_string(r.cycles) + " cycles");
      if (!any || r.cycles < out.best_cycles) {
        out.best_cycles = r.cycles;
        out.best = k;
      }
      any = true;
    } catch (const UserError& e) {
      out.rejected.push_back({k, e.what()});
      if (note) note(which + "rejected: " + e.what());
    }
  }
  if (!any) {
    throw UserError("knob search: all " + std::to_string(cands.size()) + " candidates for " +
                    s.describe() + " were rejected; the first (" +
                    out.rejected[0].knobs.describe() + "): " + out.rejected[0].error);
  }
  return out;
}

}  // namespace weft::rt
