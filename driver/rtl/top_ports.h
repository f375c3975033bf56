// The ports of a Verilated weft_top as plain pointers, and the C ABI of an RTL plugin. The
// ports of weft_top do not depend on the configuration (the bus is 128 bits for every one),
// so one harness (rtl_harness.h) drives every model through TopPorts: the models built into
// the binary and the shared libraries `weft rtl build` makes for a configuration file
// (plugin.h). This header is compiled into those libraries too, so it includes nothing but
// <cstdint>; bind_ports checks each pointer's type against the model's at compile time.
#pragma once

#include <cstdint>

namespace weft_rtl_abi {

/// Pointers to every port of weft_top the harness uses (Verilator's types: 8-bit ports are
/// uint8_t, 9..16 uint16_t, 17..32 uint32_t, 33..64 uint64_t, wider ones uint32_t words).
struct TopPorts {
  uint8_t *ap_clk, *ap_rst_n;
  uint8_t *s_axi_control_awvalid, *s_axi_control_awready, *s_axi_control_awaddr;
  uint8_t *s_axi_control_wvalid, *s_axi_control_wready, *s_axi_control_wstrb;
  uint32_t* s_axi_control_wdata;
  uint8_t *s_axi_control_bvalid, *s_axi_control_bready;
  uint8_t *s_axi_control_arvalid, *s_axi_control_arready, *s_axi_control_araddr;
  uint8_t *s_axi_control_rvalid, *s_axi_control_rready;
  uint32_t* s_axi_control_rdata;
  uint8_t *m_axi_gmem_arvalid, *m_axi_gmem_arready, *m_axi_gmem_arlen, *m_axi_gmem_arid;
  uint64_t* m_axi_gmem_araddr;
  uint8_t *m_axi_gmem_rvalid, *m_axi_gmem_rid, *m_axi_gmem_rlast, *m_axi_gmem_rresp;
  uint32_t* m_axi_gmem_rdata;  // 4 words
  uint8_t *m_axi_gmem_awvalid, *m_axi_gmem_awready, *m_axi_gmem_awlen;
  uint64_t* m_axi_gmem_awaddr;
  uint8_t *m_axi_gmem_wvalid, *m_axi_gmem_wready, *m_axi_gmem_wlast;
  uint16_t* m_axi_gmem_wstrb;
  uint32_t* m_axi_gmem_wdata;  // 4 words
  uint8_t *m_axi_gmem_bvalid, *m_axi_gmem_bresp;
  uint8_t *dbg_start_o, *dbg_done_o, *dbg_run_o, *dbg_tok_o, *dbg_fetch_o;
  uint16_t* dbg_cat_o;
  uint32_t* dbg_stats_o;  // 52 words
};

/// The ports of a Verilated weft_top model.
template <class M>
TopPorts bind_ports(M& m) {
  TopPorts p;
  p.ap_clk = &m.ap_clk;
  p.ap_rst_n = &m.ap_rst_n;
  p.s_axi_control_awvalid = &m.s_axi_control_awvalid;
  p.s_axi_control_awready = &m.s_axi_control_awready;
  p.s_axi_control_awaddr = &m.s_axi_control_awaddr;
  p.s_axi_control_wvalid = &m.s_axi_control_wvalid;
  p.s_axi_control_wready = &m.s_axi_control_wready;
  p.s_axi_control_wstrb = &m.s_axi_control_wstrb;
  p.s_axi_control_wdata = &m.s_axi_control_wdata;
  p.s_axi_control_bvalid = &m.s_axi_control_bvalid;
  p.s_axi_control_bready = &m.s_axi_control_bready;
  p.s_axi_control_arvalid = &m.s_axi_control_arvalid;
  p.s_axi_control_arready = &m.s_axi_control_arready;
  p.s_axi_control_araddr = &m.s_axi_control_araddr;
  p.s_axi_control_rvalid = &m.s_axi_control_rvalid;
  p.s_axi_control_rready = &m.s_axi_control_rready;
  p.s_axi_control_rdata = &m.s_axi_control_rdata;
  p.m_axi_gmem_arvalid = &m.m_axi_gmem_arvalid;
  p.m_axi_gmem_arready = &m.m_axi_gmem_arready;
  p.m_axi_gmem_arlen = &m.m_axi_gmem_arlen;
  p.m_axi_gmem_arid = &m.m_axi_gmem_arid;
  p.m_axi_gmem_araddr = &m.m_axi_gmem_araddr;
  p.m_axi_gmem_rvalid = &m.m_axi_gmem_rvalid;
  p.m_axi_gmem_rid = &m.m_axi_gmem_rid;
  p.m_axi_gmem_rlast = &m.m_axi_gmem_rlast;
  p.m_axi_gmem_rresp = &m.m_axi_gmem_rresp;
  p.m_axi_gmem_rdata = m.m_axi_gmem_rdata.data();
  p.m_axi_gmem_awvalid = &m.m_axi_gmem_awvalid;
  p.m_axi_gmem_awready = &m.m_axi_gmem_awready;
  p.m_axi_gmem_awlen = &m.m_axi_gmem_awlen;
  p.m_axi_gmem_awaddr = &m.m_axi_gmem_awaddr;
  p.m_axi_gmem_wvalid = &m.m_axi_gmem_wvalid;
  p.m_axi_gmem_wready = &m.m_axi_gmem_wready;
  p.m_axi_gmem_wlast = &m.m_axi_gmem_wlast;
  p.m_axi_gmem_wstrb = &m.m_axi_gmem_wstrb;
  p.m_axi_gmem_wdata = m.m_axi_gmem_wdata.data();
  p.m_axi_gmem_bvalid = &m.m_axi_gmem_bvalid;
  p.m_axi_gmem_bresp = &m.m_axi_gmem_bresp;
  p.dbg_start_o = &m.dbg_start_o;
  p.dbg_done_o = &m.dbg_done_o;
  p.dbg_run_o = &m.dbg_run_o;
  p.dbg_tok_o = &m.dbg_tok_o;
  p.dbg_fetch_o = &m.dbg_fetch_o;
  p.dbg_cat_o = &m.dbg_cat_o;
  p.dbg_stats_o = m.dbg_stats_o.data();
  return p;
}

/// Bumped whenever TopPorts or WeftRtlPlugin changes: a plugin of another version is rebuilt.
inline constexpr uint32_t kPluginAbiVersion = 1;

extern "C" {
/// What an RTL plugin exports (plugin_shim.cc), through `weft_rtl_plugin()`.
struct WeftRtlPlugin {
  uint32_t abi_version;
  const char* build_key;  // the key it was built for (plugin.h rtl_build_key)
  void* (*create)(void);  // a Verilated weft_top in its own context
  void (*destroy)(void* top);
  void (*ports)(void* top, TopPorts* out);
  void (*eval)(void* top);
  int (*trace_open)(void* top, const char* path);  // 1 when the waveform file is open
  void (*trace_dump)(void* top, uint64_t time);
  void (*trace_close)(void* top);
};
typedef const WeftRtlPlugin* (*WeftRtlPluginEntry)(void);
}

}  // namespace weft_rtl_abi
