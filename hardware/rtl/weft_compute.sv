// The compute module (docs/microarchitecture.md §Compute): LOAD UOP/ACC/ACC_8BIT through its own
// read DMA, GEMM and ALU through the micro-op issue stage and a 4-stage pipeline (issue,
// operand read, multiply-accumulate / ALU, accumulator write), and FINISH.
//  - Issue: one iteration a cycle (a register-operand ALU one per two), the first in the start
//    cycle; an iteration that reads an accumulator element written by one of the two previous
//    issues (still in the operand-read or arithmetic stage) waits: `stall_hazard`.
//  - Completion is in order: an instruction completes, and pushes its tokens, when its last
//    write lands (last issue + 3) or at the previous completion, whichever is later; pending
//    completions wait in a small queue ordered by that cycle.
//  - LOAD and FINISH start only when that queue is empty (every write has landed).
module weft_compute
(
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  input  logic                run_i,
  input  logic [63:0]         now_i,
  input  logic [63:0]         dram_base_i,
  input  logic                cmd_valid_i,
  input  logic [weft_rtl_pkg::CMD_W-1:0]    cmd_i,
  input  logic [weft_rtl_pkg::CMD_W-1:0]    cmd_next_i,  // the queue's head in the next cycle
  output logic                cmd_pop_o,
  input  logic                tok_prev_avail_i,  // load->compute
  output logic                tok_prev_pop_o,
  input  logic                tok_next_avail_i,  // store->compute
  output logic                tok_next_pop_o,
  output logic [3:0]          push_prev_n_o,     // compute->load
  output logic [3:0]          push_next_n_o,     // compute->store
  // read DMA (LOAD UOP/ACC/ACC_8BIT)
  output logic                ar_valid_o,
  output logic [63:0]         ar_addr_o,
  output logic [7:0]          ar_len_o,
  input  logic                ar_grant_i,
  input  logic                r_valid_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0] r_data_i,
  output logic                wr_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    wr_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]    wr_mask_o,
  output logic [7:0]          wr_slice_o,
  output logic [weft_rtl_pkg::BUS_BITS-1:0] wr_data_o,
  output logic [2:0]          wr_type_o,
  output logic                pad_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    pad_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]    pad_mask_o,
  // buffers
  // The buffers' read ports are synchronous (registered index): every index below is the
  // element read in the NEXT cycle. The UOP buffer has two: [0] the issue stage's next micro-op,
  // [1] the first micro-op of the command that will be at the queue's head.
  output logic [2*weft_rtl_pkg::IDX_W-1:0]  uop_idx_o,
  input  logic [2*weft_pkg::UOP_BITS-1:0] uop_i,
  output logic [weft_rtl_pkg::IDX_W-1:0]    inp_idx_o,
  input  logic [weft_pkg::INP_ELEM_BYTES*8-1:0] inp_i,
  output logic [weft_rtl_pkg::IDX_W-1:0]    wgt_idx_o,
  input  logic [weft_pkg::WGT_ELEM_BYTES*8-1:0] wgt_i,
  output logic [weft_rtl_pkg::IDX_W-1:0]    acc_dst_idx_o,
  input  logic [weft_pkg::ACC_ELEM_BYTES*8-1:0] acc_dst_i,
  output logic [weft_rtl_pkg::IDX_W-1:0]    acc_src_idx_o,
  input  logic [weft_pkg::ACC_ELEM_BYTES*8-1:0] acc_src_i,
  output logic                wb_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    wb_idx_o,
  output logic [weft_pkg::ACC_ELEM_BYTES*8-1:0] wb_data_o,
  // status
  output logic                start_o,
  output logic [3:0]          done_n_o,   // instructions completing this cycle
  output logic                finish_o,   // FINISH executes this cycle
  output logic                busy_o,
  output weft_rtl_pkg::cat_e  cat_o,
  output logic                err_range_o,
  output logic [31:0]         err_insn_o,
  output logic [31:0]         push_idx_o  // the latest instruction whose pushes happen now
);
  localparam int unsigned AE = weft_pkg::ACC_ELEM_BYTES * 8;
  localparam int unsigned NLANE = weft_pkg::BATCH * weft_pkg::BLOCK_OUT;
  localparam int unsigned CQ = 8;

  // ---------------- start ----------------
  weft_rtl_pkg::cmp_insn_t c;
  weft_rtl_pkg::mem_insn_t m;
  logic [2:0] op;
  logic is_load, is_finish, is_ga, zero_iter, drained, dma_busy, dma_done, dma_stall;
  logic iss_act_q, iss_act_d;
  logic [3:0] cq_cnt_q, cq_cnt_d;

  logic [3:0] loge;
  weft_rtl_pkg::cmd_t cmd, cmd_next;
  assign cmd = cmd_i;
  assign cmd_next = cmd_next_i;
  weft_decode u_dec (.insn_i(cmd.insn), .mem_o(m), .cmp_o(c), .log_elem_o(loge));
  assign op = c.op;
  assign is_load   = (op == weft_pkg::OP_LOAD);
  assign is_finish = (op == weft_pkg::OP_FINISH);
  assign is_ga     = (op == weft_pkg::OP_GEMM) || (op == weft_pkg::OP_ALU);
  assign zero_iter = (c.iter_out == 0) || (c.iter_in == 0) || (c.uop_end <= c.uop_bgn);
  assign drained   = (cq_cnt_q == 0);

  assign start_o = run_i && !dma_busy && !iss_act_q && cmd_valid_i &&
                   (!c.pop_prev || tok_prev_avail_i) && (!c.pop_next || tok_next_avail_i) &&
                   (!(is_load || is_finish) || drained);
  assign cmd_pop_o      = start_o;
  assign tok_prev_pop_o = start_o && c.pop_prev;
  assign tok_next_pop_o = start_o && c.pop_next;
  assign finish_o       = start_o && is_finish;
  assign busy_o         = dma_busy || iss_act_q;

  // ---------------- LOAD ----------------
  logic ld_push_prev_q, ld_push_next_q;
  weft_read_dma u_dma (
    .clk_i, .rst_ni,
    .start_i(start_o && is_load), .insn_i(m), .log_elem_i(loge), .dram_base_i,
    .busy_o(dma_busy), .done_o(dma_done), .stall_o(dma_stall),
    .ar_valid_o, .ar_addr_o, .ar_len_o, .ar_grant_i,
    .r_valid_i, .r_data_i,
    .wr_valid_o, .wr_idx_o, .wr_mask_o, .wr_slice_o, .wr_data_o, .wr_type_o,
    .pad_valid_o, .pad_idx_o, .pad_mask_o
  );

  // ---------------- issue ----------------
  weft_rtl_pkg::cmp_insn_t iq_q, iq_d;
  logic [15:0] i_q, i_d, j_q, j_d, k_q, k_d;
  logic [31:0] dout_q, dout_d, sout_q, sout_d, wout_q, wout_d;
  logic [31:0] din_q, din_d, sin_q, sin_d, win_q, win_d;
  logic gap_q, gap_d, fin_q, fin_d;
  logic [31:0] idx_q, idx_d;

  weft_rtl_pkg::cmp_insn_t ci;
  logic [15:0] ck, cj, cii;
  logic [31:0] cdb, csb, cwb;
  logic cur_valid, cur_gemm, cur_reset, reg_op, hz, bad, issue, last_k, last_j, last_i, last;
  logic [31:0] dst, src, wgt;

  // pipeline stage registers (S1: operand read, S2: arithmetic, S3: write-back)
  logic s1_v_q, s1_gemm_q, s1_reset_q, s1_imm_q;
  logic [2:0] s1_op_q;
  logic [31:0] s1_immv_q, s1_dst_q;  // (src/wgt are registered in the buffers' read ports)
  logic s2_v_q, s2_gemm_q, s2_reset_q;
  logic [2:0] s2_op_q;
  logic [31:0] s2_dst_q;
  logic [weft_pkg::INP_ELEM_BYTES*8-1:0] s2_inp_q;
  logic [weft_pkg::WGT_ELEM_BYTES*8-1:0] s2_wgt_q;
  logic [AE-1:0] s2_a_q, s2_b_q;
  logic s3_v_q;
  logic [31:0] s3_dst_q;
  logic [AE-1:0] s3_data_q;

  logic starting;
  assign starting = start_o && is_ga && !zero_iter;

  // The micro-op of this cycle: the first of the starting command, else the k_q-th. Both were
  // addressed a cycle ago (k_d then, and the uop_bgn of the queue's next head).
  weft_rtl_pkg::cmp_insn_t c_nx;
  weft_rtl_pkg::mem_insn_t unused_m_nx;
  logic [3:0] unused_loge_nx;
  weft_decode u_dec_nx (.insn_i(cmd_next.insn), .mem_o(unused_m_nx), .cmp_o(c_nx),
                        .log_elem_o(unused_loge_nx));
  logic [weft_pkg::UOP_BITS-1:0] uop;
  assign uop = starting ? uop_i[weft_pkg::UOP_BITS +: weft_pkg::UOP_BITS] : uop_i[0 +: weft_pkg::UOP_BITS];
  assign uop_idx_o = {weft_rtl_pkg::IDX_W'(c_nx.uop_bgn), weft_rtl_pkg::IDX_W'(k_d)};

  always_comb begin
    ci        = starting ? c : iq_q;
    ck        = starting ? c.uop_bgn : k_q;
    cj        = starting ? 16'd0 : j_q;
    cii       = starting ? 16'd0 : i_q;
    cdb       = starting ? 32'd0 : din_q;
    csb       = starting ? 32'd0 : sin_q;
    cwb       = starting ? 32'd0 : win_q;
    cur_valid = starting || (iss_act_q && !gap_q && !fin_q);
    cur_gemm  = (ci.op == weft_pkg::OP_GEMM);
    cur_reset = cur_gemm && ci.reset_reg;
    reg_op    = !cur_gemm && !ci.use_imm;
    dst = 32'(uop[weft_pkg::UOP_DST_LSB +: weft_pkg::UOP_DST_W]) + cdb;
    src = 32'(uop[weft_pkg::UOP_SRC_LSB +: weft_pkg::UOP_SRC_W]) + csb;
    wgt = 32'(uop[weft_pkg::UOP_WGT_LSB +: weft_pkg::UOP_WGT_W]) + cwb;
    hz = 1'b0;
    if (!cur_reset) begin
      if (s1_v_q && s1_dst_q == dst) hz = 1'b1;
      if (s2_v_q && s2_dst_q == dst) hz = 1'b1;
    end
    if (reg_op) begin
      if (s1_v_q && s1_dst_q == src) hz = 1'b1;
      if (s2_v_q && s2_dst_q == src) hz = 1'b1;
    end
    bad = (dst >= weft_pkg::ACC_DEPTH) ||
          (cur_gemm && !cur_reset && (src >= weft_pkg::INP_DEPTH || wgt >= weft_pkg::WGT_DEPTH)) ||
          (reg_op && src >= weft_pkg::ACC_DEPTH);
    issue  = cur_valid && !hz && !bad;
    last_k = (ck + 16'd1 >= ci.uop_end);
    last_j = (cj + 16'd1 >= ci.iter_in);
    last_i = (cii + 16'd1 >= ci.iter_out);
    last   = last_k && last_j && last_i;
  end

  assign err_range_o = run_i && cur_valid && bad;
  assign err_insn_o  = (start_o ? cmd.index : idx_q);

  always_comb begin
    iq_d = iq_q; i_d = i_q; j_d = j_q; k_d = k_q;
    dout_d = dout_q; sout_d = sout_q; wout_d = wout_q;
    din_d = din_q; sin_d = sin_q; win_d = win_q;
    gap_d = 1'b0; fin_d = fin_q; idx_d = idx_q;
    iss_act_d = iss_act_q;
    if (starting) begin
      iq_d = c; i_d = '0; j_d = '0; k_d = c.uop_bgn;
      dout_d = '0; sout_d = '0; wout_d = '0; din_d = '0; sin_d = '0; win_d = '0;
      fin_d = 1'b0; idx_d = cmd.index;
      iss_act_d = 1'b1;
    end
    if (iss_act_q && gap_q && fin_q) iss_act_d = 1'b0;
    if (issue) begin
      gap_d = reg_op;
      if (last) begin
        fin_d = 1'b1;
        iss_act_d = reg_op;  // a register-operand ALU holds the issue stage one more cycle
      end else if (!last_k) begin
        k_d = ck + 16'd1;
      end else begin
        k_d = ci.uop_bgn;
        if (!last_j) begin
          j_d   = cj + 16'd1;
          din_d = cdb + 32'(ci.dst_factor_in);
          sin_d = csb + 32'(ci.src_factor_in);
          win_d = cwb + 32'(ci.wgt_factor_in);
        end else begin
          j_d    = '0;
          i_d    = cii + 16'd1;
          dout_d = (starting ? 32'd0 : dout_q) + 32'(ci.dst_factor_out);
          sout_d = (starting ? 32'd0 : sout_q) + 32'(ci.src_factor_out);
          wout_d = (starting ? 32'd0 : wout_q) + 32'(ci.wgt_factor_out);
          din_d  = dout_d;
          sin_d  = sout_d;
          win_d  = wout_d;
        end
      end
    end
    if (clear_i) begin
      iss_act_d = 1'b0;
      fin_d = 1'b0;
    end
  end

  // ---------------- completion queue ----------------
  logic [63:0] cq_due_q [CQ];
  logic [3:0]  cq_np_q [CQ], cq_nn_q [CQ], cq_nd_q [CQ];
  logic [31:0] cq_idx_q [CQ];
  logic [31:0] new_idx, ld_idx_q;
  logic [2:0]  cq_rd_q, cq_rd_d, cq_wr_q, cq_wr_d;
  logic [63:0] last_due_q, last_due_d;
  logic        last_due_v_q, last_due_v_d;
  logic        fire, new_c, new_now, merge;
  logic [63:0] new_due, want;
  logic [3:0]  new_np, new_nn;
  logic [2:0]  tail;

  always_comb begin
    fire   = (cq_cnt_q != 0) && (cq_due_q[cq_rd_q] == now_i);
    // a new completion: the last issue of a GEMM/ALU, or one with no iterations
    new_c  = (issue && last) || (start_o && is_ga && zero_iter);
    want   = (start_o && is_ga && zero_iter) ? now_i : now_i + 64'd3;
    new_due = (last_due_v_q && last_due_q > want) ? last_due_q : want;
    new_np = (start_o && is_ga && zero_iter) ? 4'(c.push_prev) : 4'(ci.push_prev);
    new_nn = (start_o && is_ga && zero_iter) ? 4'(c.push_next) : 4'(ci.push_next);
    new_idx = start_o ? cmd.index : idx_q;
    new_now = new_c && (new_due == now_i);
    tail   = cq_wr_q - 3'd1;
    merge  = new_c && !new_now && (cq_cnt_q != 0) && (cq_due_q[tail] == new_due) &&
             !(fire && cq_cnt_q == 1);
    cq_rd_d = fire ? cq_rd_q + 3'd1 : cq_rd_q;
    cq_wr_d = (new_c && !new_now && !merge) ? cq_wr_q + 3'd1 : cq_wr_q;
    cq_cnt_d = cq_cnt_q + 4'(new_c && !new_now && !merge) - 4'(fire);
    last_due_d   = new_c ? new_due : last_due_q;
    last_due_v_d = last_due_v_q || new_c;
    if (clear_i) begin
      cq_rd_d = '0;
      cq_wr_d = '0;
      cq_cnt_d = '0;
      last_due_v_d = 1'b0;
    end
  end

  // The queue's entries (storage, no reset: read only where cq_cnt_q says they are valid).
  always_ff @(posedge clk_i) begin
    if (new_c && !new_now && !clear_i) begin
      if (merge) begin
        cq_np_q[tail] <= cq_np_q[tail] + new_np;
        cq_nn_q[tail] <= cq_nn_q[tail] + new_nn;
        cq_nd_q[tail] <= cq_nd_q[tail] + 4'd1;
        cq_idx_q[tail] <= new_idx;
      end else begin
        cq_due_q[cq_wr_q] <= new_due;
        cq_np_q[cq_wr_q]  <= new_np;
        cq_nn_q[cq_wr_q]  <= new_nn;
        cq_nd_q[cq_wr_q]  <= 4'd1;
        cq_idx_q[cq_wr_q] <= new_idx;
      end
    end
  end

  // Pushes and completions of this cycle.
  always_comb begin
    push_prev_n_o = '0;
    push_next_n_o = '0;
    done_n_o = '0;
    push_idx_o = idx_q;
    if (fire) begin
      push_idx_o = cq_idx_q[cq_rd_q];
      push_prev_n_o = cq_np_q[cq_rd_q];
      push_next_n_o = cq_nn_q[cq_rd_q];
      done_n_o = cq_nd_q[cq_rd_q];
    end
    if (new_now) begin
      push_idx_o = new_idx;
      push_prev_n_o = push_prev_n_o + new_np;
      push_next_n_o = push_next_n_o + new_nn;
      done_n_o = done_n_o + 4'd1;
    end
    if (dma_done) begin
      push_idx_o = (start_o && is_load) ? cmd.index : ld_idx_q;
      push_prev_n_o = push_prev_n_o + ((start_o && is_load) ? 4'(m.push_prev) : 4'(ld_push_prev_q));
      push_next_n_o = push_next_n_o + ((start_o && is_load) ? 4'(m.push_next) : 4'(ld_push_next_q));
      done_n_o = done_n_o + 4'd1;
    end
    if (finish_o) begin
      push_idx_o = cmd.index;
      push_prev_n_o = push_prev_n_o + 4'(c.push_prev);
      push_next_n_o = push_next_n_o + 4'(c.push_next);
      done_n_o = done_n_o + 4'd1;
    end
  end

  logic unused_compute;
  assign unused_compute = ^{uop, ci, cmd, m, cmd_next, c_nx, unused_m_nx, unused_loge_nx};

  // ---------------- pipeline ----------------
  // The operand stage reads the issued iteration's dst/src/wgt; the synchronous ports are given those registers' next
  // values (the issue stage's dst/src/wgt), so the data is there in the operand cycle.
  assign inp_idx_o     = src;
  assign wgt_idx_o     = wgt;
  assign acc_dst_idx_o = dst;
  assign acc_src_idx_o = src;

  logic [AE-1:0] gemm_sum, alu_y, s2_res, immv;
  always_comb begin
    for (int unsigned l = 0; l < NLANE; l++) immv[l*32 +: 32] = s1_immv_q;
  end
  weft_gemm_core u_gemm (.inp_i(s2_inp_q), .wgt_i(s2_wgt_q), .acc_i(s2_a_q), .acc_o(gemm_sum));
  weft_alu u_alu (.op_i(s2_op_q), .a_i(s2_a_q), .b_i(s2_b_q), .y_o(alu_y));
  assign s2_res = s2_gemm_q ? (s2_reset_q ? '0 : gemm_sum) : alu_y;

  assign wb_valid_o = s3_v_q;
  assign wb_idx_o   = s3_dst_q;
  assign wb_data_o  = s3_data_q;

  // ---------------- accounting ----------------
  always_comb begin
    if (start_o) begin
      if (is_ga && !zero_iter) cat_o = issue ? weft_rtl_pkg::CAT_BUSY : weft_rtl_pkg::CAT_HAZARD;
      else cat_o = weft_rtl_pkg::CAT_BUSY;
    end else if (iss_act_q) begin
      cat_o = (cur_valid && !issue) ? weft_rtl_pkg::CAT_HAZARD : weft_rtl_pkg::CAT_BUSY;
    end else if (dma_busy) begin
      cat_o = dma_stall ? weft_rtl_pkg::CAT_DRAM : weft_rtl_pkg::CAT_BUSY;
    end else if (cmd_valid_i) begin
      cat_o = ((is_load || is_finish) && !drained) ? weft_rtl_pkg::CAT_DRAIN : weft_rtl_pkg::CAT_TOKEN;
    end else begin
      cat_o = weft_rtl_pkg::CAT_NO_CMD;
    end
  end

  // Control (asynchronous reset): the issue stage's state, the completion queue's pointers and
  // the pipeline's valid bits.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      iss_act_q <= 1'b0;
      gap_q <= 1'b0; fin_q <= 1'b0;
      cq_rd_q <= '0; cq_wr_q <= '0; cq_cnt_q <= '0;
      last_due_v_q <= 1'b0;
      s1_v_q <= 1'b0; s2_v_q <= 1'b0; s3_v_q <= 1'b0;
    end else begin
      iss_act_q <= iss_act_d;
      gap_q <= gap_d; fin_q <= fin_d;
      cq_rd_q <= cq_rd_d; cq_wr_q <= cq_wr_d; cq_cnt_q <= cq_cnt_d;
      last_due_v_q <= last_due_v_d;
      s1_v_q <= issue && !clear_i;    // S1: the issued iteration
      s2_v_q <= s1_v_q && !clear_i;   // S2: operands
      s3_v_q <= s2_v_q && !clear_i;   // S3: result
    end
  end

  // Payload (no reset): the issuing instruction, its loop indices and offsets, the running
  // LOAD's pushes, the last completion's cycle and the pipeline's operands; each is written
  // with, and read only under, a control bit above (iss_act_q, dma_busy, last_due_v_q, sN_v_q).
  always_ff @(posedge clk_i) begin
    iq_q <= iq_d; i_q <= i_d; j_q <= j_d; k_q <= k_d;
    dout_q <= dout_d; sout_q <= sout_d; wout_q <= wout_d;
    din_q <= din_d; sin_q <= sin_d; win_q <= win_d;
    idx_q <= idx_d;
    last_due_q <= last_due_d;
    if (start_o && is_load) begin
      ld_push_prev_q <= m.push_prev;
      ld_push_next_q <= m.push_next;
      ld_idx_q <= cmd.index;
    end
    s1_gemm_q  <= cur_gemm;
    s1_reset_q <= cur_reset;
    s1_imm_q   <= !reg_op;
    s1_op_q    <= ci.alu_op;
    s1_immv_q  <= ci.imm;
    s1_dst_q   <= dst;
    s2_gemm_q  <= s1_gemm_q;
    s2_reset_q <= s1_reset_q;
    s2_op_q    <= s1_op_q;
    s2_dst_q   <= s1_dst_q;
    s2_inp_q   <= inp_i;
    s2_wgt_q   <= wgt_i;
    s2_a_q     <= acc_dst_i;
    s2_b_q     <= s1_imm_q ? immv : acc_src_i;
    s3_dst_q   <= s2_dst_q;
    s3_data_q  <= s2_res;
  end
endmodule
