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
  assign start = wr && (s_awaddr_i == weft_pkg::REG_CONTROL) && s_wdata_i[0] && !run_q;

  function automatic logic [31:0] half(logic [63:0] v, logic hi);
    half = hi ? v[63:32] : v[31:0];
  endfunction
  // The 64-bit slot of a register offset.
  function automatic logic [4:0] slot(logic [7:0] offset);
    slot = 5'(offset >> 3);
  endfunction

  logic [31:0] rvalue;
  always_comb begin
    logic hi;
    hi = s_araddr_i[2];
    // 64-bit slots: CONTROL|GLOBAL_INT_ENABLE, IP_INT_ENABLE|IP_INT_STATUS, the arguments,
    // the counters, ERROR|ERROR_INSN; `hi` picks the upper 32-bit register of a slot.
    unique case (slot(s_araddr_i))
      slot(weft_pkg::REG_CONTROL): rvalue = hi ? 32'(gie_q) : {28'd0, !run_q, !run_q, done_q, run_q};
      slot(weft_pkg::REG_IP_INT_ENABLE): rvalue = hi ? 32'(isr_q) : 32'(ier_q);
      slot(weft_pkg::REG_INSN_COUNT): rvalue = half(count_q, hi);
      slot(weft_pkg::REG_INSN_ADDR): rvalue = half(addr_q, hi);
      slot(weft_pkg::REG_DRAM_BASE): rvalue = half(base_q, hi);
      slot(weft_pkg::REG_CYCLES): rvalue = half(cycles_q, hi);
      slot(weft_pkg::REG_LOAD_BUSY): rvalue = half(counters_i[0*64 +: 64], hi);
      slot(weft_pkg::REG_LOAD_STALL): rvalue = half(counters_i[1*64 +: 64], hi);
      slot(weft_pkg::REG_COMPUTE_BUSY): rvalue = half(counters_i[2*64 +: 64], hi);
      slot(weft_pkg::REG_COMPUTE_STALL): rvalue = half(counters_i[3*64 +: 64], hi);
      slot(weft_pkg::REG_STORE_BUSY): rvalue = half(counters_i[4*64 +: 64], hi);
      slot(weft_pkg::REG_STORE_STALL): rvalue = half(counters_i[5*64 +: 64], hi);
      slot(weft_pkg::REG_ERROR): rvalue = hi ? err_insn_q : err_q;
      default: rvalue = '0;
    endcase
    // CONTROL bit 0 reads ap_start (high while running), bit 3 ap_ready (with done)
    if (s_araddr_i == weft_pkg::REG_CONTROL) rvalue[3] = done_q;
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
          weft_pkg::REG_GLOBAL_INT_ENABLE: gie_d = s_wdata_i[0];
          weft_pkg::REG_IP_INT_ENABLE: ier_d = s_wdata_i[0];
          weft_pkg::REG_INSN_COUNT: count_d[31:0] = s_wdata_i;
          weft_pkg::REG_INSN_COUNT + 8'd4: count_d[63:32] = s_wdata_i;
          weft_pkg::REG_INSN_ADDR: addr_d[31:0] = s_wdata_i;
          weft_pkg::REG_INSN_ADDR + 8'd4: addr_d[63:32] = s_wdata_i;
          weft_pkg::REG_DRAM_BASE: base_d[31:0] = s_wdata_i;
          weft_pkg::REG_DRAM_BASE + 8'd4: base_d[63:32] = s_wdata_i;
          default: ;
        endcase
      end
      // toggle-on-write clears
      if (s_awaddr_i == weft_pkg::REG_IP_INT_STATUS) isr_d = isr_q & !s_wdata_i[0];
    end
    if (rd) begin
      rvalid_d = 1'b1;
      rdata_d = rvalue;
      if (s_araddr_i == weft_pkg::REG_CONTROL) done_d = 1'b0;  // ap_done clears on read
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
