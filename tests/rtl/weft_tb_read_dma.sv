// Unit-test wrapper of weft_read_dma: a raw 128-bit LOAD instruction in, decoded here as the
// load and compute modules do, so the C++ testbench (read_dma_test.cc) needs no struct layout.
module weft_tb_read_dma (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  input  logic                               start_i,
  input  logic [127:0]                       insn_i,
  output logic                               busy_o,
  output logic                               done_o,
  output logic                               stall_o,
  output logic                               ar_valid_o,
  output logic [63:0]                        ar_addr_o,
  output logic [7:0]                         ar_len_o,
  input  logic                               ar_grant_i,
  input  logic                               r_valid_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0]  r_data_i,
  output logic                               wr_valid_o,
  output logic [31:0]                        wr_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]     wr_mask_o,
  output logic [7:0]                         wr_slice_o,
  output logic [weft_rtl_pkg::BUS_BITS-1:0]  wr_data_o,
  output logic [2:0]                         wr_type_o,
  output logic                               pad_valid_o,
  output logic [31:0]                        pad_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]     pad_mask_o
);
  weft_rtl_pkg::mem_insn_t m;
  weft_rtl_pkg::cmp_insn_t unused_cmp;
  logic [3:0] loge;
  weft_decode u_dec (.insn_i, .mem_o(m), .cmp_o(unused_cmp), .log_elem_o(loge));
  weft_read_dma u_dma (
    .clk_i, .rst_ni, .start_i, .insn_i(m), .log_elem_i(loge), .dram_base_i(64'd0),
    .busy_o, .done_o, .stall_o, .ar_valid_o, .ar_addr_o, .ar_len_o, .ar_grant_i,
    .r_valid_i, .r_data_i, .wr_valid_o, .wr_idx_o, .wr_mask_o, .wr_slice_o, .wr_data_o,
    .wr_type_o, .pad_valid_o, .pad_idx_o, .pad_mask_o
  );
endmodule
