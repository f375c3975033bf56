// The store module (docs/microarchitecture.md §Store): STORE OUT reads accumulator elements,
// narrows each int32 lane to its low 8 bits (or, with the store_requant option, shifts and
// clamps it), and writes the rows to DRAM, one beat a cycle from
// the cycle after the start; a burst's address goes with its first beat, which waits for a
// write slot (AWREADY). The STORE completes in the cycle of its last write response; it pops
// compute->store (pop_prev_dep) at the start and pushes store->compute (push_prev_dep) then.
module weft_store
#(
  parameter int unsigned NST = 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          run_i,
  input  logic [63:0]                   dram_base_i,
  input  logic                          cmd_valid_i,
  input  logic [weft_rtl_pkg::CMD_W-1:0]              cmd_i,
  output logic                          cmd_pop_o,
  input  logic                          tok_prev_avail_i,  // compute->store
  output logic                          tok_prev_pop_o,
  output logic                          push_prev_o,       // store->compute
  // accumulator reads
  output logic [NST*weft_rtl_pkg::IDX_W-1:0]          st_idx_o,
  input  logic [NST*weft_pkg::ACC_ELEM_BYTES*8-1:0] st_data_i,
  // AXI write channels
  output logic                          aw_valid_o,
  input  logic                          aw_ready_i,
  output logic [63:0]                   aw_addr_o,
  output logic [7:0]                    aw_len_o,
  output logic                          w_valid_o,
  input  logic                          w_ready_i,
  output logic [weft_rtl_pkg::BUS_BITS-1:0]           w_data_o,
  output logic [weft_rtl_pkg::BUS_BYTES-1:0]          w_strb_o,
  output logic                          w_last_o,
  input  logic                          b_valid_i,
  // status
  output logic                          start_o,
  output logic                          done_o,
  output logic                          busy_o,
  output logic [31:0]                   push_idx_o,  // the instruction pushing this cycle
  output weft_rtl_pkg::cat_e            cat_o
);
  localparam int unsigned OE = weft_pkg::OUT_ELEM_BYTES;
  localparam int unsigned LOE = $clog2(OE);
  localparam int unsigned AE = weft_pkg::ACC_ELEM_BYTES * 8;

  weft_rtl_pkg::mem_insn_t m, insn_q;
  logic        act_q, act_d, sent_q, sent_d;
  logic [7:0]  out_q, out_d;
  logic [15:0] y_q, y_d;
  logic [31:0] j_q, j_d, beats_q, beats_d, left_q, left_d, rsram_q, rsram_d;
  logic [63:0] raddr_q, raddr_d, relem_q, relem_d, base_q;

  function automatic logic [31:0] row_beats(logic [63:0] addr, logic [63:0] nbytes);
    row_beats = 32'(((addr + nbytes - 64'd1) >> weft_rtl_pkg::LOG_BUS) - (addr >> weft_rtl_pkg::LOG_BUS) + 64'd1);
  endfunction

  // The running STORE's requantization (option store_requant; hardware/isa/store_requant.h):
  // its pad fields as one word, bit 0 on, bits 5..1 the shift s, bit 6 a ReLU (lo = 0, else
  // -128), bits 15..8 hi. Without the option a STORE truncates. A lane clips where
  // floor(acc / 2^s) > hi, that is acc >= (hi + 1) << s, or where it is below lo, acc < lo << s:
  // two thresholds per STORE that every lane compares against, so a lane shifts only the 8 bits
  // it keeps. 40 bits hold 128 << 31.
  logic [15:0] rq;
  logic        rq_on;
  logic [4:0]  rq_shift;
  logic [7:0]  rq_lo, rq_hi;
  logic signed [39:0] rq_top, rq_bot;
  assign rq       = {insn_q.x_pad_1, insn_q.x_pad_0, insn_q.y_pad_1, insn_q.y_pad_0};
  assign rq_on    = weft_pkg::OPT_STORE_REQUANT && rq[0];
  assign rq_shift = rq[5:1];
  assign rq_lo    = rq[6] ? 8'h00 : 8'h80;
  assign rq_hi    = rq[15:8];
  assign rq_top   = (40'(signed'(rq_hi)) + 40'sd1) <<< rq_shift;
  assign rq_bot   = 40'(signed'(rq_lo)) <<< rq_shift;

  function automatic logic [7:0] lane(logic [31:0] a);
    logic signed [39:0] w;
    logic [7:0] v;
    w = 40'(signed'(a));
    v = 8'(w >>> rq_shift);
    if (!rq_on) lane = a[7:0];
    else if (w >= rq_top) lane = rq_hi;
    else if (w < rq_bot) lane = rq_lo;
    else lane = v[7:0];
  endfunction

  function automatic logic [OE*8-1:0] narrow(logic [AE-1:0] acc);
    logic [OE*8-1:0] o;
    for (int unsigned i = 0; i < OE; i++) o[i*8 +: 8] = lane(acc[i*32 +: 32]);
    narrow = o;
  endfunction

  weft_rtl_pkg::cmp_insn_t unused_cmp;
  logic [3:0] unused_loge;
  weft_rtl_pkg::cmd_t cmd;
  assign cmd = cmd_i;
  weft_decode u_dec (.insn_i(cmd.insn), .mem_o(m), .cmp_o(unused_cmp),
                     .log_elem_o(unused_loge));
  logic empty_insn;
  assign empty_insn = (m.x_size == 0) || (m.y_size == 0);
  assign start_o = run_i && !act_q && cmd_valid_i && (!m.pop_prev || tok_prev_avail_i);
  assign cmd_pop_o = start_o;
  assign tok_prev_pop_o = start_o && m.pop_prev;
  assign busy_o = act_q;

  // The beat of this cycle and, for a burst's first beat, the burst.
  logic [63:0] beat_addr, row_end, lim, unused_aligned;
  logic [7:0]  unused_len;
  logic        first, send;
  logic [31:0] nb;
  assign beat_addr = (raddr_q & ~weft_rtl_pkg::BUS_LOW) + (64'(j_q) << weft_rtl_pkg::LOG_BUS);
  assign row_end   = raddr_q + (64'(insn_q.x_size) << LOE);
  weft_burst u_burst (.pos_i((j_q == 0) ? raddr_q : beat_addr), .end_i(row_end),
                      .aligned_o(unused_aligned), .limit_o(lim), .len_o(unused_len));
  always_comb begin
    first     = (left_q == 0);
    nb        = first ? 32'((lim - beat_addr + weft_rtl_pkg::BUS_LOW) >> weft_rtl_pkg::LOG_BUS) : left_q;
    aw_valid_o = act_q && !sent_q && first;
    aw_addr_o  = beat_addr;
    aw_len_o   = 8'(nb - 1);
    w_valid_o  = act_q && !sent_q;
    w_last_o   = (nb == 1);
    send       = w_valid_o && w_ready_i && (!first || aw_ready_i);
  end

  logic unused_store;
  assign unused_store = ^{insn_q.op, insn_q.pop_prev, insn_q.pop_next,
                          insn_q.push_prev, insn_q.push_next, insn_q.mem_type, insn_q.sram_base,
                          insn_q.dram_base, rq[7]};

  // Beat data: accumulator elements narrowed to int8.
  if (OE >= weft_rtl_pkg::BUS_BYTES) begin : g_wide
    // one element spans several beats: this beat is one slice of it
    logic [31:0] sl;
    logic [OE*8-1:0] o;
    assign sl = j_q & ((32'd1 << (LOE - weft_rtl_pkg::LOG_BUS)) - 32'd1);
    // the accumulator read port is synchronous: it is given the next cycle's element
    assign st_idx_o = rsram_d + (j_d >> (LOE - weft_rtl_pkg::LOG_BUS));
    assign o  = narrow(st_data_i);
    assign w_data_o = o[sl[$clog2(OE/weft_rtl_pkg::BUS_BYTES+1)-1:0]*weft_rtl_pkg::BUS_BITS +: weft_rtl_pkg::BUS_BITS];
    assign w_strb_o = '1;
    logic unused_sl;
    assign unused_sl = ^{sl};
  end else begin : g_narrow
    // NST elements a beat, strobed where they belong to the row
    for (genvar p = 0; p < NST; p++) begin : g_lane
      logic [63:0] a, off;
      logic in_row;
      assign a   = beat_addr + 64'(p * OE);
      assign off = (a - raddr_q) >> LOE;
      // the accumulator read port is synchronous: it is given the next cycle's element, the
      // same offset computed from the next-state registers
      logic [63:0] a_n, off_n;
      assign a_n   = (raddr_d & ~weft_rtl_pkg::BUS_LOW) + (64'(j_d) << weft_rtl_pkg::LOG_BUS) + 64'(p * OE);
      assign off_n = (a_n - raddr_d) >> LOE;
      assign st_idx_o[p*weft_rtl_pkg::IDX_W +: weft_rtl_pkg::IDX_W] = rsram_d + off_n[31:0];
      logic unused_off;
      assign unused_off = ^{off, off_n[63:32]};
      assign in_row = (a >= raddr_q) && (a < row_end);
      assign w_data_o[p*OE*8 +: OE*8] = in_row ? narrow(st_data_i[p*AE +: AE]) : '0;
      assign w_strb_o[p*OE +: OE] = {OE{in_row}};
    end
  end

  assign done_o = (start_o && empty_insn) || (act_q && sent_q && b_valid_i && out_q == 8'd1);

  always_comb begin
    if (start_o) cat_o = weft_rtl_pkg::CAT_BUSY;
    else if (act_q) cat_o = send ? weft_rtl_pkg::CAT_BUSY : weft_rtl_pkg::CAT_DRAM;
    else if (cmd_valid_i) cat_o = weft_rtl_pkg::CAT_TOKEN;
    else cat_o = weft_rtl_pkg::CAT_NO_CMD;
  end

  always_comb begin
    act_d   = act_q;
    sent_d  = sent_q;
    out_d   = out_q;
    y_d     = y_q;
    j_d     = j_q;
    beats_d = beats_q;
    left_d  = left_q;
    rsram_d = rsram_q;
    raddr_d = raddr_q;
    relem_d = relem_q;
    if (start_o) begin
      act_d   = !empty_insn;
      sent_d  = 1'b0;
      out_d   = '0;
      y_d     = '0;
      j_d     = '0;
      left_d  = '0;
      relem_d = 64'(m.dram_base);
      raddr_d = dram_base_i + (64'(m.dram_base) << LOE);
      rsram_d = m.sram_base;
      beats_d = row_beats(raddr_d, 64'(m.x_size) << LOE);
    end else if (act_q) begin
      if (send) begin
        out_d  = out_q + 8'(first);
        left_d = nb - 1;
        if (j_q + 1 == beats_q) begin
          j_d     = '0;
          y_d     = y_q + 16'd1;
          relem_d = relem_q + 64'(insn_q.x_stride);
          raddr_d = base_q + (relem_d << LOE);
          rsram_d = rsram_q + 32'(insn_q.x_size);
          beats_d = row_beats(raddr_d, 64'(insn_q.x_size) << LOE);
          left_d  = '0;
          if (y_q + 16'd1 == insn_q.y_size) sent_d = 1'b1;
        end else begin
          j_d = j_q + 1;
        end
      end
      if (b_valid_i) out_d = out_d - 8'd1;
      if (done_o) act_d = 1'b0;
    end
  end

  logic push_q;
  logic [31:0] idx_q;
  assign push_idx_o = start_o ? cmd.index : idx_q;
  assign push_prev_o = done_o && (start_o ? m.push_prev : push_q);

  // Control (asynchronous reset): whether a STORE runs and whether all its beats are sent.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_q  <= 1'b0;
      sent_q <= 1'b0;
    end else begin
      act_q  <= act_d;
      sent_q <= sent_d;
    end
  end

  // Payload (no reset): the running STORE's instruction, push and index (latched at its start),
  // its position and outstanding responses (initialised at its start); read only under act_q.
  always_ff @(posedge clk_i) begin
    if (start_o) begin
      insn_q <= m;
      base_q <= dram_base_i;
      push_q <= m.push_prev;
      idx_q  <= cmd.index;
    end
    out_q   <= out_d;
    y_q     <= y_d;
    j_q     <= j_d;
    beats_q <= beats_d;
    left_q  <= left_d;
    rsram_q <= rsram_d;
    raddr_q <= raddr_d;
    relem_q <= relem_d;
  end
endmodule
