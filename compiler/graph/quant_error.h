// Where an int8 graph loses accuracy: the quantized graph (quantize.h) and the fp32 graph it
// came from run on the same input, the int8 one on the int8 reference interpreter (bit for bit
// what every engine computes, reference_int8.h), the fp32 one on the float interpreter
// (interpret.h), and every value the two share by name is compared, in the int8 graph's
// topological order:
//
//   cosine          the int8 run's value (dequantized) against the fp32 run's: the error
//                   accumulated up to this value
//   drop            the worst cosine among the node's computed inputs minus its own: what this
//                   node lost (its scale, its rounding, its operator's int8 form)
//   grid cosine     the fp32 value against itself rounded to the value's int8 scale, and
//   clipped         the share of the fp32 value beyond that scale's range: what the scale alone
//                   costs (a low grid cosine with a large clipped share is a calibration that saw
//                   smaller values than this input has; without clipping, too coarse a grid)
//
// `weft run MODEL.onnx --target accel --compare-fp32` prints it as a table and JSON
// (docs/networks.md, "Finding where accuracy is lost").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// One value of the int8 graph next to the value of the same name in the fp32 graph.
struct ValueError {
  std::string value;         // the value's name
  std::string op;            // the fp32 graph's operator computing it
  std::string ran_as;        // the int8 graph's operator ("weft.QConv"; an fp32 one: "Mul")
  bool int8 = false;         // held as int8 (else computed in fp32)
  int exponent = 0;          // int8: its scale is 2^exponent
  int64_t elements = 0;
  double clipped = 0;        // int8: share of the fp32 values past the int8 range of the scale
  double grid_cosine = 1;    // int8: the fp32 value against itself on the int8 grid
  double cosine = 1;         // the int8 run's value against the fp32 run's
  double relative_error = 0; // ||int8 - fp32|| / ||fp32||
  double drop = 0;           // the worst input cosine minus `cosine`
};

/// Runs both graphs on `inputs` (one flat fp32 tensor per graph input) and compares every value
/// of `int8` (quantize's output, or a later pass's) that `fp32` (the folded graph quantize
/// started from) also has. UserError from either interpreter as they report it.
std::vector<ValueError> compare_to_fp32(const Graph& fp32, const Graph& int8,
                                        const std::vector<std::vector<float>>& inputs);

/// The rows as JSON: {"values": [{value, op, ran_as, int8, scale_exponent, elements, clipped,
/// grid_cosine, cosine, relative_error, drop}...], "largest_drops": [value names, worst first]}.
nlohmann::ordered_json quant_error_json(const std::vector<ValueError>& rows, size_t worst = 8);

/// The JSON form as an aligned text table, then the largest drops.
std::string quant_error_table(const nlohmann::ordered_json& report);

}  // namespace weft::compiler::graph
