// An on-chip buffer (UOP, INP or WGT) of DEPTH elements of ELEM_BYTES bytes: written by a read
// DMA (whole elements by lanes, or one beat-wide slice of an element wider than a beat) and by
// the DMA's padding filler (zero elements), read by NRD synchronous ports. Indices wrap at
// DEPTH; the program checks keep them in range.
// Each read port registers its index: rd_idx_i is the element read in the NEXT cycle, and
// rd_data_o holds it then, with every write of this cycle already in it (a write-first,
// transparent read). That is the block-RAM read port vendor tools infer (a registered
// address), and it costs no cycle: the readers present the index a cycle early, from the
// next-state values of the registers that used to address the array asynchronously.
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
  localparam int unsigned EW = ELEM_BYTES * 8;
  localparam int unsigned LD = $clog2(DEPTH);
  localparam int unsigned NL = (ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES) ? 1 : weft_rtl_pkg::BUS_BYTES / ELEM_BYTES;

  logic [EW-1:0] mem_q [DEPTH];

  // Writes go straight to the storage array (a RAM, hence no reset and no _d copy).
  if (ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES) begin : g_wide
    localparam int unsigned SW = $clog2(ELEM_BYTES / weft_rtl_pkg::BUS_BYTES + 1);
    always_ff @(posedge clk_i) begin
      if (pad_valid_i && pad_mask_i[0]) mem_q[LD'(pad_idx_i)] <= '0;
      if (wr_valid_i && wr_mask_i[0]) mem_q[LD'(wr_idx_i)][wr_slice_i[SW-1:0]*weft_rtl_pkg::BUS_BITS +: weft_rtl_pkg::BUS_BITS] <= wr_data_i;
    end
  end else begin : g_narrow
    always_ff @(posedge clk_i) begin
      for (int unsigned l = 0; l < NL; l++) begin
        if (pad_valid_i && pad_mask_i[l]) mem_q[LD'(pad_idx_i + l)] <= '0;
        if (wr_valid_i && wr_mask_i[l]) mem_q[LD'(wr_idx_i + l)] <= wr_data_i[l*EW +: EW];
      end
    end
  end

  logic unused_buf;
  assign unused_buf = ^{wr_slice_i, wr_mask_i, wr_idx_i, pad_idx_i, pad_mask_i, rd_idx_i};

  for (genvar p = 0; p < NRD; p++) begin : g_rd
    logic [LD-1:0] rd_idx_q;  // no reset: a RAM's address register
    always_ff @(posedge clk_i) rd_idx_q <= LD'(rd_idx_i[p*weft_rtl_pkg::IDX_W +: weft_rtl_pkg::IDX_W]);
    assign rd_data_o[p*EW +: EW] = mem_q[rd_idx_q];
  end
endmodule
