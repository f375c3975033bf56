// JSON and text descriptions of layouts and platforms.
#include "hardware/isa/describe.h"

#include <sstream>

namespace weft::isa {

namespace {
nlohmann::ordered_json format_to_json(const Format& fmt) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const Field& f : fmt.fields) {
    nlohmann::ordered_json jf;
    jf["name"] = f.name;
    jf["lsb"] = f.lsb;
    jf["msb"] = f.msb();
    jf["width"] = f.width;
    if (f.is_signed) jf["signed"] = true;
    fields.push_back(jf);
  }
  nlohmann::ordered_json j;
  j["bits"] = fmt.total_bits;
  j["fields"] = fields;
  return j;
}
}  // namespace

nlohmann::ordered_json layout_to_json(const Layout& l) {
  const HwConfig& c = l.config;
  nlohmann::ordered_json j;
  j["name"] = c.name;
  j["description"] = c.description;
  j["gemm"] = {{"batch", c.batch()},
               {"block_in", c.block_in()},
               {"block_out", c.block_out()},
               {"macs_per_uop", l.macs_per_uop()}};
  j["bits"] = {{"inp", c.inp_bits}, {"wgt", c.wgt_bits}, {"acc", c.acc_bits}, {"out", c.out_bits}};
  j["token_queue_depth"] = c.token_queue_depth;
  j["options"] = option_names(c.options);
  j["microarchitecture"] = {{"cmd_queue_depth", c.cmd_queue_depth},
                            {"fetch_fifo_depth", c.fetch_fifo_depth},
                            {"gemm_pipeline_depth", c.gemm_pipeline_depth},
                            {"alu_pipeline_depth", c.alu_pipeline_depth}};
  struct Buf {
    const char* name;
    uint64_t bytes;
    int elem;
    int64_t depth;
    int log_depth;
  };
  nlohmann::ordered_json bufs;
  for (const Buf& b :
       {Buf{"uop", c.uop_buf_bytes, l.uop_elem_bytes, l.uop_depth, l.log_uop_depth},
        Buf{"inp", c.inp_buf_bytes, l.inp_elem_bytes, l.inp_depth, l.log_inp_depth},
        Buf{"wgt", c.wgt_buf_bytes, l.wgt_elem_bytes, l.wgt_depth, l.log_wgt_depth},
        Buf{"acc", c.acc_buf_bytes, l.acc_elem_bytes, l.acc_depth, l.log_acc_depth}}) {
    bufs[b.name] = {{"bytes", b.bytes},
                    {"elem_bytes", b.elem},
                    {"depth", b.depth},
                    {"log2_depth", b.log_depth}};
  }
  j["buffers"] = bufs;
  nlohmann::ordered_json elems;
  for (int t = 0; t <= 5; ++t) {
    elems[mem_type_name(t)] = l.elem_bytes(static_cast<MemType>(t));
  }
  j["dram_elem_bytes"] = elems;
  j["formats"] = {{"MEM", format_to_json(l.mem)},
                  {"GEMM", format_to_json(l.gemm)},
                  {"ALU", format_to_json(l.alu)},
                  {"FINISH", format_to_json(l.finish)},
                  {"UOP", format_to_json(l.uop)}};
  return j;
}

nlohmann::ordered_json platform_to_json(const Platform& p) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["axi_data_bits"] = p.axi_data_bits;
  j["read_latency"] = p.read_latency;
  j["write_latency"] = p.write_latency;
  j["max_outstanding_reads"] = p.max_outstanding_reads;
  j["max_outstanding_writes"] = p.max_outstanding_writes;
  j["max_burst_beats"] = p.max_burst_beats;
  j["clock_mhz"] = p.clock_mhz;
  return j;
}

std::string layout_to_text(const Layout& l) {
  const HwConfig& c = l.config;
  std::ostringstream os;
  os << c.name << ": " << c.description << "\n";
  os << "  GEMM " << c.batch() << "x" << c.block_in() << "x" << c.block_out() << " ("
     << l.macs_per_uop() << " MAC per micro-op), token queues of depth " << c.token_queue_depth
     << "\n";
  if (!c.options.empty()) {
    os << "  hardware options:";
    for (const std::string& o : option_names(c.options)) os << ' ' << o;
    os << "\n";
  }
  os << "  buffers (bytes / element bytes / depth):\n";
  os << "    uop " << c.uop_buf_bytes << " / " << l.uop_elem_bytes << " / " << l.uop_depth << "\n";
  os << "    inp " << c.inp_buf_bytes << " / " << l.inp_elem_bytes << " / " << l.inp_depth << "\n";
  os << "    wgt " << c.wgt_buf_bytes << " / " << l.wgt_elem_bytes << " / " << l.wgt_depth << "\n";
  os << "    acc " << c.acc_buf_bytes << " / " << l.acc_elem_bytes << " / " << l.acc_depth << "\n";
  for (const Format* fmt : {&l.mem, &l.gemm, &l.alu, &l.finish, &l.uop}) {
    os << "  " << fmt->name << " (" << fmt->total_bits << " bits):";
    for (const Field& f : fmt->fields) {
      os << " " << f.name << "[" << f.msb() << ":" << f.lsb << "]";
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace weft::isa
