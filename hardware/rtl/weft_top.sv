// weft_top: the accelerator as an XRT-compatible RTL kernel (DESIGN.md §4): an AXI4-Lite
// control slave, an AXI4 master for instructions and data, fetch, the load, compute and store
// modules, their command queues, the four token queues and the on-chip buffers
// (docs/hardware.md has the block diagram). Read bursts are arbitrated compute's DMA first,
// then load's, then fetch; ARID names the requester and RID routes the beats back. The dbg_*
// ports carry per-cycle events, the detailed cycle accounting and what each unit waits for to
// the Verilator harness (its watchdog tells a busy unit from a deadlock with them).
module weft_top
(
  input  logic                 ap_clk,
  input  logic                 ap_rst_n,
  // AXI4-Lite control slave
  input  logic                 s_axi_control_awvalid,
  output logic                 s_axi_control_awready,
  input  logic [7:0]           s_axi_control_awaddr,
  input  logic                 s_axi_control_wvalid,
  output logic                 s_axi_control_wready,
  input  logic [31:0]          s_axi_control_wdata,
  input  logic [3:0]           s_axi_control_wstrb,
  output logic                 s_axi_control_bvalid,
  input  logic                 s_axi_control_bready,
  output logic [1:0]           s_axi_control_bresp,
  input  logic                 s_axi_control_arvalid,
  output logic                 s_axi_control_arready,
  input  logic [7:0]           s_axi_control_araddr,
  output logic                 s_axi_control_rvalid,
  input  logic                 s_axi_control_rready,
  output logic [31:0]          s_axi_control_rdata,
  output logic [1:0]           s_axi_control_rresp,
  output logic                 interrupt,
  // AXI4 master
  output logic                 m_axi_gmem_arvalid,
  input  logic                 m_axi_gmem_arready,
  output logic [63:0]          m_axi_gmem_araddr,
  output logic [7:0]           m_axi_gmem_arlen,
  output logic [2:0]           m_axi_gmem_arsize,
  output logic [1:0]           m_axi_gmem_arburst,
  output logic [1:0]           m_axi_gmem_arid,
  input  logic                 m_axi_gmem_rvalid,
  output logic                 m_axi_gmem_rready,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0]  m_axi_gmem_rdata,
  input  logic [1:0]           m_axi_gmem_rid,
  input  logic                 m_axi_gmem_rlast,
  input  logic [1:0]           m_axi_gmem_rresp,
  output logic                 m_axi_gmem_awvalid,
  input  logic                 m_axi_gmem_awready,
  output logic [63:0]          m_axi_gmem_awaddr,
  output logic [7:0]           m_axi_gmem_awlen,
  output logic [2:0]           m_axi_gmem_awsize,
  output logic [1:0]           m_axi_gmem_awburst,
  output logic                 m_axi_gmem_wvalid,
  input  logic                 m_axi_gmem_wready,
  output logic [weft_rtl_pkg::BUS_BITS-1:0]  m_axi_gmem_wdata,
  output logic [weft_rtl_pkg::BUS_BYTES-1:0] m_axi_gmem_wstrb,
  output logic                 m_axi_gmem_wlast,
  input  logic                 m_axi_gmem_bvalid,
  output logic                 m_axi_gmem_bready,
  input  logic [1:0]           m_axi_gmem_bresp,
  // debug/trace: starts (load, compute, store), completions, accounting
  output logic [2:0]           dbg_start_o,
  output logic [5:0]           dbg_done_o,    // load, store, compute count [5:2]
  output logic                 dbg_run_o,
  output logic [64*26-1:0]     dbg_stats_o,
  // debug/watchdog: what each unit does this cycle (weft_unit_stats category: 0 busy, 1 token,
  // 2 DRAM, 3 no command, 4 hazard, 5 drain; load [2:0], compute [5:3], store [8:6]), the token
  // queues that hold a token, and fetch (bit 0 dispatches, bit 1 waits for a full queue)
  output logic [8:0]           dbg_cat_o,
  output logic [3:0]           dbg_tok_o,
  output logic [1:0]           dbg_fetch_o
);
  localparam int unsigned NST = (weft_pkg::OUT_ELEM_BYTES >= weft_rtl_pkg::BUS_BYTES) ? 1 : weft_rtl_pkg::BUS_BYTES / weft_pkg::OUT_ELEM_BYTES;
  localparam int unsigned AE = weft_pkg::ACC_ELEM_BYTES * 8;

  logic unused_top;
  assign unused_top = ^{s_axi_control_wstrb, m_axi_gmem_rlast, m_axi_gmem_rresp,
                        m_axi_gmem_bresp, insn_count[63:32], c_busy};

  logic clk, rst_n, clear, run;
  logic [63:0] now, insn_count, insn_addr, dram_base;
  assign clk = ap_clk;
  assign rst_n = ap_rst_n;

  // ---------------- control ----------------
  logic        finish;
  logic [31:0] err_bits, err_insn;
  logic [6*64-1:0] counters;
  weft_ctrl u_ctrl (
    .clk_i(clk), .rst_ni(rst_n),
    .s_awvalid_i(s_axi_control_awvalid), .s_awready_o(s_axi_control_awready),
    .s_awaddr_i(s_axi_control_awaddr), .s_wvalid_i(s_axi_control_wvalid),
    .s_wready_o(s_axi_control_wready), .s_wdata_i(s_axi_control_wdata),
    .s_bvalid_o(s_axi_control_bvalid), .s_bready_i(s_axi_control_bready),
    .s_arvalid_i(s_axi_control_arvalid), .s_arready_o(s_axi_control_arready),
    .s_araddr_i(s_axi_control_araddr), .s_rvalid_o(s_axi_control_rvalid),
    .s_rready_i(s_axi_control_rready), .s_rdata_o(s_axi_control_rdata),
    .interrupt_o(interrupt),
    .clear_o(clear), .run_o(run), .now_o(now), .insn_count_o(insn_count),
    .insn_addr_o(insn_addr), .dram_base_o(dram_base),
    .finish_i(finish), .err_bits_i(err_bits), .err_insn_i(err_insn), .counters_i(counters)
  );
  assign s_axi_control_bresp = 2'b00;
  assign s_axi_control_rresp = 2'b00;

  // ---------------- read arbiter ----------------
  logic f_ar_valid, l_ar_valid, c_ar_valid;
  logic [63:0] f_ar_addr, l_ar_addr, c_ar_addr;
  logic [7:0] f_ar_len, l_ar_len, c_ar_len;
  always_comb begin
    m_axi_gmem_arvalid = run && (c_ar_valid || l_ar_valid || f_ar_valid);
    if (c_ar_valid) begin
      m_axi_gmem_arid = weft_rtl_pkg::RID_COMPUTE; m_axi_gmem_araddr = c_ar_addr; m_axi_gmem_arlen = c_ar_len;
    end else if (l_ar_valid) begin
      m_axi_gmem_arid = weft_rtl_pkg::RID_LOAD; m_axi_gmem_araddr = l_ar_addr; m_axi_gmem_arlen = l_ar_len;
    end else begin
      m_axi_gmem_arid = weft_rtl_pkg::RID_FETCH; m_axi_gmem_araddr = f_ar_addr; m_axi_gmem_arlen = f_ar_len;
    end
  end
  logic ar_go;
  assign ar_go = m_axi_gmem_arvalid && m_axi_gmem_arready;
  assign m_axi_gmem_arsize  = 3'(weft_rtl_pkg::LOG_BUS);
  assign m_axi_gmem_arburst = 2'b01;
  assign m_axi_gmem_rready  = 1'b1;
  assign m_axi_gmem_awsize  = 3'(weft_rtl_pkg::LOG_BUS);
  assign m_axi_gmem_awburst = 2'b01;
  assign m_axi_gmem_bready  = 1'b1;

  // ---------------- fetch and command queues ----------------
  logic             disp_valid;
  logic [1:0]       disp_target;
  logic [weft_rtl_pkg::CMD_W-1:0] disp_cmd;
  logic             f_all, f_blocked;
  logic [2:0]       q_full, q_empty, q_pop;
  logic [weft_rtl_pkg::CMD_W-1:0] q_head [3];
  logic [weft_rtl_pkg::CMD_W-1:0] q_head_next [3];  // compute's is read a cycle ahead (UOP port)
  logic unused_head_next;
  assign unused_head_next = ^{q_head_next[0], q_head_next[2]};
  logic [$clog2(weft_pkg::CMD_QUEUE_DEPTH+1)-1:0] q_count [3];

  weft_fetch u_fetch (
    .clk_i(clk), .rst_ni(rst_n), .clear_i(clear), .run_i(run),
    .insn_addr_i(insn_addr + dram_base), .insn_count_i(insn_count[31:0]),
    .ar_valid_o(f_ar_valid), .ar_addr_o(f_ar_addr), .ar_len_o(f_ar_len),
    .ar_grant_i(ar_go && !c_ar_valid && !l_ar_valid),
    .r_valid_i(m_axi_gmem_rvalid && m_axi_gmem_rid == weft_rtl_pkg::RID_FETCH), .r_data_i(m_axi_gmem_rdata),
    .q_full_i(q_full), .disp_valid_o(disp_valid), .disp_target_o(disp_target),
    .disp_cmd_o(disp_cmd), .all_dispatched_o(f_all), .blocked_o(f_blocked)
  );

  for (genvar q = 0; q < 3; q++) begin : g_cmdq
    weft_fifo #(.WIDTH(weft_rtl_pkg::CMD_W), .DEPTH(weft_pkg::CMD_QUEUE_DEPTH)) u_q (
      .clk_i(clk), .rst_ni(rst_n), .clear_i(clear),
      .push_i(disp_valid && disp_target == 2'(q)), .push_data_i(disp_cmd),
      .pop_i(q_pop[q]), .head_o(q_head[q]), .head_next_o(q_head_next[q]), .empty_o(q_empty[q]),
      .count_o(q_count[q])
    );
    assign q_full[q] = (32'(q_count[q]) >= weft_pkg::CMD_QUEUE_DEPTH);
  end

  // ---------------- token queues ----------------
  // 0 load->compute, 1 compute->load, 2 compute->store, 3 store->compute
  logic [3:0] tok_push [4];
  logic [3:0] tok_pop, tok_avail, tok_ovf;
  logic [$clog2(weft_pkg::TOKEN_QUEUE_DEPTH+1):0] tok_count [4];
  for (genvar q = 0; q < 4; q++) begin : g_tok
    weft_token_queue #(.DEPTH(weft_pkg::TOKEN_QUEUE_DEPTH)) u_tq (
      .clk_i(clk), .rst_ni(rst_n), .clear_i(clear), .push_n_i(tok_push[q]), .pop_i(tok_pop[q]),
      .avail_o(tok_avail[q]), .overflow_o(tok_ovf[q]), .count_o(tok_count[q])
    );
  end

  // ---------------- buffers ----------------
  logic                l_wr_valid, c_wr_valid, l_pad_valid, c_pad_valid;
  logic [weft_rtl_pkg::IDX_W-1:0]    l_wr_idx, c_wr_idx, l_pad_idx, c_pad_idx;
  logic [weft_rtl_pkg::LANES-1:0]    l_wr_mask, c_wr_mask, l_pad_mask, c_pad_mask;
  logic [7:0]          l_wr_slice, c_wr_slice;
  logic [weft_rtl_pkg::BUS_BITS-1:0] l_wr_data, c_wr_data;
  logic [2:0]          l_wr_type, c_wr_type, l_pad_type;

  logic [2*weft_rtl_pkg::IDX_W-1:0] uop_idx;
  logic [weft_rtl_pkg::IDX_W-1:0] inp_idx, wgt_idx, dst_idx, src_idx, wb_idx;
  logic [2*weft_pkg::UOP_BITS-1:0] uop_data;
  logic [weft_pkg::INP_ELEM_BYTES*8-1:0] inp_data;
  logic [weft_pkg::WGT_ELEM_BYTES*8-1:0] wgt_data;
  logic [AE-1:0] dst_data, src_data, wb_data;
  logic wb_valid;
  logic [NST*weft_rtl_pkg::IDX_W-1:0] st_idx;
  logic [NST*AE-1:0] st_data;

  weft_buffer #(.ELEM_BYTES(weft_pkg::UOP_ELEM_BYTES), .DEPTH(weft_pkg::UOP_DEPTH), .NRD(2)) u_uop_buf (
    .clk_i(clk),
    .wr_valid_i(c_wr_valid && c_wr_type == weft_pkg::MEM_UOP), .wr_idx_i(c_wr_idx), .wr_mask_i(c_wr_mask),
    .wr_slice_i(c_wr_slice), .wr_data_i(c_wr_data),
    .pad_valid_i(c_pad_valid && c_wr_type == weft_pkg::MEM_UOP), .pad_idx_i(c_pad_idx),
    .pad_mask_i(c_pad_mask), .rd_idx_i(uop_idx), .rd_data_o(uop_data)
  );
  weft_buffer #(.ELEM_BYTES(weft_pkg::INP_ELEM_BYTES), .DEPTH(weft_pkg::INP_DEPTH), .NRD(1)) u_inp_buf (
    .clk_i(clk),
    .wr_valid_i(l_wr_valid && l_wr_type == weft_pkg::MEM_INP), .wr_idx_i(l_wr_idx), .wr_mask_i(l_wr_mask),
    .wr_slice_i(l_wr_slice), .wr_data_i(l_wr_data),
    .pad_valid_i(l_pad_valid && l_pad_type == weft_pkg::MEM_INP), .pad_idx_i(l_pad_idx),
    .pad_mask_i(l_pad_mask), .rd_idx_i(inp_idx), .rd_data_o(inp_data)
  );
  weft_buffer #(.ELEM_BYTES(weft_pkg::WGT_ELEM_BYTES), .DEPTH(weft_pkg::WGT_DEPTH), .NRD(1)) u_wgt_buf (
    .clk_i(clk),
    .wr_valid_i(l_wr_valid && l_wr_type == weft_pkg::MEM_WGT), .wr_idx_i(l_wr_idx), .wr_mask_i(l_wr_mask),
    .wr_slice_i(l_wr_slice), .wr_data_i(l_wr_data),
    .pad_valid_i(l_pad_valid && l_pad_type == weft_pkg::MEM_WGT), .pad_idx_i(l_pad_idx),
    .pad_mask_i(l_pad_mask), .rd_idx_i(wgt_idx), .rd_data_o(wgt_data)
  );
  weft_acc_buffer #(.NST(NST)) u_acc_buf (
    .clk_i(clk),
    .wr_valid_i(c_wr_valid && c_wr_type != weft_pkg::MEM_UOP), .wr_acc8_i(c_wr_type == weft_pkg::MEM_ACC_8BIT),
    .wr_idx_i(c_wr_idx), .wr_mask_i(c_wr_mask), .wr_slice_i(c_wr_slice), .wr_data_i(c_wr_data),
    .pad_valid_i(c_pad_valid && c_wr_type != weft_pkg::MEM_UOP), .pad_idx_i(c_pad_idx),
    .pad_mask_i(c_pad_mask),
    .wb_valid_i(wb_valid), .wb_idx_i(wb_idx), .wb_data_i(wb_data),
    .dst_idx_i(dst_idx), .dst_data_o(dst_data), .src_idx_i(src_idx), .src_data_o(src_data),
    .st_idx_i(st_idx), .st_data_o(st_data)
  );

  // ---------------- modules ----------------
  logic l_start, l_done, l_busy, l_push, c_start, c_finish, c_busy, c_err, s_start, s_done;
  logic s_busy, s_push;
  logic [3:0] c_done_n, c_push_prev, c_push_next;
  weft_rtl_pkg::cat_e l_cat, c_cat, s_cat;
  logic [31:0] c_err_insn, l_push_idx, c_push_idx, s_push_idx;

  weft_load u_load (
    .clk_i(clk), .rst_ni(rst_n), .run_i(run), .dram_base_i(dram_base),
    .cmd_valid_i(!q_empty[0]), .cmd_i(q_head[0]), .cmd_pop_o(q_pop[0]),
    .tok_next_avail_i(tok_avail[1]), .tok_next_pop_o(tok_pop[1]), .push_next_o(l_push),
    .ar_valid_o(l_ar_valid), .ar_addr_o(l_ar_addr), .ar_len_o(l_ar_len),
    .ar_grant_i(ar_go && !c_ar_valid),
    .r_valid_i(m_axi_gmem_rvalid && m_axi_gmem_rid == weft_rtl_pkg::RID_LOAD), .r_data_i(m_axi_gmem_rdata),
    .wr_valid_o(l_wr_valid), .wr_idx_o(l_wr_idx), .wr_mask_o(l_wr_mask),
    .wr_slice_o(l_wr_slice), .wr_data_o(l_wr_data), .wr_type_o(l_wr_type),
    .pad_valid_o(l_pad_valid), .pad_idx_o(l_pad_idx), .pad_mask_o(l_pad_mask),
    .pad_type_o(l_pad_type),
    .start_o(l_start), .done_o(l_done), .busy_o(l_busy), .push_idx_o(l_push_idx),
    .cat_o(l_cat)
  );

  weft_compute u_compute (
    .clk_i(clk), .rst_ni(rst_n), .clear_i(clear), .run_i(run), .now_i(now),
    .dram_base_i(dram_base),
    .cmd_valid_i(!q_empty[1]), .cmd_i(q_head[1]), .cmd_next_i(q_head_next[1]), .cmd_pop_o(q_pop[1]),
    .tok_prev_avail_i(tok_avail[0]), .tok_prev_pop_o(tok_pop[0]),
    .tok_next_avail_i(tok_avail[3]), .tok_next_pop_o(tok_pop[3]),
    .push_prev_n_o(c_push_prev), .push_next_n_o(c_push_next),
    .ar_valid_o(c_ar_valid), .ar_addr_o(c_ar_addr), .ar_len_o(c_ar_len),
    .ar_grant_i(ar_go),
    .r_valid_i(m_axi_gmem_rvalid && m_axi_gmem_rid == weft_rtl_pkg::RID_COMPUTE),
    .r_data_i(m_axi_gmem_rdata),
    .wr_valid_o(c_wr_valid), .wr_idx_o(c_wr_idx), .wr_mask_o(c_wr_mask),
    .wr_slice_o(c_wr_slice), .wr_data_o(c_wr_data), .wr_type_o(c_wr_type),
    .pad_valid_o(c_pad_valid), .pad_idx_o(c_pad_idx), .pad_mask_o(c_pad_mask),
    .uop_idx_o(uop_idx), .uop_i(uop_data), .inp_idx_o(inp_idx), .inp_i(inp_data),
    .wgt_idx_o(wgt_idx), .wgt_i(wgt_data), .acc_dst_idx_o(dst_idx), .acc_dst_i(dst_data),
    .acc_src_idx_o(src_idx), .acc_src_i(src_data),
    .wb_valid_o(wb_valid), .wb_idx_o(wb_idx), .wb_data_o(wb_data),
    .start_o(c_start), .done_n_o(c_done_n), .finish_o(c_finish), .busy_o(c_busy),
    .cat_o(c_cat), .err_range_o(c_err), .err_insn_o(c_err_insn), .push_idx_o(c_push_idx)
  );

  weft_store #(.NST(NST)) u_store (
    .clk_i(clk), .rst_ni(rst_n), .run_i(run), .dram_base_i(dram_base),
    .cmd_valid_i(!q_empty[2]), .cmd_i(q_head[2]), .cmd_pop_o(q_pop[2]),
    .tok_prev_avail_i(tok_avail[2]), .tok_prev_pop_o(tok_pop[2]), .push_prev_o(s_push),
    .st_idx_o(st_idx), .st_data_i(st_data),
    .aw_valid_o(m_axi_gmem_awvalid), .aw_ready_i(m_axi_gmem_awready),
    .aw_addr_o(m_axi_gmem_awaddr), .aw_len_o(m_axi_gmem_awlen),
    .w_valid_o(m_axi_gmem_wvalid), .w_ready_i(m_axi_gmem_wready),
    .w_data_o(m_axi_gmem_wdata), .w_strb_o(m_axi_gmem_wstrb), .w_last_o(m_axi_gmem_wlast),
    .b_valid_i(m_axi_gmem_bvalid),
    .start_o(s_start), .done_o(s_done), .busy_o(s_busy), .push_idx_o(s_push_idx),
    .cat_o(s_cat)
  );

  assign tok_push[0] = 4'(l_push);
  assign tok_push[1] = c_push_prev;
  assign tok_push[2] = c_push_next;
  assign tok_push[3] = 4'(s_push);

  // ---------------- errors and the end of the run ----------------
  // The last instruction that pushed onto each token queue: an overflow, seen the cycle after
  // the push, names it in the error-instruction register.
  logic [31:0] pusher_q [4];
  logic [31:0] pusher_d [4];
  always_comb begin
    for (int unsigned q = 0; q < 4; q++) pusher_d[q] = pusher_q[q];
    if (tok_push[0] != 0) pusher_d[0] = l_push_idx;
    if (tok_push[1] != 0) pusher_d[1] = c_push_idx;
    if (tok_push[2] != 0) pusher_d[2] = c_push_idx;
    if (tok_push[3] != 0) pusher_d[3] = s_push_idx;
  end
  // (payload: read only with an overflow, which follows a push that wrote it; no reset)
  always_ff @(posedge clk) begin
    for (int unsigned q = 0; q < 4; q++) pusher_q[q] <= pusher_d[q];
  end

  logic leftover;
  always_comb begin
    leftover = 1'b0;
    if (c_finish) begin
      if ((l_busy && !l_done) || (s_busy && !s_done)) leftover = 1'b1;
      if (!f_all || !q_empty[0] || !q_empty[2] || 32'(q_count[1]) > 1) leftover = 1'b1;
      for (int unsigned q = 0; q < 4; q++) begin
        if (32'(tok_count[q]) + 32'(tok_push[q]) != 32'(tok_pop[q])) leftover = 1'b1;
      end
    end
    err_bits = '0;
    if (c_err) err_bits[weft_pkg::ERR_SRAM_RANGE] = 1'b1;
    if (tok_ovf != '0) err_bits[weft_pkg::ERR_TOKEN_OVERFLOW] = 1'b1;
    if (leftover) err_bits[weft_pkg::ERR_LEFTOVER] = 1'b1;  // work or tokens left at FINISH
    err_insn = c_err_insn;
    for (int unsigned q = 0; q < 4; q++) begin
      if (tok_ovf[q] && !c_err) err_insn = pusher_q[q];
    end
  end
  assign finish = c_finish;

  // ---------------- accounting ----------------
  logic [63:0] st [3][8];
  weft_unit_stats u_stats_load (
    .clk_i(clk), .rst_ni(rst_n), .clear_i(clear), .count_i(run), .start_i(l_start),
    .cat_i(l_cat), .busy_o(st[0][0]), .stall_o(st[0][1]), .idle_o(st[0][2]),
    .token_o(st[0][3]), .dram_o(st[0][4]), .cmd_empty_o(st[0][5]), .hazard_o(st[0][6]),
    .drain_o(st[0][7])
  );
  weft_unit_stats u_stats_compute (
    .clk_i(clk), .rst_ni(rst_n), .clear_i(clear), .count_i(run), .start_i(c_start),
    .cat_i(c_cat), .busy_o(st[1][0]), .stall_o(st[1][1]), .idle_o(st[1][2]),
    .token_o(st[1][3]), .dram_o(st[1][4]), .cmd_empty_o(st[1][5]), .hazard_o(st[1][6]),
    .drain_o(st[1][7])
  );
  weft_unit_stats u_stats_store (
    .clk_i(clk), .rst_ni(rst_n), .clear_i(clear), .count_i(run), .start_i(s_start),
    .cat_i(s_cat), .busy_o(st[2][0]), .stall_o(st[2][1]), .idle_o(st[2][2]),
    .token_o(st[2][3]), .dram_o(st[2][4]), .cmd_empty_o(st[2][5]), .hazard_o(st[2][6]),
    .drain_o(st[2][7])
  );
  assign counters[0*64 +: 64] = st[0][0];
  assign counters[1*64 +: 64] = st[0][1];
  assign counters[2*64 +: 64] = st[1][0];
  assign counters[3*64 +: 64] = st[1][1];
  assign counters[4*64 +: 64] = st[2][0];
  assign counters[5*64 +: 64] = st[2][1];

  // fetch: busy (dispatched), stall_cmd_full, stall_dram, idle
  logic [63:0] fst_q [4];
  logic [63:0] fst_d [4];
  always_comb begin
    for (int unsigned i = 0; i < 4; i++) fst_d[i] = fst_q[i];
    if (clear) begin
      for (int unsigned i = 0; i < 4; i++) fst_d[i] = '0;
    end else if (run) begin
      if (disp_valid && !c_finish) fst_d[0] = fst_q[0] + 1;
      else if (f_all) fst_d[3] = fst_q[3] + 1;
      else if (f_blocked && !c_finish) fst_d[1] = fst_q[1] + 1;
      else fst_d[2] = fst_q[2] + 1;
    end
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      for (int unsigned i = 0; i < 4; i++) fst_q[i] <= '0;
    end else begin
      for (int unsigned i = 0; i < 4; i++) fst_q[i] <= fst_d[i];
    end
  end

  always_comb begin
    for (int unsigned u = 0; u < 3; u++) begin
      for (int unsigned i = 0; i < 8; i++) dbg_stats_o[(u*8+i)*64 +: 64] = st[u][i];
    end
    dbg_stats_o[24*64 +: 64] = fst_q[0] | (fst_q[1] << 32);  // packed: busy | cmd_full
    dbg_stats_o[25*64 +: 64] = fst_q[2] | (fst_q[3] << 32);  // dram | idle
  end
  assign dbg_start_o = {s_start, c_start, l_start};
  assign dbg_done_o  = {c_done_n, s_done, l_done};
  assign dbg_run_o   = run;
  assign dbg_cat_o   = {s_cat, c_cat, l_cat};
  assign dbg_tok_o   = tok_avail;
  assign dbg_fetch_o = {f_blocked, disp_valid};
endmodule
