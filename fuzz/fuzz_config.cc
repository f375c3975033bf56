// Fuzz target: hardware configuration and platform files (hardware/isa/config_file.h), the JSON a
// co-designer writes and `--config FILE` reads. The input is the file's text. The oracle: a
// configuration is either refused with a UserError, or it is read, written back
// (config_to_json) and read again to the same file, and its layout is either derived and
// described (layout_to_json, layout_to_text) or refused with a UserError; a platform likewise
// reads back to itself. An InternalError, any other exception or a crash is a bug.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/config_file.h"
#include "hardware/isa/describe.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"

using namespace weft;

namespace {

void configuration(const nlohmann::json& j) {
  isa::HwConfig c;
  try {
    c = isa::config_from_json(j, "configuration file fuzz.json");
  } catch (const UserError&) {
    return;
  }
  const nlohmann::ordered_json written = isa::config_to_json(c);
  isa::HwConfig again;
  try {
    again = isa::config_from_json(nlohmann::json::parse(written.dump()), "written back");
  } catch (const UserError& e) {
    fuzz::check(false, std::string("a configuration read back is refused: ") + e.what());
  }
  fuzz::check(isa::config_to_json(again) == written, "a configuration reads back differently");
  try {
    const isa::Layout l = isa::derive_layout(c);
    fuzz::check(!isa::layout_to_text(l).empty(), "layout_to_text is empty");
    fuzz::check(isa::layout_to_json(l).is_object(), "layout_to_json is not an object");
  } catch (const UserError&) {
  }
}

void platform(const nlohmann::json& j) {
  isa::Platform p;
  try {
    p = isa::platform_from_json(j, "platform file fuzz.json");
  } catch (const UserError&) {
    return;
  }
  const nlohmann::ordered_json written = isa::platform_to_json(p);
  try {
    const isa::Platform again =
        isa::platform_from_json(nlohmann::json::parse(written.dump()), "written back");
    fuzz::check(isa::platform_to_json(again) == written, "a platform reads back differently");
  } catch (const UserError& e) {
    fuzz::check(false, std::string("a platform read back is refused: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(reinterpret_cast<const char*>(data),
                              reinterpret_cast<const char*>(data) + size);
  } catch (const nlohmann::json::exception&) {
    return 0;  // read_json_file reports a parse error with the file's name
  }
  configuration(j);
  platform(j.is_object() && j.contains("platform") ? j["platform"] : j);
  return 0;
}
