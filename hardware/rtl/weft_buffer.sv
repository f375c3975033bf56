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
// has its own copy of the banks. The padding filler does not write the data arrays: it marks
// elements zero in a per-element flag that a data write clears and a read honours. The flag
// of an element is the XOR of two one-bit arrays per bank, each with one write port (LUT RAM,
// read asynchronously): `fa`, written by the data port with the current `fb` (flag 0), and
// `fb`, written by the padding port with the inverse of the current `fa` (flag 1). The data and
// padding ports never write the same element in one cycle (a LOAD's padding and data are
// disjoint, and LOADs into a buffer run one after another).
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

  // The padding port of each bank: at most one padded element a cycle lands in a bank.
  logic [NL-1:0] p_en;
  logic [NL*RL-1:0] p_row;
  for (genvar b = 0; b < NL; b++) begin : g_pad
    logic [LB-1:0] l;  // the padding lane that lands in bank b
    logic [LD-1:0] e;
    if (NL == 1) begin : g_one
      assign l = '0;
    end else begin : g_lane
      assign l = LB'(b) - pad_idx_i[LB-1:0];
    end
    assign e = LD'(pad_idx_i + weft_rtl_pkg::IDX_W'(l));
    assign p_en[b] = pad_valid_i && pad_mask_i[$clog2(weft_rtl_pkg::LANES)'(l)];
    assign p_row[b*RL +: RL] = RL'(e >> SH);
  end

  // The read addresses (storage: a RAM's address registers, no reset).
  logic [NRD*LD-1:0] rd_q;
  always_ff @(posedge clk_i) begin
    for (int unsigned p = 0; p < NRD; p++)
      rd_q[p*LD +: LD] <= LD'(rd_idx_i[p*weft_rtl_pkg::IDX_W +: weft_rtl_pkg::IDX_W]);
  end

  // The zero flags (storage, no reset), per bank; zf: each read port's flag in each bank.
  logic [NRD*NL-1:0] zf;
  for (genvar b = 0; b < NL; b++) begin : g_flag
    (* ram_style = "distributed" *) logic fa_q [ROWS];
    (* ram_style = "distributed" *) logic fb_q [ROWS];
    always_ff @(posedge clk_i)
      if (w_en[b]) fa_q[w_row[b*RL +: RL]] <= fb_q[w_row[b*RL +: RL]];
    always_ff @(posedge clk_i)
      if (p_en[b]) fb_q[p_row[b*RL +: RL]] <= !fa_q[p_row[b*RL +: RL]];
    for (genvar p = 0; p < NRD; p++) begin : g_port
      logic [RL-1:0] r;
      assign r = RL'(rd_q[p*LD +: LD] >> SH);
      assign zf[p*NL + b] = fa_q[r] ^ fb_q[r];
    end
  end

  logic unused_buf;
  assign unused_buf = ^{wr_slice_i, wr_mask_i, wr_idx_i, pad_idx_i, pad_mask_i, rd_idx_i};

  for (genvar p = 0; p < NRD; p++) begin : g_rd
    logic [LD-1:0] rd_idx_q;
    assign rd_idx_q = rd_q[p*LD +: LD];
    logic [NL*EW-1:0] bank_rd;
    for (genvar b = 0; b < NL; b++) begin : g_bank
      // Writes go straight to the storage array (a RAM, hence no reset and no _d copy).
      (* ram_style = "block" *) logic [EW-1:0] mem_q [ROWS];
      always_ff @(posedge clk_i)
        for (int unsigned u = 0; u < NS; u++)
          if (w_en[b] && w_units[u]) mem_q[w_row[b*RL +: RL]][u*UW +: UW] <= w_data[b*EW + u*UW +: UW];
      assign bank_rd[b*EW +: EW] = mem_q[rd_idx_q[LD-1:SH]];
    end
    logic [EW-1:0] sel;
    logic zero;
    if (NL == 1) begin : g_one
      assign sel = bank_rd;
      assign zero = zf[p];
    end else begin : g_sel
      assign sel = bank_rd[rd_idx_q[SH-1:0]*EW +: EW];
      assign zero = zf[p*NL + 32'(rd_idx_q[SH-1:0])];
    end
    assign rd_data_o[p*EW +: EW] = zero ? '0 : sel;
  end
endmodule
