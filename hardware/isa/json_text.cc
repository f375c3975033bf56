#include "hardware/isa/json_text.h"

#include "hardware/isa/errors.h"

namespace weft::isa {

nlohmann::json parse_json_text(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(where + ": not valid JSON: " + e.what());
  }
}

}  // namespace weft::isa
