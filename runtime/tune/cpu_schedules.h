// The CPU backend's tuned schedules: compiler/ops/cpu's DenseSchedule and ConvSchedule to and from
// the knobs of compiler/tune's CPU spaces, the workload and target keys of the tuning records
// for a CPU operator on this host (the target's config is the host's vector-extension key:
// avx2, avx512, avx512-vnni), and the lookup `weft run --target llvm` uses: the best record of
// a database when given and it has one, else the shipped default records of this host's key,
// else nothing (the default schedule).
#pragma once

#include <optional>
#include <string>

#include "compiler/tune/cpu_space.h"
#include "compiler/tune/space.h"
#include "compiler/ops/conv2d_nchw.h"
#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"

namespace weft::rt::tune {

compiler::ops::cpu::DenseSchedule dense_schedule_of(const compiler::tune::CpuKnobs& k);
compiler::ops::cpu::ConvSchedule conv_schedule_of(const compiler::tune::CpuKnobs& k);
compiler::tune::CpuKnobs knobs_of(const compiler::ops::cpu::DenseSchedule& s);
compiler::tune::CpuKnobs knobs_of(const compiler::ops::cpu::ConvSchedule& s);

/// dense(dtype=..., k=..., m=..., n=...) and conv2d(dtype, h, ic, k, n, oc, pad, stride, w).
compiler::tune::Workload cpu_dense_workload(int64_t m, int64_t n, int64_t k,
                                            const std::string& dtype);
compiler::tune::Workload cpu_conv2d_workload(const compiler::ops::Conv2dNchw& s, const std::string& dtype);
/// {"llvm", host ISA key, ""}.
compiler::tune::Target cpu_host_target();

/// The tuned schedule and where it came from ("FILE" or "default records"), if any.
struct TunedDense {
  compiler::ops::cpu::DenseSchedule schedule;
  std::string source;
  double seconds = 0;
};
struct TunedConv {
  compiler::ops::cpu::ConvSchedule schedule;
  std::string source;
  double seconds = 0;
};
std::optional<TunedDense> tuned_dense(int64_t m, int64_t n, int64_t k, const std::string& dtype,
                                      const std::string& db_path = "");
std::optional<TunedConv> tuned_conv2d(const compiler::ops::Conv2dNchw& s, const std::string& dtype,
                                      const std::string& db_path = "");

}  // namespace weft::rt::tune
