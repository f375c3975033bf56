// `weft dse WORKLOAD`: the design-space explorer (docs/codesign.md, "Design-space
// exploration"). Reads the sweep (a file and/or --param flags), checks everything it was
// given before any point runs, measures the points on the thread pool (runtime/dse/dse_run.h)
// with progress on stderr and every point in the results database as it finishes, then prints
// the table and writes the summary JSON and the SVG picture together (all or nothing). Under
// `mpirun` (a build with MPI) rank 0 does all of that and the other ranks measure points too
// (runtime/dse/dse_mpi.h).
#include <chrono>
#include <iostream>
#include <memory>

#include "hardware/cost/energy_table.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/dse/dse_report.h"
#include "runtime/dse/dse_mpi.h"
#include "runtime/dse/dse_run.h"
#include "runtime/dse/dse_svg.h"
#include "runtime/dse/resources.h"
#include "runtime/dse/sweep.h"
#include "runtime/io/files.h"
#include "runtime/tune/database.h"
#include "runtime/tune/mpi_runner.h"

namespace weft::cli {

namespace {

struct DseCliOptions {
  std::string what, sweep_file, base, platform, layers, energy, db, json, svg;
  std::vector<std::string> params;
  int64_t batch = 1;
  size_t search = 1;
  int jobs = 1, synth_timeout = 600;
  bool synth = false, quiet = false;
};

const char* kHelp =
    "Explore the design space: sweep hardware configurations derived from a base one (GEMM\n"
    "shape, buffer sizes, bus width, clock, any configuration or platform field), run the\n"
    "workload on each on the cycle model (schedules from the analytic chooser, or the best of\n"
    "--search N measured per layer), cost it in resources (the arithmetic estimate of\n"
    "`scripts/synth/synth.sh --skip`, or yosys with --synth) and energy (the energy table on\n"
    "the run's counters), and report every point and the Pareto fronts of latency against\n"
    "resources and against energy: a table on stdout, --json (schema weft-dse/1) and --svg.\n"
    "A point whose configuration is not valid (a field that does not fit the encoding,\n"
    "buffers too small) is listed with the reason. --db keeps every measured point (JSON\n"
    "lines); a rerun with the same --db measures only what it lacks, and Ctrl-C leaves it\n"
    "valid. Workloads: resnet18 (the built-in network, --batch), layers (--layers\n"
    "C1,C5,dense:64x64x64) or MODEL.onnx (synthetic input and calibration).\n"
    "The sweep file: {\"base\": \"vta\", \"platform\": \"sim\", \"params\": {\"block_in\": [8, 16],\n"
    "\"clock_mhz\": [200, 300]}, \"points\": [{\"block_in\": 32, \"block_out\": 32}]}: the product\n"
    "of \"params\", then each of \"points\"; --param NAME=V1,V2 adds to it or replaces one.\n"
    "Example:\n"
    "  weft dse resnet18 --base vta --param block_out=8,16,32 --param clock_mhz=200,300 \\\n"
    "      --jobs 2 --db dse.jsonl --json dse.json --svg dse.svg\n"
    "Over MPI (a build with MPI): `mpirun -np N weft dse ...` measures on rank 0's --jobs\n"
    "threads and on ranks 1..N-1 (one point at a time each); rank 0 alone writes.\n"
    "See docs/codesign.md, \"Design-space exploration\".";

}  // namespace

void add_dse_command(CLI::App& app) {
  auto o = std::make_shared<DseCliOptions>();
  CLI::App* cmd = app.add_subcommand("dse", kHelp);
  cmd->add_option("workload", o->what, "resnet18, layers (with --layers) or MODEL.onnx")
      ->required();
  cmd->add_option("--sweep", o->sweep_file, "the sweep file (JSON, above)");
  cmd->add_option("--base", o->base,
                  "the base configuration: gemm8x8, vta, tiny or a configuration file (default: "
                  "the sweep file's \"base\", else vta)");
  cmd->add_option("--platform", o->platform,
                  "the base platform: a shipped name or a platform file (default: the sweep "
                  "file's \"platform\", else sim)");
  cmd->add_option("--param", o->params,
                  "NAME=V1,V2,...: values of a configuration or platform field (repeatable)");
  cmd->add_option("--layers", o->layers, "layers: C1..C12 and dense:MxNxK, comma-separated");
  cmd->add_option("--batch", o->batch, "resnet18 and conv layers: the batch")->capture_default_str();
  cmd->add_option("--search", o->search,
                  "schedules measured per layer shape on each point (1: the analytic choice)")
      ->capture_default_str();
  cmd->add_option("--energy", o->energy, "the energy table: a shipped name or a file");
  cmd->add_flag("--synth", o->synth,
                "resources from yosys (scripts/synth/synth.sh, minutes per point) instead of "
                "the arithmetic estimate");
  cmd->add_option("--synth-timeout", o->synth_timeout, "seconds yosys may take per point")
      ->capture_default_str();
  cmd->add_option("--jobs", o->jobs, "points measured at once (threads)")->capture_default_str();
  cmd->add_option("--db", o->db, "results database (JSON lines; created, or resumed)");
  cmd->add_option("--json", o->json, "write the summary (every point and the fronts) here");
  cmd->add_option("--svg", o->svg, "write the picture of the fronts here");
  cmd->add_flag("--quiet", o->quiet, "no progress lines");
  cmd->callback([o] {
    namespace dse = rt::dse;
    // Everything is checked before the first point runs.
    if (o->jobs < 1) throw UserError("--jobs must be at least 1");
    if (o->synth_timeout < 1) throw UserError("--synth-timeout must be at least 1");
    if (o->synth && !dse::synthesis_available())
      throw UserError("--synth needs the source tree this weft was built from (scripts/synth)");
    dse::Sweep sweep;
    if (!o->sweep_file.empty()) sweep = dse::read_sweep_file(o->sweep_file);
    if (!o->base.empty()) sweep.base = o->base;
    if (!o->platform.empty()) sweep.platform = o->platform;
    for (const auto& p : o->params) dse::add_param(sweep, p);
    const std::vector<dse::PointSpec> points = dse::expand_sweep(sweep);
    dse::DseOptions opts;
    opts.workload = dse::parse_workload(o->what, o->layers, o->batch, o->search);
    opts.energy = o->energy;
    (void)cost::energy_table_for(o->energy);
    opts.synth = o->synth;
    opts.synth_timeout_s = o->synth_timeout;
    opts.jobs = o->jobs;
    opts.db = o->db;
    if (!o->db.empty()) rt::tune::Database::check_writable(o->db, "--db");
    if (!o->json.empty()) rt::check_output_file(o->json, "--json");
    if (!o->svg.empty()) rt::check_output_file(o->svg, "--svg");
    if (!o->json.empty() && o->json == o->svg)
      throw UserError("--json and --svg name the same file '" + o->json + "'");

    rt::tune::MpiSession mpi("dse", "--jobs N");
    if (mpi.active() && !mpi.coordinator()) {
      dse::dse_mpi_worker(mpi, points, opts);
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (!o->quiet)
      std::cerr << "weft dse: " << points.size() << " points of " << sweep.base << " on "
                << opts.workload.key() << ", " << o->jobs << " at once"
                << (mpi.size() > 1 ? " on rank 0 and one on each of " + std::to_string(mpi.size() - 1) +
                                         " more ranks"
                                   : std::string())
                << std::endl;
    const dse::DseRun run = dse::run_dse(
        points, opts,
        [&](const std::string& line) {
          if (!o->quiet) std::cerr << "weft dse: " << line << std::endl;
        },
        mpi.active() ? dse::mpi_group_runner(mpi, points, opts)
                     : dse::thread_group_runner(points, opts));
    const auto summary =
        dse::dse_summary(run.records, opts.workload.key(), sweep.base, sweep.platform, run.measured);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!o->quiet)
      std::cerr << "weft dse: " << run.measured << " points measured in " << seconds << " s"
                << std::endl;
    rt::OutputSet outputs;
    if (!o->json.empty()) outputs.add_text(o->json, summary.dump(2) + "\n");
    if (!o->svg.empty())
      outputs.add_text(o->svg, dse::dse_svg(summary, "weft dse: " + opts.workload.key() +
                                                         " on " + sweep.base + " variants"));
    outputs.commit();
    if (o->json != "-") std::cout << dse::dse_table(summary);
  });
}

}  // namespace weft::cli
