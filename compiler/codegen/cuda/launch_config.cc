// Launch configuration and GPU legality checks; see launch_config.h.
#include "compiler/codegen/cuda/launch_config.h"

#include <map>
#include <vector>

#include "compiler/ir/arith.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

// Axis index 0..5 (blockIdx.x..z, threadIdx.x..z) of a bound loop, or -1.
int bound_axis(const ir::For& f) { return f.thread ? static_cast<int>(*f.thread) : -1; }

struct Bound {
  std::string loop;
  int64_t extent;
};

// First walk: what is bound to which axis, and what is allocated.
class Collect : public ir::Visitor {
 public:
  std::vector<Bound> axes[6];
  std::vector<ir::Buffer> shared, local, global;

 protected:
  void visit_For(const ir::For& f) override {
    const int a = bound_axis(f);
    if (a >= 0) {
      const ir::IntImm* e = ir::as_imm(f.extent);
      if (!e) {
        throw UserError("loop '" + f.var->name + "' is bound to " +
                        ir::thread_axis_name(*f.thread) + " but its extent is not a constant");
      }
      axes[a].push_back({f.var->name, e->value});
    }
    ir::Visitor::visit_For(f);
  }
  void visit_Allocate(const ir::Allocate& n) override {
    if (n.buffer->scope == ir::Scope::kShared) shared.push_back(n.buffer);
    if (n.buffer->scope == ir::Scope::kLocal) local.push_back(n.buffer);
    ir::Visitor::visit_Allocate(n);
  }
  void visit_Load(const ir::Load& n) override {
    if (n.buffer->scope == ir::Scope::kGlobal) global.push_back(n.buffer);
    ir::Visitor::visit_Load(n);
  }
  void visit_Store(const ir::Store& n) override {
    if (n.buffer->scope == ir::Scope::kGlobal) global.push_back(n.buffer);
    ir::Visitor::visit_Store(n);
  }
};

// Second walk: where stores and barriers run.
class Check : public ir::Visitor {
 public:
  Check(const std::string& kernel, const LaunchConfig& c, bool any_bound)
      : kernel_(kernel), config_(c), any_bound_(any_bound) {}

 protected:
  void visit_For(const ir::For& n) override {
    if (const int a = bound_axis(n); a >= 0) {
      const int64_t launch = a < 3 ? config_.grid[a] : config_.block[a - 3];
      const bool guarded = ir::as_imm(n.extent)->value < launch;
      if (guarded) guards_.push_back(n.var->name);
      if (a >= 3) ++thread_depth_;
      visit(n.body);
      if (a >= 3) --thread_depth_;
      if (guarded) guards_.pop_back();
      return;
    }
    if (n.kind == ir::ForKind::kParallel || n.kind == ir::ForKind::kVirtualThread) {
      throw UserError("kernel " + kernel_ + ": loop '" + n.var->name + "' is " +
                      ir::for_kind_name(n.kind) +
                      ", which the GPU backend does not run: bind it to blockIdx or threadIdx");
    }
    unbound_.push_back(n.var->name);
    ir::Visitor::visit_For(n);
    unbound_.pop_back();
  }
  void visit_Allocate(const ir::Allocate& n) override {
    if (n.buffer->scope == ir::Scope::kShared) alloc_depth_[n.buffer.get()] = thread_depth_;
    ir::Visitor::visit_Allocate(n);
  }
  void visit_Store(const ir::Store& n) override {
    const std::string loop = unbound_.empty() ? "" : unbound_.front();
    if (!any_bound_ && !unbound_.empty()) {
      throw UserError("kernel " + kernel_ + ": no loop is bound to blockIdx or threadIdx, so loop '" +
                      loop + "' (storing '" + n.buffer->name +
                      "') would run whole in one GPU thread: bind the stage's loops");
    }
    if (config_.threads() > 1 && n.buffer->scope == ir::Scope::kGlobal && thread_depth_ == 0) {
      throw UserError("kernel " + kernel_ + ": the store to '" + n.buffer->name +
                      "' is under no loop bound to threadIdx, so " +
                      (loop.empty() ? std::string("it") : "loop '" + loop + "'") +
                      " would run in every thread of the block: bind it to threadIdx");
    }
    if (config_.threads() > 1 && n.buffer->scope == ir::Scope::kShared) {
      auto it = alloc_depth_.find(n.buffer.get());
      if (it != alloc_depth_.end() && thread_depth_ == it->second) {
        throw UserError("kernel " + kernel_ + ": shared buffer '" + n.buffer->name +
                        "' is filled by " +
                        (loop.empty() ? std::string("a statement") : "loop '" + loop + "'") +
                        " bound to no threadIdx inside it, so every thread would copy the whole "
                        "tile: fuse the copy's loops, split them by the thread count and bind "
                        "them to threadIdx");
      }
    }
    ir::Visitor::visit_Store(n);
  }
  void visit_Evaluate(const ir::Evaluate& n) override {
    if (n.value->kind == ir::NodeKind::kCall && !guards_.empty() &&
        ir::intrinsic_info(static_cast<const ir::Call&>(*n.value).op).effect ==
            ir::Effect::kBarrier) {
      throw UserError("kernel " + kernel_ + ": loop '" + guards_.back() +
                      "' is bound with an extent smaller than the launch, so it is guarded, and "
                      "a barrier (__syncthreads) inside it would not be reached by every thread: "
                      "give every loop bound to that axis the same extent");
    }
    ir::Visitor::visit_Evaluate(n);
  }

 private:
  const std::string& kernel_;
  const LaunchConfig& config_;
  const bool any_bound_;
  int thread_depth_ = 0;
  std::vector<std::string> unbound_, guards_;
  std::map<const ir::BufferObj*, int> alloc_depth_;
};

}  // namespace

LaunchConfig launch_config(const std::string& kernel, const ir::Stmt& body,
                           const GpuLimits& limits) {
  Collect c;
  c.visit(body);
  LaunchConfig config;
  bool any_bound = false;
  std::string threads_desc;
  for (int a = 0; a < 6; ++a) {
    int64_t& dim = a < 3 ? config.grid[a] : config.block[a - 3];
    for (const Bound& b : c.axes[a]) {
      dim = std::max(dim, b.extent);
      any_bound = true;
    }
    if (a >= 3 && !c.axes[a].empty()) {
      threads_desc += std::string(threads_desc.empty() ? "" : ", ") + "loop '" + c.axes[a][0].loop +
                      "' on " + ir::thread_axis_name(static_cast<ir::ThreadAxis>(a)) + " (" +
                      std::to_string(dim) + ")";
    }
    if ((a == 1 || a == 2) && dim > 65535) {
      throw UserError("kernel " + kernel + ": loop '" + c.axes[a][0].loop + "' is bound to " +
                      ir::thread_axis_name(static_cast<ir::ThreadAxis>(a)) + " with extent " +
                      std::to_string(dim) + ", more than the 65535 blocks a grid allows there");
    }
  }
  if (config.threads() > limits.max_threads) {
    throw UserError("kernel " + kernel + ": a thread block of " +
                    std::to_string(config.threads()) + " threads (" + threads_desc +
                    ") is more than the " + std::to_string(limits.max_threads) +
                    " threads a block may have: bind smaller loops to threadIdx");
  }
  std::string shared_desc;
  for (const ir::Buffer& b : c.shared) {
    const int64_t bytes = b->elements() * ir::dtype_bits(b->dtype) / 8;
    config.shared_bytes += ir::round_up(bytes, 32);
    shared_desc += std::string(shared_desc.empty() ? "" : ", ") + "'" + b->name + "' " +
                   std::to_string(bytes) + " bytes";
  }
  if (config.shared_bytes > limits.max_shared_bytes) {
    throw UserError("kernel " + kernel + ": its shared buffers (" + shared_desc + ") need " +
                    std::to_string(config.shared_bytes) + " bytes, more than the " +
                    std::to_string(limits.max_shared_bytes) +
                    " bytes of shared memory per block: make the tiles smaller");
  }
  for (const ir::Buffer& b : c.local) {
    if (b->elements() > limits.max_local_elements) {
      throw UserError("kernel " + kernel + ": local buffer '" + b->name + "' has " +
                      std::to_string(b->elements()) + " elements per thread, more than " +
                      std::to_string(limits.max_local_elements) +
                      " (registers): make the per-thread tile smaller");
    }
  }
  for (const ir::Buffer& b : c.global) {
    if (b->elements() >= (int64_t(1) << 31)) {
      throw UserError("kernel " + kernel + ": buffer '" + b->name + "' has " +
                      std::to_string(b->elements()) +
                      " elements; the GPU backend indexes with 32 bits (fewer than 2^31)");
    }
  }
  Check(kernel, config, any_bound).visit(body);
  return config;
}

}  // namespace weft::compiler::codegen
