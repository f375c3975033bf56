// Printing the graph IR: a text form for people (one line per live node in dependency order,
// with types and attributes, constants summarised) and a JSON form for tools.
//
//   graph resnet18 {
//     input %data: f32[1,3,224,224] NCHW
//     const %conv1.w: f32[64,3,7,7] NCHW (37632 B)
//     %conv1 = Conv(%data, %conv1.w) {pads=[3,3,3,3], strides=[2,2]} : f32[1,64,112,112] NCHW
//     ...
//     output %fc
//   }
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// The text form.
std::string to_text(const Graph& g);
/// The JSON form: {"name", "inputs":[...], "constants":[...], "nodes":[{"name","op","inputs",
/// "outputs","attrs","types"}], "outputs":[...]} (constant data is summarised, not dumped).
nlohmann::json to_json(const Graph& g);
/// One attribute, printed ("[3,3,3,3]", "2", "0.5", "\"NOTSET\"").
std::string attr_str(const Attr& a);

}  // namespace weft::compiler::graph
