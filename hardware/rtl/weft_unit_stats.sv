// Cycle accounting of one module (docs/microarchitecture.md §Accounting): every running cycle
// is one category. A cycle without a command is `stall_cmd_empty` if the module later starts
// another instruction and `idle` otherwise; the counter of such cycles since the last start
// (`wait_q`) is moved to stall_cmd_empty when an instruction starts, and is the idle count at
// the end.
module weft_unit_stats (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        clear_i,
  input  logic        count_i,  // a cycle of the run
  input  logic        start_i,  // an instruction starts this cycle
  input  weft_rtl_pkg::cat_e cat_i,  // what the module does this cycle
  output logic [63:0] busy_o,
  output logic [63:0] stall_o,  // every stall kind
  output logic [63:0] idle_o,
  output logic [63:0] token_o,
  output logic [63:0] dram_o,
  output logic [63:0] cmd_empty_o,
  output logic [63:0] hazard_o,
  output logic [63:0] drain_o
);
  logic [63:0] c_q [6];
  logic [63:0] c_d [6];
  logic [63:0] wait_q, wait_d, empty_q, empty_d;

  always_comb begin
    for (int unsigned i = 0; i < 6; i++) c_d[i] = c_q[i];
    wait_d  = wait_q;
    empty_d = empty_q;
    if (clear_i) begin
      for (int unsigned i = 0; i < 6; i++) c_d[i] = '0;
      wait_d  = '0;
      empty_d = '0;
    end else if (count_i) begin
      if (start_i) begin
        empty_d = empty_q + wait_q;
        wait_d  = '0;
      end
      if (cat_i == weft_rtl_pkg::CAT_NO_CMD) wait_d = wait_d + 1;
      else c_d[cat_i] = c_q[cat_i] + 1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < 6; i++) c_q[i] <= '0;
      wait_q  <= '0;
      empty_q <= '0;
    end else begin
      for (int unsigned i = 0; i < 6; i++) c_q[i] <= c_d[i];
      wait_q  <= wait_d;
      empty_q <= empty_d;
    end
  end

  assign busy_o      = c_q[weft_rtl_pkg::CAT_BUSY];
  assign token_o     = c_q[weft_rtl_pkg::CAT_TOKEN];
  assign dram_o      = c_q[weft_rtl_pkg::CAT_DRAM];
  assign hazard_o    = c_q[weft_rtl_pkg::CAT_HAZARD];
  assign drain_o     = c_q[weft_rtl_pkg::CAT_DRAIN];
  assign cmd_empty_o = empty_q;
  assign idle_o      = wait_q;
  assign stall_o     = c_q[weft_rtl_pkg::CAT_TOKEN] + c_q[weft_rtl_pkg::CAT_DRAM] + c_q[weft_rtl_pkg::CAT_HAZARD] + c_q[weft_rtl_pkg::CAT_DRAIN] + empty_q;
endmodule
