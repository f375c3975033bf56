// The read DMA of a LOAD (docs/microarchitecture.md §Load), shared by the load module and the
// compute module. Three parts run side by side:
//  - the requester issues the bursts of the data rows in order, the first in the start cycle,
//    at most one per cycle (the arbiter may hold it back);
//  - the receiver writes every element whose last byte arrives in a beat straight into the
//    buffer (data port) and counts the data elements that have arrived;
//  - the filler walks the tile in SRAM order from the cycle after the start, at most
//    G = max(1, BUS_BYTES / element bytes) elements a cycle, writing zeros for padding and
//    passing a data element only once it has arrived (a beat in cycle b is usable in b + 1).
// The LOAD completes in the cycle the filler passes the last element (the start cycle for an
// empty tile); cycles after the start in which the filler waits for data are `stall_dram`.
module weft_read_dma
(
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,      // start a LOAD this cycle
  input  weft_rtl_pkg::mem_insn_t           insn_i,       // valid with start_i
  input  logic [3:0]          log_elem_i,   // log2 of its element bytes
  input  logic [63:0]         dram_base_i,  // byte offset added to every address
  output logic                busy_o,       // a LOAD started earlier is still running
  output logic                done_o,       // the running (or starting, if empty) LOAD completes
  output logic                stall_o,      // the filler waited for data this cycle
  // read address channel (through the arbiter)
  output logic                ar_valid_o,
  output logic [63:0]         ar_addr_o,
  output logic [7:0]          ar_len_o,
  input  logic                ar_grant_i,
  // read data beats for this DMA
  input  logic                r_valid_i,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0] r_data_i,
  // data elements complete in this beat: lanes idx, idx+1, ... (mask), or one slice of one
  // element when elements are wider than a beat
  output logic                wr_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    wr_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]    wr_mask_o,
  output logic [7:0]          wr_slice_o,
  output logic [weft_rtl_pkg::BUS_BITS-1:0] wr_data_o,
  output logic [2:0]          wr_type_o,
  // padding: zero elements pad_idx, pad_idx+1, ... (mask)
  output logic                pad_valid_o,
  output logic [weft_rtl_pkg::IDX_W-1:0]    pad_idx_o,
  output logic [weft_rtl_pkg::LANES-1:0]    pad_mask_o
);
  // ---- the LOAD's parameters, latched at the start ----
  weft_rtl_pkg::mem_insn_t   insn_q;
  logic [3:0]  loge_q, loge_d;
  logic [63:0] base_q;
  logic [31:0] cols_q, cols_d, total_q, total_d;
  logic [3:0]  lanes_log_q, lanes_log_d;  // log2 G

  // ---- requester ----
  logic        ar_act_q, ar_act_d;
  logic [15:0] ar_y_q, ar_y_d;
  logic [63:0] ar_pos_q, ar_pos_d, ar_end_q, ar_end_d, ar_elem_q, ar_elem_d;

  // ---- receiver ----
  logic [15:0] rx_y_q, rx_y_d;
  logic [15:0] rx_j_q, rx_j_d;  // beat within the row
  logic [63:0] rx_addr_q, rx_addr_d, rx_elem_q, rx_elem_d;
  logic [31:0] rx_prev_q, rx_prev_d;  // data elements of the row complete so far
  logic [31:0] rx_sram_q, rx_sram_d;  // on-chip index of the row's first data element
  logic [31:0] arrived_q, arrived_d;  // data elements complete so far

  // ---- filler ----
  logic        fill_q, fill_d;
  logic [31:0] k_q, k_d;  // next element in SRAM order
  logic [31:0] r_q, r_d, c_q, c_d;
  logic [31:0] consumed_q, consumed_d;

  // Start-cycle values derived from the instruction.
  weft_rtl_pkg::mem_insn_t   si;
  logic [3:0]  s_loge;
  logic [31:0] s_rows, s_cols, s_total;
  logic [63:0] s_pos, s_bytes;
  logic        s_has_rows;
  always_comb begin
    si         = insn_i;
    s_loge     = log_elem_i;
    s_rows     = 32'(si.y_pad_0) + 32'(si.y_size) + 32'(si.y_pad_1);
    s_cols     = 32'(si.x_pad_0) + 32'(si.x_size) + 32'(si.x_pad_1);
    s_total    = (si.x_size == 0) ? 32'd0 : s_rows * s_cols;
    s_pos      = dram_base_i + (64'(si.dram_base) << s_loge);
    s_bytes    = 64'(si.x_size) << s_loge;
    s_has_rows = (si.x_size != 0) && (si.y_size != 0);
  end

  // ---- requester: one burst per grant ----
  logic        cur_act;
  logic [63:0] cur_pos, cur_end, lim;
  always_comb begin
    cur_act = start_i ? s_has_rows : ar_act_q;
    cur_pos = start_i ? s_pos : ar_pos_q;
    cur_end = start_i ? s_pos + s_bytes : ar_end_q;
    ar_valid_o = cur_act;
  end
  weft_burst u_burst (.pos_i(cur_pos), .end_i(cur_end), .aligned_o(ar_addr_o), .limit_o(lim),
                      .len_o(ar_len_o));

  always_comb begin
    logic [15:0] y;
    logic [63:0] e, p;
    y = '0;
    e = '0;
    p = '0;
    ar_act_d  = ar_act_q;
    ar_y_d    = ar_y_q;
    ar_pos_d  = ar_pos_q;
    ar_end_d  = ar_end_q;
    ar_elem_d = ar_elem_q;
    if (start_i) begin
      ar_act_d  = s_has_rows;
      ar_y_d    = '0;
      ar_pos_d  = s_pos;
      ar_end_d  = s_pos + s_bytes;
      ar_elem_d = 64'(si.dram_base);
    end
    if (cur_act && ar_grant_i) begin
      if (lim == cur_end) begin
        // the row is fully requested: on to the next data row
        y = (start_i ? 16'd0 : ar_y_q) + 16'd1;
        e = (start_i ? 64'(si.dram_base) : ar_elem_q)
            + (start_i ? 64'(si.x_stride) : 64'(insn_q.x_stride));
        p = (start_i ? dram_base_i : base_q) + (e << (start_i ? s_loge : loge_q));
        ar_y_d    = y;
        ar_elem_d = e;
        ar_pos_d  = p;
        ar_end_d  = p + ((start_i ? 64'(si.x_size) : 64'(insn_q.x_size))
                         << (start_i ? s_loge : loge_q));
        ar_act_d  = y != (start_i ? si.y_size : insn_q.y_size);
      end else begin
        ar_pos_d = lim;
      end
    end
  end

  // ---- receiver ----
  logic [63:0] beat_addr, through_end;
  logic [31:0] through, complete, n_new;
  logic [31:0] row_bytes;
  logic [3:0] first_byte;
  logic [63:0] fb;
  always_comb begin
    row_bytes   = 32'(insn_q.x_size) << loge_q;
    beat_addr   = (rx_addr_q & ~weft_rtl_pkg::BUS_LOW) + (64'(rx_j_q) << weft_rtl_pkg::LOG_BUS);
    through_end = beat_addr + weft_rtl_pkg::BUS_BYTES64 - rx_addr_q;
    through     = (through_end > 64'(row_bytes)) ? row_bytes : 32'(through_end);
    complete    = through >> loge_q;
    n_new       = complete - rx_prev_q;

    wr_valid_o = r_valid_i;
    wr_type_o  = insn_q.mem_type;
    fb         = rx_addr_q + (64'(rx_prev_q) << loge_q);
    first_byte = fb[weft_rtl_pkg::LOG_BUS-1:0];
    if (loge_q <= 4'(weft_rtl_pkg::LOG_BUS)) begin
      wr_idx_o   = rx_sram_q + rx_prev_q;
      wr_mask_o  = weft_rtl_pkg::LANES'((32'd1 << n_new) - 32'd1);
      wr_slice_o = '0;
      wr_data_o  = r_data_i >> ({3'd0, first_byte} * 7'd8);
    end else begin
      wr_idx_o   = rx_sram_q + (32'(rx_j_q) >> (loge_q - 4'(weft_rtl_pkg::LOG_BUS)));
      wr_mask_o  = weft_rtl_pkg::LANES'(1);
      wr_slice_o = 8'(32'(rx_j_q) & ((32'd1 << (loge_q - 4'(weft_rtl_pkg::LOG_BUS))) - 32'd1));
      wr_data_o  = r_data_i;
    end
  end

  always_comb begin
    rx_y_d    = rx_y_q;
    rx_j_d    = rx_j_q;
    rx_addr_d = rx_addr_q;
    rx_elem_d = rx_elem_q;
    rx_prev_d = rx_prev_q;
    rx_sram_d = rx_sram_q;
    arrived_d = arrived_q;
    if (start_i) begin
      rx_y_d    = '0;
      rx_j_d    = '0;
      rx_addr_d = s_pos;
      rx_elem_d = 64'(si.dram_base);
      rx_prev_d = '0;
      rx_sram_d = si.sram_base + 32'(si.y_pad_0) * s_cols + 32'(si.x_pad_0);
      arrived_d = '0;
    end else if (r_valid_i) begin
      arrived_d = arrived_q + n_new;
      if (through == row_bytes) begin
        rx_y_d    = rx_y_q + 16'd1;
        rx_j_d    = '0;
        rx_prev_d = '0;
        rx_elem_d = rx_elem_q + 64'(insn_q.x_stride);
        rx_addr_d = base_q + ((rx_elem_q + 64'(insn_q.x_stride)) << loge_q);
        rx_sram_d = rx_sram_q + cols_q;
      end else begin
        rx_j_d    = rx_j_q + 16'd1;
        rx_prev_d = complete;
      end
    end
  end

  // ---- filler: up to G elements a cycle, in SRAM order ----
  logic [31:0] n_passed;
  always_comb begin
    logic [31:0] k, r, c, cons;
    logic        stop, is_pad;
    is_pad = 1'b0;
    k    = k_q;
    r    = r_q;
    c    = c_q;
    cons = consumed_q;
    stop = !fill_q;
    pad_mask_o = '0;
    n_passed   = '0;
    for (int unsigned l = 0; l < weft_rtl_pkg::LANES; l++) begin
      if (!stop && (l < (32'd1 << lanes_log_q)) && (k < total_q)) begin
        is_pad = (r < 32'(insn_q.y_pad_0)) || (r >= 32'(insn_q.y_pad_0) + 32'(insn_q.y_size)) ||
                 (c < 32'(insn_q.x_pad_0)) || (c >= 32'(insn_q.x_pad_0) + 32'(insn_q.x_size));
        if (is_pad || cons < arrived_q) begin
          if (is_pad) pad_mask_o[l] = 1'b1;
          else cons = cons + 1;
          k = k + 1;
          n_passed = n_passed + 1;
          if (c + 1 == cols_q) begin
            c = 0;
            r = r + 1;
          end else begin
            c = c + 1;
          end
        end else begin
          stop = 1'b1;
        end
      end
    end
    k_d        = k;
    r_d        = r;
    c_d        = c;
    consumed_d = cons;
    pad_valid_o = fill_q && (pad_mask_o != '0);
    pad_idx_o   = insn_q.sram_base + k_q;
    fill_d = fill_q && (k != total_q);
    if (start_i) begin
      k_d        = '0;
      r_d        = '0;
      c_d        = '0;
      consumed_d = '0;
      fill_d     = s_total != 0;
    end
  end

  logic unused_dma;
  assign unused_dma = ^{insn_q, si, fb};

  assign stall_o = fill_q && (n_passed == 0);
  assign done_o  = (fill_q && (k_d == total_q) && !start_i) || (start_i && s_total == 0);
  assign busy_o  = fill_q;

  always_comb begin
    loge_d      = start_i ? s_loge : loge_q;
    cols_d      = start_i ? s_cols : cols_q;
    total_d     = start_i ? s_total : total_q;
    lanes_log_d = lanes_log_q;
    if (start_i) lanes_log_d = (s_loge >= 4'(weft_rtl_pkg::LOG_BUS)) ? 4'd0 : 4'(weft_rtl_pkg::LOG_BUS) - s_loge;
  end

  // Control (asynchronous reset): whether the requester and the filler are active.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_act_q <= 1'b0;
      fill_q   <= 1'b0;
    end else begin
      ar_act_q <= ar_act_d;
      fill_q   <= fill_d;
    end
  end

  // Payload (no reset): the LOAD's parameters (latched at its start) and the positions of the
  // requester, receiver and filler (initialised at its start); read only while a LOAD runs.
  always_ff @(posedge clk_i) begin
    if (start_i) insn_q <= insn_i;
    if (start_i) base_q <= dram_base_i;
    loge_q      <= loge_d;
    cols_q      <= cols_d;
    total_q     <= total_d;
    lanes_log_q <= lanes_log_d;
    ar_y_q      <= ar_y_d;
    ar_pos_q    <= ar_pos_d;
    ar_end_q    <= ar_end_d;
    ar_elem_q   <= ar_elem_d;
    rx_y_q      <= rx_y_d;
    rx_j_q      <= rx_j_d;
    rx_addr_q   <= rx_addr_d;
    rx_elem_q   <= rx_elem_d;
    rx_prev_q   <= rx_prev_d;
    rx_sram_q   <= rx_sram_d;
    arrived_q   <= arrived_d;
    k_q         <= k_d;
    r_q         <= r_d;
    c_q         <= c_d;
    consumed_q  <= consumed_d;
  end
endmodule
