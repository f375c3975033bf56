// Reading ONNX's node test cases; see node_cases.h.
#include "compiler/graph/onnx/node_cases.h"

#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iterator>

#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

namespace fs = std::filesystem;

std::string node_case_root() {
  if (const char* env = std::getenv("WEFT_ONNX_NODE_TESTS"); env && *env) {
    return fs::is_directory(env) ? env : "";
  }
  const char* debian = "/usr/include/onnx/backend/test/data/node";
  return fs::is_directory(debian) ? debian : "";
}

NodeCase read_node_case(const std::string& root, const std::string& name) {
  NodeCase c;
  c.name = name;
  c.dir = (fs::path(root) / name).string();
  const std::string model = c.dir + "/model.onnx";
  std::ifstream f(model, std::ios::binary);
  if (!f) throw UserError("no ONNX node case '" + name + "' (" + model + ")");
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  onnx::ModelProto proto;
  if (!proto.ParseFromString(bytes)) throw UserError("'" + model + "' is not an ONNX model");
  std::vector<std::string> inits;
  for (const auto& t : proto.graph().initializer()) inits.push_back(t.name());
  for (const auto& v : proto.graph().input())
    if (std::find(inits.begin(), inits.end(), v.name()) == inits.end())
      c.input_names.push_back(v.name());
  const size_t n_out = static_cast<size_t>(proto.graph().output_size());
  for (int k = 0;; ++k) {
    const fs::path set = fs::path(c.dir) / ("test_data_set_" + std::to_string(k));
    if (!fs::is_directory(set)) break;
    NodeCaseData d;
    for (size_t i = 0; i < c.input_names.size(); ++i) {
      const fs::path p = set / ("input_" + std::to_string(i) + ".pb");
      if (fs::exists(p)) d.inputs.push_back(read_tensor_file(p.string()));
    }
    for (size_t i = 0; i < n_out; ++i)
      d.outputs.push_back(read_tensor_file((set / ("output_" + std::to_string(i) + ".pb")).string()));
    c.sets.push_back(std::move(d));
  }
  if (c.sets.empty()) throw UserError("ONNX node case '" + name + "' has no test_data_set_0");
  return c;
}

}  // namespace weft::compiler::onnx_import
