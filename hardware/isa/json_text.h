// Parsing JSON text a user wrote. nlohmann's parser throws more than parse_error: a number too
// large for a double (out_of_range 406) and invalid UTF-8 in a string come as other exception
// types, so every reader of user JSON goes through here and gets one UserError instead.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace weft::isa {

/// The document `text` holds; UserError "<where>: not valid JSON: ..." when it does not parse.
nlohmann::json parse_json_text(const std::string& text, const std::string& where);

}  // namespace weft::isa
