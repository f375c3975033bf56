// The accumulator buffer: DEPTH elements of BATCH x BLOCK_OUT int32 lanes. Written by the
// compute module's read DMA (LOAD ACC: whole elements or beat slices; LOAD ACC_8BIT: int8
// lanes sign-extended), by that DMA's padding filler, and by the GEMM/ALU write-back; read
// asynchronously by the GEMM/ALU operand stage (dst and src) and by the store module (NST
// lanes). The DMA and the write-back never write in the same cycle: a compute LOAD starts only
// once the pipeline has drained.
module weft_acc_buffer
#(
  parameter int unsigned NST = 1
) (
  input  logic                        clk_i,
  input  logic                        wr_valid_i,
  input  logic                        wr_acc8_i,  // the DMA moves ACC_8BIT elements
  input  logic [weft_rtl_pkg::IDX_W-1:0]            wr_idx_i,
  input  logic [weft_rtl_pkg::LANES-1:0]            wr_mask_i,
  input  logic [7:0]                  wr_slice_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0]         wr_data_i,
  input  logic                        pad_valid_i,
  input  logic [weft_rtl_pkg::IDX_W-1:0]            pad_idx_i,
  input  logic [weft_rtl_pkg::LANES-1:0]            pad_mask_i,
  input  logic                        wb_valid_i,
  input  logic [weft_rtl_pkg::IDX_W-1:0]            wb_idx_i,
  input  logic [weft_pkg::ACC_ELEM_BYTES*8-1:0] wb_data_i,
  input  logic [weft_rtl_pkg::IDX_W-1:0]            dst_idx_i,
  output logic [weft_pkg::ACC_ELEM_BYTES*8-1:0] dst_data_o,
  input  logic [weft_rtl_pkg::IDX_W-1:0]            src_idx_i,
  output logic [weft_pkg::ACC_ELEM_BYTES*8-1:0] src_data_o,
  input  logic [NST*weft_rtl_pkg::IDX_W-1:0]        st_idx_i,
  output logic [NST*weft_pkg::ACC_ELEM_BYTES*8-1:0] st_data_o
);
  localparam int unsigned EW = weft_pkg::ACC_ELEM_BYTES * 8;
  localparam int unsigned LD = $clog2(weft_pkg::ACC_DEPTH);
  localparam int unsigned NL = (weft_pkg::ACC_ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES) ? 1 : weft_rtl_pkg::BUS_BYTES / weft_pkg::ACC_ELEM_BYTES;
  localparam int unsigned E8 = weft_pkg::BATCH * weft_pkg::BLOCK_OUT;  // bytes of an ACC_8BIT element
  localparam int unsigned NL8 = (E8 >= weft_rtl_pkg::BUS_BYTES) ? 1 : weft_rtl_pkg::BUS_BYTES / E8;

  logic [EW-1:0] mem_q [weft_pkg::ACC_DEPTH];

  // A beat of int8 lanes widened to int32 lanes.
  function automatic logic [4*weft_rtl_pkg::BUS_BITS-1:0] widen(logic [weft_rtl_pkg::BUS_BITS-1:0] d);
    logic [4*weft_rtl_pkg::BUS_BITS-1:0] w;
    for (int unsigned i = 0; i < weft_rtl_pkg::BUS_BYTES; i++) w[i*32 +: 32] = 32'(signed'(d[i*8 +: 8]));
    widen = w;
  endfunction

  logic [4*weft_rtl_pkg::BUS_BITS-1:0] wide;
  assign wide = widen(wr_data_i);

  // The write ports of the array (a RAM: no reset). Elements at least a beat wide are written
  // by beat-wide slices, narrower ones by lanes; ACC_8BIT data is widened first. Every shipped
  // configuration has accumulator elements of at least a beat.
  localparam int unsigned SW = (weft_pkg::ACC_ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES) ?
                               $clog2(weft_pkg::ACC_ELEM_BYTES / weft_rtl_pkg::BUS_BYTES + 1) : 1;
  if (weft_pkg::ACC_ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES && E8 >= weft_rtl_pkg::BUS_BYTES) begin : g_wide_wide
    always_ff @(posedge clk_i) begin
      if (wr_valid_i && !wr_acc8_i && wr_mask_i[0])
        mem_q[LD'(wr_idx_i)][wr_slice_i[SW-1:0]*weft_rtl_pkg::BUS_BITS +: weft_rtl_pkg::BUS_BITS] <= wr_data_i;
      if (wr_valid_i && wr_acc8_i && wr_mask_i[0])
        mem_q[LD'(wr_idx_i)][wr_slice_i[SW-1:0]*4*weft_rtl_pkg::BUS_BITS +: 4*weft_rtl_pkg::BUS_BITS] <= wide;
      for (int unsigned l = 0; l < weft_rtl_pkg::LANES; l++)
        if (pad_valid_i && pad_mask_i[l]) mem_q[LD'(pad_idx_i + l)] <= '0;
      if (wb_valid_i) mem_q[LD'(wb_idx_i)] <= wb_data_i;
    end
  end else if (weft_pkg::ACC_ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES) begin : g_wide_narrow
    always_ff @(posedge clk_i) begin
      if (wr_valid_i && !wr_acc8_i && wr_mask_i[0])
        mem_q[LD'(wr_idx_i)][wr_slice_i[SW-1:0]*weft_rtl_pkg::BUS_BITS +: weft_rtl_pkg::BUS_BITS] <= wr_data_i;
      for (int unsigned l = 0; l < NL8; l++)
        if (wr_valid_i && wr_acc8_i && wr_mask_i[l]) mem_q[LD'(wr_idx_i + l)] <= wide[l*EW +: EW];
      for (int unsigned l = 0; l < weft_rtl_pkg::LANES; l++)
        if (pad_valid_i && pad_mask_i[l]) mem_q[LD'(pad_idx_i + l)] <= '0;
      if (wb_valid_i) mem_q[LD'(wb_idx_i)] <= wb_data_i;
    end
  end else begin : g_narrow
    always_ff @(posedge clk_i) begin
      for (int unsigned l = 0; l < NL; l++)
        if (wr_valid_i && !wr_acc8_i && wr_mask_i[l])
          mem_q[LD'(wr_idx_i + l)] <= wr_data_i[l*EW +: EW];
      for (int unsigned l = 0; l < NL8; l++)
        if (wr_valid_i && wr_acc8_i && wr_mask_i[l]) mem_q[LD'(wr_idx_i + l)] <= wide[l*EW +: EW];
      for (int unsigned l = 0; l < weft_rtl_pkg::LANES; l++)
        if (pad_valid_i && pad_mask_i[l]) mem_q[LD'(pad_idx_i + l)] <= '0;
      if (wb_valid_i) mem_q[LD'(wb_idx_i)] <= wb_data_i;
    end
  end

  logic unused_acc;
  assign unused_acc = ^{wr_slice_i, wr_mask_i, wr_idx_i, pad_idx_i, wb_idx_i, dst_idx_i,
                        src_idx_i, st_idx_i};

  // the read ports' address registers (no reset: a RAM's)
  logic [LD-1:0] dst_idx_q, src_idx_q;
  always_ff @(posedge clk_i) begin
    dst_idx_q <= LD'(dst_idx_i);
    src_idx_q <= LD'(src_idx_i);
  end
  assign dst_data_o = mem_q[dst_idx_q];
  assign src_data_o = mem_q[src_idx_q];
  for (genvar p = 0; p < NST; p++) begin : g_st
    logic [LD-1:0] st_idx_q;
    always_ff @(posedge clk_i) st_idx_q <= LD'(st_idx_i[p*weft_rtl_pkg::IDX_W +: weft_rtl_pkg::IDX_W]);
    assign st_data_o[p*EW +: EW] = mem_q[st_idx_q];
  end
endmodule
