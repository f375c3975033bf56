// The shipped configurations and platforms, read from the files compiled into the binary
// (hardware/isa/configs, platforms; cmake/WeftEmbed.cmake) by the same code as a user's file;
// lookups by name, and platforms from files.
#include "hardware/isa/spec.h"

#include <map>
#include <memory>
#include <mutex>

#include "hardware/isa/config_file.h"
#include "hardware/isa/describe.h"
#include "hardware/isa/embedded.h"
#include "hardware/isa/errors.h"

namespace weft::isa {

const std::vector<HwConfig>& shipped_configs() {
  static const std::vector<HwConfig> configs = [] {
    std::vector<HwConfig> v;
    for (const EmbeddedFile& f : embedded::shipped_configs()) {
      const std::string where = "shipped configuration hardware/isa/configs/" + f.name;
      v.push_back(config_from_json(nlohmann::json::parse(f.text), where));
    }
    return v;
  }();
  return configs;
}

const std::vector<Platform>& shipped_platforms() {
  static const std::vector<Platform> platforms = [] {
    std::vector<Platform> v;
    for (const EmbeddedFile& f : embedded::shipped_platforms()) {
      const std::string where = "shipped platform hardware/isa/platforms/" + f.name;
      v.push_back(platform_from_json(nlohmann::json::parse(f.text), where));
    }
    return v;
  }();
  return platforms;
}

namespace {
template <typename T>
const T& find_named(const std::vector<T>& items, const std::string& name, const char* what) {
  std::string known;
  for (const T& item : items) {
    if (item.name == name) return item;
    known += (known.empty() ? "" : ", ") + item.name;
  }
  throw UserError("unknown " + std::string(what) + " '" + name + "' (known: " + known +
                  "); a " + what + " file is a path ending in .json");
}

nlohmann::ordered_json without_names(nlohmann::ordered_json j) {
  j.erase("name");
  j.erase("description");
  return j;
}
}  // namespace

const HwConfig& find_config(const std::string& name) {
  return find_named(shipped_configs(), name, "configuration");
}

const Platform& find_platform(const std::string& name_or_file) {
  if (!names_a_file(name_or_file)) {
    return find_named(shipped_platforms(), name_or_file, "platform");
  }
  // Platforms read from files live for the process, one per file, like shipped ones; a file
  // may not redefine a shipped platform's name.
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Platform>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(name_or_file);
  if (it != loaded.end()) return *it->second;
  Platform p = load_platform_file(name_or_file);
  for (const Platform& s : shipped_platforms()) {
    if (s.name == p.name && !same_platform(s, p)) {
      throw UserError("platform file '" + name_or_file + "' names its platform '" + p.name +
                      "', a shipped platform, but differs from it; give it another name");
    }
  }
  return *loaded.emplace(name_or_file, std::make_unique<Platform>(std::move(p))).first->second;
}

bool same_hardware(const HwConfig& a, const HwConfig& b) {
  return without_names(config_to_json(a)) == without_names(config_to_json(b));
}

bool same_platform(const Platform& a, const Platform& b) {
  return without_names(platform_to_json(a)) == without_names(platform_to_json(b));
}

}  // namespace weft::isa
