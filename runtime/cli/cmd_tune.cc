// `weft tune dense|conv2d|resnet18`: automatic schedule search (docs/tuning.md). Builds the
// tasks for the target, runs the chosen strategy with a trial budget, records every trial in a
// JSON-lines database (rewritten atomically after every batch, so an interrupted run loses at
// most one batch and a bad run never damages an existing file) and prints a JSON summary: per
// task the trials, the best value and trace, and the measured value after each trial.
// Progress goes to stderr. Under `mpirun` (a build with MPI) rank 0 coordinates and every rank
// measures (rank 0 on a second thread).
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

#include "hardware/isa/errors.h"
#include "compiler/tune/cost_model.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/tune_family.h"
#include "runtime/io/files.h"
#ifdef WEFT_HAVE_ONNX_RUN
#include "runtime/graph/onnx_tune_layers.h"
#endif
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/cpu_tasks.h"
#include "runtime/tune/database.h"
#include "runtime/tune/mpi_runner.h"
#include "runtime/tune/search.h"
#include "runtime/tune/thread_runner.h"

namespace weft::cli {

namespace {

struct TuneOpts {
  std::string what, target = "accel", config = "gemm8x8", platform = "sim";
  std::string strategy = "evolutionary", db, summary, layers, layer;
  std::string dtype = "float32";  // llvm: float32 or int8
  // One meaning per option name across verbs (as in `weft run`): for dense --M --N --K are its
  // rows, output columns and reduction; for conv2d --N (or --batch) is the batch and --K (or
  // --kernel) the kernel size.
  int64_t trials = 64, m = 64, n = 64, k = 64;
  int64_t batch = 1, h = 56, w = 56, ic = 64, oc = 64, kernel = 3, stride = 1, pad = 1;
  uint64_t seed = 1;
  int per_round = 8, workers = 1, population = 48;
  double early_stop = 2.0;
  bool quiet = false;
  std::string family, dispatch;  // shape-generic tuning (tune_family.h)
  int reps = 12;

  // The conv2d shape from the options (with the batch and kernel under either of their names).
  compiler::ops::Conv2dShape conv(const CLI::App& cmd) const {
    if (cmd.count("--N") && cmd.count("--batch"))
      throw UserError("--N and --batch both give the conv2d batch; give one");
    if (cmd.count("--K") && cmd.count("--kernel"))
      throw UserError("--K and --kernel both give the conv2d kernel size; give one");
    return {cmd.count("--N") ? n : batch, h, w, ic, oc, cmd.count("--K") ? k : kernel, stride, pad};
  }
};

// The options of one kind of task that another would ignore: refused, naming the option.
void check_tune_options(const TuneOpts& o, const CLI::App& cmd) {
  const std::vector<std::string> conv_only = {"--batch", "--H", "--W", "--IC", "--OC", "--kernel",
                                              "--stride", "--pad"};
  const bool onnx = o.what.size() > 5 && o.what.substr(o.what.size() - 5) == ".onnx";
  if (o.what == "dense") {
    forbid(cmd, conv_only, "with conv2d, not dense (dense's shape is --M --N --K)");
    forbid(cmd, {"--layer", "--layers"}, "with conv2d or resnet18, not dense");
  } else if (o.what == "conv2d") {
    forbid(cmd, {"--M"}, "with dense, not conv2d (conv2d's shape is --N --H --W --IC --OC --K)");
    forbid(cmd, {"--layers"}, "with resnet18 (conv2d tunes one shape: --layer C1..C12)");
    if (!o.layer.empty())
      forbid(cmd, {"--H", "--W", "--IC", "--OC", "--K", "--kernel", "--stride", "--pad"},
             "with a shape of your own, not with --layer (the layer fixes the shape)");
  } else if (o.what == "resnet18" || onnx) {
    forbid(cmd, conv_only, "with conv2d (" + o.what + " fixes its layers' shapes)");
    forbid(cmd, {"--M", "--N", "--K", "--layer"},
           "with dense or conv2d (" + o.what + " fixes its layers' shapes)");
    if (onnx) forbid(cmd, {"--layers"}, "with resnet18, not a model");
  }
  if (o.target != "llvm") forbid(cmd, {"--dtype"}, "with --target llvm (the accelerator is int8)");
  if (o.target == "llvm") forbid(cmd, {"--config", "--platform"}, "with --target accel");
  if (o.family.empty()) forbid(cmd, {"--reps", "--dispatch"}, "with --family");
}

// A CPU workload carries its element type (the records of float32 and int8 differ).
compiler::tune::Workload cpu_workload(compiler::tune::Workload w, const TuneOpts& o) {
  if (o.dtype != "float32" && o.dtype != "int8")
    throw UserError("--dtype: '" + o.dtype + "' is not float32 or int8");
  w.shape["dtype"] = o.dtype;
  return w;
}

std::vector<rt::tune::Task> make_tasks(const TuneOpts& o, CLI::App* cmd) {
  namespace tn = rt::tune;
  std::vector<tn::Task> tasks;
  if (o.target != "accel" && o.target != "llvm")
    throw UserError("--target: '" + o.target + "' is not accel or llvm");
  if (o.what == "dense") {
    const compiler::ops::DenseShape s{o.m, o.n, o.k};
    if (o.target == "llvm") {
      tasks.push_back(tn::make_cpu_task(cpu_workload(tn::dense_workload(s), o), "dense"));
    } else {
      tasks.push_back(tn::make_accel_dense_task("dense", o.config, o.platform, s));
    }
  } else if (o.what == "conv2d") {
    compiler::ops::Conv2dShape s = o.conv(*cmd);
    std::string name = "conv2d";
    if (!o.layer.empty()) {
      bool found = false;
      for (const auto& l : rt::resnet18_layers())
        if (l.name == o.layer) {
          const int64_t batch = s.n;
          s = l.shape;
          s.n = batch;
          name = l.name;
          found = true;
        }
      if (!found) throw UserError("--layer: '" + o.layer + "' is not a ResNet-18 layer C1..C12");
      if (o.target == "accel" && cmd->count("--batch") + cmd->count("--N") == 0)
        s.n = isa::layout_for(o.config).config.batch();
    }
    if (o.target == "llvm") {
      tasks.push_back(tn::make_cpu_task(cpu_workload(tn::conv2d_workload(s), o), name));
    } else {
      tasks.push_back(tn::make_accel_conv2d_task(name, o.config, o.platform, s));
    }
  } else if (o.what == "resnet18") {
    if (o.target == "llvm") {
      for (const auto& l : rt::resnet18_layers())
        tasks.push_back(tn::make_cpu_task(cpu_workload(tn::conv2d_workload(l.shape), o), l.name));
    } else {
      tasks = tn::make_accel_resnet18_tasks(o.config, o.platform);
    }
    if (cmd->count("--layers")) {
      std::vector<tn::Task> keep;
      std::stringstream in(o.layers);
      std::string item;
      while (std::getline(in, item, ',')) {
        if (item.empty())
          throw UserError("--layers '" + o.layers + "' has an empty name (give C1,C5,...)");
        bool found = false;
        for (const auto& t : tasks)
          if (t.name == item) {
            keep.push_back(t);
            found = true;
          }
        if (!found) throw UserError("--layers: '" + item + "' is not a ResNet-18 layer C1..C12");
      }
      if (keep.empty()) throw UserError("--layers '" + o.layers + "' names no layer (give C1,C5,...)");
      tasks = std::move(keep);
    }
  } else if (o.what.size() > 5 && o.what.substr(o.what.size() - 5) == ".onnx") {
#ifdef WEFT_HAVE_ONNX_RUN
    // Each distinct conv2d/dense shape is a task weighted by its work times its count.
    if (o.target == "llvm") cpu_workload({}, o);  // the dtype's check
    tasks = rt::graph::onnx_tune_tasks(o.what, o.target, o.config, o.platform, o.dtype);
#else
    throw UserError("tune " + o.what + ": this weft was built without ONNX import (install "
                    "libonnx-dev and reconfigure)");
#endif
  } else {
    throw UserError("tune: '" + o.what + "' is not dense, conv2d or resnet18");
  }
  return tasks;
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOpts>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Search schedules automatically (docs/tuning.md): sample schedules as traces of random\n"
      "decisions, measure them (the cycle model on the accelerator), keep every trial in a\n"
      "JSON-lines database that `weft run` reads, and print a JSON summary per task (trials,\n"
      "best, the best trace and the best value after each trial). Strategies: random,\n"
      "evolutionary (seeded with the analytic chooser's picks), model (an XGBoost ranker picks\n"
      "what to measure). The same --seed gives the same trials and best at any --workers or MPI\n"
      "rank count. Run `mpirun -np N weft tune ...` (as root add --allow-run-as-root) to\n"
      "measure on N ranks (rank 0 also coordinates, on a thread of its own).");
  cmd->add_option("what", o->what, "dense, conv2d, resnet18, or MODEL.onnx (its conv2d/dense layers, weighted by their share)")
      ->required();
  cmd->add_option("--dtype", o->dtype, "llvm: float32 or int8 (int8 inputs, int32 outputs)")
      ->capture_default_str();
  cmd->add_option("--target", o->target, "accel (the cycle model) or llvm (the host CPU)")
      ->capture_default_str();
  cmd->add_option("--config", o->config, "accel: hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd->add_option("--platform", o->platform, "accel: memory platform")->capture_default_str();
  cmd->add_option("--trials", o->trials, "measured trials over all tasks")->capture_default_str();
  cmd->add_option("--strategy", o->strategy, "random, evolutionary or model")
      ->capture_default_str();
  cmd->add_option("--db", o->db, "tuning database (JSON lines; created, or resumed)");
  cmd->add_option("--seed", o->seed, "random seed")->capture_default_str();
  cmd->add_option("--per-round", o->per_round,
                  "candidates measured per round (was --batch, which now means the conv2d "
                  "batch as in weft run)")
      ->capture_default_str();
  cmd->add_option("--population", o->population, "model: candidates scored per round; --family: micro-kernels ranked")
      ->capture_default_str();
  cmd->add_option("--workers", o->workers,
                  "measuring threads (without mpirun; under mpirun each rank measures on one)")
      ->capture_default_str();
  cmd->add_option("--early-stop", o->early_stop,
                  "skip a candidate whose lower bound exceeds this times the best")
      ->capture_default_str();
  cmd->add_option("--summary", o->summary, "write the JSON summary here instead of stdout");
  cmd->add_option("--layers", o->layers, "resnet18: only these layers (C1,C5,...)");
  cmd->add_option("--layer", o->layer, "conv2d: a ResNet-18 layer's shape (C1..C12)");
  cmd->add_option("--M", o->m, "dense: rows")->capture_default_str();
  cmd->add_option("--N", o->n, "dense: output columns; conv2d: the batch (as --batch)")
      ->capture_default_str();
  cmd->add_option("--K", o->k, "dense: the reduction; conv2d: the kernel size (as --kernel)")
      ->capture_default_str();
  cmd->add_option("--batch", o->batch,
                  "conv2d: the batch (default with --layer on accel: the GEMM batch)")
      ->capture_default_str();
  cmd->add_option("--H", o->h, "conv2d: input height")->capture_default_str();
  cmd->add_option("--W", o->w, "conv2d: input width")->capture_default_str();
  cmd->add_option("--IC,--C", o->ic, "conv2d: input channels")->capture_default_str();
  cmd->add_option("--OC,--O", o->oc, "conv2d: output channels")->capture_default_str();
  cmd->add_option("--kernel", o->kernel, "conv2d: kernel size")->capture_default_str();
  cmd->add_option("--stride", o->stride, "conv2d: stride")->capture_default_str();
  cmd->add_option("--pad", o->pad, "conv2d: padding")->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "no progress lines");
  cmd->add_option("--family", o->family,
                  "shape-generic: tune a family once, M=LO:HI (dense) or HW=LO:HI (conv2d), and "
                  "write a dispatch table (DB.dispatch.json) that `weft run --tune-db DB` uses");
  cmd->add_option("--reps", o->reps, "--family: home shapes, the ends and geometric points between")
      ->capture_default_str();
  cmd->add_option("--dispatch", o->dispatch, "--family: write the dispatch table here");
  cmd->callback([o, cmd] {
    namespace tn = rt::tune;
    if (o->trials < 1)
      throw UserError("--trials must be at least 1 (got " + std::to_string(o->trials) + ")");
    check_tune_options(*o, *cmd);
    if (o->per_round < 1) throw UserError("--per-round must be at least 1");
    // Where the results go, checked before any measuring.
    if (!o->db.empty()) tn::Database::check_writable(o->db, "--db");
    if (!o->summary.empty()) rt::check_output_file(o->summary, "--summary");
    if (!o->dispatch.empty()) rt::check_output_file(o->dispatch, "--dispatch");
    if (o->workers < 1) throw UserError("--workers must be at least 1");
    if (o->early_stop < 1) throw UserError("--early-stop must be at least 1");
    // MPI: every rank builds the same tasks; rank 0 searches and measures, the others measure.
    tn::MpiSession mpi("tune", "--workers N");
    if (mpi.active() && o->workers != 1)
      throw UserError("--workers: under mpirun every rank measures on one thread (rank 0 "
                      "beside its coordinating thread); start more ranks (mpirun -np N) "
                      "instead of --workers " + std::to_string(o->workers));
    if (!o->family.empty()) {
      if (mpi.size() > 1)
        throw UserError("--family does not run distributed over MPI ranks (each rank would "
                        "tune the family alone); run it without mpirun, or with -np 1");
      TuneFamilyRequest r;
      r.op = o->what;
      r.spec = o->family;
      r.target = o->target;
      r.config = o->config;
      r.platform = o->platform;
      r.db = o->db;
      r.dispatch = o->dispatch;
      r.summary = o->summary;
      r.dense = {o->m, o->n, o->k};
      r.conv = o->conv(*cmd);
      r.opts.trials = o->trials;
      r.opts.reps = o->reps;
      r.opts.pool = o->population;  // candidate micro-kernels ranked before measuring
      r.opts.seed = o->seed;
      r.opts.workers = o->workers;
      r.quiet = o->quiet;
      run_tune_family(r);
      return;
    }
    tn::SearchOptions so;
    so.strategy = tn::parse_strategy(o->strategy);
    so.trials = o->trials;
    so.seed = o->seed;
    so.batch = o->per_round;
    so.population = o->population;
    so.early_stop = o->early_stop;
    if (so.strategy == tn::Strategy::kModel && !compiler::tune::xgboost_available())
      throw UserError("--strategy model needs the XGBoost cost model, and this build has no "
                      "XGBoost (install libxgboost-dev and reconfigure)");
    const std::vector<tn::Task> tasks = make_tasks(*o, cmd);
    if (mpi.active() && !mpi.coordinator()) {
      tn::mpi_worker_loop(mpi, tasks);
      return;
    }
    tn::Database db(o->db);  // a corrupt file stops here, untouched
    std::unique_ptr<tn::Runner> runner;
    if (mpi.active())
      runner = tn::make_mpi_runner(mpi, tasks);
    else
      runner = std::make_unique<tn::ThreadRunner>(o->workers);
    auto progress = [&](size_t, const tn::TaskResult&, const std::string& line) {
      if (!o->quiet) std::cerr << line << std::endl;
      db.commit();
    };
    std::vector<tn::TaskResult> results;
    try {
      results = tn::tune(tasks, so, *runner, o->db.empty() ? nullptr : &db, progress);
    } catch (...) {
      if (mpi.active()) tn::mpi_stop_workers(mpi);
      throw;
    }
    if (mpi.active()) tn::mpi_stop_workers(mpi);
    db.commit();
    const std::string text = tn::tune_summary(so, *runner, o->db, results).dump(2) + "\n";
    if (o->summary.empty())
      std::cout << text;
    else
      rt::write_text_file(o->summary, text);
  });
}

}  // namespace weft::cli
