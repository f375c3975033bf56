// The fetch unit (docs/microarchitecture.md §Fetch): reads the instruction stream in bursts
// while the FIFO has room for the whole burst (counting instructions requested but not yet
// arrived), and dispatches its oldest arrived instruction, one a cycle, into the command queue
// of the module that runs it when that queue has room. Instructions are 16 bytes, one a beat;
// the instruction address is 16-byte aligned (the rtl backend checks it).
module weft_fetch
(
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  input  logic                run_i,
  input  logic [63:0]         insn_addr_i,
  input  logic [31:0]         insn_count_i,
  output logic                ar_valid_o,
  output logic [63:0]         ar_addr_o,
  output logic [7:0]          ar_len_o,
  input  logic                ar_grant_i,
  input  logic                r_valid_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0] r_data_i,
  input  logic [2:0]          q_full_i,   // per module (load, compute, store): command queue full
  output logic                disp_valid_o,
  output logic [1:0]          disp_target_o,
  output logic [weft_rtl_pkg::CMD_W-1:0]    disp_cmd_o,
  output logic                all_dispatched_o,
  output logic                blocked_o   // an arrived instruction waits for a full queue
);
  localparam int unsigned D = weft_pkg::FETCH_FIFO_DEPTH;
  localparam int unsigned PW = $clog2(D);
  localparam int unsigned CW = $clog2(D + 1);
  // The command queues, by module (weft_top's g_cmdq order).
  localparam logic [1:0] TARGET_LOAD = 2'd0;
  localparam logic [1:0] TARGET_COMPUTE = 2'd1;
  localparam logic [1:0] TARGET_STORE = 2'd2;

  logic [127:0] mem_q [D];
  logic [PW-1:0] wr_q, wr_d, rd_q, rd_d;
  logic [CW-1:0] reserved_q, reserved_d, arrived_q, arrived_d;
  logic [31:0] requested_q, requested_d, dispatched_q, dispatched_d;

  // The next burst: as many whole instructions as fit in one burst, in the FIFO and before
  // the next 4 KiB boundary.
  logic [63:0] next_addr;
  logic [31:0] remaining, n, to_page;
  always_comb begin
    next_addr = insn_addr_i + (64'(requested_q) << 4);
    remaining = insn_count_i - requested_q;
    to_page   = 32'((64'h1000 - (next_addr & 64'hFFF)) >> 4);
    n = remaining;
    if (n > D) n = D;
    if (n > weft_rtl_pkg::MAX_BURST * weft_rtl_pkg::BUS_BYTES / 16) n = weft_rtl_pkg::MAX_BURST * weft_rtl_pkg::BUS_BYTES / 16;
    if (n > to_page) n = to_page;
  end

  assign ar_valid_o = run_i && (requested_q < insn_count_i) && (32'(reserved_q) + n <= D);
  assign ar_addr_o  = next_addr;
  assign ar_len_o   = 8'(n - 1);

  // Dispatch.
  // Routing (DESIGN.md §3): LOAD INP/WGT to load, STORE to store, the rest to compute.
  logic [127:0] head;
  logic [1:0]   target;
  logic [weft_pkg::MEM_OPCODE_W-1:0] head_op;
  logic [weft_pkg::MEM_MEMORY_TYPE_W-1:0] head_type;
  always_comb begin
    head = mem_q[rd_q];
    head_op = head[weft_pkg::MEM_OPCODE_LSB +: weft_pkg::MEM_OPCODE_W];
    head_type = head[weft_pkg::MEM_MEMORY_TYPE_LSB +: weft_pkg::MEM_MEMORY_TYPE_W];
    unique case (head_op)
      weft_pkg::OP_LOAD:  target = (head_type == weft_pkg::MEM_INP || head_type == weft_pkg::MEM_WGT)
                                   ? TARGET_LOAD : TARGET_COMPUTE;
      weft_pkg::OP_STORE: target = TARGET_STORE;
      default:  target = TARGET_COMPUTE;
    endcase
  end

  assign disp_valid_o  = run_i && (arrived_q != 0) && !q_full_i[target];
  assign disp_target_o = target;
  weft_rtl_pkg::cmd_t disp_cmd;
  assign disp_cmd.index = dispatched_q;
  assign disp_cmd.insn  = head;
  assign disp_cmd_o     = disp_cmd;
  assign blocked_o     = run_i && (arrived_q != 0) && q_full_i[target];
  assign all_dispatched_o = (requested_q == insn_count_i) && (reserved_q == 0);

  always_comb begin
    wr_d         = wr_q;
    rd_d         = rd_q;
    reserved_d   = reserved_q;
    arrived_d    = arrived_q;
    requested_d  = requested_q;
    dispatched_d = dispatched_q;
    if (clear_i) begin
      wr_d         = '0;
      rd_d         = '0;
      reserved_d   = '0;
      arrived_d    = '0;
      requested_d  = '0;
      dispatched_d = '0;
    end else begin
      if (ar_valid_o && ar_grant_i) begin
        requested_d = requested_q + n;
        reserved_d  = reserved_q + CW'(n);
      end
      if (r_valid_i) wr_d = (32'(wr_q) == D - 1) ? '0 : wr_q + 1'b1;
      if (disp_valid_o) begin
        rd_d         = (32'(rd_q) == D - 1) ? '0 : rd_q + 1'b1;
        dispatched_d = dispatched_q + 1;
        reserved_d   = reserved_d - 1'b1;
      end
      arrived_d = arrived_q + CW'(r_valid_i) - CW'(disp_valid_o);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q         <= '0;
      rd_q         <= '0;
      reserved_q   <= '0;
      arrived_q    <= '0;
      requested_q  <= '0;
      dispatched_q <= '0;
    end else begin
      wr_q         <= wr_d;
      rd_q         <= rd_d;
      reserved_q   <= reserved_d;
      arrived_q    <= arrived_d;
      requested_q  <= requested_d;
      dispatched_q <= dispatched_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (r_valid_i) mem_q[wr_q] <= r_data_i;
  end
endmodule
