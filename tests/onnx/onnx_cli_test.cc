// `weft run MODEL.onnx` through the binary: a run on the LLVM path saves output.npy and
// report.json; every bad input (a truncated or corrupt file, an unsupported operator or
// attribute, a cycle, an old opset, an input .npy of the wrong shape or dtype) is a message
// naming what is wrong, exit code 1, and no output written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int code;
  std::string out;
};

Result weft(const std::string& args) {
  const std::string cmd = std::string(WEFT_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WEXITSTATUS(status), out};
}

std::string models() { return WEFT_ONNX_MODELS; }
bool have_models() { return fs::exists(models() + "/small_cnn.onnx"); }

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
void write(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f << bytes;
}

// The number after "NAME": in a report; -1 when there is none.
double field(const std::string& out, const std::string& name) {
  const size_t at = out.find("\"" + name + "\": ");
  return at == std::string::npos ? -1 : std::stod(out.substr(at + name.size() + 4));
}

class OnnxCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_models()) GTEST_SKIP() << "the test models were not written (python3-onnx?)";
    dir_ = fs::temp_directory_path() / ("weft_onnx_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The test model NAME on its input on the LLVM path, checked against the float64
  // interpreter: exit 0 and within 1e-4 of its largest value.
  Result run_llvm(const std::string& name) {
    const Result r = weft("run " + models() + "/" + name + ".onnx --input " + models() + "/" +
                          name + "_input.npy --target llvm --check");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("\"max_error_relative_to_max\": ")) << r.out;
    EXPECT_LT(field(r.out, "max_error_relative_to_max"), 1e-4) << r.out;
    return r;
  }

  // The same on vta's functional engine, calibrated on that input, against fp32: exit 0 and
  // cosine >= 0.99.
  Result run_accel(const std::string& name) {
    const std::string x = models() + "/" + name + "_input.npy";
    const Result a = weft("run " + models() + "/" + name + ".onnx --input " + x +
                          " --config vta --engine functional --calibrate " + x + " --check");
    EXPECT_EQ(a.code, 0) << a.out;
    EXPECT_GE(field(a.out, "cosine_similarity"), 0.99) << a.out;
    return a;
  }

  // A run that must fail with exit code 1, a message containing `what`, and nothing saved.
  void expect_user_error(const std::string& model, const std::string& input,
                         const std::string& what, const std::string& target = "llvm") {
    const fs::path save = dir_ / "out";
    const fs::path trace = dir_ / "trace.json";
    const Result r = weft("run " + model + " --input " + input + " --target " + target + " --save " +
                          save.string() + " --trace " + trace.string());
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_THAT(r.out, HasSubstr("weft: error: "));
    EXPECT_THAT(r.out, HasSubstr(what));
    EXPECT_FALSE(fs::exists(save / "output.npy")) << r.out;
    EXPECT_FALSE(fs::exists(save / "report.json")) << r.out;
    EXPECT_FALSE(fs::exists(trace)) << r.out;
  }

  fs::path dir_;
};

TEST_F(OnnxCli, RunsOnLlvmAndSaves) {
  const fs::path save = dir_ / "out";
  const Result r = weft("run " + models() + "/small_cnn.onnx --input " + models() +
                        "/small_cnn_input.npy --target llvm --check --save " + save.string() +
                        " --trace " + (dir_ / "t.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
  EXPECT_THAT(r.out, HasSubstr("\"engine\": \"llvm\""));
  // float32 [1, 10]: a 128-byte header and 40 bytes.
  EXPECT_EQ(fs::file_size(save / "output.npy"), 128u + 10 * 4);
  EXPECT_THAT(read(save / "report.json"), HasSubstr("\"per_node\""));
  EXPECT_THAT(read(dir_ / "t.json"), HasSubstr("\"traceEvents\""));
}

TEST_F(OnnxCli, TruncatedFile) {
  const std::string bytes = read(models() + "/small_cnn.onnx");
  write(dir_ / "truncated.onnx", bytes.substr(0, bytes.size() / 2));
  expect_user_error((dir_ / "truncated.onnx").string(), models() + "/small_cnn_input.npy",
                    "truncated or corrupt");
}

TEST_F(OnnxCli, CorruptFile) {
  write(dir_ / "corrupt.onnx", std::string("\x08\x07\x12\xff\xff\xff\xff\x0fjunk", 12));
  expect_user_error((dir_ / "corrupt.onnx").string(), models() + "/small_cnn_input.npy",
                    "not a valid ONNX model");
  write(dir_ / "empty.onnx", "");
  expect_user_error((dir_ / "empty.onnx").string(), models() + "/small_cnn_input.npy", "is empty");
  // Checked before any work, with the system's reason.
  expect_user_error((dir_ / "missing.onnx").string(), models() + "/small_cnn_input.npy",
                    "the model: cannot read '" + (dir_ / "missing.onnx").string() +
                        "': No such file or directory");
}

TEST_F(OnnxCli, UnsupportedOperator) {
  expect_user_error(models() + "/unsupported.onnx", models() + "/unsupported_input.npy",
                    "node 'lrn_3' (LRN): operator LRN is not supported");
}

TEST_F(OnnxCli, UnsupportedAttribute) {
  expect_user_error(models() + "/bad_attr.onnx", models() + "/bad_attr_input.npy",
                    "node 'dilated_conv_2' (Conv): dilations other than 1 are not supported");
}

// A group that does not divide the channels, a grouped weight of the wrong shape: named errors
// of the node, exit 1, nothing written.
TEST_F(OnnxCli, BadGroupIsANamedError) {
  expect_user_error(models() + "/bad_group.onnx", models() + "/bad_group_input.npy",
                    "node 'grouped_conv_2' (Conv): group 3 does not divide the input's 4 channels");
  expect_user_error(models() + "/bad_group_weight.onnx", models() + "/bad_group_weight_input.npy",
                    "node 'grouped_conv_2' (Conv): weight [4,4,3,3] does not fit input "
                    "channels 4 with group 2 (expected [O, 2, KH, KW])");
  expect_user_error(models() + "/bad_group.onnx", models() + "/bad_group_input.npy",
                    "group 3 does not divide", "accel");
}

// libonnx 1.12 crashed in shape inference on this model (found by fuzz_onnx); Weft gives the
// Conv a kernel_shape from its weight first, which the library checks.
TEST_F(OnnxCli, ConvWeightWithMoreDimensionsThanItsInput) {
  expect_user_error(models() + "/conv_weight_rank.onnx", models() + "/conv_weight_rank_input.npy",
                    "ONNX shape inference failed: ");
  // The attribute the library names is the one Weft set; the message says so.
  expect_user_error(models() + "/conv_weight_rank.onnx", models() + "/conv_weight_rank_input.npy",
                    "(Weft set node 'deep_weight_conv' kernel_shape [1, 1, 1, 1] from the "
                    "weight 'w' of shape [4, 3, 1, 1, 1, 1], as the node has no kernel_shape)");
}

// libonnx 1.12 copied the 11 bytes into a buffer of 8 (found by fuzz_onnx under ASan).
TEST_F(OnnxCli, RawDataShorterThanItsShape) {
  expect_user_error(models() + "/short_raw_data.onnx", models() + "/short_raw_data_input.npy",
                    "short_raw_data.onnx': initializer 'shape' of shape [2] and element type "
                    "INT64 holds 11 bytes of data, not 16 (a truncated or corrupt file)");
}

// libonnx 1.12 divided by the stride (SIGFPE; found by fuzz_onnx).
TEST_F(OnnxCli, AZeroStrideIsRefusedBeforeShapeInference) {
  expect_user_error(models() + "/zero_stride.onnx", models() + "/zero_stride_input.npy",
                    "zero_stride.onnx': node 'pool_1' (MaxPool): attribute 'strides' [0, 1] "
                    "must be positive");
}

// libonnx 1.12's inference of a ConstantOfShape that reads the float image built shapes of
// millions of dimensions until memory ran out (18 GB in a minute; found by fuzz_onnx).
TEST_F(OnnxCli, AConstantOfShapeOfAFloatInputIsRefusedBeforeShapeInference) {
  expect_user_error(models() + "/float_shape.onnx", models() + "/float_shape_input.npy",
                    "float_shape.onnx': node 'fill' (ConstantOfShape): its shape, graph input "
                    "'input' (FLOAT, shape [16, 3, 8, 7]), must be a 1-D int64 tensor of at most "
                    "64 values");
}

// libonnx 1.12's data propagation of Shape read the type of its input, which a node whose
// inference failed never got (a null pointer; found by fuzz_onnx in CI): the failure is the
// error, whether the node fails at once or only once data propagation has given it a shape.
TEST_F(OnnxCli, AShapeOfAFailedNodeIsThatNodesError) {
  expect_user_error(models() + "/shape_of_failed.onnx", models() + "/shape_of_failed_input.npy",
                    "shape_of_failed.onnx': ONNX shape inference failed: [ShapeInferenceError] "
                    "Shape inference error(s): (op_type:Add, node name: add_2): "
                    "[ShapeInferenceError] Incompatible dimensions");
  expect_user_error(models() + "/shape_of_late_failure.onnx",
                    models() + "/shape_of_late_failure_input.npy",
                    "shape_of_late_failure.onnx': ONNX shape inference failed: "
                    "[ShapeInferenceError] Shape inference error(s): (op_type:Add, node name: "
                    "add_4): [ShapeInferenceError] Incompatible dimensions");
}

// The same Shape of an operator libonnx has no schema for (com.microsoft's FastGelu): the
// library infers it without data propagation, and Weft's own inference gives the Reshape its
// shape.
TEST_F(OnnxCli, AShapeOfAnOperatorWithoutASchemaRuns) {
  run_llvm("shape_of_untyped");
}

// The graph verifier's "no outputs" was an internal error (found by fuzz_onnx).
TEST_F(OnnxCli, AGraphWithNoOutputsIsAUserError) {
  expect_user_error(models() + "/no_outputs.onnx", models() + "/no_outputs_input.npy",
                    "no_outputs.onnx' declares no graph outputs, so there is nothing to compute");
}

TEST_F(OnnxCli, ConvWithAComputedWeightAndNoKernelShape) {
  expect_user_error(models() + "/computed_weight.onnx", models() + "/computed_weight_input.npy",
                    "node 'conv_3' (Conv) has no kernel_shape attribute and its weight 'relu_2' "
                    "is computed");
}

TEST_F(OnnxCli, GraphWithACycle) {
  expect_user_error(models() + "/cycle.onnx", models() + "/small_cnn_input.npy",
                    "the graph has a cycle: ");
}

TEST_F(OnnxCli, OpsetOutsideTheRange) {
  expect_user_error(models() + "/old_opset.onnx", models() + "/small_cnn_input.npy",
                    "uses opset 9; Weft imports opsets 11 to 18");
}

// Opset 18's forms (ReduceMean's axes input and noop_with_empty_axes, Split's num_outputs,
// Resize's antialias and keep_aspect_ratio_policy) import through opset 17's and run: on the
// LLVM path against the float64 interpreter, on the accelerator against fp32. An operator new
// in opset 18 is a named error.
TEST_F(OnnxCli, Opset18ModelsRun) {
  run_llvm("opset18_net");
  run_accel("opset18_net");
  expect_user_error(models() + "/opset18_mish.onnx", models() + "/opset18_mish_input.npy",
                    "opset18_mish.onnx': node 'mish_1' (Mish): operator Mish is new in opset 18 "
                    "and not supported");
}

TEST_F(OnnxCli, InputOfTheWrongShapeOrDtype) {
  expect_user_error(models() + "/small_cnn.onnx", models() + "/qdq_cnn_input.npy",
                    "has shape [1,3,8,8]; the model's input 'input' is float32 [1,3,16,16]");
  // An int8 .npy of the right shape: 128-byte header, 768 bytes.
  std::string header("\x93NUMPY\x01\x00", 8);
  std::string dict = "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 3, 16, 16), }";
  dict.resize(128 - 10 - 1, ' ');
  dict += '\n';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  write(dir_ / "int8.npy", header + dict + std::string(768, '\x01'));
  expect_user_error(models() + "/small_cnn.onnx", (dir_ / "int8.npy").string(),
                    "holds int8 values; the model's input 'input' is float32");
  write(dir_ / "bad.npy", "not an npy file");
  expect_user_error(models() + "/small_cnn.onnx", (dir_ / "bad.npy").string(), "bad.npy");
}

// A uint8 .npy is read only for a model whose input is uint8 (held as int8 = uint8 - 128):
// DequantizeLinear(x, 1/2, zero point 0) of the pixels 0, 1, 128, 255 saves 0, 0.5, 64, 127.5.
// A uint8 array for a float32 input, or an int8 one for the uint8 input, is a user error.
TEST_F(OnnxCli, Uint8InputOnlyForAUint8Model) {
  const fs::path save = dir_ / "ok";  // expect_user_error checks that "out" stays empty
  const Result r = weft("run " + models() + "/uint8_input.onnx --input " + models() +
                        "/uint8_input_input.npy --target llvm --save " + save.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string out = read(save / "output.npy");
  ASSERT_EQ(out.size(), 128u + 4 * 4);
  float v[4];
  std::memcpy(v, out.data() + 128, sizeof v);
  EXPECT_EQ(std::vector<float>(v, v + 4), (std::vector<float>{0.0f, 0.5f, 64.0f, 127.5f}));
  expect_user_error(models() + "/small_cnn.onnx", models() + "/uint8_input_input.npy",
                    "holds uint8 values; the model's input 'input' is float32 [1,3,16,16]");
  // An int8 .npy of the uint8 input's shape (the values -1, 0, 1, 2).
  std::string header("\x93NUMPY\x01\x00", 8);
  std::string dict = "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 4), }";
  dict.resize(128 - 10 - 1, ' ');
  dict += '\n';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  write(dir_ / "int8.npy", header + dict + std::string("\xff\x00\x01\x02", 4));
  expect_user_error(models() + "/uint8_input.onnx", (dir_ / "int8.npy").string(),
                    "holds int8 values; the model's input 'input' is uint8 [1,4]");
}

std::string without_spaces(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\n'; }),
          s.end());
  return s;
}

TEST_F(OnnxCli, RunsOnTheAccelerator) {
  const std::string m = models() + "/tiny_resnet.onnx", x = models() + "/tiny_resnet_input.npy";
  const std::string common = " --input " + x + " --config vta --calibrate " + x + " --check --save ";
  const Result f = weft("run " + m + common + (dir_ / "f").string() + " --engine functional");
  ASSERT_EQ(f.code, 0) << f.out;
  // Calibrated on the input it runs: measured cosine 0.9995 against the fp32 network on the
  // LLVM path; 0.999 leaves room for a changed quantizer, not for a broken one (a wrong shift or
  // scale gives well under 0.9).
  EXPECT_GE(field(f.out, "cosine_similarity"), 0.999) << f.out;
  EXPECT_THAT(f.out, HasSubstr("\"top1_agrees\": true"));
  EXPECT_GE(field(f.out, "accel_mac_fraction"), 0.9) << f.out;
  EXPECT_EQ(fs::file_size(dir_ / "f" / "output.npy"), 128u + 10 * 4);
  // Where the wall time went, phase by phase (import, calibration, kernels, run, check).
  for (const char* phase : {"import", "pass_quantize", "kernel_compile", "run", "check"})
    EXPECT_GE(field(f.out, phase), 0.0) << phase << "\n" << f.out;
  // Each accelerator layer names its schedule's source (tiny_resnet's shapes have no records).
  EXPECT_THAT(f.out, HasSubstr("\"schedule_source\": \"analytic chooser\""));
  // The cycle model (and the RTL) give the same int8 network bit for bit, with cycles.
  const Result c = weft("run " + m + common + (dir_ / "c").string() + " --engine cycle");
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_GT(field(c.out, "accel_cycles"), 0) << c.out;
  EXPECT_EQ(read(dir_ / "f" / "output.npy"), read(dir_ / "c" / "output.npy"));
  // The cycle model counts what the hardware did, so the report prices it (docs/codesign.md,
  // "Energy"); the functional model counts nothing to price.
  EXPECT_GT(field(c.out, "on_chip_pj_per_mac"), 0) << c.out;
  EXPECT_THAT(f.out, Not(HasSubstr("\"energy\"")));
#if defined(WEFT_TEST_RTL)
  // And the Verilated RTL, with the cycle model's cycle count.
  const Result v = weft("run " + m + common + (dir_ / "v").string() + " --engine rtl");
  ASSERT_EQ(v.code, 0) << v.out;
  EXPECT_EQ(field(v.out, "accel_cycles"), field(c.out, "accel_cycles"));
  EXPECT_EQ(read(dir_ / "v" / "output.npy"), read(dir_ / "c" / "output.npy"));
#endif
}

// torch.onnx.export writes Identity nodes, and Dropout with constant ratio and training_mode
// inputs; at inference both pass their input through and leave no node in the graph.
TEST_F(OnnxCli, IdentityAndDropoutPassTheirInputThrough) {
  const std::string m = models() + "/vgg_dropout.onnx", x = models() + "/vgg_dropout_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--calibrate " + x + " --check");
  ASSERT_EQ(r.code, 0) << r.out;
  // Measured 0.99981 against the fp32 network on the LLVM path.
  EXPECT_GE(field(r.out, "cosine_similarity"), 0.995) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"top1_agrees\": true"));
  const Result g = weft("compile " + m + " --emit graph");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_THAT(g.out, Not(HasSubstr("Identity")));
  EXPECT_THAT(g.out, Not(HasSubstr("Dropout")));
  expect_user_error(models() + "/dropout_training.onnx", models() + "/dropout_training_input.npy",
                    "node 'dropout_3' (Dropout): training_mode=true is not supported");
}

// The element-wise operators of EfficientNet, MobileNet V3 and BERT (SiLU and squeeze-excite
// with broadcasting Mul, HardSwish, HardSigmoid, erf and tanh GELU, Pow, Sub, Sqrt, Div): every
// node on the LLVM kernels, within 1e-4 of the float64 interpreter.
TEST_F(OnnxCli, ElementwiseOperatorsRunOnLlvmKernels) {
  const Result r = weft("run " + models() + "/eltwise_cnn.onnx --input " + models() +
                        "/eltwise_cnn_input.npy --target llvm --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
  EXPECT_LT(field(r.out, "max_error_relative_to_max"), 1e-4) << r.out;
  const std::string flat = without_spaces(r.out);
  for (const char* op : {"Sigmoid", "Mul", "HardSigmoid", "Erf", "Div", "Pow", "Tanh", "Sub",
                         "Sqrt", "Add"}) {
    EXPECT_THAT(flat, HasSubstr("\"op\":\"" + std::string(op) + "\",\"engine\":\"llvm\"")) << op;
    EXPECT_THAT(flat, Not(HasSubstr("\"op\":\"" + std::string(op) + "\",\"engine\":\"host\"")))
        << op;
  }
  // The model's one HardSwish, and the SiLUs (a Sigmoid and a Mul) that alone read a
  // convolution's output, run in that convolution's kernels.
  EXPECT_THAT(flat, HasSubstr("\"op\":\"HardSwish\",\"engine\":\"fused\""));
  EXPECT_THAT(flat, HasSubstr("\"op\":\"Sigmoid\",\"engine\":\"fused\""));
  EXPECT_THAT(flat, Not(HasSubstr("\"op\":\"HardSwish\",\"engine\":\"host\"")));
  const Result g = weft("compile " + models() + "/eltwise_cnn.onnx --emit graph --pass import");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_THAT(g.out, HasSubstr("= HardSigmoid(%"));
  EXPECT_THAT(g.out, HasSubstr("HardSigmoid(%conv_24) {alpha=0.166667, beta=0.5}"));
  EXPECT_THAT(g.out, HasSubstr("= Erf(%"));
}

// On the accelerator the element-wise operators without an int8 form stay in fp32 on the CPU's
// LLVM kernels, and the report says why.
TEST_F(OnnxCli, ElementwiseOperatorsRunInFp32BesideTheAccelerator) {
  const std::string m = models() + "/eltwise_cnn.onnx", x = models() + "/eltwise_cnn_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--calibrate " + x + " --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_GE(field(r.out, "cosine_similarity"), 0.99) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"top1_agrees\": true"));
  EXPECT_THAT(without_spaces(r.out), HasSubstr("\"op\":\"Sigmoid\",\"engine\":\"llvm\""));
  EXPECT_THAT(r.out, HasSubstr("\"detail\": \"fp32: the int8 quantizer has no Sigmoid"));
  EXPECT_THAT(r.out, HasSubstr("\"detail\": \"fp32: the int8 quantizer has no Erf"));
}

// One BERT/ViT encoder layer as torch.onnx.export writes it: Transpose, Softmax, the MatMul of
// two activations, LayerNormalization, ReduceMean and Squeeze/Unsqueeze (imported as Reshape)
// on the fp32 LLVM path within 1e-4 of the float64 interpreter; Softmax, LayerNormalization
// and the MatMuls on JIT kernels.
TEST_F(OnnxCli, TinyEncoderRunsOnTheLlvmPath) {
  const std::string m = models() + "/tiny_encoder.onnx", x = models() + "/tiny_encoder_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --target llvm --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
  EXPECT_LT(field(r.out, "max_error_relative_to_max"), 1e-4) << r.out;
  const std::string flat = without_spaces(r.out);
  // The GELU that torch writes out (Div, Erf, Add, Mul, Mul) is one Gelu node after import.
  for (const char* op : {"Softmax", "LayerNormalization", "MatMul", "Gelu"})
    EXPECT_THAT(flat, HasSubstr("\"op\":\"" + std::string(op) + "\",\"engine\":\"llvm\"")) << op;
  EXPECT_THAT(flat, Not(HasSubstr("\"op\":\"Erf\"")));
  const Result g = weft("compile " + m + " --emit graph --pass import");
  ASSERT_EQ(g.code, 0) << g.out;
  for (const char* op : {"Transpose", "Softmax", "LayerNormalization", "ReduceMean", "MatMul", "Gelu"})
    EXPECT_THAT(g.out, HasSubstr(std::string("= ") + op + "(%")) << op;
  EXPECT_THAT(g.out, HasSubstr("{perm=[0,2,3,1]}"));
}

// On the accelerator the linear layers (MatMul by a constant weight, on [1, seq, d]) run as
// int8 dense layers and the attention products of two activations as batched int8 dense layers
// (one launch over the 4 heads): at least 95% of the MACs; Softmax, LayerNormalization and the
// transposes stay in fp32 on the CPU, and the report says where each node ran and why.
TEST_F(OnnxCli, TinyEncoderRunsOnTheAccelerator) {
  const std::string m = models() + "/tiny_encoder.onnx", x = models() + "/tiny_encoder_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--calibrate " + x + " --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_GE(field(r.out, "cosine_similarity"), 0.99) << r.out;
  EXPECT_GE(field(r.out, "accel_mac_fraction"), 0.95) << r.out;
  const std::string flat = without_spaces(r.out);
  for (const char* product : {"matmul_22.2d", "matmul_26.2d"})
    EXPECT_THAT(flat, HasSubstr("\"node\":\"" + std::string(product) +
                                "\",\"op\":\"weft.AccelDense\",\"engine\":\"accel\""))
        << product;
  EXPECT_THAT(r.out, HasSubstr("\"detail\": \"fp32: the int8 quantizer has no Softmax"));
  EXPECT_THAT(r.out, HasSubstr("\"detail\": \"fp32: the int8 quantizer has no LayerNormalization"));
  EXPECT_THAT(r.out, Not(HasSubstr("a MatMul of two activations")));
}

// --compare-fp32: every value of the int8 graph next to the fp32 network's, as JSON on stdout
// ("fp32_compare") and a table on stderr, in order, with where each ran (int8 or fp32) and the
// cosine each node lost; it goes with --target accel only.
TEST_F(OnnxCli, CompareFp32ShowsEveryValue) {
  const std::string m = models() + "/tiny_encoder.onnx", x = models() + "/tiny_encoder_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--compare-fp32");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string flat = without_spaces(r.out);
  EXPECT_THAT(flat, HasSubstr("\"fp32_compare\":{\"values\":[{\"value\":"));
  EXPECT_THAT(flat, HasSubstr("\"largest_drops\":["));
  EXPECT_THAT(flat, HasSubstr("\"op\":\"Softmax\",\"ran_as\":\"Softmax\",\"int8\":false"));
  EXPECT_THAT(flat, HasSubstr("\"ran_as\":\"weft.QDense\",\"int8\":true,\"scale_exponent\":"));
  EXPECT_THAT(r.out, HasSubstr("grid cos"));     // the table's header
  EXPECT_THAT(r.out, HasSubstr("largest drops: "));
  EXPECT_GE(field(r.out, "cosine"), 0.99) << r.out;  // the first value: the input, quantized
  expect_user_error(m, x, "--compare-fp32", "llvm --compare-fp32");
}

// GELU in ONNX Runtime's com.microsoft domain (Gelu, FastGelu with and without a bias) on the
// fp32 LLVM path: JIT kernels, within 1e-4 of the float64 interpreter; beside the accelerator
// in fp32 with the linear layers in int8.
TEST_F(OnnxCli, GeluFromTheMicrosoftDomainRuns) {
  const Result r = run_llvm("gelu_net");
  EXPECT_THAT(without_spaces(r.out), HasSubstr("\"op\":\"Gelu\",\"engine\":\"llvm\""));
  const Result g = weft("compile " + models() + "/gelu_net.onnx --emit graph --pass import");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_THAT(g.out, HasSubstr("= Gelu(%matmul_2) {approximate=\"none\"}"));
  EXPECT_THAT(g.out, HasSubstr("{approximate=\"tanh\"}"));
  run_accel("gelu_net");
  // An input omitted before a given one (fuzz_onnx: FastGelu's expansion read the missing
  // input and the importer failed with std::out_of_range): a named error.
  expect_user_error(models() + "/bad_gelu_input.onnx", models() + "/bad_gelu_input_input.npy",
                    "input 0 is missing (an empty name) but input 1 is given");
}

// Resize (nearest and linear, four coordinate transformations) between convs: the fp32 LLVM
// path within 1e-4 of the float64 interpreter; on vta the convs in int8 on the accelerator and
// the resizes in fp32 on the CPU, cosine >= 0.99.
TEST_F(OnnxCli, ResizeRunsOnTheLlvmPathAndBesideTheAccelerator) {
  run_llvm("resize_net");
  const Result a = run_accel("resize_net");
  EXPECT_THAT(a.out, HasSubstr("\"detail\": \"fp32: the int8 quantizer has no Resize"));
  expect_user_error(models() + "/bad_resize.onnx", models() + "/bad_resize_input.npy",
                    "mode 'cubic' is not supported (nearest, linear)");
  // An output too large to exist is refused before anything is sized from it (fuzz_onnx: a
  // scale of 1e12 made import build index tables of 10^12 entries, out of memory).
  expect_user_error(models() + "/resize_long_axis.onnx", models() + "/resize_long_axis_input.npy",
                    "scale 999999995904.000000 makes axis 2 longer than 2^40");
  expect_user_error(models() + "/resize_too_many.onnx", models() + "/resize_too_many_input.npy",
                    "sizes [1,2,4000000,4000000] make more than 2^40 elements");
}

// A model whose batch dimension is symbolic (torch.onnx.export's dynamic_axes) runs with
// --batch N on the LLVM path and on the accelerator; without --batch, or with one that
// contradicts a fixed batch, a named error, exit 1, nothing written.
TEST_F(OnnxCli, SymbolicBatchRunsWithBatchN) {
  const std::string m = models() + "/dynamic_batch.onnx", x = models() + "/dynamic_batch_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --batch 4 --target llvm --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_LT(field(r.out, "max_error_relative_to_max"), 1e-4) << r.out;
  const Result a = weft("run " + m + " --input " + x + " --batch 4 --config vta --engine " +
                        "functional --calibrate " + x + " --check");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_GE(field(a.out, "cosine_similarity"), 0.99) << a.out;
  expect_user_error(m, x, "graph input 'input' has shape [?, 3, 8, 8] with an unknown dimension; Weft "
                    "compiles fixed shapes (a symbolic batch: run with --batch N");
  const std::string t = models() + "/tiny_resnet.onnx", tx = models() + "/tiny_resnet_input.npy";
  const Result f = weft("run " + t + " --input " + tx + " --batch 2 --target llvm");
  EXPECT_EQ(f.code, 1) << f.out;
  EXPECT_THAT(f.out, HasSubstr("graph input 'input' has a fixed batch of 1, not 2"));
}

// A perm that is not a permutation, an axis outside the input, batch dimensions that do not
// broadcast: named errors, exit 1, nothing written. ONNX's shape inference finds them first and
// names the node; Weft's own inference (a graph built in C++) is tested in interpret_test.cc.
TEST_F(OnnxCli, TransformerOperatorsRefuseBadAttributes) {
  expect_user_error(models() + "/bad_perm.onnx", models() + "/bad_perm_input.npy",
                    "(op_type:Transpose, node name: bad_perm_1)");
  expect_user_error(models() + "/bad_axis.onnx", models() + "/bad_axis_input.npy",
                    "(op_type:Softmax, node name: bad_axis_1)");
  expect_user_error(models() + "/bad_matmul.onnx", models() + "/bad_matmul_input.npy",
                    "bad_matmul_1");
}

// torch's x.view(x.size(0), -1) (Shape, Gather, Unsqueeze, Concat feeding a Reshape) and a
// shape and a mask computed from constants only: folded at import, so the graph holds only the
// Reshapes of the activation, and the network runs on the LLVM path within 1e-4 of the float64
// interpreter (and 1.4e-7 of a NumPy evaluation of the ONNX file, measured) and on the
// accelerator at cosine >= 0.99.
TEST_F(OnnxCli, TorchFlattenShapeGraphIsFoldedAtImport) {
  const std::string m = models() + "/torch_flatten.onnx", x = models() + "/torch_flatten_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --target llvm --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
  EXPECT_LT(field(r.out, "max_error_relative_to_max"), 1e-4) << r.out;
  const Result g = weft("compile " + m + " --emit graph --pass import");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_THAT(g.out, HasSubstr("= Reshape(%"));
  for (const char* op : {"Shape", "Gather", "Unsqueeze", "Range", "Where", "ConstantOfShape"})
    EXPECT_THAT(g.out, Not(HasSubstr(std::string("= ") + op + "("))) << op;
  const Result a = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--calibrate " + x + " --check");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_GE(field(a.out, "cosine_similarity"), 0.99) << a.out;
}

// A bad value in a constant sub-graph is a named error of its node; exit 1, nothing written.
TEST_F(OnnxCli, BadConstantSubGraphIsANamedError) {
  expect_user_error(models() + "/fold_div_zero.onnx", models() + "/fold_div_zero_input.npy",
                    "node 'div_28' (Div): integer division by zero");
}

// Zero Pads (asymmetric; pads from an initializer and from a Constant node) fold into the
// pads of the Conv that reads them: no Pad node in the graph, the LLVM path within 1e-4 of the
// float64 interpreter (1.6e-7 of a NumPy evaluation with explicit padding, measured), and the
// accelerator at cosine >= 0.99. A Pad of all zeros (before the pooling) imports as nothing.
TEST_F(OnnxCli, ZeroPadFoldsIntoTheConv) {
  const std::string m = models() + "/pad_conv.onnx", x = models() + "/pad_conv_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --target llvm --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
  const Result g = weft("compile " + m + " --emit graph --pass import");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_THAT(g.out, Not(HasSubstr("Pad(")));
  EXPECT_THAT(g.out, HasSubstr("pads=[1,0,2,1]"));
  EXPECT_THAT(g.out, HasSubstr("pads=[2,2,2,2]"));
  const Result a = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--calibrate " + x + " --check");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_GE(field(a.out, "cosine_similarity"), 0.99) << a.out;
}

// Depthwise (MobileNet V2's inverted residuals, stride 1 and 2) and grouped (ResNeXt-like,
// group 4 x 16 and 8 x 4 channels) convolutions: the LLVM path runs them on its grouped-conv
// kernel within 1e-4 of the float64 interpreter (1.8e-7 and 3.2e-7 measured); on `vta` each
// becomes block-aligned accelerator convolutions (split_groups), every slice on the
// accelerator, cosine >= 0.99 (0.9990 and 0.9988 measured). The cycles are the cycle model's,
// deterministic.
TEST_F(OnnxCli, GroupedAndDepthwiseConvsRunOnLlvmAndOnTheAccelerator) {
  struct Net {
    const char* name;
    std::vector<std::string> grouped;  // the grouped convs' nodes
    std::vector<std::string> slices;   // their accelerator slices
  };
  for (const Net& net : {Net{"depthwise_block", {"conv_9", "conv_25"},
                             {"conv_9.g0", "conv_9.g1", "conv_25.g0", "conv_25.g1", "conv_25.g2"}},
                         Net{"grouped_net", {"conv_7", "conv_11"},
                             {"conv_7.g0", "conv_7.g3", "conv_11.g0", "conv_11.g1"}}}) {
    SCOPED_TRACE(net.name);
    const std::string m = models() + "/" + net.name + ".onnx",
                      x = models() + "/" + net.name + "_input.npy";
    const Result r = weft("run " + m + " --input " + x + " --target llvm --check");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
    for (const std::string& n : net.grouped)
      EXPECT_THAT(without_spaces(r.out), HasSubstr("\"name\":\"" + n + "\",\"op\":\"Conv\",\"engine\":\"llvm\""));
    const Result a = weft("run " + m + " --input " + x + " --config vta --engine cycle --calibrate " +
                          x + " --check");
    ASSERT_EQ(a.code, 0) << a.out;
    EXPECT_GE(field(a.out, "cosine_similarity"), 0.99) << a.out;
    for (const std::string& n : net.slices)
      EXPECT_THAT(without_spaces(a.out),
                  HasSubstr("\"node\":\"" + n + "\",\"op\":\"weft.AccelConv\",\"engine\":\"accel\""));
  }
}

// A depthwise QLinearConv keeps its scales and runs on the accelerator as split_groups' slices;
// against ONNX's own QLinearConv arithmetic (the LLVM path) only ties round differently.
TEST_F(OnnxCli, GroupedQLinearConvRunsOnTheAccelerator) {
  const Result r = weft("run " + models() + "/qlinear_grouped.onnx --input " + models() +
                        "/qlinear_grouped_input.npy --config vta --engine functional --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(field(r.out, "accel_mac_fraction"), 1.0) << r.out;
  EXPECT_GE(field(r.out, "cosine_similarity"), 0.999) << r.out;
}

// A Pad that is not zeros before a Conv: named errors, exit 1, nothing written.
TEST_F(OnnxCli, PadOutsideScopeIsANamedError) {
  expect_user_error(models() + "/pad_reflect.onnx", models() + "/pad_reflect_input.npy",
                    "node 'pad_2' (Pad): mode 'reflect' is not supported");
  expect_user_error(models() + "/pad_relu.onnx", models() + "/pad_relu_input.npy",
                    "node 'pad_2' (Pad): its output is read by node 'relu_3' (Relu)");
  expect_user_error(models() + "/pad_value.onnx", models() + "/pad_value_input.npy",
                    "node 'pad_3' (Pad): constant value 1.000000 is not supported");
}

// Split with sizes (a constant input) and in equal parts, several outputs used: one Slice node
// per output; the LLVM path within 1e-4 of the float64 interpreter (1.9e-7 of a NumPy
// evaluation, measured); on the accelerator the Slices stay in fp32 on the CPU, cosine >= 0.99.
TEST_F(OnnxCli, SplitImportsAsOneSlicePerOutput) {
  const std::string m = models() + "/split_net.onnx", x = models() + "/split_net_input.npy";
  const Result r = weft("run " + m + " --input " + x + " --target llvm --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"within_1e-4\": true"));
  const Result g = weft("compile " + m + " --emit graph --pass import");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_THAT(g.out, HasSubstr("{axis=1, end=6, start=2}"));
  EXPECT_THAT(g.out, HasSubstr("{axis=2, end=8, start=4}"));
  const Result a = weft("run " + m + " --input " + x + " --config vta --engine functional " +
                        "--calibrate " + x + " --check");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_GE(field(a.out, "cosine_similarity"), 0.99) << a.out;
  EXPECT_THAT(a.out, HasSubstr("\"detail\": \"fp32: the int8 quantizer has no Slice"));
  expect_user_error(models() + "/bad_split.onnx", models() + "/bad_split_input.npy",
                    "(op_type:Split, node name: split_1)");
}

// ONNX's shape inference finds it first and names the node; Weft's own inference (when a graph
// is built in C++) says "shapes ... do not broadcast" (interpret_test.cc).
TEST_F(OnnxCli, ShapesThatDoNotBroadcast) {
  expect_user_error(models() + "/bad_broadcast.onnx", models() + "/bad_broadcast_input.npy",
                    "(op_type:Mul, node name: mul_1): [ShapeInferenceError] Incompatible dimensions");
}

TEST_F(OnnxCli, QdqModelKeepsItsScalesOnTheAccelerator) {
  const Result r = weft("run " + models() + "/qdq_cnn.onnx --input " + models() +
                        "/qdq_cnn_input.npy --config vta --engine functional --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"scales_kept\": 3"));
  EXPECT_THAT(r.out, HasSubstr("\"scales_rounded\": []"));
  // Against ONNX's own QDQ arithmetic (the LLVM path): only ties round differently.
  EXPECT_GE(field(r.out, "cosine_similarity"), 0.9999) << r.out;
}

// A QDQ conv with per-output-channel weight scales (2^-6 .. 2^-9, each row using its int8
// range): the weights are quantized per channel on their own grids, every MAC runs on the
// accelerator with one shift per channel, and only ties round differently from ONNX's
// arithmetic (cosine 0.9999999 measured; one per-tensor grid would drop up to 3 bits of the
// finer rows: 0.99977 measured, 1104 of the 4096 outputs differ from the per-channel run).
TEST_F(OnnxCli, QdqPerChannelWeightsKeepTheirGridsOnTheAccelerator) {
  const Result r = weft("run " + models() + "/qdq_per_channel.onnx --input " + models() +
                        "/qdq_per_channel_input.npy --config vta --engine cycle --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"per_channel_weights\": true"));
  EXPECT_EQ(field(r.out, "accel_mac_fraction"), 1.0) << r.out;
  EXPECT_GE(field(r.out, "cosine_similarity"), 0.99999) << r.out;
}

TEST_F(OnnxCli, CompileEmitsTheGraphAfterEachPass) {
  Result r = weft("compile " + models() + "/small_cnn.onnx --emit graph --pass import");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("// ---- after import ----"));
  EXPECT_THAT(r.out, HasSubstr("= Concat("));
  r = weft("compile " + models() + "/tiny_resnet.onnx --emit graph --config vta");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("// ---- after fold_batch_norm ----"));
  EXPECT_THAT(r.out, HasSubstr("weft.QConv"));
  r = weft("compile " + models() + "/tiny_resnet.onnx --emit graph --pass nope");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--pass 'nope' is not a pass of the graph pipeline"));
}

TEST_F(OnnxCli, BadCalibrationFile) {
  expect_user_error(models() + "/tiny_resnet.onnx --calibrate " + models() + "/qdq_cnn_input.npy",
                    models() + "/tiny_resnet_input.npy", "must be float32 of the input's shape", "accel");
}

// `weft tune MODEL.onnx`: the accelerator kernels the graph pipeline makes (the two 3x3
// stride-1 convolutions of tiny_resnet share one task weighted twice), and on the LLVM path the
// float graph's convolutions and dense layers; each trial lands in the database.
TEST_F(OnnxCli, TunesTheModelsLayers) {
  const std::string db = (dir_ / "tune.jsonl").string();
  Result r = weft("tune " + models() + "/tiny_resnet.onnx --target accel --config vta --trials 4 "
                  "--per-round 2 --quiet --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"task\": \"conv_11 (x2)\""));
  EXPECT_THAT(r.out, HasSubstr("\"nodes\": 2"));
  EXPECT_THAT(r.out, HasSubstr("\"task\": \"conv_28\""));
  std::ifstream in(db);
  int lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, 4);
  r = weft("tune " + models() + "/small_cnn.onnx --target llvm --trials 6 --per-round 1 --quiet --db " +
           (dir_ / "cpu.jsonl").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"task\": \"matmul_34\""));
  EXPECT_THAT(r.out, HasSubstr("\"task\": \"gemm_38\""));
  // A batch-1 model on the batch-8 configuration: nothing left on the accelerator, said so.
  r = weft("tune " + models() + "/tiny_resnet.onnx --target accel --config gemm8x8 --trials 4");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("no convolution or dense layer to tune"));
}

TEST_F(OnnxCli, UsageErrors) {
  Result r = weft("run " + models() + "/small_cnn.onnx --target llvm");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("needs --input X.npy"));
  r = weft("run " + models() + "/small_cnn.onnx --input x.npy --target gpu");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--target must be accel or llvm"));
  r = weft("run");
  EXPECT_EQ(r.code, 1) << r.out;  // a usage error is bad input: exit 1 (README)
}

}  // namespace
