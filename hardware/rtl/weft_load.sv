// The load module: runs LOAD INP and LOAD WGT in order. It starts its next instruction when it
// is free, the command is visible and the compute->load token (pop_next_dep) is there; the
// LOAD's push onto load->compute (push_next_dep) happens in the cycle it completes.
module weft_load
(
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                run_i,
  input  logic [63:0]         dram_base_i,
  // command queue head
  input  logic                cmd_valid_i,
  input  logic [weft_rtl_pkg::CMD_W-1:0]    cmd_i,
  output logic                cmd_pop_o,
  // tokens
  input  logic                tok_next_avail_i,  // compute->load
  output logic                tok_next_pop_o,
  output logic                push_next_o,       // load->compute
  // read DMA
  output logic                ar_valid_o,
  output logic [63:0]         ar_addr_o,
  output logic [7:0]          ar_len_o,
  input  logic                ar_grant_i,
  input  logic                r_valid_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0] r_data_i,
  output logic                wr_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    wr_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]    wr_mask_o,
  output logic [7:0]          wr_slice_o,
  output logic [weft_rtl_pkg::BUS_BITS-1:0] wr_data_o,
  output logic [2:0]          wr_type_o,
  output logic                pad_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    pad_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]    pad_mask_o,
  output logic [2:0]          pad_type_o,
  // status
  output logic                start_o,
  output logic                done_o,
  output logic                busy_o,
  output logic [31:0]         push_idx_o,  // the instruction whose push happens this cycle
  output weft_rtl_pkg::cat_e  cat_o
);
  weft_rtl_pkg::mem_insn_t m;
  logic      dma_busy, dma_done, dma_stall, push_q;
  logic [31:0] idx_q;
  logic [2:0] type_q;

  weft_rtl_pkg::cmp_insn_t unused_cmp;
  logic [3:0] loge;
  weft_rtl_pkg::cmd_t cmd;
  assign cmd = cmd_i;
  weft_decode u_dec (.insn_i(cmd.insn), .mem_o(m), .cmp_o(unused_cmp), .log_elem_o(loge));
  assign start_o = run_i && !dma_busy && cmd_valid_i && (!m.pop_next || tok_next_avail_i);
  assign cmd_pop_o = start_o;
  assign tok_next_pop_o = start_o && m.pop_next;
  assign done_o = dma_done;
  assign push_next_o = dma_done && (start_o ? m.push_next : push_q);
  assign busy_o = dma_busy;
  assign pad_type_o = type_q;

  assign push_idx_o = start_o ? cmd.index : idx_q;

  always_comb begin
    if (start_o) cat_o = weft_rtl_pkg::CAT_BUSY;
    else if (dma_busy) cat_o = dma_stall ? weft_rtl_pkg::CAT_DRAM : weft_rtl_pkg::CAT_BUSY;
    else if (cmd_valid_i) cat_o = weft_rtl_pkg::CAT_TOKEN;
    else cat_o = weft_rtl_pkg::CAT_NO_CMD;
  end

  // Payload (no reset): the running LOAD's push, memory type and index, latched at its start
  // and read only while its DMA is busy.
  always_ff @(posedge clk_i) begin
    if (start_o) begin
      push_q <= m.push_next;
      type_q <= m.mem_type;
      idx_q  <= cmd.index;
    end
  end

  weft_read_dma u_dma (
    .clk_i, .rst_ni,
    .start_i(start_o), .insn_i(m), .log_elem_i(loge), .dram_base_i,
    .busy_o(dma_busy), .done_o(dma_done), .stall_o(dma_stall),
    .ar_valid_o, .ar_addr_o, .ar_len_o, .ar_grant_i,
    .r_valid_i, .r_data_i,
    .wr_valid_o, .wr_idx_o, .wr_mask_o, .wr_slice_o, .wr_data_o, .wr_type_o,
    .pad_valid_o, .pad_idx_o, .pad_mask_o
  );
endmodule
