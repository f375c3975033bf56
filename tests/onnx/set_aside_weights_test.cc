// Import without copying weights: the wire-format scanner (set_aside_weights.h) against
// protobuf's own parse of the same bytes, the loader's checks on what it leaves in place, every
// truncation of a model refused or parsed (never a crash), and the graph's constants as views
// of the mapped file that outlive the Model (compiler/graph/bytes.h).
#include "compiler/graph/onnx/set_aside_weights.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/onnx/onnx_model.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

std::string bytes_of(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 17) & 0xff);
  return s;
}

void add_raw(onnx::GraphProto* g, const std::string& name, int type, std::vector<int64_t> dims,
             const std::string& raw) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(raw);
}

void add_input(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* v = g->add_input();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_output(onnx::GraphProto* g, const std::string& name) {
  onnx::ValueInfoProto* v = g->add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 64})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
}

// y = x . w_big + bias, plus initializers of every kind the scanner must keep or set aside.
onnx::ModelProto test_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  m.set_producer_name("set_aside_weights_test");
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  add_input(g, "x", {1, 64});
  std::string w(64 * 64 * 4, '\0');
  for (size_t i = 0; i < w.size(); i += 4) {  // 0x3f3c0000: 0.734375
    w[i + 2] = static_cast<char>(0x3c);
    w[i + 3] = static_cast<char>(0x3f);
  }
  add_raw(g, "w_big", onnx::TensorProto::FLOAT, {64, 64}, w);
  add_raw(g, "bias", onnx::TensorProto::FLOAT, {64}, std::string(256, '\0'));  // small: kept
  add_raw(g, "w_i8", onnx::TensorProto::INT8, {8192}, bytes_of(8192, 2));
  add_raw(g, "w_u8", onnx::TensorProto::UINT8, {64, 80}, bytes_of(64 * 80, 3));
  add_raw(g, "many_ints", onnx::TensorProto::INT64, {600}, bytes_of(4800, 4));  // int: kept
  onnx::TensorProto* typed = g->add_initializer();  // values in float_data: kept
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(2048);
  for (int i = 0; i < 2048; ++i) typed->add_float_data(static_cast<float>(i));
  onnx::NodeProto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->add_input("x");
  mm->add_input("w_big");
  mm->add_output("xw");
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("xw");
  add->add_input("bias");
  add->add_output("y");
  add_output(g, "y");
  return m;
}

std::vector<uint8_t> serialized(const onnx::ModelProto& m) {
  const std::string s = m.SerializeAsString();
  return std::vector<uint8_t>(s.begin(), s.end());
}

TEST(SetAsideWeights, SplitsOffExactlyTheLargeWeightTensorsAsProtobufReadsThem) {
  const onnx::ModelProto model = test_model();
  const std::vector<uint8_t> bytes = serialized(model);
  SetAside split;
  ASSERT_TRUE(set_aside_weights(bytes.data(), bytes.size(), &split));
  std::map<std::string, const SetAsideWeight*> by_name;
  for (const auto& w : split.weights) by_name[w.name] = &w;
  std::set<std::string> names;
  for (const auto& [name, w] : by_name) names.insert(name);
  EXPECT_THAT(names, UnorderedElementsAre("w_big", "w_i8", "w_u8"));
  // Each span is protobuf's raw_data, in place in the caller's bytes; its type and shape too.
  for (const auto& t : model.graph().initializer()) {
    auto it = by_name.find(t.name());
    if (it == by_name.end()) continue;
    const SetAsideWeight& w = *it->second;
    EXPECT_GE(w.data, bytes.data());
    EXPECT_LE(w.data + w.size, bytes.data() + bytes.size());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(w.data), w.size), t.raw_data());
    EXPECT_EQ(w.data_type, t.data_type());
    EXPECT_EQ(w.dims, std::vector<int64_t>(t.dims().begin(), t.dims().end()));
  }
  // The skeleton is the model without them, everything else as it was.
  onnx::ModelProto skeleton;
  ASSERT_TRUE(
      skeleton.ParseFromArray(split.skeleton.data(), static_cast<int>(split.skeleton.size())));
  onnx::ModelProto expected = model;
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (const auto& t : model.graph().initializer())
    if (!by_name.count(t.name())) *kept.Add() = t;
  expected.mutable_graph()->mutable_initializer()->Swap(&kept);
  EXPECT_EQ(skeleton.SerializeAsString(), expected.SerializeAsString());
  EXPECT_LT(split.skeleton.size(), bytes.size() - (64 * 64 * 4 + 8192 + 64 * 80));
}

TEST(SetAsideWeights, LoadsTheSameModelAsTheFileParsedWhole) {
  const std::vector<uint8_t> bytes = serialized(test_model());
  const Model m = parse_model(bytes, "'t.onnx'");
  ASSERT_TRUE(m.initializers.count("w_big"));
  const TensorData& w = m.initializers.at("w_big");
  EXPECT_EQ(w.shape, (std::vector<int64_t>{64, 64}));
  EXPECT_FALSE(w.bytes.is_view());  // no owner given: a copy
  EXPECT_EQ(w.to_double()[4095], 0.734375);
  EXPECT_EQ(m.initializers.at("w_i8").bytes.size(), 8192u);
  EXPECT_EQ(m.initializers.at("w_u8").type, ElemType::kUint8);
  // A weight set aside is not a graph input of the model, and has its type.
  EXPECT_THAT(m.inputs, UnorderedElementsAre("x"));
  EXPECT_EQ(m.types.at("w_big").shape, (std::vector<int64_t>{64, 64}));
  EXPECT_TRUE(m.types.at("y").has_shape);
}

TEST(SetAsideWeights, AWeightWhoseBytesDoNotFillItsShapeIsTheLoadersNamedError) {
  onnx::ModelProto model = test_model();
  add_raw(model.mutable_graph(), "w_short", onnx::TensorProto::FLOAT, {64, 64},
          std::string(5000, '\0'));
  const std::vector<uint8_t> bytes = serialized(model);
  SetAside split;
  ASSERT_TRUE(set_aside_weights(bytes.data(), bytes.size(), &split));
  for (const auto& w : split.weights) EXPECT_NE(w.name, "w_short");
  try {
    parse_model(bytes, "'t.onnx'");
    FAIL() << "a weight of 5000 bytes for 16384 loaded";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("initializer 'w_short'"));
    EXPECT_THAT(e.what(), HasSubstr("holds 5000 bytes of data, not 16384"));
  }
}

TEST(SetAsideWeights, EveryTruncationIsRefusedOrParsedNeverReadPastTheEnd) {
  const std::vector<uint8_t> bytes = serialized(test_model());
  int refused = 0;
  for (size_t n = 0; n < bytes.size(); n += 97) {
    // A copy of exactly n bytes, so that a read past them is a sanitizer's error.
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    SetAside split;
    if (set_aside_weights(cut.data(), cut.size(), &split)) {
      for (const auto& w : split.weights) EXPECT_LE(w.data + w.size, cut.data() + cut.size());
    }
    try {
      parse_model(cut, "'cut.onnx'");
    } catch (const UserError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

// ONNX does not align a weight's bytes in its file: a weight at an aligned offset is a view of
// the mapping (mmap maps at a page boundary), any other is copied, and either is read as floats
// from an aligned address. Producer names of four lengths shift the weight across all four.
TEST(SetAsideWeights, TheGraphsWeightsViewTheMappedFileWhereAlignedAndOutliveTheModel) {
  int views = 0, copies = 0;
  for (int shift = 0; shift < 4; ++shift) {
    char path[] = "/tmp/weft_set_aside_XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    onnx::ModelProto model = test_model();
    model.set_producer_name(model.producer_name() + std::string(static_cast<size_t>(shift), '+'));
    const std::vector<uint8_t> bytes = serialized(model);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    size_t offset = 0;  // of w_big's raw bytes in the file: its first value, 0x3f3c0000
    const uint8_t first[] = {0, 0, 0x3c, 0x3f, 0, 0, 0x3c, 0x3f};
    offset = static_cast<size_t>(
        std::search(bytes.begin(), bytes.end(), std::begin(first), std::end(first)) -
        bytes.begin());
    ASSERT_LT(offset, bytes.size());
    Imported imported = import_onnx(path);
    std::remove(path);  // the mapping stays valid after the file's name goes
    const graph::Graph& g = imported.graph;
    bool found = false;
    for (graph::ValueId v = 0; v < static_cast<graph::ValueId>(g.num_values()); ++v) {
      if (g.value(v).name != "w_big" || !g.value(v).is_constant()) continue;
      found = true;
      const graph::ConstData& c = *g.value(v).data;
      EXPECT_EQ(c.bytes.is_view(), offset % 4 == 0) << "offset " << offset;
      (c.bytes.is_view() ? views : copies)++;
      ASSERT_EQ(c.bytes.size(), 64u * 64u * 4u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(c.f32()) % alignof(float), 0u);
      EXPECT_EQ(c.f32()[0], 0.734375f);
      EXPECT_EQ(c.f32()[64 * 64 - 1], 0.734375f);
    }
    EXPECT_TRUE(found);
  }
  EXPECT_EQ(views, 1);
  EXPECT_EQ(copies, 3);
}

TEST(Bytes, AViewOfMemoryNotAlignedForItsElementsIsACopy) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  graph::Bytes aligned = graph::Bytes::view(owner->data(), 4, 4, owner);
  EXPECT_TRUE(aligned.is_view());
  graph::Bytes shifted = graph::Bytes::view(owner->data() + 1, 4, 4, owner);
  EXPECT_FALSE(shifted.is_view());
  EXPECT_EQ(shifted, graph::Bytes(std::vector<uint8_t>{2, 3, 4, 5}));
  EXPECT_TRUE(graph::Bytes::view(owner->data() + 1, 4, 1, owner).is_view());  // bytes: any address
}

TEST(Bytes, AViewIsCopiedOnItsFirstWriteAndKeepsItsOwnerAlive) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3, 4});
  std::weak_ptr<std::vector<uint8_t>> alive = owner;
  graph::Bytes a = graph::Bytes::view(owner->data(), owner->size(), 1, owner);
  const graph::Bytes& ca = a;  // reads through a const reference never copy
  owner.reset();
  EXPECT_FALSE(alive.expired());
  graph::Bytes b = a;  // shares the view
  EXPECT_TRUE(b.is_view());
  EXPECT_EQ(a, b);
  b.data()[0] = 9;  // copies b first
  EXPECT_FALSE(b.is_view());
  EXPECT_EQ(ca[0], 1);
  EXPECT_TRUE(a.is_view());
  EXPECT_EQ(b[0], 9);
  EXPECT_NE(a, b);
  a.assign(ca.begin() + 1, ca.end());  // from its own view
  EXPECT_FALSE(a.is_view());
  EXPECT_EQ(a, graph::Bytes(std::vector<uint8_t>{2, 3, 4}));
  b = std::vector<uint8_t>{};
  EXPECT_TRUE(alive.expired());
}

}  // namespace
}  // namespace weft::compiler::onnx_import
