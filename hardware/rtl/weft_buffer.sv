// An on-chip buffer (UOP, INP or WGT) of DEPTH elements of ELEM_BYTES bytes: written by a read
// DMA (whole elements by lanes, or one beat-wide slice of an element wider than a beat) and by
// the DMA's padding filler (zero elements), read by NRD synchronous ports. Indices wrap at
// DEPTH; the program checks keep them in range.
// Each read port registers its index: rd_idx_i is the element read in the NEXT cycle, and
// rd_data_o holds it then, with every write of this cycle already in it (a write-first,
// transparent read). That is the block-RAM read port vendor tools infer (a registered
// address), and it costs no cycle: the readers present the index a cycle early, from the
// next-state values of the registers that used to address the array asynchronously.
// Storage is shaped so that every array has one write port and one read port (a simple
// dual-port block RAM): elements narrower than a beat are banked by index modulo the lanes of
// a beat (lane l of a write lands in a different bank from every other lane); each read port
// has its own copy of the banks; the padding filler does not write the arrays but sets a
// per-element zero flag (flip-flops) that a data write clears and a read honours.
module weft_buffer
#(
  parameter int unsigned ELEM_BYTES = 4,
  parameter int unsigned DEPTH = 256,
  parameter int unsigned NRD = 1
) (
  input  logic                       clk_i,
  input  logic                       wr_valid_i,
  input  logic [weft_rtl_pkg::IDX_W-1:0]           wr_idx_i,
  input  logic [weft_rtl_pkg::LANES-1:0]           wr_mask_i,
  input  logic [7:0]                 wr_slice_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0]        wr_data_i,
  input  logic                       pad_valid_i,
  input  logic [weft_rtl_pkg::IDX_W-1:0]           pad_idx_i,
  input  logic [weft_rtl_pkg::LANES-1:0]           pad_mask_i,
  input  logic [NRD*weft_rtl_pkg::IDX_W-1:0]       rd_idx_i,
  output logic [NRD*ELEM_BYTES*8-1:0] rd_data_o
);
  localparam int unsigned BB = weft_rtl_pkg::BUS_BITS;
  localparam int unsigned EW = ELEM_BYTES * 8;
  localparam int unsigned LD = $clog2(DEPTH);
  localparam int unsigned NL = (EW >= BB) ? 1 : BB / EW;  // elements per beat = banks
  localparam int unsigned SH = $clog2(NL);                // bank bits of an index
  localparam int unsigned LB = (SH > 0) ? SH : 1;
  localparam int unsigned ROWS = DEPTH / NL;
  localparam int unsigned RL = LD - SH;                   // row bits of an index
  localparam int unsigned UW = (EW >= BB) ? BB : EW;      // width of one write unit (slice)
  localparam int unsigned NS = EW / UW;                   // write units of an element

  // The zero flags of the padding filler (flip-flops, no reset: like the RAM they stand for).
  logic [DEPTH-1:0] zero_q;
  always_ff @(posedge clk_i) begin
    for (int unsigned l = 0; l < NL; l++)
      if (pad_valid_i && pad_mask_i[l]) zero_q[LD'(pad_idx_i + l)] <= 1'b1;
    for (int unsigned l = 0; l < NL; l++)
      if (wr_valid_i && wr_mask_i[l]) zero_q[LD'(wr_idx_i + l)] <= 1'b0;
  end

  // The one write port of each bank: enable, row, data, and which write units it writes.
  logic [NL-1:0] w_en;
  logic [NL*RL-1:0] w_row;
  logic [NL*EW-1:0] w_data;
  logic [NS-1:0] w_units;
  if (NL == 1) begin : g_wide
    assign w_en[0] = wr_valid_i && wr_mask_i[0];
    assign w_row = LD'(wr_idx_i);
    assign w_data = {NS{wr_data_i}};
    for (genvar u = 0; u < NS; u++) begin : g_unit
      assign w_units[u] = (wr_slice_i == 8'(u));
    end
  end else begin : g_narrow
    assign w_units = '1;
    for (genvar b = 0; b < NL; b++) begin : g_lane
      logic [LB-1:0] l;  // the lane of the beat that lands in bank b
      logic [LD-1:0] e;
      assign l = LB'(b) - wr_idx_i[LB-1:0];
      assign e = LD'(wr_idx_i + weft_rtl_pkg::IDX_W'(l));
      assign w_en[b] = wr_valid_i && wr_mask_i[$clog2(weft_rtl_pkg::LANES)'(l)];
      assign w_row[b*RL +: RL] = e[LD-1:SH];
      logic unused_lane;
      assign unused_lane = ^e[SH-1:0];
      assign w_data[b*EW +: EW] = wr_data_i[l*EW +: EW];
    end
  end

  logic unused_buf;
  assign unused_buf = ^{wr_slice_i, wr_mask_i, wr_idx_i, pad_idx_i, pad_mask_i, rd_idx_i};

  for (genvar p = 0; p < NRD; p++) begin : g_rd
    logic [LD-1:0] rd_idx_q;  // no reset: a RAM's address register
    always_ff @(posedge clk_i) rd_idx_q <= LD'(rd_idx_i[p*weft_rtl_pkg::IDX_W +: weft_rtl_pkg::IDX_W]);
    logic [NL*EW-1:0] bank_rd;
    for (genvar b = 0; b < NL; b++) begin : g_bank
      // Writes go straight to the storage array (a RAM, hence no reset and no _d copy).
      logic [EW-1:0] mem_q [ROWS];
      always_ff @(posedge clk_i)
        for (int unsigned u = 0; u < NS; u++)
          if (w_en[b] && w_units[u]) mem_q[w_row[b*RL +: RL]][u*UW +: UW] <= w_data[b*EW + u*UW +: UW];
      assign bank_rd[b*EW +: EW] = mem_q[rd_idx_q[LD-1:SH]];
    end
    logic [EW-1:0] sel;
    if (NL == 1) begin : g_one
      assign sel = bank_rd;
    end else begin : g_sel
      assign sel = bank_rd[rd_idx_q[SH-1:0]*EW +: EW];
    end
    assign rd_data_o[p*EW +: EW] = zero_q[rd_idx_q] ? '0 : sel;
  end
endmodule
