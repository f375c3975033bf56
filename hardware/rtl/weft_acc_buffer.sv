// The accumulator buffer: DEPTH elements of BATCH x BLOCK_OUT int32 lanes. Written by the
// compute module's read DMA (LOAD ACC: whole elements or beat slices; LOAD ACC_8BIT: int8
// lanes sign-extended), by that DMA's padding filler, and by the GEMM/ALU write-back; read
// by the GEMM/ALU operand stage (dst and src) and by the store module (NST lanes), each
// through a registered index like weft_buffer's ports (write-first). The DMA and the
// write-back never write in the same cycle: a compute LOAD starts only once the pipeline has
// drained; so the storage has one merged write port (the write-back, else the DMA, with
// beat-slice enables), banked by index modulo the ACC_8BIT elements of a beat when those are
// narrower than a beat, and one copy per read port: every array is a simple dual-port block
// RAM. The padding filler marks elements zero instead of writing zeros: a per-element flag,
// the XOR of two one-bit arrays per bank with one write port each (LUT RAM, as weft_buffer's),
// `fa` written by the merged port with the current `fb`, `fb` by the filler with the inverse
// of the current `fa`; the filler and the merged port never write one element in one cycle.
// Accumulator elements must be at least a beat wide (every shipped configuration's are).
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

  localparam int unsigned BB = weft_rtl_pkg::BUS_BITS;
  localparam int unsigned EW = weft_pkg::ACC_ELEM_BYTES * 8;
  localparam int unsigned LD = $clog2(weft_pkg::ACC_DEPTH);
  localparam int unsigned E8 = weft_pkg::BATCH * weft_pkg::BLOCK_OUT;  // bytes of an ACC_8BIT element
  localparam int unsigned NB = (E8 >= weft_rtl_pkg::BUS_BYTES) ? 1 : weft_rtl_pkg::BUS_BYTES / E8;
  localparam int unsigned SH = $clog2(NB);
  localparam int unsigned LB = (SH > 0) ? SH : 1;
  localparam int unsigned ROWS = weft_pkg::ACC_DEPTH / NB;
  localparam int unsigned RL = LD - SH;
  localparam int unsigned NS = EW / BB;  // beat slices of an element
  localparam int unsigned NRD = 2 + NST; // dst, src, store lanes

  // A beat of int8 lanes widened to int32 lanes.
  function automatic logic [4*BB-1:0] widen(logic [BB-1:0] d);
    logic [4*BB-1:0] w;
    for (int unsigned i = 0; i < weft_rtl_pkg::BUS_BYTES; i++) w[i*32 +: 32] = 32'(signed'(d[i*8 +: 8]));
    widen = w;
  endfunction

  logic [4*BB-1:0] wide;
  assign wide = widen(wr_data_i);

  // The one write port of each bank: enable, row, data and the beat slices it writes.
  logic [NB-1:0] w_en;
  logic [NB*RL-1:0] w_row;
  logic [NB*EW-1:0] w_data;
  logic [NB*NS-1:0] w_units;
  for (genvar b = 0; b < NB; b++) begin : g_wport
    logic [LB-1:0] l;  // the ACC_8BIT lane of the beat that lands in bank b
    logic [LD-1:0] e8, ed, ew;
    logic [NS-1:0] u_dma, u_acc8;
    if (NB == 1) begin : g_one
      assign l = '0;
    end else begin : g_lane
      assign l = LB'(b) - wr_idx_i[LB-1:0];
    end
    assign e8 = LD'(wr_idx_i + weft_rtl_pkg::IDX_W'(l));
    assign ed = LD'(wr_idx_i);
    assign ew = LD'(wb_idx_i);
    for (genvar u = 0; u < NS; u++) begin : g_unit
      assign u_dma[u] = (wr_slice_i == 8'(u));
      if (NB == 1) begin : g_w8
        assign u_acc8[u] = (wr_slice_i == 8'(u / 4));
      end else begin : g_n8
        assign u_acc8[u] = 1'b1;
      end
    end
    logic [EW-1:0] d8;  // the ACC_8BIT data bank b takes
    if (NB == 1) begin : g_d8w
      assign d8 = {(EW / (4 * BB)){wide}};
    end else begin : g_d8n
      assign d8 = wide[l*EW +: EW];
    end
    logic hit_wb, hit_dma, hit_acc8;
    assign hit_wb = wb_valid_i && (NB == 1 || 32'(ew) % NB == 32'(b));
    assign hit_dma = wr_valid_i && !wr_acc8_i && wr_mask_i[0] && (NB == 1 || 32'(ed) % NB == 32'(b));
    assign hit_acc8 = wr_valid_i && wr_acc8_i && wr_mask_i[$clog2(weft_rtl_pkg::LANES)'(l)];
    always_comb begin
      w_en[b] = hit_wb || hit_dma || hit_acc8;
      if (hit_wb) begin
        w_row[b*RL +: RL] = RL'(ew >> SH);
        w_data[b*EW +: EW] = wb_data_i;
        w_units[b*NS +: NS] = '1;
      end else if (hit_acc8) begin
        w_row[b*RL +: RL] = RL'(e8 >> SH);
        w_data[b*EW +: EW] = d8;
        w_units[b*NS +: NS] = u_acc8;
      end else begin
        w_row[b*RL +: RL] = RL'(ed >> SH);
        w_data[b*EW +: EW] = {NS{wr_data_i}};
        w_units[b*NS +: NS] = u_dma;
      end
    end
  end

  logic unused_acc;
  assign unused_acc = ^{wr_slice_i, wr_mask_i, wr_idx_i, pad_idx_i, wb_idx_i, dst_idx_i,
                        src_idx_i, st_idx_i};

  // The padding port of each bank: at most one padded element a cycle lands in a bank (the
  // filler passes at most NB elements a cycle, consecutive ones).
  logic [NB-1:0] p_en;
  logic [NB*RL-1:0] p_row;
  for (genvar b = 0; b < NB; b++) begin : g_pad
    logic [LB-1:0] l;  // the padding lane that lands in bank b
    logic [LD-1:0] e;
    if (NB == 1) begin : g_one
      assign l = '0;
    end else begin : g_lane
      assign l = LB'(b) - pad_idx_i[LB-1:0];
    end
    assign e = LD'(pad_idx_i + weft_rtl_pkg::IDX_W'(l));
    assign p_en[b] = pad_valid_i && pad_mask_i[$clog2(weft_rtl_pkg::LANES)'(l)];
    assign p_row[b*RL +: RL] = RL'(e >> SH);
  end

  // Read port p: 0 dst, 1 src, 2.. store lanes; each with its own copy of the banks. The read
  // addresses are storage (a RAM's address registers, no reset).
  logic [NRD*weft_rtl_pkg::IDX_W-1:0] rd_idx;
  logic [NRD*EW-1:0] rd_data;
  assign rd_idx = {st_idx_i, src_idx_i, dst_idx_i};
  assign dst_data_o = rd_data[0 +: EW];
  assign src_data_o = rd_data[EW +: EW];
  assign st_data_o = rd_data[2*EW +: NST*EW];
  logic [NRD*LD-1:0] rd_q;
  always_ff @(posedge clk_i) begin
    for (int unsigned p = 0; p < NRD; p++)
      rd_q[p*LD +: LD] <= LD'(rd_idx[p*weft_rtl_pkg::IDX_W +: weft_rtl_pkg::IDX_W]);
  end

  // The zero flags (storage, no reset), per bank; zf: each read port's flag in each bank.
  logic [NRD*NB-1:0] zf;
  for (genvar b = 0; b < NB; b++) begin : g_flag
    (* ram_style = "distributed" *) logic fa_q [ROWS];
    (* ram_style = "distributed" *) logic fb_q [ROWS];
    always_ff @(posedge clk_i)
      if (w_en[b]) fa_q[w_row[b*RL +: RL]] <= fb_q[w_row[b*RL +: RL]];
    always_ff @(posedge clk_i)
      if (p_en[b]) fb_q[p_row[b*RL +: RL]] <= !fa_q[p_row[b*RL +: RL]];
    for (genvar p = 0; p < NRD; p++) begin : g_port
      logic [RL-1:0] r;
      assign r = RL'(rd_q[p*LD +: LD] >> SH);
      assign zf[p*NB + b] = fa_q[r] ^ fb_q[r];
    end
  end

  for (genvar p = 0; p < NRD; p++) begin : g_rd
    logic [LD-1:0] rd_idx_q;
    assign rd_idx_q = rd_q[p*LD +: LD];
    logic [NB*EW-1:0] bank_rd;
    for (genvar b = 0; b < NB; b++) begin : g_bank
      (* ram_style = "block" *) logic [EW-1:0] mem_q [ROWS];
      always_ff @(posedge clk_i)
        for (int unsigned u = 0; u < NS; u++)
          if (w_en[b] && w_units[b*NS + u]) mem_q[w_row[b*RL +: RL]][u*BB +: BB] <= w_data[b*EW + u*BB +: BB];
      assign bank_rd[b*EW +: EW] = mem_q[rd_idx_q[LD-1:SH]];
    end
    logic [EW-1:0] sel;
    logic zero;
    if (NB == 1) begin : g_one
      assign sel = bank_rd;
      assign zero = zf[p];
    end else begin : g_sel
      assign sel = bank_rd[rd_idx_q[SH-1:0]*EW +: EW];
      assign zero = zf[p*NB + 32'(rd_idx_q[SH-1:0])];
    end
    assign rd_data[p*EW +: EW] = zero ? '0 : sel;
  end
endmodule
