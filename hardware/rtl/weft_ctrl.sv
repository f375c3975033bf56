// The AXI4-Lite control slave `s_axi_control` (DESIGN.md §4, hardware/isa/registers.h): the
// ap_ctrl_hs block (ap_start, ap_done clear-on-read, ap_idle, ap_ready), interrupt enables,
// the 64-bit arguments, read-only counters of the last run and the sticky error register. It
// also sequences a run: the cycle that accepts ap_start clears every unit, cycle 0 follows,
// and the run ends after the cycle in which FINISH executes (or an error is raised).
module weft_ctrl (
  input  logic        clk_i,
  input  logic        rst_ni,
  // AXI4-Lite
  input  logic        s_awvalid_i,
  output logic        s_awready_o,
  input  logic [7:0]  s_awaddr_i,
  input  logic        s_wvalid_i,
  output logic        s_wready_o,
  input  logic [31:0] s_wdata_i,
  output logic        s_bvalid_o,
  input  logic        s_bready_i,
  input  logic        s_arvalid_i,
  output logic        s_arready_o,
  input  logic [7:0]  s_araddr_i,
  output logic        s_rvalid_o,
  input  logic        s_rready_i,
  output logic [31:0] s_rdata_o,
  output logic        interrupt_o,
  // run control
  output logic        clear_o,     // the cycle before cycle 0
  output logic        run_o,
  output logic [63:0] now_o,       // cycle of the run
  output logic [63:0] insn_count_o,
  output logic [63:0] insn_addr_o,
  output logic [63:0] dram_base_o,
  input  logic        finish_i,    // FINISH executes this cycle
  input  logic [31:0] err_bits_i,  // errors raised this cycle
  input  logic [31:0] err_insn_i,
  input  logic [6*64-1:0] counters_i  // load busy/stall, compute busy/stall, store busy/stall
);
  logic        run_q, run_d, done_q, done_d, isr_q, isr_d, gie_q, gie_d, ier_q, ier_d;
  logic [63:0] now_q, now_d, cycles_q, cycles_d;
  logic [63:0] count_q, count_d, addr_q, addr_d, base_q, base_d;
  logic [31:0] err_q, err_d, err_insn_q, err_insn_d;
  logic        bvalid_q, bvalid_d, rvalid_q, rvalid_d;
  logic [31:0] rdata_q, rdata_d;
  logic        wr, rd, start;

  assign wr = s_awvalid_i && s_wvalid_i && !bvalid_q;
  assign rd = s_arvalid_i && !rvalid_q;
  assign s_awready_o = wr;
  assign s_wready_o  = wr;
  assign s_arready_o = rd;
  assign s_bvalid_o  = bvalid_q;
  assign s_rvalid_o  = rvalid_q;
  assign s_rdata_o   = rdata_q;
  assign start = wr && (s_awaddr_i == 8'h00) && s_wdata_i[0] && !run_q;

  function automatic logic [31:0] half(logic [63:0] v, logic hi);
    half = hi ? v[63:32] : v[31:0];
  endfunction

  logic [31:0] rvalue;
  always_comb begin
    logic hi;
    hi = s_araddr_i[2];
    unique case (s_araddr_i[7:3])
      5'h00: rvalue = hi ? 32'(gie_q) : {28'd0, !run_q, !run_q, done_q, run_q};
      5'h01: rvalue = hi ? 32'(isr_q) : 32'(ier_q);
      5'h02: rvalue = half(count_q, hi);
      5'h03: rvalue = half(addr_q, hi);
      5'h04: rvalue = half(base_q, hi);
      5'h05: rvalue = half(cycles_q, hi);
      5'h06: rvalue = half(counters_i[0*64 +: 64], hi);
      5'h07: rvalue = half(counters_i[1*64 +: 64], hi);
      5'h08: rvalue = half(counters_i[2*64 +: 64], hi);
      5'h09: rvalue = half(counters_i[3*64 +: 64], hi);
      5'h0A: rvalue = half(counters_i[4*64 +: 64], hi);
      5'h0B: rvalue = half(counters_i[5*64 +: 64], hi);
      5'h0C: rvalue = hi ? err_insn_q : err_q;
      default: rvalue = '0;
    endcase
    // 0x00 bit 0 reads ap_start (high while running), bit 3 ap_ready (with done)
    if (s_araddr_i == 8'h00) rvalue[3] = done_q;
  end

  always_comb begin
    run_d = run_q; done_d = done_q; isr_d = isr_q; gie_d = gie_q; ier_d = ier_q;
    now_d = now_q; cycles_d = cycles_q;
    count_d = count_q; addr_d = addr_q; base_d = base_q;
    err_d = err_q; err_insn_d = err_insn_q;
    bvalid_d = bvalid_q; rvalid_d = rvalid_q; rdata_d = rdata_q;
    if (bvalid_q && s_bready_i) bvalid_d = 1'b0;
    if (rvalid_q && s_rready_i) rvalid_d = 1'b0;
    if (wr) begin
      bvalid_d = 1'b1;
      if (!run_q) begin
        unique case (s_awaddr_i)
          8'h04: gie_d = s_wdata_i[0];
          8'h08: ier_d = s_wdata_i[0];
          8'h10: count_d[31:0] = s_wdata_i;
          8'h14: count_d[63:32] = s_wdata_i;
          8'h18: addr_d[31:0] = s_wdata_i;
          8'h1C: addr_d[63:32] = s_wdata_i;
          8'h20: base_d[31:0] = s_wdata_i;
          8'h24: base_d[63:32] = s_wdata_i;
          default: ;
        endcase
      end
      if (s_awaddr_i == 8'h0C) isr_d = isr_q & !s_wdata_i[0];  // toggle-on-write clears
    end
    if (rd) begin
      rvalid_d = 1'b1;
      rdata_d = rvalue;
      if (s_araddr_i == 8'h00) done_d = 1'b0;  // ap_done clears on read
    end
    if (start) begin
      run_d = 1'b1;
      done_d = 1'b0;
      now_d = '0;
      cycles_d = '0;
      err_d = '0;
      err_insn_d = '0;
    end
    if (run_q) begin
      now_d = now_q + 64'd1;
      cycles_d = now_q + 64'd1;
      if (err_bits_i != 0 && err_q == 0) err_insn_d = err_insn_i;
      err_d = err_q | err_bits_i;
      if (finish_i || err_bits_i != 0) begin
        run_d = 1'b0;
        done_d = 1'b1;
        isr_d = isr_q | ier_q;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0; done_q <= 1'b0; isr_q <= 1'b0; gie_q <= 1'b0; ier_q <= 1'b0;
      now_q <= '0; cycles_q <= '0; count_q <= '0; addr_q <= '0; base_q <= '0;
      err_q <= '0; err_insn_q <= '0; bvalid_q <= 1'b0; rvalid_q <= 1'b0; rdata_q <= '0;
    end else begin
      run_q <= run_d; done_q <= done_d; isr_q <= isr_d; gie_q <= gie_d; ier_q <= ier_d;
      now_q <= now_d; cycles_q <= cycles_d; count_q <= count_d; addr_q <= addr_d;
      base_q <= base_d; err_q <= err_d; err_insn_q <= err_insn_d;
      bvalid_q <= bvalid_d; rvalid_q <= rvalid_d; rdata_q <= rdata_d;
    end
  end

  assign clear_o      = start;
  assign run_o        = run_q;
  assign now_o        = now_q;
  assign insn_count_o = count_q;
  assign insn_addr_o  = addr_q;
  assign dram_base_o  = base_q;
  assign interrupt_o  = gie_q && isr_q;
endmodule
